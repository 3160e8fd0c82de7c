// The counter rules as a table of cases: width, saturation, wrap, reset, absent;
// and the rates along a history that follow them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/counter_rates.h"
#include "common/counter_rules.h"

namespace rdmascope {
namespace {

struct Case {
  const char* what;
  const char* kind;
  const char* name;
  std::optional<uint64_t> prev;  // nullopt with has_prev: previous reading absent
  bool has_prev;
  std::string prev_boot;
  std::optional<uint64_t> cur;
  std::string cur_boot;
  DeltaKind want_kind;
  std::optional<uint64_t> want_delta;
  bool want_saturated;
};

const std::optional<uint64_t> kNone;

const Case kCases[] = {
    {"plain increase", "counters", "symbol_error", 5, true, "b1", 9, "b1", DeltaKind::kDelta, 4, false},
    {"no change", "counters", "link_downed", 3, true, "b1", 3, "b1", DeltaKind::kDelta, 0, false},
    {"16-bit error counter saturates at 65535", "counters", "symbol_error", 65000, true, "b1", 65535, "b1",
     DeltaKind::kDelta, 535, true},
    {"stays saturated: no new errors visible", "counters", "symbol_error", 65535, true, "b1", 65535, "b1",
     DeltaKind::kDelta, 0, true},
    {"8-bit link_downed saturates at 255", "counters", "link_downed", 250, true, "b1", 255, "b1", DeltaKind::kDelta,
     5, true},
    {"4-bit local_link_integrity_errors saturates at 15", "counters", "local_link_integrity_errors", 1, true, "b1",
     15, "b1", DeltaKind::kDelta, 14, true},
    {"saturating counter cleared: reset", "counters", "symbol_error", 65535, true, "b1", 2, "b1", DeltaKind::kReset,
     2, false},
    {"32-bit port_xmit_wait wraps", "counters", "port_xmit_wait", 4294967290ull, true, "b1", 5, "b1",
     DeltaKind::kWrapped, 11, false},
    {"32-bit legacy port_xmit_packets wraps", "counters", "port_xmit_packets", 4294967295ull, true, "b1", 0, "b1",
     DeltaKind::kWrapped, 1, false},
    {"legacy data in bytes wraps at 2^34", "counters", "port_rcv_data_bytes", (1ull << 34) - 4, true, "b1", 8, "b1",
     DeltaKind::kWrapped, 12, false},
    {"value above the width: the extended 64-bit counter", "counters", "port_xmit_data", 1ull << 40, true, "b1",
     (1ull << 40) + 7, "b1", DeltaKind::kDelta, 7, false},
    {"64-bit hw_counter backwards: reset", "hw_counters", "rcvd_pkts", 1000, true, "b1", 10, "b1", DeltaKind::kReset,
     10, false},
    {"backwards after a new boot id: reset, not wrap", "counters", "port_xmit_wait", 4294967290ull, true, "b1", 5,
     "b2", DeltaKind::kReset, 5, false},
    {"forwards after a new boot id: reset too", "counters", "symbol_error", 3, true, "b1", 9, "b2", DeltaKind::kReset,
     9, false},
    {"unknown boot id: the value rules decide", "counters", "symbol_error", 3, true, "", 9, "b2", DeltaKind::kDelta,
     6, false},
    {"absent now: no delta", "counters", "symbol_error", 3, true, "b1", kNone, "b1", DeltaKind::kAbsent, kNone,
     false},
    {"absent before: first", "counters", "symbol_error", kNone, true, "b1", 3, "b1", DeltaKind::kFirst, kNone, false},
    {"no previous reading: first", "counters", "symbol_error", kNone, false, "", 3, "b1", DeltaKind::kFirst, kNone,
     false},
    {"first reading already saturated", "counters", "link_downed", kNone, false, "", 255, "b1", DeltaKind::kFirst,
     kNone, true},
};

TEST(CounterRules, Table) {
  for (const Case& c : kCases) {
    std::optional<CounterReading> prev;
    if (c.has_prev) prev = CounterReading{c.prev, c.prev_boot, 1000};
    CounterDelta d = ComputeCounterDelta(c.kind, c.name, prev, CounterReading{c.cur, c.cur_boot, 3000});
    EXPECT_EQ(DeltaKindName(d.kind), std::string(DeltaKindName(c.want_kind))) << c.what;
    EXPECT_EQ(d.delta, c.want_delta) << c.what;
    EXPECT_EQ(d.saturated, c.want_saturated) << c.what;
    if (d.delta) {
      ASSERT_TRUE(d.per_second) << c.what;
      EXPECT_DOUBLE_EQ(*d.per_second, double(*d.delta) / 2.0) << c.what;
    }
  }
}

// Reset against wrap across widths, with and without a change of the
// device's instance identity (driver reload, device delete and add).
struct InstanceCase {
  const char* what;
  const char* kind;
  const char* name;
  uint64_t prev;
  uint64_t cur;
  DeltaKind same_kind;  // same instance (or unknown)
  uint64_t same_delta;
};

const InstanceCase kInstanceCases[] = {
    // 8-bit, saturating: as 16-bit.
    {"8-bit link_downed backwards", "counters", "link_downed", 200, 2, DeltaKind::kReset, 2},
    {"8-bit link_downed forwards", "counters", "link_downed", 2, 7, DeltaKind::kDelta, 5},
    // 16-bit, saturating: backwards is a clear either way; forwards after a
    // re-add counts from 0, not from the old value.
    {"16-bit symbol_error backwards", "counters", "symbol_error", 900, 3, DeltaKind::kReset, 3},
    {"16-bit symbol_error forwards", "counters", "symbol_error", 3, 9, DeltaKind::kDelta, 6},
    // 32-bit, wrapping: backwards is a wrap unless the device was re-created.
    {"32-bit port_xmit_wait backwards", "counters", "port_xmit_wait", 4294967290ull, 5, DeltaKind::kWrapped, 11},
    {"32-bit port_xmit_wait forwards", "counters", "port_xmit_wait", 100, 250, DeltaKind::kDelta, 150},
    // The table's 32-bit legacy counter read from the 64-bit extended one,
    // still under 2^32: a reload's reset looks like a wrap of ~4e9 without
    // the instance.
    {"64-bit source under 2^32 backwards", "counters", "port_xmit_packets", 3000000000ull, 1000,
     DeltaKind::kWrapped, 1294967296ull + 1000},
    // 64-bit: backwards is a reset anyway; forwards after a re-add is not a delta.
    {"64-bit rcvd_pkts backwards", "hw_counters", "rcvd_pkts", 1000, 10, DeltaKind::kReset, 10},
    {"64-bit rcvd_pkts forwards", "hw_counters", "rcvd_pkts", 10, 1000, DeltaKind::kDelta, 990},
    {"64-bit extended data forwards", "counters", "port_xmit_data", 1ull << 40, (1ull << 40) + 7, DeltaKind::kDelta, 7},
    // 64-bit counters still under 2^32: backwards is a reset, never a 32-bit wrap.
    {"64-bit hw_counter under 2^32 backwards", "hw_counters", "rcvd_pkts", 3000000000ull, 1000, DeltaKind::kReset,
     1000},
    {"64-bit extended counter under 2^32 backwards", "counters", "unicast_xmit_packets", 3000000000ull, 1000,
     DeltaKind::kReset, 1000},
};

TEST(CounterRules, InstanceChangeIsAResetAcrossWidths) {
  for (const InstanceCase& c : kInstanceCases) {
    const CounterReading prev{c.prev, "b1", 1000, "0002:c903:0001:2345@101"};
    // Same instance, and an instance unknown on either side: the value rules.
    for (const auto& [before, now] : {std::pair<std::string, std::string>{"0002:c903:0001:2345@101",
                                                                           "0002:c903:0001:2345@101"},
                                      {"", "0002:c903:0001:2345@202"},
                                      {"0002:c903:0001:2345@101", ""}}) {
      CounterReading p = prev;
      p.instance = before;
      CounterDelta d = ComputeCounterDelta(c.kind, c.name, p, CounterReading{c.cur, "b1", 3000, now});
      EXPECT_EQ(DeltaKindName(d.kind), std::string(DeltaKindName(c.same_kind))) << c.what << " [" << before << " -> " << now << "]";
      EXPECT_EQ(d.delta, std::optional<uint64_t>(c.same_delta)) << c.what << " [" << before << " -> " << now << "]";
    }
    // A new instance (same boot): a reset, the whole current value is new.
    CounterDelta d = ComputeCounterDelta(c.kind, c.name, prev, CounterReading{c.cur, "b1", 3000, "0002:c903:0001:2345@202"});
    EXPECT_EQ(d.kind, DeltaKind::kReset) << c.what;
    EXPECT_EQ(d.delta, std::optional<uint64_t>(c.cur)) << c.what;
    ASSERT_TRUE(d.per_second) << c.what;
    EXPECT_DOUBLE_EQ(*d.per_second, double(c.cur) / 2.0) << c.what;
  }
}

// The history's rates follow the same rule: a sample under a new device
// instance is a reset, so its rate is its value over the time since.
TEST(CounterRates, InstanceChangeIsAReset) {
  nlohmann::json samples = nlohmann::json::array();
  auto add = [&](int64_t at_ms, uint64_t value, const char* instance) {
    samples.push_back({{"node", "n1"}, {"device", "rxe0"}, {"port", 1}, {"kind", "counters"},
                       {"name", "port_xmit_packets"}, {"value", value}, {"sampled_at_ms", at_ms},
                       {"boot_id", "b1"}, {"instance", instance}});
  };
  add(10000, 3000000000ull, "guid@101");
  add(20000, 3000001000ull, "guid@101");
  add(30000, 500, "guid@202");  // re-created: 500 new in 10 s, not a wrap of ~1.3e9
  add(40000, 400, "guid@202");  // backwards under the same instance: the 32-bit wrap
  AddCounterRates(samples);
  EXPECT_TRUE(samples[0]["rate"].is_null());
  EXPECT_EQ(samples[1]["rate"], 100.0);
  EXPECT_EQ(samples[2]["rate"], 50.0);
  EXPECT_EQ(samples[3]["rate"], double((1ull << 32) - 100) / 10.0);
}

TEST(CounterRules, Widths) {
  EXPECT_EQ(CounterWidthOf("counters", "symbol_error").bits, 16);
  EXPECT_EQ(CounterWidthOf("counters", "link_error_recovery").bits, 8);
  EXPECT_EQ(CounterWidthOf("counters", "port_xmit_wait").bits, 32);
  EXPECT_EQ(CounterWidthOf("counters", "unicast_xmit_packets").bits, 64);
  EXPECT_EQ(CounterWidthOf("hw_counters", "symbol_error").bits, 64);
  EXPECT_EQ(CounterWidthOf("counters", "symbol_error").overflow, CounterOverflow::kSaturates);
  EXPECT_EQ(CounterWidthOf("counters", "port_xmit_wait").overflow, CounterOverflow::kWraps);
}

}  // namespace
}  // namespace rdmascope
