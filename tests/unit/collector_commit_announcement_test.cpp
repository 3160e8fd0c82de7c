// The text one collector's commit announces to the others
// (collector/store/commit_announcement.h): what a follower reads back.
#include "collector/store/commit_announcement.h"

#include <gtest/gtest.h>

namespace rdmascope::collector {
namespace {

TEST(CommitAnnouncement, RoundTripsReportsWithAndWithoutRows) {
  const std::vector<CommittedReport> in = {{"node-1", "r:1.a", 1700000000123}, {"node-2", "r-2", std::nullopt}};
  const auto payloads = EncodeCommitAnnouncement("inst-9", true, in, 7000);
  ASSERT_EQ(payloads.size(), 1u);
  EXPECT_EQ(payloads[0], "inst-9 F node-1/r:1.a/1700000000123 node-2/r-2/-");
  const CommitAnnouncement a = DecodeCommitAnnouncement(payloads[0]);
  EXPECT_EQ(a.writer, "inst-9");
  EXPECT_TRUE(a.fabric);
  ASSERT_EQ(a.reports.size(), 2u);
  EXPECT_EQ(a.reports[0].node, "node-1");
  EXPECT_EQ(a.reports[0].report_id, "r:1.a");
  EXPECT_EQ(a.reports[0].min_end, std::optional<int64_t>(1700000000123));
  EXPECT_EQ(a.reports[1].node, "node-2");
  EXPECT_FALSE(a.reports[1].min_end.has_value());
  EXPECT_TRUE(a.bare_nodes.empty());
}

TEST(CommitAnnouncement, SplitsOverPayloadsUnderTheLimitAndKeepsEveryReport) {
  std::vector<CommittedReport> in;
  for (int i = 0; i < 300; ++i) in.push_back({"node-" + std::to_string(i), "report-" + std::to_string(i), i * 1000});
  const auto payloads = EncodeCommitAnnouncement("w", false, in, 500);
  ASSERT_GT(payloads.size(), 1u);
  size_t seen = 0;
  for (const std::string& p : payloads) {
    EXPECT_LE(p.size(), 500u);
    const CommitAnnouncement a = DecodeCommitAnnouncement(p);
    EXPECT_EQ(a.writer, "w");
    EXPECT_FALSE(a.fabric);
    for (const CommittedReport& r : a.reports) {
      EXPECT_EQ(r.node, "node-" + std::to_string(seen));
      EXPECT_EQ(r.min_end, std::optional<int64_t>(static_cast<int64_t>(seen) * 1000));
      ++seen;
    }
  }
  EXPECT_EQ(seen, in.size());
  EXPECT_TRUE(EncodeCommitAnnouncement("w", false, {}, 500).empty()) << "nothing stored, nothing announced";
}

TEST(CommitAnnouncement, BareAndUnreadableWordsRefreshTheirNode) {
  // Bare node names (an older collector's words) and damaged words.
  const CommitAnnouncement a = DecodeCommitAnnouncement("old - node-a node-b node-c/r1/notanumber node-d/r2 /x/1");
  EXPECT_FALSE(a.fabric);
  EXPECT_TRUE(a.reports.empty());
  EXPECT_EQ(a.bare_nodes, (std::set<std::string>{"node-a", "node-b", "node-c", "node-d"}));
}

}  // namespace
}  // namespace rdmascope::collector
