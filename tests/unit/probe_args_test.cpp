// `rdmactl probe` and `rdmascope-agent` argument parsing.
#include <gtest/gtest.h>

#include "agent/agent_options.h"
#include "cli/probe_args.h"

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

TEST(AgentOptions, ResponderOnlyWithInjection) {
  auto o = agent::ParseAgentOptions({"--responder-only", "--device", "rxe1", "--control-port", "18620", "--inject", "rnr"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_TRUE(o->responder_only);
  EXPECT_EQ(o->responder.device, "rxe1");
  EXPECT_EQ(o->responder.control_port, 18620);
  EXPECT_EQ(o->responder.inject, probes::Injection::kRnr);
  auto d = agent::ParseAgentOptions({"--inject", "drop"});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->responder.inject, probes::Injection::kDrop);
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

TEST(AgentOptions, ProbeTargets) {
  auto o = agent::ParseAgentOptions({"--probe-target", "b=10.0.0.2", "--probe-target", "10.0.0.3:9",
                                     "--probe-device", "rxe0", "--probe-count", "5"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  ASSERT_EQ(o->probe_targets.size(), 2u);
  EXPECT_EQ(o->probe_targets[1].control_port, 9);
  EXPECT_EQ(o->probe_device, "rxe0");
  EXPECT_EQ(o->probe_count, 5u);
  EXPECT_FALSE(agent::ParseAgentOptions({"--probe-count", "0"}).ok());
  EXPECT_FALSE(agent::ParseAgentOptions({"--probe-target", "x:99999"}).ok());
}

TEST(ProbeScheduler, RefusesMissingDevice) {
  probes::SchedulerOptions so;
  EXPECT_FALSE(probes::ProbeScheduler::Start(so).ok());
}

}  // namespace
}  // namespace rdmascope
