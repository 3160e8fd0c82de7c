// What the ud_info tests share: a multi-rail dual-stack node's 64 endpoints,
// the largest rc_connect reply, and a control server on 127.0.0.1 running the
// agent's connection code (ServeControlConnection) over such a fixture.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "probes/control_protocol.h"
#include "probes/control_server.h"
#include "probes/control_session.h"
#include "probes/line_socket.h"
#include "probes/local_port.h"

namespace rdmascope::probes {

inline constexpr uint64_t kSecond = 1000000000ull;

// A multi-rail dual-stack node: 8 devices x 2 ports, each port with its
// IPv4-mapped, link-local, global and temporary IPv6 RoCE v2 GIDs = 64.
inline UdInfoReply SixtyFourEndpoints(uint32_t qpn_base = 0x1000) {
  UdInfoReply r;
  for (int dev = 0; dev < 8; ++dev) {
    for (int port = 1; port <= 2; ++port) {
      const int rail = dev * 2 + port - 1;
      const std::string hex = std::to_string(10 + rail);
      const std::string gids[4] = {
          "::ffff:10.20." + std::to_string(rail) + ".17",
          "fe80::a2b3:c4ff:fed5:e6" + hex,
          "2001:db8:4000:" + hex + ":a2b3:c4ff:fed5:e6f7",
          "2001:db8:4000:" + hex + ":9c1e:72a4:5b3d:8e" + hex,
      };
      for (int g = 0; g < 4; ++g) {
        UdEndpointInfo e;
        e.device = "mlx5_" + std::to_string(dev);
        e.port = port;
        e.gid_index = 3 + g;
        e.gid = gids[g];
        e.lid = 0;
        e.qpn = qpn_base + uint32_t(rail);
        e.roce = true;
        e.rail = "rail" + std::to_string(rail);
        r.endpoints.push_back(e);
      }
    }
  }
  return r;
}

inline void ExpectSameEndpoints(const std::vector<UdEndpointInfo>& got, const std::vector<UdEndpointInfo>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].device, want[i].device) << i;
    EXPECT_EQ(got[i].port, want[i].port) << i;
    EXPECT_EQ(got[i].gid_index, want[i].gid_index) << i;
    EXPECT_EQ(got[i].gid, want[i].gid) << i;
    EXPECT_EQ(got[i].lid, want[i].lid) << i;
    EXPECT_EQ(got[i].qpn, want[i].qpn) << i;
    EXPECT_EQ(got[i].roce, want[i].roce) << i;
    EXPECT_EQ(got[i].rail, want[i].rail) << i;
  }
}

// The largest rc_connect reply there is: every number at its maximum.
inline RcConnectReply LargestRcReply() {
  RcConnectReply r;
  r.responder.qpn = 0xffffff;
  r.responder.psn = 0xffffff;
  r.responder.lid = 0xffff;
  r.responder.gid = *GidFromString("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
  r.responder.global = true;
  r.responder.mtu_bytes = 4096;
  r.read_addr = UINT64_MAX;
  r.read_rkey = 0xffffffff;
  r.read_len = 1 << 20;
  r.idle_timeout_ms = 86400000;
  return r;
}

// A control server on 127.0.0.1 running the agent's connection code over a
// fixture: each ud_info snapshot is `make(n)` for the n-th snapshot taken;
// rc_connect answers `rc_reply` (or `rc_error`) and keeps the request.
struct FixtureAgent {
  std::function<UdInfoReply(int)> make = [](int) { return SixtyFourEndpoints(); };
  std::string secret;
  std::string rc_error;
  std::mutex mu;
  int snapshots = 0;
  std::vector<RcConnectRequest> rc_requests;
  std::unique_ptr<ControlServer> server;

  void Start() {
    ControlServices services;
    services.ud_info = [this]() -> std::shared_ptr<const UdInfoReply> {
      std::lock_guard<std::mutex> lock(mu);
      return std::make_shared<const UdInfoReply>(make(snapshots++));
    };
    services.rc_connect = [this](const RcConnectRequest& req) -> Result<std::string> {
      std::lock_guard<std::mutex> lock(mu);
      rc_requests.push_back(req);
      if (!rc_error.empty()) return Status::Error(rc_error);
      return EncodeRcConnectReply(LargestRcReply());
    };
    const ControlSessionOptions session{secret, true};
    auto s = ControlServer::Start(0, [services, session](LineConn& c, const std::atomic<bool>& stop) {
      ServeControlConnection(c, stop, session, services);
    }, {"127.0.0.1"});
    ASSERT_TRUE(s.ok()) << s.status().message();
    server = std::move(s).value();
  }
  int port() const { return server->port(); }
};

inline LineConn Connect(int port) {
  auto fd = TcpConnect("127.0.0.1", port, 2000);
  EXPECT_TRUE(fd.ok()) << fd.status().message();
  return LineConn(fd.ok() ? std::move(fd).value() : UniqueFd());
}

}  // namespace rdmascope::probes
