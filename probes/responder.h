// The agent's responder: UD echo QPs on the served ports, and the control
// port that hands out UD endpoints and builds RC sessions on request.
//
// Contract: StartIdle() starts the control server only (it answers ud_info
// with no endpoints until Serve()). Serve(ports) changes the served set port
// by port: a port that stays listed and ACTIVE on a device of the same epoch
// keeps its UD QP (QPN), its thread and its device's RC sessions, whatever
// else changed (its GIDs, other ports, other devices). A port no longer
// listed or no longer ACTIVE has its UD thread joined and its QP destroyed; a
// device with no listed port, or listed under another epoch (it went away
// and came back), is released with its RC sessions before anything is
// opened; a listed port not yet served gets a new UD QP. ud_info is then
// listed again from every served port (each of its RoCE v2 GIDs, tagged with
// the port's rail, IPv4-mapped GIDs of every port first: OrderUdEndpoints;
// on InfiniBand the port's GID 0 and LID). A port or device that fails is
// left out and named in the returned messages; nothing is fatal. Each device
// also registers a small read-only buffer (kReadBufferBytes) that RC probers
// RDMA READ. Start() is StartIdle() plus Serve() of every ACTIVE port of
// `device` (every device when empty), and fails when none is ACTIVE. Stop()
// (also the destructor) ends every thread.
// A control connection is a setup served by ServeControlConnection
// (probes/control_session.h: deadlines, request cap, ud_info pages from one
// snapshot per connection); ud_info lists at most kMaxUdEndpoints endpoints
// (more are left out and named in Serve()'s messages). rc_connect's reply
// ends the connection. The RC session outlives it (probes/rc_responder.h): it ends
// after rc_limits.idle_ns without a probe, when its QP fails, when the same
// prober session connects again, or by oldest-idle eviction at
// rc_limits.cap sessions; a full table is refused with an error naming the cap.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "probes/adaptive_spin.h"
#include "probes/control_protocol.h"
#include "probes/line_socket.h"
#include "probes/rc_session_table.h"
#include "probes/ud_responder.h"

namespace rdmascope::probes {

constexpr int kDefaultControlPort = 18610;
constexpr uint32_t kReadBufferBytes = 64;
constexpr size_t kMaxPendingEvents = 256;

class ControlServer;

// Fault injection for self-tests: kRnr, no RC receive is ever posted; kDrop,
// UD probes are received and not echoed; kUdSendError, each UD responder's
// 10th echo fails (probes/ud_responder.h) and the QP must recover;
// kUdCqOverrun, each served port's first UD responder leaves its small CQ
// unpolled once 10 probes came within 100 ms (a prober's burst), the CQ
// overruns, the device raises CQ_ERR and the responder must be built again
// (UdResponderFaults::stall_burst).
enum class Injection { kNone, kRnr, kDrop, kUdSendError, kUdCqOverrun };

struct ServedPort {
  std::string device;
  int port = 1;
  std::string rail;  // reported in ud_info so probers find the same rail
  // The caller's count of the device's comings: a device listed under a new
  // epoch is opened again (it was deleted and added, its old context is dead).
  uint64_t epoch = 0;
};

struct ResponderOptions {
  std::vector<std::string> devices;  // every --device; empty: every device
  int control_port = kDefaultControlPort;
  Injection inject = Injection::kNone;
  ResponderSpin spin;  // hot window of the UD and RC responders after each completion
  // Numeric addresses the control port listens on. Empty: the IPv4
  // addresses of the RoCE v2 GIDs of the served devices' ACTIVE ports
  // (every one of `devices`, or every device), plus `extra_bind`; every IPv4
  // address only when none is found (an InfiniBand-only node), said on
  // stderr. Of these defaults, an address that cannot be bound (gone since,
  // or taken) is said on stderr and left out; the start fails only when none
  // can. An address given in control_bind must bind.
  std::vector<std::string> control_bind;
  std::vector<std::string> extra_bind;
  // Fleet secret (probes/control_auth.h): set, every control connection must
  // authenticate before ud_info or rc_connect; the agent's probers use it too.
  std::string control_secret;
  // With a secret: strict refuses peers that do not authenticate (protocol
  // v2 only); lenient (false) also serves them, for an upgrade or rollout.
  bool control_strict = true;
  // RC sessions: at most rc_limits.cap at once; each ends after
  // rc_limits.idle_ns without a probe.
  RcSessionLimits rc_limits;
};

// The default control-port addresses (see ResponderOptions::control_bind) of
// `devices` (empty: every device), in device order, each once.
std::vector<std::string> DefaultControlAddresses(const std::vector<std::string>& devices);

class Responder {
 public:
  static Result<std::unique_ptr<Responder>> Start(const ResponderOptions& opts);
  static Result<std::unique_ptr<Responder>> StartIdle(const ResponderOptions& opts);
  ~Responder();
  std::vector<std::string> Serve(const std::vector<ServedPort>& ports);
  // Acts on the devices' QP and CQ async events read since the last call
  // (each device's context has a reader, probes/context_events.h; events
  // older than the QP or CQ they name are of an earlier object and ignored):
  // a UD responder's QP checks its state and recovers, its failed CQ stops
  // it (both become its events); an RC session's failed QP is said on stderr
  // (the session ends with its failed completions), an RC shard's failed CQ
  // ends the shard's sessions (their probers connect again). Then builds again
  // every UD responder that stopped by itself (its recovery failed, or its CQ:
  // probes/ud_responder.h), with a new QPN, and lists it; returns what could
  // not be built. Called by the owner's supervision, once a second.
  std::vector<std::string> Heal();
  // The UD responders' events (failures, recoveries, rebuilds) since the
  // previous call, oldest first; at most kMaxPendingEvents are kept.
  std::vector<ResponderEvent> TakeEvents();
  void Stop();

  UdInfoReply UdInfo() const;
  // RC sessions alive now (all devices).
  size_t rc_sessions() const;
  // The TCP port the control server listens on (useful with control_port 0).
  int control_port() const;

 private:
  struct PortState;
  struct DeviceState;
  struct Served;
  Responder() = default;
  std::shared_ptr<const Served> Current() const;
  // Under serve_mu_: the device opened with its PD, read buffer and RC pool
  // (no ports yet), or null with the reason in `problems`.
  std::shared_ptr<DeviceState> OpenServedDevice(const std::string& name, uint64_t epoch,
                                                std::vector<std::string>* problems) const;
  // Under serve_mu_: the endpoints and ud_info of every served port, as they are now.
  std::shared_ptr<const Served> Listing(std::vector<std::string>* problems) const;
  // A UD responder on `port` of `d`, with the options' injection.
  Result<std::unique_ptr<UdResponder>> CreateUd(const DeviceState& d, int port) const;
  // Under serve_mu_: the async events `d`'s reader queued, acted on (Heal()).
  void ActOnAsyncEvents(DeviceState& d);
  // Makes `served` what the control port hands out (unless stopped).
  void Publish(std::shared_ptr<const Served> served);
  // The rc_connect reply line, or the error for the prober.
  Result<std::string> HandleRcConnect(const RcConnectRequest& req, const Served& served);

  ResponderOptions opts_;
  mutable std::mutex mu_;
  std::shared_ptr<const Served> served_;  // under mu_; null once stopped
  std::mutex serve_mu_;  // one Serve() or Stop() at a time
  std::map<std::string, std::shared_ptr<DeviceState>> devices_;  // under serve_mu_
  std::vector<ResponderEvent> events_;  // under serve_mu_: of ports since stopped or rebuilt
  mutable std::set<std::string> overrun_injected_;  // under serve_mu_: "device/port" given kUdCqOverrun
  // Under serve_mu_: moves the events of `p`'s UD responder into events_.
  void KeepEvents(PortState& p);
  std::unique_ptr<ControlServer> server_;
};

}  // namespace rdmascope::probes
