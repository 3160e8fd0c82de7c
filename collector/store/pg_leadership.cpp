// Leadership by a session advisory lock (contract in pg_leadership.h).
#include "collector/store/pg_leadership.h"

#include <string>
#include <utility>

#include "collector/store/pg_locks.h"

namespace rdmascope::collector {

PgLeadership::PgLeadership(std::string target, std::string password, std::function<void(const std::string&)> log)
    : target_(std::move(target)), password_(std::move(password)), log_(std::move(log)) {}

bool PgLeadership::Connected() {
  if (db_ && !db_->Broken()) return true;
  auto db = PgDb::Connect(target_, password_);
  if (!db.ok()) {
    if (db.status().message() != last_error_) {
      last_error_ = db.status().message();
      log_("leadership: cannot reach the database to take the lead: " + last_error_);
    }
    db_.reset();
    return false;
  }
  db_ = std::make_unique<PgDb>(std::move(db).value());
  // A leader whose host vanished sends no FIN: the server finds the silent
  // socket by keepalives (5 s idle, then 3 probes 5 s apart) and ends the
  // session, which lets the lock go.
  (void)db_->Exec("SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3");
  last_error_.clear();
  return true;
}

void PgLeadership::Drop(const std::string& why) {
  if (leading_) log_("no longer leading: " + why + "; another collector may take diagnosis, rollups and retention");
  leading_ = false;
  db_.reset();
}

bool PgLeadership::Lead() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!Connected()) {
    if (leading_) Drop("the database connection was lost");
    return false;
  }
  if (leading_) {
    auto alive = db_->QueryInt("SELECT 1");
    if (!alive.ok()) Drop("the connection holding the lead failed: " + alive.status().message());
    return leading_;
  }
  auto got = db_->QueryInt("SELECT pg_try_advisory_lock(" + std::to_string(kPgLeaderLock) + ")::int");
  if (!got.ok()) {
    log_("leadership: pg_try_advisory_lock failed: " + got.status().message());
    db_.reset();
    return false;
  }
  if (got.value() == 1) {
    leading_ = true;
    log_("leading: this collector runs diagnosis, rollups and retention for the collectors on this database");
  }
  return leading_;
}

}  // namespace rdmascope::collector
