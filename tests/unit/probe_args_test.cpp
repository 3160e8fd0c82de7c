// `rdmactl probe` and `rdmascope-agent` argument parsing.
#include <gtest/gtest.h>

#include "agent/daemon/rails.h"

#include "agent/daemon/agent_options.h"
#include "cli/probe_args.h"
#include "cli/probe_output.h"

namespace rdmascope {
namespace {

TEST(ProbeArgs, FullCommandLine) {
  auto a = cli::ParseProbeArgs({"--transport", "rc", "--device", "rxe0", "--port", "1",
                                "--gid-index", "1", "10.0.0.2:9999", "--count", "50",
                                "--interval-ms", "0", "--json", "--retry-cnt", "3"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->transport, "rc");
  EXPECT_EQ(a->options.device, "rxe0");
  EXPECT_EQ(a->options.host, "10.0.0.2");
  EXPECT_EQ(a->options.control_port, 9999);
  EXPECT_EQ(a->options.gid_index.value(), 1);
  EXPECT_EQ(a->options.count, 50u);
  EXPECT_EQ(a->options.interval_ms, 0u);
  EXPECT_EQ(a->options.tuning.retry_cnt, 3);
  EXPECT_TRUE(a->json);
}

TEST(ProbeArgs, Defaults) {
  auto a = cli::ParseProbeArgs({"host1"});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->transport, "ud");
  EXPECT_EQ(a->options.control_port, probes::kDefaultControlPort);
  EXPECT_FALSE(a->options.gid_index.has_value());
  EXPECT_EQ(a->options.tuning.retry_cnt, 6);
  EXPECT_EQ(a->options.burst, cli::kDefaultProbeBurst);
  EXPECT_EQ(a->options.interval_ms, 10u);
  auto one = cli::ParseProbeArgs({"host1", "--burst", "1"});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->options.burst, 1u);
  EXPECT_FALSE(cli::ParseProbeArgs({"host1", "--burst", "0"}).ok());
  EXPECT_FALSE(cli::ParseProbeArgs({"host1", "--burst", "1001"}).ok());
}

TEST(ProbeArgs, Rejections) {
  EXPECT_FALSE(cli::ParseProbeArgs({}).ok());
  EXPECT_FALSE(cli::ParseProbeArgs({"--transport", "tcp", "h"}).ok());
  EXPECT_FALSE(cli::ParseProbeArgs({"h", "--count", "0"}).ok());
  EXPECT_FALSE(cli::ParseProbeArgs({"h", "--count", "12x"}).ok());
  EXPECT_FALSE(cli::ParseProbeArgs({"h", "--rnr-retry", "7"}).ok());
  EXPECT_FALSE(cli::ParseProbeArgs({"h", "--count"}).ok());
  EXPECT_FALSE(cli::ParseProbeArgs({"h", "other"}).ok());
  EXPECT_FALSE(cli::ParseProbeArgs({"h:0"}).ok());
  EXPECT_FALSE(cli::ParseProbeArgs({"h", "--test-bad-rkey"}).ok());  // needs rc
  EXPECT_FALSE(cli::ParseProbeArgs({"h", "--bogus"}).ok());
}

TEST(ProbeArgs, ProbePath) {
  auto a = cli::ParseProbeArgs({"h", "--probe-traffic-class", "104", "--probe-sl", "3", "--gid-subnet", "10.0.0.0/24"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->options.probe_class.traffic_class, 104);
  EXPECT_EQ(a->options.probe_class.sl, 3);
  EXPECT_EQ(a->options.gid_subnet->text, "10.0.0.0/24");
  EXPECT_FALSE(a->options.gid_index.has_value());
  auto d = cli::ParseProbeArgs({"h"});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->options.probe_class, (probes::ProbeClass{0, 0}));
  EXPECT_FALSE(d->options.gid_subnet.has_value());

  auto tc = cli::ParseProbeArgs({"h", "--probe-traffic-class", "256"});
  ASSERT_FALSE(tc.ok());
  EXPECT_EQ(tc.status().message().rfind("--probe-traffic-class: traffic class must be a number 0..255", 0), 0u)
      << tc.status().message();
  auto sl = cli::ParseProbeArgs({"h", "--probe-sl", "16"});
  ASSERT_FALSE(sl.ok());
  EXPECT_EQ(sl.status().message(), "--probe-sl: service level must be a number 0..15, got '16'");
  EXPECT_FALSE(cli::ParseProbeArgs({"h", "--probe-sl"}).ok());
  EXPECT_FALSE(cli::ParseProbeArgs({"h", "--gid-subnet", "10.0.0.1/24"}).ok());
  auto both = cli::ParseProbeArgs({"h", "--gid-index", "1", "--gid-subnet", "10.0.0.0/24"});
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.status().message(), "give --gid-index or --gid-subnet, not both");
  EXPECT_FALSE(cli::ParseProbeArgs({"h", "--gid-index", "256"}).ok());
  const std::string help = cli::kProbeHelp;
  for (const char* opt : {"--probe-traffic-class", "--probe-sl", "--gid-subnet", "DSCP"})
    EXPECT_NE(help.find(opt), std::string::npos) << opt;
}

TEST(ProbeOutput, ErrorLineNamesTheQps) {
  probes::ProbeError e = probes::WcFailure(12, 0x81, "SEND", 31.25);
  e.local_qpn = 0x11;
  e.remote_qpn = 0x2a;
  const std::string line = cli::ProbeErrorLine(e);
  EXPECT_NE(line.find("RETRY_EXC_ERR (12) on SEND after 31.2 ms (vendor_err 0x81, qpn 0x11 -> 0x2a): "),
            std::string::npos) << line;
  const std::string connect = cli::ProbeErrorLine(probes::ConnectFailure("refused"));
  EXPECT_EQ(connect.find("qpn"), std::string::npos) << connect;  // no QP yet
  EXPECT_NE(connect.find("(vendor_err 0x0): refused"), std::string::npos) << connect;
}

TEST(AgentOptions, ResponderOnlyWithInjection) {
  auto o = agent::ParseAgentOptions({"--responder-only", "--device", "rxe1", "--control-port", "18620", "--inject", "rnr"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_TRUE(o->responder_only);
  EXPECT_EQ(o->responder.devices, std::vector<std::string>{"rxe1"});
  EXPECT_EQ(o->responder.control_port, 18620);
  EXPECT_EQ(o->responder.inject, probes::Injection::kRnr);
  auto d = agent::ParseAgentOptions({"--inject", "drop"});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->responder.inject, probes::Injection::kDrop);
  auto u = agent::ParseAgentOptions({"--inject", "ud-send-error"});
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_EQ(u->responder.inject, probes::Injection::kUdSendError);
  auto c = agent::ParseAgentOptions({"--inject", "ud-cq-overrun"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->responder.inject, probes::Injection::kUdCqOverrun);
  auto bad = agent::ParseAgentOptions({"--inject", "cq"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("ud-cq-overrun"), std::string::npos) << bad.status().message();
  EXPECT_TRUE(d->responder.control_bind.empty());  // default: the rails' addresses
  auto b = agent::ParseAgentOptions({"--control-bind", "192.168.77.2", "--control-bind", "127.0.0.1"});
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->responder.control_bind, (std::vector<std::string>{"192.168.77.2", "127.0.0.1"}));
  EXPECT_FALSE(agent::ParseAgentOptions({"--control-bind"}).ok());
}

TEST(AgentOptions, RcSessionLimits) {
  auto d = agent::ParseAgentOptions({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->responder.rc_limits.cap, 4096u);
  EXPECT_EQ(d->responder.rc_limits.idle_ns, 60000000000ull);
  EXPECT_EQ(d->responder.rc_limits.evict_min_idle_ns, 15000000000ull);
  auto o = agent::ParseAgentOptions({"--rc-idle-timeout", "20", "--rc-max-sessions", "10000"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->responder.rc_limits.idle_ns, 20000000000ull);
  EXPECT_EQ(o->responder.rc_limits.evict_min_idle_ns, 5000000000ull);  // a quarter of it
  EXPECT_EQ(o->responder.rc_limits.cap, 10000u);
  for (const char* bad : {"4", "86401", "x", ""}) {
    auto r = agent::ParseAgentOptions({"--rc-idle-timeout", bad});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--rc-idle-timeout needs a whole number 5..86400"), std::string::npos);
  }
  EXPECT_FALSE(agent::ParseAgentOptions({"--rc-max-sessions", "0"}).ok());
  EXPECT_FALSE(agent::ParseAgentOptions({"--rc-max-sessions"}).ok());
}

TEST(AgentOptions, Rejections) {
  EXPECT_FALSE(agent::ParseAgentOptions({"--inject", "crash"}).ok());
  EXPECT_FALSE(agent::ParseAgentOptions({"--control-port", "70000"}).ok());
  EXPECT_FALSE(agent::ParseAgentOptions({"--device"}).ok());
  EXPECT_FALSE(agent::ParseAgentOptions({"--what"}).ok());
}

}  // namespace
}  // namespace rdmascope

#include "probes/probe_scheduler.h"
#include "probes/prober.h"

namespace rdmascope {
namespace {

TEST(ProbeTarget, Forms) {
  auto a = probes::ParseProbeTarget("node-b=192.168.77.2:18611");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->name, "node-b");
  EXPECT_EQ(a->host, "192.168.77.2");
  EXPECT_EQ(a->control_port, 18611);
  auto b = probes::ParseProbeTarget("hostx");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->name, "hostx");
  EXPECT_EQ(b->control_port, probes::kDefaultControlPort);
  EXPECT_FALSE(probes::ParseProbeTarget("h:0").ok());
  EXPECT_FALSE(probes::ParseProbeTarget("n=").ok());
  EXPECT_FALSE(probes::ParseProbeTarget(":5").ok());
}

TEST(AgentOptions, ProbeTargetsDevicesAndRails) {
  auto o = agent::ParseAgentOptions({"--probe-target", "b=10.0.0.2", "--probe-target", "10.0.0.3:9", "--device",
                                     "rxe0", "--device", "rxe1", "--rail", "r0=rxe0", "--rail", "r1=rxe1/2"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  ASSERT_EQ(o->probe_targets.size(), 2u);
  EXPECT_EQ(o->probe_targets[1].control_port, 9);
  EXPECT_EQ(o->devices, (std::vector<std::string>{"rxe0", "rxe1"}));
  ASSERT_EQ(o->rails.size(), 2u);
  EXPECT_EQ(o->rails[1].name, "r1");
  EXPECT_EQ(o->rails[1].where.device, "rxe1");
  EXPECT_EQ(o->rails[1].where.port, 2);
  EXPECT_EQ(o->rails[0].where.port, 1);
  EXPECT_FALSE(agent::ParseAgentOptions({"--rail", "r0=rxe0", "--rail", "r0=rxe1"}).ok());
  EXPECT_FALSE(agent::ParseAgentOptions({"--rail", "rxe0"}).ok());
  EXPECT_FALSE(agent::ParseAgentOptions({"--rail", "r0=rxe0/0"}).ok());
  // Device names as the kernel allows them: 63 characters at most.
  EXPECT_TRUE(agent::ParseAgentOptions({"--rail", "r0=" + std::string(63, 'd')}).ok());
  auto long_device = agent::ParseAgentOptions({"--rail", "r0=" + std::string(64, 'd')});
  ASSERT_FALSE(long_device.ok());
  EXPECT_NE(long_device.status().message().find("device name must be 1..63"), std::string::npos)
      << long_device.status().message();
  EXPECT_TRUE(agent::ParseAgentOptions({"--rail", std::string(64, 'r') + "=rxe0"}).ok());
  EXPECT_FALSE(agent::ParseAgentOptions({"--probe-device", "rxe0"}).ok());  // removed: --device / --rail
  EXPECT_FALSE(agent::ParseAgentOptions({"--probe-target", "x:99999"}).ok());
}

TEST(Rails, DefaultNamesArePositionsOfTheSortedPorts) {
  using agent::PortRef;
  std::vector<PortRef> known = {{"mlx5_1", 1}, {"mlx5_0", 2}, {"mlx5_0", 1}};
  auto all = agent::ComputeRails(known, {}, {});
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].name, "0");
  EXPECT_EQ(all[0].where, (PortRef{"mlx5_0", 1}));
  EXPECT_EQ(all[2].name, "2");
  EXPECT_EQ(all[2].where, (PortRef{"mlx5_1", 1}));
  auto one = agent::ComputeRails(known, {"mlx5_1"}, {});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].name, "0");  // a single-rail node matches rail 0 of its peers
  // Named rails: only those ports unless --device adds more; names override positions.
  auto named = agent::ComputeRails(known, {}, {{"r0", {"mlx5_1", 1}}, {"r1", {"mlx5_0", 1}}});
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0].name, "r1");
  EXPECT_EQ(named[1].name, "r0");
  // A named port not present (device gone) is still a rail.
  auto absent = agent::ComputeRails({}, {}, {{"r0", {"rxe9", 1}}});
  ASSERT_EQ(absent.size(), 1u);
  auto list = agent::ParseRailList("r0=rxe0, r1=rxe1/1");
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_EQ(list->size(), 2u);
}

TEST(Rails, ALateDeviceRenamesNoOtherRail) {
  using agent::PortRef;
  // Started with rxe1 absent: rxe0 and rxe2 are rails 0 and 1.
  auto before = agent::ComputeRails({{"rxe0", 1}, {"rxe2", 1}}, {}, {});
  ASSERT_EQ(before.size(), 2u);
  EXPECT_EQ(before[1].name, "1");
  EXPECT_EQ(before[1].where, (PortRef{"rxe2", 1}));
  // rxe1 appears: its position's name (1) is rxe2's, so it gets the next free
  // one, and a note says why; rxe0 and rxe2 keep theirs.
  std::vector<std::string> notes;
  auto after = agent::ComputeRails({{"rxe0", 1}, {"rxe1", 1}, {"rxe2", 1}}, {}, {}, before, &notes);
  ASSERT_EQ(after.size(), 3u);
  EXPECT_EQ(after[0].name, "0");
  EXPECT_EQ(after[1].where, (PortRef{"rxe1", 1}));
  EXPECT_EQ(after[1].name, "2");
  EXPECT_EQ(after[2].where, (PortRef{"rxe2", 1}));
  EXPECT_EQ(after[2].name, "1");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("rail 2 = rxe1/1"), std::string::npos) << notes[0];
  // Reconciled again: nothing moves and nothing more is said.
  notes.clear();
  auto again = agent::ComputeRails({{"rxe0", 1}, {"rxe1", 1}, {"rxe2", 1}}, {}, {}, after, &notes);
  ASSERT_EQ(again.size(), 3u);
  for (size_t i = 0; i < again.size(); ++i) EXPECT_EQ(again[i].name, after[i].name);
  EXPECT_TRUE(notes.empty());
  // A fresh start with every device present numbers them by position again.
  auto fresh = agent::ComputeRails({{"rxe0", 1}, {"rxe1", 1}, {"rxe2", 1}}, {}, {});
  EXPECT_EQ(fresh[1].name, "1");
  EXPECT_EQ(fresh[2].name, "2");
}

TEST(Rails, ANamedRailUsingAPositionsNameLeavesNoDuplicate) {
  using agent::PortRef;
  // --rail 0=mlx5_1 --device mlx5_0 --device mlx5_1: mlx5_0's position name
  // (0) is taken by the named rail.
  std::vector<std::string> notes;
  auto rails = agent::ComputeRails({{"mlx5_0", 1}, {"mlx5_1", 1}}, {"mlx5_0", "mlx5_1"},
                                   {{"0", {"mlx5_1", 1}}}, {}, &notes);
  ASSERT_EQ(rails.size(), 2u);
  EXPECT_EQ(rails[0].where, (PortRef{"mlx5_0", 1}));
  EXPECT_EQ(rails[0].name, "1");
  EXPECT_EQ(rails[1].name, "0");
  EXPECT_EQ(notes.size(), 1u);
  // A previous name that a --rail now claims is given up.
  auto later = agent::ComputeRails({{"mlx5_0", 1}, {"mlx5_1", 1}}, {"mlx5_0", "mlx5_1"},
                                   {{"1", {"mlx5_1", 1}}}, {{"1", {"mlx5_0", 1}}});
  ASSERT_EQ(later.size(), 2u);
  EXPECT_NE(later[0].name, later[1].name);
  EXPECT_EQ(later[1].name, "1");
}

TEST(ProbeScheduler, RefusesMissingDevice) {
  probes::SchedulerOptions so;
  EXPECT_FALSE(probes::ProbeScheduler::Start(so).ok());
}

}  // namespace
}  // namespace rdmascope

namespace rdmascope {
namespace {

TEST(ChooseEndpoint, ARailPicksItsRoutableGid) {
  probes::UdInfoReply info;
  auto ep = [](const char* dev, const char* gid, const char* rail) {
    probes::UdEndpointInfo e;
    e.device = dev;
    e.gid = gid;
    e.roce = true;
    e.rail = rail;
    return e;
  };
  info.endpoints = {ep("rxe2", "fe80::5054:ff:fe77:3", "r0"), ep("rxe2", "::ffff:192.168.77.3", "r0"),
                    ep("rxe3", "fe80::5054:ff:fe77:4", "r1"), ep("rxe3", "::ffff:192.168.77.4", "r1")};
  probes::LocalPort local;
  local.roce = true;
  auto r1 = probes::ChooseEndpoint(info, "192.168.77.3", local, "r1");
  ASSERT_TRUE(r1.ok()) << r1.status().message();
  EXPECT_EQ(r1->gid, "::ffff:192.168.77.4");  // the rail wins over the host's address
  EXPECT_FALSE(probes::ChooseEndpoint(info, "192.168.77.3", local, "r7").ok());
  // A target without rail names (an older agent, --responder-only): by host address.
  for (auto& e : info.endpoints) e.rail.clear();
  auto legacy = probes::ChooseEndpoint(info, "192.168.77.3", local, "r1");
  ASSERT_TRUE(legacy.ok());
  EXPECT_EQ(legacy->gid, "::ffff:192.168.77.3");
}

}  // namespace
}  // namespace rdmascope
