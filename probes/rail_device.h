// The verbs objects one local port's probers share for as long as the rail
// is probed: device context, protection domain, and the port's description.
//
// Contract: OpenRailDevice() opens the device, describes the port (it must
// be ACTIVE) and allocates a PD; its error names the failing verb. Holders
// keep it through a shared_ptr, so it outlives every QP, CQ, MR and AH built
// on it (they are destroyed before their last holder lets go). After a device
// error the owner of the rail drops it and opens a new one (RailDeviceSlot).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "common/status.h"
#include "probes/local_port.h"
#include "probes/verbs_resources.h"

namespace rdmascope::probes {

struct RailDevice {
  ContextPtr ctx;
  PdPtr pd;       // declared after ctx: deallocated first
  LocalPort local;
};

Result<std::shared_ptr<RailDevice>> OpenRailDevice(const std::string& device, int port,
                                                   std::optional<int> gid_index,
                                                   const std::optional<Ipv4Subnet>& gid_subnet = std::nullopt);

// One rail's current RailDevice, shared by the rail's probers (thread-safe).
// Acquire() opens it on first use and after Invalidate(); Invalidate(d) drops
// `d` only if it is still the current one, so a late report about an old
// device does not throw away a fresh one. At most once a second Acquire()
// also describes the port again and opens a new RailDevice when the chosen
// GID changed (RoCE GIDs follow the netdev's addresses: after a link flap the
// IPv4-mapped one comes back a little after the port is ACTIVE) or the port
// cannot be described any more; holders then rebuild on the new one.
class RailDeviceSlot {
 public:
  RailDeviceSlot(std::string device, int port, std::optional<int> gid_index,
                 std::optional<Ipv4Subnet> gid_subnet = std::nullopt)
      : device_(std::move(device)), port_(port), gid_index_(gid_index), gid_subnet_(std::move(gid_subnet)) {}
  Result<std::shared_ptr<RailDevice>> Acquire();
  void Invalidate(const std::shared_ptr<RailDevice>& d);

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
