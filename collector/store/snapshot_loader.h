// The read model's loads from the database (the SQL side of the snapshot).
//
// Contract: every method runs under the writer's lock (WriterDb::mu()), on
// the writer's connection, right after the commit it follows, so it sees
// exactly what was committed. LoadSnapshot builds the read model whole (at
// open, and after a refresh failed); RefreshSnapshot updates the nodes a
// commit touched from the probe rows it wrote (kept in memory, not read
// back) and, with `deferred`, leaves the in-memory half for
// ReadModel::PublishSnapshot. A refresh that fails marks the model dirty: the
// next refresh rebuilds it whole (the commit stands either way).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "collector/readmodel/read_model.h"
#include "collector/store/commit_announcement.h"
#include "collector/store/writer_db.h"

namespace rdmascope::collector {

// What a commit changed of the fabric the snapshot holds: the leaf switch
// of nodes other than those it reported for (a sweep that moved a link),
// and the fabric's parts for /metrics (LoadFabricParts: a sweep, a fabric
// node new to the store). A report's neighbours alone change only its own
// node's leaves, which its node's refresh reads anyway.
struct FabricChange {
  bool leaves = false, parts = false;
  bool any() const { return leaves || parts; }
  FabricChange& operator|=(const FabricChange& o) {
    leaves = leaves || o.leaves, parts = parts || o.parts;
    return *this;
  }
};

class SnapshotLoader {
 public:
  SnapshotLoader(WriterDb& w, ReadModel& read) : w_(w), read_(read), snapshot_(read.snapshot()) {}

  Status LoadSnapshot();
  // After a commit: the state of `nodes` and `rows` (the probe rows the
  // commit wrote, in the order written).
  void RefreshSnapshot(const std::set<std::string>& nodes, std::vector<std::shared_ptr<const ProbeRow>> rows,
                       FabricChange fabric, SnapshotUpdate* deferred = nullptr);
  // Other collectors' commits on the shared database (pg_follower.h): the
  // state of every node they stored, with exactly the probe rows of
  // `reports`; a bare node's rows (announced without its reports) are those
  // at least as new as the newest this snapshot holds of it (within the
  // open's lookback); and what `fabric` says changed. Fails (marking the
  // model dirty: rebuilt whole at the next refresh) when a read fails.
  Status FollowCommit(const std::vector<CommittedReport>& reports, const std::set<std::string>& bare_nodes,
                      FabricChange fabric);
  Status LoadEventsOpen();
  Status LoadDiagnosesOpen();  // open diagnoses by scope and kind, for /metrics
  void MarkDirty() { snapshot_dirty_ = true; }  // the next refresh rebuilds everything
  // A node's stored state (nodes row, leaf switch, ports, counters, WC
  // totals) with no pairs; null when the node has not reported.
  Result<std::shared_ptr<NodeState>> LoadNodeState(const std::string& name);
  // The same for many nodes at once, a few statements per kNodesPerLoad
  // names whatever their number (on PostgreSQL each is a round trip); the
  // nodes that have not reported are left out.
  Result<std::map<std::string, std::shared_ptr<NodeState>>> LoadNodeStates(const std::vector<std::string>& names);
  Result<std::string> LeafSwitch(const std::string& name);

 // The fabric's counts and links for /metrics (after a sweep, and after
  // retention deleted rows).
  Status LoadFabricParts();

 private:
  Result<SqlStmt*> Q(const char* sql) { return w_.Q(sql); }
  WriterDb& w_;
  ReadModel& read_;
  ReadSnapshot& snapshot_;
  bool snapshot_dirty_ = false;  // a refresh failed: the next one reloads everything
};

}  // namespace rdmascope::collector
