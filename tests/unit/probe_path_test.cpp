// Probe path: traffic class / SL / GID-subnet parsing, the attribute values
// that reach ibv_create_ah and ibv_modify_qp, the rc_connect fields that carry
// the class to the responder, and error records (QPNs, time since post, stop).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>

#include "probes/control_protocol.h"
#include "probes/local_port.h"
#include "probes/probe_json.h"
#include "probes/probe_path.h"
#include "probes/probe_scheduler.h"
#include "probes/prober.h"
#include "probes/qp_setup.h"

namespace rdmascope::probes {
namespace {

ibv_gid Mapped(const std::string& ipv4) { return Ipv4MappedGid(ipv4).value(); }

TEST(ProbePath, TrafficClassRange) {
  EXPECT_EQ(ParseTrafficClass("0").value(), 0);
  EXPECT_EQ(ParseTrafficClass("104").value(), 104);
  EXPECT_EQ(ParseTrafficClass("255").value(), 255);
  for (const char* bad : {"256", "-1", "", " 5", "1e2", "0x68", "1000"}) {
    auto r = ParseTrafficClass(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("0..255"), std::string::npos) << r.status().message();
  }
}

TEST(ProbePath, ServiceLevelRange) {
  EXPECT_EQ(ParseServiceLevel("15").value(), 15);
  auto r = ParseServiceLevel("16");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "service level must be a number 0..15, got '16'");
  EXPECT_FALSE(ValidateProbeClass({256, 0}).ok());
  EXPECT_FALSE(ValidateProbeClass({0, 16}).ok());
  EXPECT_FALSE(ValidateProbeClass({-1, 0}).ok());
  EXPECT_TRUE(ValidateProbeClass({255, 15}).ok());
}

TEST(ProbePath, SubnetParsing) {
  auto s = ParseIpv4Subnet("10.0.0.0/24");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->prefix_len, 24);
  EXPECT_EQ(s->network, 0x0a000000u);
  EXPECT_EQ(s->text, "10.0.0.0/24");
  EXPECT_TRUE(ParseIpv4Subnet("0.0.0.0/0").ok());
  EXPECT_TRUE(ParseIpv4Subnet("192.168.77.2/32").ok());
  auto host_bits = ParseIpv4Subnet("10.0.0.7/24");
  ASSERT_FALSE(host_bits.ok());
  EXPECT_NE(host_bits.status().message().find("host bits"), std::string::npos);
  for (const char* bad : {"10.0.0.0", "10.0.0.0/33", "10.0.0/24", "fe80::/64", "10.0.0.0/", "/24"})
    EXPECT_FALSE(ParseIpv4Subnet(bad).ok()) << bad;
}

TEST(ProbePath, GidInSubnetNeedsAnIpv4MappedGidInside) {
  auto net = ParseIpv4Subnet("192.168.77.0/24").value();
  EXPECT_TRUE(GidInSubnet(Mapped("192.168.77.2"), net));
  EXPECT_FALSE(GidInSubnet(Mapped("192.168.78.2"), net));
  EXPECT_FALSE(GidInSubnet(GidFromString("fe80::5054:ff:fe12:3456").value(), net));
  EXPECT_TRUE(GidInSubnet(Mapped("8.8.8.8"), ParseIpv4Subnet("0.0.0.0/0").value()));
}

TEST(ProbePath, PickGidInSubnetTakesTheFirstMatchAndListsTheRestOnError) {
  const std::vector<std::pair<int, ibv_gid>> gids = {
      {1, GidFromString("fe80::1").value()}, {3, Mapped("10.0.1.5")}, {5, Mapped("10.0.0.9")}, {7, Mapped("10.0.0.10")}};
  EXPECT_EQ(PickGidInSubnet(gids, ParseIpv4Subnet("10.0.0.0/24").value()).value(), 5);
  EXPECT_EQ(PickGidInSubnet(gids, ParseIpv4Subnet("10.0.1.0/24").value()).value(), 3);
  auto none = PickGidInSubnet(gids, ParseIpv4Subnet("172.16.0.0/12").value());
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("172.16.0.0/12"), std::string::npos) << none.status().message();
  EXPECT_NE(none.status().message().find("3:::ffff:10.0.1.5"), std::string::npos) << none.status().message();
}

TEST(ProbePath, SettingsByName) {
  ProbePathSettings s;
  EXPECT_TRUE(ApplyProbePathSetting("probe-traffic-class", "104", &s).ok());
  EXPECT_TRUE(ApplyProbePathSetting("probe_sl", "3", &s).ok());
  EXPECT_TRUE(ApplyProbePathSetting("gid-subnet", "10.0.0.0/8", &s).ok());
  EXPECT_EQ(s.traffic_class.value(), 104);
  EXPECT_EQ(s.sl.value(), 3);
  EXPECT_EQ(s.gid_subnet->text, "10.0.0.0/8");
  EXPECT_TRUE(ValidateProbePathSettings(s).ok());
  EXPECT_TRUE(ApplyProbePathSetting("gid_index", "3", &s).ok());
  EXPECT_FALSE(ValidateProbePathSettings(s).ok());  // pinned twice
  EXPECT_FALSE(ApplyProbePathSetting("gid_index", "256", &s).ok());
  EXPECT_FALSE(ApplyProbePathSetting("traffic_class", "1", &s).ok());  // not a setting name
  EXPECT_FALSE(IsProbePathSetting("probe_count"));

  SchedulerOptions so;
  ApplyProbePath(s, &so);
  EXPECT_EQ(so.probe_class.traffic_class, 104);
  EXPECT_EQ(so.probe_class.sl, 3);
  EXPECT_EQ(so.gid_index.value(), 3);
}

// The values that reach ibv_create_ah (UD) and ibv_modify_qp (RC RTR).
TEST(ProbePath, AddressHandleCarriesTheClass) {
  RemoteEndpoint roce;
  roce.global = true;
  roce.gid = Mapped("192.168.77.2");
  roce.lid = 0;
  ibv_ah_attr ah = MakeAhAttr(roce, 1, 3, ProbeClass{104, 5});
  EXPECT_EQ(ah.is_global, 1);
  EXPECT_EQ(ah.grh.traffic_class, 104);
  EXPECT_EQ(ah.grh.sgid_index, 3);
  EXPECT_EQ(ah.sl, 5);
  EXPECT_EQ(ah.port_num, 1);
  EXPECT_EQ(0, std::memcmp(ah.grh.dgid.raw, roce.gid.raw, 16));

  RemoteEndpoint ib;  // local InfiniBand subnet: no GRH, the SL picks the lane
  ib.lid = 7;
  ah = MakeAhAttr(ib, 2, 0, ProbeClass{104, 9});
  EXPECT_EQ(ah.is_global, 0);
  EXPECT_EQ(ah.grh.traffic_class, 0);
  EXPECT_EQ(ah.sl, 9);
  EXPECT_EQ(ah.dlid, 7);

  ah = MakeAhAttr(roce, 1, 3);  // default class
  EXPECT_EQ(ah.grh.traffic_class, 0);
  EXPECT_EQ(ah.sl, 0);
}

TEST(ProbePath, RcPathCarriesTheClass) {
  RemoteEndpoint r;
  r.global = true;
  r.gid = Mapped("192.168.77.3");
  r.qpn = 0x123;
  r.psn = 0x1000042;  // masked to 24 bits
  r.mtu_bytes = 4096;
  RcTuning tuning;
  tuning.min_rnr_timer = 14;
  QpTransition t = RcRtrAttr(1, 2, r, tuning, ProbeClass{104, 0});
  EXPECT_EQ(t.attr.qp_state, IBV_QPS_RTR);
  EXPECT_TRUE(t.mask & IBV_QP_AV);
  EXPECT_EQ(t.attr.ah_attr.grh.traffic_class, 104);
  EXPECT_EQ(t.attr.ah_attr.grh.sgid_index, 2);
  EXPECT_EQ(t.attr.ah_attr.is_global, 1);
  EXPECT_EQ(t.attr.dest_qp_num, 0x123u);
  EXPECT_EQ(t.attr.rq_psn, 0x42u);
  EXPECT_EQ(t.attr.path_mtu, IBV_MTU_4096);
  EXPECT_EQ(t.attr.min_rnr_timer, 14);
  EXPECT_EQ(RcRtrAttr(1, 2, r, tuning).attr.ah_attr.grh.traffic_class, 0);
}

// rc_connect carries the class so the responder's echoes and ACKs ride it.
TEST(ProbePath, RcConnectCarriesTheClass) {
  RcConnectRequest req;
  req.prober.gid = Mapped("192.168.77.2");
  req.prober.global = true;
  req.prober.qpn = 77;
  req.probe_class = {104, 4};
  auto parsed = ParseControlRequest(EncodeRcConnectRequest(req));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->rc.probe_class.traffic_class, 104);
  EXPECT_EQ(parsed->rc.probe_class.sl, 4);

  // An older prober sends neither field: class 0.
  const std::string old =
      R"({"op":"rc_connect","qpn":1,"psn":1,"lid":0,"mtu":1024,"global":true,"gid":"::ffff:10.0.0.1",)"
      R"("timeout":12,"retry_cnt":6,"rnr_retry":3,"min_rnr_timer":12})";
  auto o = ParseControlRequest(old);
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->rc.probe_class, (ProbeClass{0, 0}));

  std::string too_big = old;
  too_big.insert(too_big.size() - 1, R"(,"traffic_class":256)");
  auto b = ParseControlRequest(too_big);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("traffic_class"), std::string::npos);
  std::string bad_sl = old;
  bad_sl.insert(bad_sl.size() - 1, R"(,"sl":16)");
  EXPECT_FALSE(ParseControlRequest(bad_sl).ok());
  std::string neg = old;
  neg.insert(neg.size() - 1, R"(,"sl":-1)");
  EXPECT_FALSE(ParseControlRequest(neg).ok());
}

TEST(ProbeErrors, RecordsCarryQpnsAndTimeSincePost) {
  ProbeRun run;
  ProberOptions o;
  run.local_qpn = 0x11;
  run.remote_qpn = 0x22;
  EXPECT_TRUE(RecordError(run, o, WcFailure(IBV_WC_RETRY_EXC_ERR, 129, "SEND", 31.25)));
  ASSERT_EQ(run.errors.size(), 1u);
  const ProbeError& e = run.errors[0];
  EXPECT_EQ(e.local_qpn, 0x11u);
  EXPECT_EQ(e.remote_qpn, 0x22u);
  EXPECT_DOUBLE_EQ(e.since_post_us.value(), 31250.0);
  auto j = ErrorToJson(e);
  EXPECT_EQ(j["local_qpn"], 0x11);
  EXPECT_EQ(j["remote_qpn"], 0x22);
  EXPECT_EQ(j["opcode"], "SEND");
  EXPECT_DOUBLE_EQ(j["since_post_us"].get<double>(), 31250.0);

  ProbeRun fresh;  // a connect failure: no QP yet, nothing posted
  EXPECT_TRUE(RecordError(fresh, o, ConnectFailure("control port: refused")));
  auto c = ErrorToJson(fresh.errors[0]);
  EXPECT_TRUE(c["local_qpn"].is_null());
  EXPECT_TRUE(c["remote_qpn"].is_null());
  EXPECT_TRUE(c["since_post_us"].is_null());
  EXPECT_DOUBLE_EQ(DeadlineFailure("RECV", 2.0).since_post_us.value(), 2000.0);
}

TEST(ProbeErrors, AStopIsNotAnError) {
  std::atomic<bool> stop{false};
  ProberOptions o;
  o.stop = &stop;
  int seen = 0;
  o.on_error = [&](const ProbeError&) { ++seen; };
  ProbeRun run;
  EXPECT_TRUE(RecordError(run, o, WcFailure(IBV_WC_WR_FLUSH_ERR, 0, "RECV", 1)));  // not stopping: recorded
  stop = true;
  EXPECT_FALSE(RecordError(run, o, WcFailure(IBV_WC_WR_FLUSH_ERR, 0, "RECV", 1)));
  EXPECT_FALSE(RecordError(run, o, DeadlineFailure("RECV", 1)));
  EXPECT_FALSE(RecordError(run, o, ConnectFailure("control port (rc_connect): stopped")));
  EXPECT_EQ(run.errors.size(), 1u);
  // A real failure that completes while stopping is still reported.
  EXPECT_TRUE(RecordError(run, o, WcFailure(IBV_WC_REM_ACCESS_ERR, 0, "RDMA_READ", 1)));
  EXPECT_EQ(run.errors.size(), 2u);
  EXPECT_EQ(seen, 2);
}

}  // namespace
}  // namespace rdmascope::probes
