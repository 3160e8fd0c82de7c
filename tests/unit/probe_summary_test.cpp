// Latency summary math, back-off schedule and the probe wire format.
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "probes/backoff.h"
#include "probes/latency_summary.h"
#include "probes/probe_wire.h"

namespace rdmascope::probes {
namespace {

TEST(Percentile, NearestRank) {
  std::vector<double> v = {1, 2, 3, 4};
  EXPECT_EQ(Percentile(v, 0.5), 2);
  EXPECT_EQ(Percentile(v, 0.75), 3);
  EXPECT_EQ(Percentile(v, 0.99), 4);
  EXPECT_EQ(Percentile(v, 1.0), 4);
  EXPECT_EQ(Percentile({}, 0.5), 0);
  std::vector<double> h;
  for (int i = 1; i <= 1000; ++i) h.push_back(i);
  EXPECT_EQ(Percentile(h, 0.5), 500);
  EXPECT_EQ(Percentile(h, 0.9), 900);
  EXPECT_EQ(Percentile(h, 0.99), 990);
  EXPECT_EQ(Percentile(h, 0.999), 999);
}

TEST(ComputeStats, UnsortedInput) {
  LatencyStats s = ComputeStats({5, 1, 4, 2, 3});
  EXPECT_EQ(s.count, 5u);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 5);
  EXPECT_EQ(s.p50, 3);
  EXPECT_DOUBLE_EQ(s.avg, 3);
}

TEST(ComputeStats, EmptyIsAllZero) {
  LatencyStats s = ComputeStats({});
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.min, 0);
  EXPECT_EQ(s.p99, 0);
}

TEST(Summarize, LossAndNetworkVersusResponder) {
  std::vector<ProbeSample> samples;
  for (int i = 0; i < 10; ++i) {
    ProbeSample s;
    s.received = i != 3 && i != 7;  // two lost
    s.rtt_us = 100 + i;
    s.responder_us = 10;
    samples.push_back(s);
  }
  ProbeSummary sum = Summarize(samples, {"RETRY_EXC_ERR (12)", "RETRY_EXC_ERR (12)", "PROBE_DEADLINE (-1)"});
  EXPECT_EQ(sum.sent, 10u);
  EXPECT_EQ(sum.received, 8u);
  EXPECT_EQ(sum.lost, 2u);
  EXPECT_DOUBLE_EQ(sum.loss_ratio, 0.2);
  ASSERT_TRUE(sum.network.has_value());
  ASSERT_TRUE(sum.responder.has_value());
  EXPECT_EQ(sum.rtt.min, 100);
  EXPECT_EQ(sum.network->min, 90);   // rtt - responder delay
  EXPECT_EQ(sum.responder->p50, 10);
  EXPECT_FALSE(sum.read.has_value());
  EXPECT_EQ(sum.errors_by_status.at("RETRY_EXC_ERR (12)"), 2u);
  EXPECT_EQ(sum.errors_by_status.at("PROBE_DEADLINE (-1)"), 1u);
}

TEST(Summarize, ResponderDelayLargerThanRttClampsToZero) {
  ProbeSample s;
  s.received = true;
  s.rtt_us = 5;
  s.responder_us = 8;  // clocks disagree: never a negative network time
  ProbeSummary sum = Summarize({s}, {});
  EXPECT_EQ(sum.network->min, 0);
}

// A burst's primer wakes the responder: it counts for loss, and its RTT is
// the cold figure alone, never part of the path's latencies.
TEST(Summarize, PrimersCountForLossAndGoToColdOnly) {
  std::vector<ProbeSample> samples;
  for (int i = 0; i < 10; ++i) {
    ProbeSample s;
    s.primer = i % 5 == 0;  // bursts of 5
    s.received = i != 5;    // the second primer is lost
    s.rtt_us = s.primer ? 2000 : 100 + i;
    s.responder_us = s.primer ? 1500 : 10;
    s.read_us = s.primer ? 900 : 50;
    samples.push_back(s);
  }
  ProbeSummary sum = Summarize(samples, {});
  EXPECT_EQ(sum.sent, 10u);
  EXPECT_EQ(sum.received, 9u);
  EXPECT_EQ(sum.lost, 1u);
  EXPECT_EQ(sum.rtt.count, 8u);
  EXPECT_EQ(sum.rtt.max, 109);
  EXPECT_EQ(sum.network->max, 99);
  EXPECT_EQ(sum.responder->max, 10);
  EXPECT_EQ(sum.read->max, 50);
  ASSERT_TRUE(sum.cold.has_value());
  EXPECT_EQ(sum.cold->count, 1u);
  EXPECT_EQ(sum.cold->p50, 2000);
  samples[0].received = false;
  sum = Summarize(samples, {});
  ASSERT_TRUE(sum.cold.has_value()) << "primers sent, none back: a cold figure of count 0";
  EXPECT_EQ(sum.cold->count, 0u);
  for (auto& s : samples) s.primer = false;
  EXPECT_FALSE(Summarize(samples, {}).cold.has_value()) << "no primers: no cold figure";
}

TEST(Summarize, NothingSent) {
  ProbeSummary sum = Summarize({}, {});
  EXPECT_EQ(sum.sent, 0u);
  EXPECT_EQ(sum.loss_ratio, 0);
}

TEST(Backoff, DoublesThenCapsThenResets) {
  Backoff b(50, 2000, 2);
  EXPECT_EQ(b.NextDelayMs(), 50u);
  EXPECT_EQ(b.NextDelayMs(), 100u);
  EXPECT_EQ(b.NextDelayMs(), 200u);
  EXPECT_EQ(b.NextDelayMs(), 400u);
  EXPECT_EQ(b.NextDelayMs(), 800u);
  EXPECT_EQ(b.NextDelayMs(), 1600u);
  EXPECT_EQ(b.NextDelayMs(), 2000u);
  EXPECT_EQ(b.NextDelayMs(), 2000u);
  b.Reset();
  EXPECT_EQ(b.NextDelayMs(), 50u);
}

TEST(Backoff, DegenerateParametersStayBounded) {
  Backoff zero(0, 0, 0);
  EXPECT_EQ(zero.NextDelayMs(), 1u);
  EXPECT_EQ(zero.NextDelayMs(), 1u);
  Backoff huge(1000, UINT64_MAX, 2);
  for (int i = 0; i < 100; ++i) huge.NextDelayMs();  // no overflow past the cap
  EXPECT_GE(huge.NextDelayMs(), 1000u);
}

TEST(Backoff, JitterStaysWithinItsStepAndSpreadsAFleet) {
  // Each delay lies in [50 %, 100 %] of its deterministic step.
  Backoff b(50, 2000, 2, 0.5, 7);
  const uint64_t steps[] = {50, 100, 200, 400, 800, 1600, 2000, 2000};
  for (uint64_t step : steps) {
    const uint64_t d = b.NextDelayMs();
    EXPECT_GE(d, step / 2) << "step " << step;
    EXPECT_LE(d, step) << "step " << step;
  }
  // 100 probers that lost the same target at once: their first reconnects
  // at the capped step do not all land on the same millisecond.
  std::set<uint64_t> firsts;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    Backoff f(2000, 2000, 2, 0.5, seed);
    firsts.insert(f.NextDelayMs());
  }
  EXPECT_GT(firsts.size(), 50u);
  // Same seed, same schedule: reproducible.
  Backoff x(50, 2000, 2, 0.5, 42), y(50, 2000, 2, 0.5, 42);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(x.NextDelayMs(), y.NextDelayMs());
}

TEST(ProbeWire, RoundTrip) {
  ProbeMessage m;
  m.kind = ProbeKind::kEcho;
  m.seq = 0x0102030405060708ull;
  m.prober_send_ns = 42;
  m.responder_delay_ns = 7;
  m.session = 0xdeadbeefcafef00dull;
  uint8_t buf[kWireBytes];
  EncodeProbe(m, buf);
  auto d = DecodeProbe(buf, sizeof buf);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->kind, ProbeKind::kEcho);
  EXPECT_EQ(d->seq, m.seq);
  EXPECT_EQ(d->prober_send_ns, 42u);
  EXPECT_EQ(d->responder_delay_ns, 7u);
  EXPECT_EQ(d->session, m.session);
}

TEST(ProbeWire, RejectsShortWrongMagicAndKind) {
  uint8_t buf[kWireBytes];
  EncodeProbe(ProbeMessage{}, buf);
  EXPECT_FALSE(DecodeProbe(buf, kWireBytes - 1).has_value());
  EXPECT_FALSE(DecodeProbe(nullptr, kWireBytes).has_value());
  uint8_t bad[kWireBytes];
  std::memcpy(bad, buf, sizeof bad);
  bad[0] ^= 0xff;
  EXPECT_FALSE(DecodeProbe(bad, sizeof bad).has_value());
  std::memcpy(bad, buf, sizeof bad);
  bad[7] = 9;  // kind 9
  EXPECT_FALSE(DecodeProbe(bad, sizeof bad).has_value());
}

}  // namespace
}  // namespace rdmascope::probes

#include "probes/probe_json.h"
#include "probes/prober.h"

namespace rdmascope::probes {
namespace {

TEST(ProbeJson, ReportEntryShape) {
  ProbeRun run;
  run.transport = "rc";
  run.local.device = "rxe0";
  run.target.device = "rxe1";
  ProbeSample ok;
  ok.received = true;
  ok.rtt_us = 10;
  ok.read_us = 4;
  run.samples = {ok, ProbeSample{}, ok};
  ProbeError e = WcFailure(12, 0x81, "SEND", 31.5);
  e.probe_index = 1;
  run.errors.push_back(e);
  auto j = RunToJson(run, SummarizeRun(run), "node-b", "192.168.77.2", 18610);
  EXPECT_EQ(j["target"], "node-b");
  EXPECT_EQ(j["remote"]["control_port"], 18610);
  EXPECT_EQ(j["summary"]["sent"], 3);
  EXPECT_EQ(j["summary"]["lost"], 1);
  EXPECT_TRUE(j["summary"]["network_us"].is_null());
  EXPECT_EQ(j["summary"]["read_us"]["p50"], 4);
  EXPECT_EQ(j["summary"]["errors_by_status"]["RETRY_EXC_ERR (12)"], 1);
  EXPECT_EQ(j["errors"][0]["status"], 12);
  EXPECT_EQ(j["errors"][0]["status_name"], "RETRY_EXC_ERR");
  EXPECT_EQ(j["errors"][0]["vendor_err"], 0x81);
  EXPECT_FALSE(j["errors"][0]["explanation"].get<std::string>().empty());
  EXPECT_EQ(j["received_after_last_error"], 1);
}

TEST(WcError, UnknownStatusAndDeadlineAreExplained) {
  EXPECT_EQ(WcFailure(999, 0, "SEND", 1).status_name, "UNKNOWN_STATUS");
  ProbeError d = DeadlineFailure("RECV", 1000);
  EXPECT_EQ(d.status, kDeadlineStatus);
  EXPECT_EQ(d.Key(), "PROBE_DEADLINE (-1)");
  EXPECT_FALSE(d.explanation.empty());
  ProbeError r = WcFailure(13, 0, "SEND", 7);
  EXPECT_EQ(r.Key(), "RNR_RETRY_EXC_ERR (13)");
  EXPECT_NE(r.explanation.find("Likely cause"), std::string::npos);
}

}  // namespace
}  // namespace rdmascope::probes
