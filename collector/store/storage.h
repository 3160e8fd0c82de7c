// The collector's storage, one object per concern, over one database: SQLite
// in WAL mode (Open), or any SqlConn already migrated (OpenOn: PostgreSQL's,
// pg_storage.h). Each builds them in order and loads what they keep in
// memory; the daemon (collector/service) and the tests take them from here
// and hand each room the objects it needs.
//
//   db          the writer's connection, its lock and statements (writer_db.h)
//   checkpoint  copies the WAL into the file off the writer (wal_checkpoint.h)
//   read        the read model beside the store (collector/readmodel/read_model.h)
//   loader      the read model's loads from the database (snapshot_loader.h)
//   rollups     per-minute and hourly probe rollups (rollups.h)
//   writer      reports into the database, one transaction each (report_writer.h)
//   history     the API's reads, off the writer's lock (history_queries.h)
//   diagnoses   the diagnosis's facts and verdicts (diagnosis_records.h)
//   topology    the InfiniBand topology and forwarding tables, for traced paths (fabric_topology.h)
//   retention   age limits, forgetting, free pages (retention.h)
//
// Open() fails, naming the file and what to check, when the database cannot
// be opened, migrated or loaded; OpenOn() when it cannot be loaded. Destroying a Storage closes the read-only
// connections first and the writer's last (which checkpoints the WAL).
#pragma once

#include <memory>

#include "collector/readmodel/read_model.h"
#include "collector/store/diagnosis_records.h"
#include "collector/store/fabric_topology.h"
#include "collector/store/history_queries.h"
#include "collector/store/report_writer.h"
#include "collector/store/retention.h"
#include "collector/store/rollups.h"
#include "collector/store/snapshot_loader.h"
#include "collector/store/wal_checkpoint.h"
#include "collector/store/writer_db.h"

namespace rdmascope::collector {

class Storage {
 public:
  static Result<std::unique_ptr<Storage>> Open(const StoreOptions& options);
  // What an engine other than SQLite's file brings (WriterDb): the history
  // reads' connections, and its bulk store of probe rows.
  struct Engine {
    HistoryReader::Open open_reader;
    std::unique_ptr<ProbeRowBulk> probe_bulk;
  };
  // On conn (migrated already). options.path names the database in errors.
  static Result<std::unique_ptr<Storage>> OpenOn(std::unique_ptr<SqlConn> conn, const StoreOptions& options,
                                                 Engine engine = Engine());
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  WriterDb db;
  WalCheckpoint checkpoint;
  ReadModel read;
  SnapshotLoader loader;
  Rollups rollups;
  ReportWriter writer;
  HistoryQueries history;
  DiagnosisRecords diagnoses;
  FabricTopologyReader topology;
  Retention retention;

 private:
  Storage(std::unique_ptr<SqlConn> conn, const StoreOptions& options, Engine engine);
};

}  // namespace rdmascope::collector
