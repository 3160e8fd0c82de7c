// The verbs objects one local port's probers share for as long as the rail
// is probed: device context, protection domain, and the port's description.
//
// Contract: OpenRailDevice() opens the device, describes the port (it must
// be ACTIVE) and allocates a PD; its error names the failing verb. Holders
// keep it through a shared_ptr, so it outlives every QP, CQ, MR and AH built
// on it (they are destroyed before their last holder lets go). After a device
// error the owner of the rail drops it and opens a new one (RailDeviceSlot).
// The context's QP and CQ failure events (QP_FATAL, CQ_ERR, ...) are read on
// a thread of its own (probes/context_events.h) and kept, at most
// kMaxFailureEvents (the oldest go first), until the owner of that QP or CQ
// takes them (TakeFailure) and builds its session again; a context whose
// reader cannot start is used all the same (failed QPs still show in their
// completions).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "probes/context_events.h"
#include "probes/local_port.h"
#include "probes/verbs_resources.h"

namespace rdmascope::probes {

struct RailDevice {
  static constexpr size_t kMaxFailureEvents = 64;
  ContextPtr ctx;
  PdPtr pd;       // declared after ctx: deallocated first
  LocalPort local;

  // The number the context's next event will get (ContextEventReader::
  // NextSeq; 0 without a reader). A session notes it before it creates its
  // QP and CQ.
  uint64_t EventSeq() const { return reader ? reader->NextSeq() : 0; }
  // A failure event of QP `qpn` or CQ `cq` numbered `since_seq` or later,
  // taken out; nullopt when there is none. Kept events naming them with a
  // lower number are of an earlier object with the same QPN or address:
  // they are dropped (thread-safe).
  std::optional<ContextEvent> TakeFailure(uint32_t qpn, const ibv_cq* cq, uint64_t since_seq);
  // The reader's callback: keeps a QP or CQ failure event; a last event
  // (DEVICE_FATAL, removal) marks the device dead.
  void Keep(const ContextEvent& e);
  // True once the context reported DEVICE_FATAL or was removed: the rail's
  // slot opens the device again (RailDeviceSlot::Acquire).
  bool dead() const { return dead_.load(); }

 private:
  std::mutex failures_mu_;
  std::vector<ContextEvent> failures_;  // under failures_mu_
  std::atomic<bool> dead_{false};
 public:
  std::unique_ptr<ContextEventReader> reader;  // declared last: its thread ends before the rest goes
};

Result<std::shared_ptr<RailDevice>> OpenRailDevice(const std::string& device, int port,
                                                   std::optional<int> gid_index,
                                                   const std::optional<Ipv4Subnet>& gid_subnet = std::nullopt);

// One rail's current RailDevice, shared by the rail's probers (thread-safe).
// Acquire() opens it on first use. At most once a second, and at the first
// Acquire() after Recheck(d) of the current one, it describes the port again
// and opens a new RailDevice when the chosen GID changed (RoCE GIDs follow
// the netdev's addresses: after a link flap the IPv4-mapped one comes back a
// little after the port is ACTIVE) or the port cannot be described any more
// (the device failed or went away), or at once when the device reported
// DEVICE_FATAL or its removal; holders then rebuild on the new one. A
// prober whose own session failed asks for Recheck(), never for a new
// device: one bad target costs only its own session, not the rail's. A
// Recheck of a RailDevice that is not the current one does nothing.
class RailDeviceSlot {
 public:
  RailDeviceSlot(std::string device, int port, std::optional<int> gid_index,
                 std::optional<Ipv4Subnet> gid_subnet = std::nullopt)
      : device_(std::move(device)), port_(port), gid_index_(gid_index), gid_subnet_(std::move(gid_subnet)) {}
  Result<std::shared_ptr<RailDevice>> Acquire();
  void Recheck(const std::shared_ptr<RailDevice>& d);

 private:
  const std::string device_;
  const int port_;
  const std::optional<int> gid_index_;
  const std::optional<Ipv4Subnet> gid_subnet_;
  std::mutex mu_;
  std::shared_ptr<RailDevice> current_;
  uint64_t checked_ns_ = 0;  // when current_'s port was last described
};

}  // namespace rdmascope::probes
