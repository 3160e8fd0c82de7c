// The responder's RC session lifetime rules, apart from verbs: idle expiry,
// replacement by the prober's session id, the cap with oldest-idle eviction
// and its refusal in words.
#include <gtest/gtest.h>

#include <set>

#include "probes/rc_session_table.h"

namespace rdmascope::probes {
namespace {

constexpr uint64_t kS = 1000000000ull;

RcSessionLimits Limits(size_t cap, uint64_t idle_s, uint64_t evict_s) {
  RcSessionLimits l;
  l.cap = cap;
  l.idle_ns = idle_s * kS;
  l.evict_min_idle_ns = evict_s * kS;
  return l;
}

TEST(RcSessionTable, ExpiresOnlySessionsIdleForTheWholeTimeout) {
  RcSessionTable t(Limits(10, 60, 15));
  auto a = t.Admit("a", 0);
  auto b = t.Admit("b", 0);
  ASSERT_TRUE(a.ok() && b.ok());
  t.Touch(b->id, 30 * kS);  // b saw a probe at 30 s
  EXPECT_TRUE(t.Expire(59 * kS).empty());
  EXPECT_EQ(t.Expire(60 * kS), std::vector<uint64_t>{a->id});
  EXPECT_FALSE(t.Contains(a->id));
  EXPECT_TRUE(t.Contains(b->id));
  EXPECT_TRUE(t.Expire(89 * kS).empty());
  EXPECT_EQ(t.Expire(90 * kS), std::vector<uint64_t>{b->id});
  EXPECT_EQ(t.size(), 0u);
  t.Touch(b->id, 100 * kS);  // a late completion of a session already gone: ignored
  EXPECT_EQ(t.size(), 0u);
}

TEST(RcSessionTable, SameProberSessionReplacesItsPreviousQp) {
  RcSessionTable t(Limits(10, 60, 15));
  auto first = t.Admit("prober-1", 0);
  auto other = t.Admit("prober-2", 0);
  auto again = t.Admit("prober-1", kS);
  ASSERT_TRUE(first.ok() && other.ok() && again.ok());
  EXPECT_EQ(again->replaced, std::vector<uint64_t>{first->id});
  EXPECT_TRUE(again->evicted.empty());
  EXPECT_NE(again->id, first->id);  // ids are never reused
  EXPECT_FALSE(t.Contains(first->id));
  EXPECT_TRUE(t.Contains(other->id));
  EXPECT_EQ(t.size(), 2u);
  // The replaced id no longer owns the key: removing it later leaves the new one.
  t.Remove(first->id);
  auto third = t.Admit("prober-1", 2 * kS);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->replaced, std::vector<uint64_t>{again->id});
}

TEST(RcSessionTable, EmptyKeysAreNeverReplaced) {
  RcSessionTable t(Limits(10, 60, 15));
  auto a = t.Admit("", 0);
  auto b = t.Admit("", 0);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(b->replaced.empty());
  EXPECT_EQ(t.size(), 2u);
}

TEST(RcSessionTable, FullTableEvictsTheOldestIdleSession) {
  RcSessionTable t(Limits(3, 60, 15));
  auto a = t.Admit("a", 0);
  auto b = t.Admit("b", 0);
  auto c = t.Admit("c", 0);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  t.Touch(a->id, 20 * kS);
  t.Touch(c->id, 10 * kS);  // b (idle since 0) is the oldest idle
  auto d = t.Admit("d", 25 * kS);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->evicted, std::vector<uint64_t>{b->id});
  EXPECT_EQ(t.size(), 3u);
  EXPECT_FALSE(t.Contains(b->id));
}

TEST(RcSessionTable, FullTableOfBusySessionsRefusesInWords) {
  RcSessionTable t(Limits(2, 60, 15));
  auto a = t.Admit("a", 0);
  auto b = t.Admit("b", 0);
  ASSERT_TRUE(a.ok() && b.ok());
  t.Touch(a->id, 10 * kS);
  t.Touch(b->id, 12 * kS);
  auto c = t.Admit("c", 20 * kS);  // the longest idle is 10 s < 15 s
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("RC session table full: 2 sessions"), std::string::npos)
      << c.status().message();
  EXPECT_NE(c.status().message().find("--rc-max-sessions"), std::string::npos);
  EXPECT_EQ(t.size(), 2u);
  EXPECT_TRUE(t.Contains(a->id) && t.Contains(b->id));
  // A reconnect of a prober that has a session is a replacement, not a new one: never refused.
  auto again = t.Admit("a", 20 * kS);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->replaced, std::vector<uint64_t>{a->id});
}

TEST(RcSessionTable, ThousandsOfPeersStayWithinTheCap) {
  RcSessionTable t(Limits(4096, 60, 15));
  std::set<uint64_t> ids;
  for (int i = 0; i < 5000; ++i) {
    // 5,000 probers, one new every 10 ms: the first ones are idle long enough to give way.
    auto a = t.Admit("p" + std::to_string(i), uint64_t(i) * 10000000ull);
    ASSERT_TRUE(a.ok()) << i << ": " << a.status().message();
    ids.insert(a->id);
    EXPECT_LE(t.size(), 4096u);
  }
  EXPECT_EQ(ids.size(), 5000u);
  EXPECT_EQ(t.size(), 4096u);
}

TEST(RcSessionTable, CapZeroRefuses) {
  RcSessionTable t(Limits(0, 60, 15));
  EXPECT_FALSE(t.Admit("a", 0).ok());
}

}  // namespace
}  // namespace rdmascope::probes
