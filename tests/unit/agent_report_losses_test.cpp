// ReportLosses: episodes by reason, ended when told, kept until a delivered
// report carried them ended, bounded in number, ids that grow.
#include "agent/daemon/report_losses.h"

#include <gtest/gtest.h>

namespace rdmascope::agent {
namespace {

TEST(ReportLosses, LossesOfOneReasonJoinOneEpisodeUntilItEnds) {
  ReportLosses l;
  l.Note(kLossSpoolCap, 1000);
  l.Note(kLossSpoolCap, 5000);
  l.Note(kLossSpoolCap, 3000);
  ASSERT_EQ(l.episodes().size(), 1u);
  EXPECT_EQ(l.episodes()[0].count, 3u);
  EXPECT_EQ(l.episodes()[0].first_ms, 1000);
  EXPECT_EQ(l.episodes()[0].last_ms, 5000);
  EXPECT_FALSE(l.episodes()[0].ended);
  l.Note(kLossDiskFull, 6000);  // another reason: another episode
  ASSERT_EQ(l.episodes().size(), 2u);
  l.EndOpen();
  l.Note(kLossDiskFull, 7000);  // after the end: a new episode, not the ended one
  ASSERT_EQ(l.episodes().size(), 3u);
  EXPECT_TRUE(l.episodes()[1].ended);
  EXPECT_EQ(l.episodes()[1].count, 1u);
  EXPECT_FALSE(l.episodes()[2].ended);
}

TEST(ReportLosses, ToJsonIsTheReportsArray) {
  ReportLosses l;
  EXPECT_TRUE(l.ToJson().empty());
  l.Note(kLossDiskFull, 1764566400000);
  l.Note(kLossDiskFull, 1764566404000);
  const nlohmann::json j = l.ToJson();
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["reason"], "disk_full");
  EXPECT_EQ(j[0]["first_ms"], 1764566400000);
  EXPECT_EQ(j[0]["last_ms"], 1764566404000);
  EXPECT_EQ(j[0]["count"], 2);
  EXPECT_EQ(j[0]["ended"], false);
  EXPECT_EQ(j[0]["id"], 1764566400000u);
}

TEST(ReportLosses, OnlyEpisodesEndedWhenTheReportWasBuiltAreAcknowledged) {
  ReportLosses l;
  l.Note(kLossSpoolCap, 1000);
  l.EndOpen();
  l.Note(kLossSpoolCap, 2000);
  const std::vector<uint64_t> carried = l.EndedIds();  // a report is built now
  ASSERT_EQ(carried.size(), 1u);
  l.EndOpen();  // the second ends after that report was built
  l.Acknowledge(carried);
  ASSERT_EQ(l.episodes().size(), 1u);  // the second stays until a report carries it ended
  EXPECT_EQ(l.episodes()[0].first_ms, 2000);
  l.Acknowledge(l.EndedIds());
  EXPECT_TRUE(l.episodes().empty());
}

TEST(ReportLosses, IdsGrowEvenWhenTimesRepeatOrGoBack) {
  ReportLosses l;
  l.Note(kLossSpoolCap, 5000);
  l.Note(kLossDiskFull, 5000);
  l.Note(kLossSpoolCap, 100);
  ASSERT_EQ(l.episodes().size(), 3u);
  EXPECT_EQ(l.episodes()[0].id, 5000u);
  EXPECT_EQ(l.episodes()[1].id, 5001u);
  EXPECT_EQ(l.episodes()[2].id, 5002u);
}

TEST(ReportLosses, PastTheBoundTheOldestMerge) {
  ReportLosses l;
  for (size_t i = 0; i < ReportLosses::kMaxEpisodes + 2; ++i) {
    l.Note(i % 2 ? kLossDiskFull : kLossSpoolCap, 1000 + int64_t(i));
    l.EndOpen();
  }
  ASSERT_EQ(l.episodes().size(), ReportLosses::kMaxEpisodes);
  uint64_t total = 0;
  for (const auto& e : l.episodes()) total += e.count;
  EXPECT_EQ(total, ReportLosses::kMaxEpisodes + 2);  // nothing forgotten
  EXPECT_EQ(l.episodes()[0].reason, kLossSeveral);
  EXPECT_EQ(l.episodes()[0].first_ms, 1000);
  EXPECT_EQ(l.episodes()[0].count, 3u);
}

}  // namespace
}  // namespace rdmascope::agent
