// Retention: what the store keeps, and for how long (RetentionPolicy).
//
// Contract (every step is its own short transaction under the writer's lock,
// so ingest never waits long):
//  - RetentionStep deletes at most policy.batch_rows rows from each table
//    past its age and returns how many it deleted (0: nothing left). On
//    PostgreSQL the raw history and the minute rollups go by whole days
//    instead: each day partition that ended before the table's age is
//    dropped (counted one), and the rows its DEFAULT partition still holds
//    past the age deleted in batches; the next days' partitions are made
//    there too, once a day. Raw
//    summaries not yet rolled up (Rollups::RollupThroughMs), and minute
//    rollups not yet merged into hours, are kept whatever their age.
//    The forwarding tables of switches not seen for policy.forget_after_ms
//    go too (and the fabric's topology version moves).
//  - ForgetStep visits the next few nodes (by name, from where the last call
//    stopped): forgets those silent longer than policy.forget_after_ms,
//    deletes the aged rows of the others and drops their aged probe pairs
//    from the read model; adds to *tally. Returns the nodes visited: 0 when
//    a round over every node is complete.
//  - DatabaseSpace reads the file's pages; ReleaseFreePages hands free pages
//    back to the file system (PRAGMA incremental_vacuum), at most max_pages
//    per call, keeping a reserve of one page in kFreePageReserveDivisor of
//    the file: a retention pass frees about what ingest writes again before
//    the next. Returns the pages released: 0 when nothing is beyond the
//    reserve or the file cannot release (created before incremental vacuum;
//    see collector/README.md, Disk space). On PostgreSQL there is no file
//    of ours: an empty Space, and nothing released (the server reuses and
//    vacuums its own pages, and a dropped day goes back whole).
#pragma once

#include <cstdint>
#include <mutex>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collector/readmodel/read_model.h"
#include "collector/store/retention_policy.h"
#include "collector/store/pg_locks.h"
#include "collector/store/rollups.h"
#include "collector/store/snapshot_loader.h"
#include "collector/store/writer_db.h"

namespace rdmascope::collector {

class Retention {
 public:
  Retention(WriterDb& w, Rollups& rollups, ReadModel& read, SnapshotLoader& loader)
      : w_(w), mu_(w.mu()), db_(w.conn()), rollups_(rollups), read_(read), loader_(loader),
        snapshot_(read.snapshot()) {}

  Result<int64_t> RetentionStep(int64_t now_ms, const RetentionPolicy& policy);
  // What ForgetStep forgot, summed over its calls.
  struct ForgetTally {
    int64_t nodes = 0, rows = 0, pairs = 0;
  };
  Result<int64_t> ForgetStep(int64_t now_ms, const RetentionPolicy& policy, ForgetTally* tally);

  // The database file's pages. free_pages are empty pages inside the file,
  // reused by later writes; releasable says whether they can be handed back
  // to the file system (the file was created with incremental vacuum).
  struct Space {
    int64_t page_size = 0;
    int64_t pages = 0;
    int64_t free_pages = 0;
    bool releasable = false;
  };
  Result<Space> DatabaseSpace();
  static constexpr int64_t kFreePageReserveDivisor = 16;
  Result<int64_t> ReleaseFreePages(int64_t max_pages);

 private:
  Result<SqlStmt*> Q(const char* sql) { return w_.Q(sql); }
  // RetentionStep's part for fabric_lfts (under the writer's lock): at most
  // batch_rows tables of switches last seen before cutoff; their count.
  Result<int64_t> ForgetForwardingTables(int64_t cutoff, int batch_rows);
  // PostgreSQL's day partitions (under the writer's lock and the schema's
  // advisory lock): table's days that ended at or before cutoff dropped
  // (their count); the days from yesterday through kPgPartitionDaysAhead
  // made, when not made yet today.
  Result<int64_t> DropDayPartitions(const char* table, int64_t cutoff);
  Status EnsureDayPartitions(int64_t now_ms);
  // tx begun, holding the schema's advisory lock to its end (PostgreSQL).
  Status BeginUnderSchemaLock(Transaction& tx);
  int64_t partitions_made_on_day_ = -1;
  // ForgetStep's parts, each under the writer's lock. A visited node is its
  // name and last_report_at.
  using ForgetVisit = std::pair<std::string, int64_t>;
  // The next nodes by name past forget_cursor_ (at most one step's worth).
  Result<std::vector<ForgetVisit>> NextNodesToVisit();
  // In one transaction: every row of the nodes that last reported before
  // cutoff (their names to *gone), and the rows not refreshed since cutoff
  // of every node named after `after` up to the last visited (names with
  // rows deleted to *changed: one statement per table for the whole range,
  // not per node: on PostgreSQL each is a round trip); adds to *tally.
  Status DeleteForgottenRows(const std::string& after, const std::vector<ForgetVisit>& nodes, int64_t cutoff,
                             ForgetTally* tally, std::vector<std::string>* gone, std::vector<std::string>* changed);
  // The snapshot follows the deletes: gone nodes leave it, changed ones are
  // read again, and pairs whose newest summary ended before pair_cutoff are
  // dropped (counted in tally->pairs). The states it let go are moved to
  // *replaced, for the caller to free after the lock.
  Status FollowInSnapshot(const std::vector<ForgetVisit>& nodes, const std::vector<std::string>& gone,
                          const std::vector<std::string>& changed, int64_t pair_cutoff, ForgetTally* tally,
                          std::vector<std::shared_ptr<const NodeState>>* replaced);
  WriterDb& w_;
  std::mutex& mu_;
  SqlConn& db_;
  Rollups& rollups_;
  ReadModel& read_;
  SnapshotLoader& loader_;
  ReadSnapshot& snapshot_;
  std::string forget_cursor_;  // ForgetStep's place: the last node name visited
};

}  // namespace rdmascope::collector
