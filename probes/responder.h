// The agent's responder: UD echo QPs on every active port of the chosen
// devices, and the control port that hands out UD endpoints and builds RC
// sessions on request.
//
// Contract: Start() opens the devices (all of them when `device` is empty),
// creates one UD QP per active port (listing each of its RoCE v2 GIDs in
// ud_info; on InfiniBand the port's GID 0 and LID), starts one thread per UD
// QP and the control server, and returns once all of them accept traffic.
// Each device also registers a small read-only buffer (kReadBufferBytes) that
// RC probers RDMA READ. Stop() (also the destructor) ends every thread.
// A control connection must send its first request within 5 s; requests are
// answered until the peer closes, except rc_connect, which keeps the
// connection for the RC session's lifetime.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "probes/control_protocol.h"
#include "probes/line_socket.h"

namespace rdmascope::probes {

constexpr int kDefaultControlPort = 18610;
constexpr uint32_t kReadBufferBytes = 64;

class ControlServer;

enum class Injection { kNone, kRnr, kDrop };

struct ResponderOptions {
  std::string device;  // empty: every device
  int control_port = kDefaultControlPort;
  Injection inject = Injection::kNone;
};

class Responder {
 public:
  static Result<std::unique_ptr<Responder>> Start(const ResponderOptions& opts);
  ~Responder();
  void Stop();

  UdInfoReply UdInfo() const { return ud_info_; }

 private:
  struct DeviceState;
  Responder() = default;
  void HandleConnection(LineConn& conn, const std::atomic<bool>& stop);
  std::string HandleRcConnect(LineConn& conn, const RcConnectRequest& req,
                              const std::atomic<bool>& stop, bool* served);

  ResponderOptions opts_;
  std::vector<std::unique_ptr<DeviceState>> devices_;
  UdInfoReply ud_info_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> ud_threads_;
  std::unique_ptr<ControlServer> server_;
};

}  // namespace rdmascope::probes
