// ReportLosses: the reports the agent made and could not keep, grouped into
// episodes, until the collector has been told.
//
// Contract:
// - Note(reason, at_ms) counts one lost report (reason: one of the
//   kLoss* names; at_ms: when that report was made, wall clock). It joins
//   the newest episode when that one is not ended and has the same reason;
//   else it starts a new episode. Its id is the larger of at_ms and one past
//   the previous id: ids grow, and a restarted agent does not reuse the
//   ids of its earlier run (the collector keys its events by node and id).
// - EndOpen() ends every episode: the caller says the losses are over (the
//   spool has been drained to empty with the collector answering). An
//   ended episode takes no more losses.
// - ToJson() is the report's "report_losses" array: every episode not yet
//   acknowledged, oldest first, as {"id", "reason", "first_ms", "last_ms",
//   "count", "ended"}; empty when there are none. The same episode goes out
//   in every report until acknowledged, so a report lost in turn loses
//   nothing: the collector keeps one event per episode (by node and id)
//   and takes the largest count.
// - Acknowledge(ids) drops the episodes of `ids` that are ended: the caller
//   passes EndedIds() as they were when it built a report the collector
//   then took. An episode not ended when the report was built stays.
// - At most kMaxEpisodes are kept: past that, a loss joins the newest
//   episode whatever its reason or state (reason "several" when they
//   differ), so no episode the collector may have seen disappears and no
//   report is counted in two episodes.
// - FromJson() takes back what ToJson() gave (the daemon keeps it in a file
//   beside the spool, so a restart, or a crash, still tells the collector);
//   entries that are not well formed are skipped.
// Not thread-safe: one owner (the daemon loop).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rdmascope::agent {

// Why a report was lost (the episode's "reason"; REPORT_FORMAT.md).
inline constexpr char kLossSpoolCap[] = "spool_cap";      // the spool was over --spool-max-bytes: oldest deleted
inline constexpr char kLossDiskFull[] = "disk_full";      // the file system was full: oldest deleted to make room
inline constexpr char kLossTooLarge[] = "too_large";      // one report larger than the whole spool cap
inline constexpr char kLossWriteError[] = "write_error";  // the report could not be written to the spool at all
inline constexpr char kLossSeveral[] = "several";         // merged episodes of different reasons

class ReportLosses {
 public:
  static constexpr size_t kMaxEpisodes = 16;

  struct Episode {
    uint64_t id = 0;
    std::string reason;
    int64_t first_ms = 0;
    int64_t last_ms = 0;
    uint64_t count = 0;
    bool ended = false;
  };

  void Note(const std::string& reason, int64_t at_ms);
  void EndOpen();
  nlohmann::json ToJson() const;
  std::vector<uint64_t> EndedIds() const;
  void Acknowledge(const std::vector<uint64_t>& ids);
  static ReportLosses FromJson(const nlohmann::json& episodes);

  const std::deque<Episode>& episodes() const { return episodes_; }

 private:
  std::deque<Episode> episodes_;  // oldest first
  uint64_t last_id_ = 0;
};

}  // namespace rdmascope::agent
