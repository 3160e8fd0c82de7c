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

TEST(ReportLosses, PastTheBoundLossesJoinTheNewestAndNoEpisodeDisappears) {
  ReportLosses l;
  for (size_t i = 0; i < ReportLosses::kMaxEpisodes; ++i) {
    l.Note(i % 2 ? kLossDiskFull : kLossSpoolCap, 1000 + int64_t(i));
    l.EndOpen();
  }
  const std::vector<uint64_t> ids_before = l.EndedIds();
  l.Note(kLossSpoolCap, 5000);  // the newest was disk_full and ended
  l.Note(kLossDiskFull, 6000);
  ASSERT_EQ(l.episodes().size(), ReportLosses::kMaxEpisodes);
  EXPECT_EQ(l.EndedIds(), ids_before);  // the same episodes, none merged away
  uint64_t total = 0;
  for (const auto& e : l.episodes()) total += e.count;
  EXPECT_EQ(total, ReportLosses::kMaxEpisodes + 2);  // every loss counted once
  EXPECT_EQ(l.episodes().back().reason, kLossSeveral);
  EXPECT_EQ(l.episodes().back().count, 3u);
  EXPECT_EQ(l.episodes().back().last_ms, 6000);
}

TEST(ReportLosses, FromJsonTakesBackWhatToJsonGave) {
  ReportLosses l;
  l.Note(kLossSpoolCap, 1000);
  l.EndOpen();
  l.Note(kLossDiskFull, 3000);
  l.Note(kLossDiskFull, 4000);
  ReportLosses back = ReportLosses::FromJson(l.ToJson());
  EXPECT_EQ(back.ToJson(), l.ToJson());
  back.Note(kLossWriteError, 10);  // ids go on growing after a reload
  EXPECT_GT(back.episodes().back().id, l.episodes().back().id);
  nlohmann::json damaged = l.ToJson();
  damaged.push_back({{"id", "x"}});
  damaged.push_back({{"id", 9}, {"reason", "disk_full"}, {"first_ms", 5}, {"last_ms", 4}, {"count", 1}, {"ended", true}});
  EXPECT_EQ(ReportLosses::FromJson(damaged).ToJson(), l.ToJson());  // the bad entries are skipped
  EXPECT_TRUE(ReportLosses::FromJson(nlohmann::json("nonsense")).episodes().empty());
}

}  // namespace
}  // namespace rdmascope::agent
