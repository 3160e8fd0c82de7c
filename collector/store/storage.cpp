#include "collector/store/storage.h"

namespace rdmascope::collector {

namespace {
ReadModelOptions ReadModelOptionsOf(const StoreOptions& o) {
  return ReadModelOptions{o.max_destinations_per_node, o.thresholds, o.log};
}
}  // namespace

Storage::Storage(std::unique_ptr<SqlConn> conn, const StoreOptions& options, Engine engine)
    : db(std::move(conn), options, std::move(engine.open_reader), std::move(engine.probe_bulk)),
      checkpoint(db),
      read(ReadModelOptionsOf(options)),
      loader(db, read),
      rollups(db),
      writer(db, rollups, loader, read),
      history(db),
      diagnoses(db, loader),
      topology(db),
      retention(db, rollups, read, loader) {}

Result<std::unique_ptr<Storage>> Storage::Open(const StoreOptions& options) {
  auto d = WriterDb::OpenDatabase(options);
  if (!d.ok()) return d.status();
  return OpenOn(std::make_unique<Db>(std::move(d).value()), options);
}

Result<std::unique_ptr<Storage>> Storage::OpenOn(std::unique_ptr<SqlConn> conn, const StoreOptions& options,
                                                 Engine engine) {
  std::unique_ptr<Storage> s(new Storage(std::move(conn), options, std::move(engine)));
  std::lock_guard<std::mutex> lock(s->db.mu());
  if (Status st = s->loader.LoadSnapshot(); !st.ok())
    return Result<std::unique_ptr<Storage>>::Error("database " + options.path +
                                                   ": cannot load the newest state: " + st.message());
  s->writer.LoadOpenEventKeys();
  if (Status st = s->rollups.LoadRollupMark(); !st.ok())
    return Result<std::unique_ptr<Storage>>::Error("database " + options.path +
                                                   ": cannot read how far the rollups reach: " + st.message());
  return s;
}

}  // namespace rdmascope::collector
