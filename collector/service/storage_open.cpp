// OpenCollectorStorage and DatabaseName (contract in storage_open.h).
#include "collector/service/storage_open.h"

#include <fstream>

#include "collector/store/pg_storage.h"

namespace rdmascope::collector {

namespace {

Result<std::string> ReadPassword(const std::string& file) {
  if (file.empty()) return std::string();
  std::ifstream in(file);
  if (!in) return Status::Error("cannot read --db-password-file " + file + " (check it exists and is readable)");
  std::string line;
  std::getline(in, line);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.empty()) return Status::Error("--db-password-file " + file + " is empty: its first line is the password");
  return line;
}

}  // namespace

std::string DatabaseName(const std::string& db) {
  if (!IsPostgresDb(db)) return db;
  // scheme://[user[:password]@]host...: the user stays, the password goes.
  const size_t start = db.find("://") + 3;
  const size_t at = db.find('@', start), slash = db.find('/', start);
  if (at == std::string::npos || (slash != std::string::npos && at > slash)) return db;
  const size_t colon = db.find(':', start);
  if (colon == std::string::npos || colon > at) return db;
  return db.substr(0, colon) + db.substr(at);
}

Result<std::unique_ptr<Storage>> OpenCollectorStorage(const CollectorConfig& config, const StoreOptions& options,
                                                      int64_t now_ms) {
  if (!IsPostgresDb(config.db)) return Storage::Open(options);
  auto password = ReadPassword(config.db_password_file);
  if (!password.ok()) return password.status();
  auto store = OpenPostgresStorage(config.db, password.value(), options, now_ms);
  if (!store.ok())
    return Status::Error("database " + DatabaseName(config.db) + ": " + store.status().message());
  return store;
}

SharedDatabase OpenSharedDatabase(const CollectorConfig& config, Storage& store,
                                  std::function<void(const std::string&)> log) {
  SharedDatabase out;
  if (!IsPostgresDb(config.db)) return out;
  auto read = ReadPassword(config.db_password_file);
  const std::string password = read.ok() ? read.value() : "";
  out.follower = std::make_unique<PgCommitFollower>(store, config.db, password, log);
  out.leadership = std::make_unique<PgLeadership>(config.db, password, std::move(log));
  return out;
}

}  // namespace rdmascope::collector
