// The lab's exactly-once checker: it passes only when every report of a
// stopped agent process before its last is stored once.
#include "tests/labcheck/report_ids.h"

#include <gtest/gtest.h>

namespace rdmascope::labcheck {
namespace {

std::string Id(const std::string& node, const std::string& rnd, int seq) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%06d", seq);
  return node + "-1763800000" + std::to_string(seq) + "-" + rnd + "-" + buf;
}

std::vector<std::string> Range(const std::string& node, const std::string& rnd, int from, int to) {
  std::vector<std::string> v;
  for (int s = from; s <= to; ++s) v.push_back(Id(node, rnd, s));
  return v;
}

TEST(ReportIds, ParsesNodeNamesWithDashes) {
  ReportIdParts p;
  ASSERT_TRUE(ParseReportId("node-1-1763800000123-0a1b2c3d-000042", &p));
  EXPECT_EQ(p.process, "node-1/0a1b2c3d");
  EXPECT_EQ(p.seq, 42);
  EXPECT_FALSE(ParseReportId("node-1-1763800000123-0a1b2c-000042", &p));  // random part not 8 chars
  EXPECT_FALSE(ParseReportId("node-1-17638x0000123-0a1b2c3d-000042", &p));
  EXPECT_FALSE(ParseReportId("000042", &p));
}

TEST(ReportIds, CompleteSequencePasses) {
  auto stored = Range("node-0", "aaaaaaaa", 1, 40);
  auto more = Range("node-1", "bbbbbbbb", 1, 35);
  stored.insert(stored.end(), more.begin(), more.end());
  stored.push_back(Id("node-1", "cccccccc", 1));  // an earlier, killed process: not checked
  auto r = CheckExactlyOnce(stored, {Id("node-0", "aaaaaaaa", 41), Id("node-1", "bbbbbbbb", 36)});
  EXPECT_TRUE(r.ok);
  ASSERT_EQ(r.lines.size(), 2u);
  EXPECT_EQ(r.lines[0].rfind("OK node-0/aaaaaaaa: 40 stored", 0), 0u) << r.lines[0];
}

TEST(ReportIds, GapRepeatAndExtraFail) {
  auto stored = Range("node-0", "aaaaaaaa", 1, 40);
  stored.erase(stored.begin() + 20);  // seq 21 lost
  EXPECT_FALSE(CheckExactlyOnce(stored, {Id("node-0", "aaaaaaaa", 41)}).ok);

  stored = Range("node-0", "aaaaaaaa", 1, 40);
  stored.push_back(Id("node-0", "aaaaaaaa", 7));  // stored twice
  auto r = CheckExactlyOnce(stored, {Id("node-0", "aaaaaaaa", 41)});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.lines[0].find("repeated 1"), std::string::npos) << r.lines[0];

  stored = Range("node-0", "aaaaaaaa", 1, 41);  // the spooled last one too: not what happened
  EXPECT_FALSE(CheckExactlyOnce(stored, {Id("node-0", "aaaaaaaa", 41)}).ok);

  EXPECT_FALSE(CheckExactlyOnce(Range("node-0", "aaaaaaaa", 1, 40), {"garbage"}).ok);
}

TEST(ReportIds, KnownLostReportsMustBeExactlyTheMissingOnes) {
  auto stored = Range("node-0", "aaaaaaaa", 1, 40);
  stored.erase(stored.begin() + 3, stored.begin() + 6);  // seq 4..6 lost, and told
  EXPECT_TRUE(CheckExactlyOnce(stored, {Id("node-0", "aaaaaaaa", 41) + "=3"}).ok);
  EXPECT_FALSE(CheckExactlyOnce(stored, {Id("node-0", "aaaaaaaa", 41) + "=2"}).ok);  // one lost untold
  EXPECT_FALSE(CheckExactlyOnce(stored, {Id("node-0", "aaaaaaaa", 41) + "=4"}).ok);  // one told but stored
}

}  // namespace
}  // namespace rdmascope::labcheck
