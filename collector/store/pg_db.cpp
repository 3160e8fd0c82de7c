// PgDb, PgResult and CopyRows (contract in pg_db.h).
#include "collector/store/pg_db.h"
#include "collector/store/pg_stmt.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <utility>

namespace rdmascope::collector {
namespace {

constexpr const char* kDefaultConnectTimeoutS = "10";

// The first words of a statement, for errors (a COPY's data or a long
// INSERT's values stay out).
std::string FirstWords(std::string_view sql) {
  std::string out;
  for (char c : sql) {
    if (out.size() >= 60) return out + "...";
    out.push_back(c == '\n' || c == '\t' ? ' ' : c);
  }
  return out;
}

// libpq's message without its trailing newline.
std::string Trimmed(const char* m) {
  std::string s = m ? m : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s.empty() ? "no message" : s;
}

std::string ServerOf(PGconn* c) {
  if (!c) return "?";
  const char* host = PQhost(c);
  const char* port = PQport(c);
  std::string h = host && *host ? host : "localhost";
  return h + ":" + (port && *port ? port : "5432");
}

}  // namespace

std::optional<std::string> PgResult::OptText(int row, int col) const {
  if (IsNull(row, col)) return std::nullopt;
  return std::string(Text(row, col));
}

std::optional<int64_t> PgResult::OptInt(int row, int col) const {
  if (IsNull(row, col)) return std::nullopt;
  const std::string_view t = Text(row, col);
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
  return v;
}

int64_t PgResult::Affected() const {
  const char* n = r_ ? PQcmdTuples(r_.get()) : "";
  int64_t v = 0;
  std::from_chars(n, n + std::strlen(n), v);
  return v;
}

void CopyRows::Separator() {
  if (row_open_) text_.push_back('\t');
  row_open_ = true;
}

CopyRows& CopyRows::Field(std::string_view v) {
  Separator();
  for (char c : v) {
    switch (c) {
      case '\\': text_ += "\\\\"; break;
      case '\t': text_ += "\\t"; break;
      case '\n': text_ += "\\n"; break;
      case '\r': text_ += "\\r"; break;
      case '\0':
        if (error_.empty()) error_ = "row " + std::to_string(rows_ + 1) + ": a NUL byte, which PostgreSQL text cannot hold";
        break;
      default: text_.push_back(c);
    }
  }
  return *this;
}

std::string_view PgNumberText(int64_t v, char (&buf)[32]) {
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string_view(buf, static_cast<size_t>(end - buf));
}

std::string_view PgNumberText(double v, char (&buf)[32]) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);  // shortest that reads back exactly
  return std::string_view(buf, static_cast<size_t>(end - buf));
}

CopyRows& CopyRows::Field(int64_t v) {
  Separator();
  char buf[32];
  text_ += PgNumberText(v, buf);
  return *this;
}

CopyRows& CopyRows::Field(double v) {
  Separator();
  char buf[32];
  text_ += PgNumberText(v, buf);
  return *this;
}

CopyRows& CopyRows::Null() {
  Separator();
  text_ += "\\N";
  return *this;
}

void CopyRows::EndRow() {
  text_.push_back('\n');
  row_open_ = false;
  ++rows_;
}

PgDb::PgDb() = default;
PgDb::PgDb(PgDb&& o) noexcept { *this = std::move(o); }
PgDb::~PgDb() { Close(); }

PgDb& PgDb::operator=(PgDb&& o) noexcept {
  if (this != &o) {
    Close();
    c_ = std::exchange(o.c_, nullptr);
    server_ = std::move(o.server_), target_ = std::move(o.target_), password_ = std::move(o.password_);
    generation_ = o.generation_;
    changes_ = o.changes_;
    reconnect_error_ = std::move(o.reconnect_error_);
    reconnect_at_ = o.reconnect_at_, reconnect_backoff_ms_ = o.reconnect_backoff_ms_;
    stmts_ = std::move(o.stmts_);
    for (auto& [sql, stmt] : stmts_) stmt->Rehome(this);
  }
  return *this;
}

Result<PgStmt*> PgDb::QStmt(const char* sql) {
  auto it = stmts_.find(sql);
  if (it == stmts_.end())
    it = stmts_.emplace(sql, std::make_unique<PgStmt>(this, "rdmascope_" + std::to_string(stmts_.size() + 1), sql))
             .first;
  it->second->Reset();
  return it->second.get();
}

void PgDb::ResetStatements() {
  for (auto& [sql, stmt] : stmts_) stmt->Reset();
}

Result<SqlStmt*> PgDb::Q(const char* sql) {
  auto s = QStmt(sql);
  if (!s.ok()) return s.status();
  return static_cast<SqlStmt*>(s.value());
}

Result<int64_t> PgDb::QueryInt(std::string_view sql) {
  auto r = Query(std::string(sql));
  if (!r.ok()) return r.status();
  if (r.value().rows() < 1 || r.value().cols() < 1)
    return Result<int64_t>::Error("PostgreSQL at " + server_ + ": " + std::string(sql.substr(0, 80)) + " returned no row");
  auto v = r.value().OptInt(0, 0);
  if (!v) return Result<int64_t>::Error("PostgreSQL at " + server_ + ": " + std::string(sql.substr(0, 80)) +
                                        " returned " + std::string(r.value().Text(0, 0)) + ", not an integer");
  return *v;
}

Status PgDb::Begin() {
  if (Broken()) {
    const auto now = std::chrono::steady_clock::now();
    if (reconnect_backoff_ms_ > 0 && now < reconnect_at_) {
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(reconnect_at_ - now).count();
      return Status::Error(reconnect_error_ + "; the next attempt in " + std::to_string(wait) + " ms");
    }
    if (Status s = Reconnect(); !s.ok()) {
      reconnect_backoff_ms_ = std::min(kReconnectMaxBackoffMs, reconnect_backoff_ms_ > 0 ? 2 * reconnect_backoff_ms_ : 250);
      reconnect_at_ = now + std::chrono::milliseconds(reconnect_backoff_ms_);
      reconnect_error_ = s.message();
      return s;
    }
    reconnect_backoff_ms_ = 0;
  }
  return Exec("BEGIN");
}

bool PgDb::InTransaction() const {
  if (!c_) return false;
  const PGTransactionStatusType t = PQtransactionStatus(c_);
  return t == PQTRANS_INTRANS || t == PQTRANS_INERROR || t == PQTRANS_ACTIVE;
}

Result<PgDb> PgDb::Connect(const std::string& target, const std::string& password) {
  PgDb db;
  db.target_ = target, db.password_ = password;
  if (Status s = db.Reconnect(); !s.ok()) return s;
  return db;
}

Status PgDb::Reconnect() {
  Disconnect();
  // dbname expands the URI or keyword string; a keyword after it overrides
  // what the string says (so connect_timeout only when the string has none).
  std::vector<const char*> keys = {"dbname", "client_encoding", "fallback_application_name"};
  std::vector<const char*> values = {target_.c_str(), "UTF8", "rdmascope-collector"};
  const bool has_timeout = target_.find("connect_timeout") != std::string::npos;
  if (!has_timeout) keys.push_back("connect_timeout"), values.push_back(kDefaultConnectTimeoutS);
  if (!password_.empty()) keys.push_back("password"), values.push_back(password_.c_str());
  keys.push_back(nullptr), values.push_back(nullptr);
  c_ = PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1);
  if (!c_) return Status::Error("connecting to PostgreSQL: out of memory");
  server_ = ServerOf(c_);
  if (PQstatus(c_) != CONNECTION_OK) {
    std::string m = Trimmed(PQerrorMessage(c_));
    Disconnect();
    return Status::Error("connecting to PostgreSQL at " + server_ + ": " + m +
                         " (check the database URL and password, and that the server runs and accepts connections from this host)");
  }
  ++generation_;
  return Status::Ok();
}

void PgDb::Close() {
  stmts_.clear();
  Disconnect();
}

void PgDb::Disconnect() {
  if (c_) PQfinish(c_);
  c_ = nullptr;
}

std::string PgDb::Failure(std::string_view step, const PGresult* r) const {
  std::string m = "PostgreSQL at " + server_ + ", " + std::string(step) + ": ";
  const char* primary = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
  m += primary ? Trimmed(primary) : Trimmed(c_ ? PQerrorMessage(c_) : "not connected");
  if (const char* detail = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_DETAIL) : nullptr) m += " (" + Trimmed(detail) + ")";
  if (const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr) m += " [SQLSTATE " + std::string(state) + "]";
  if (Broken()) m += "; the connection is lost";
  return m;
}

Status PgDb::Exec(const std::string& sql) {
  if (!c_) return Status::Error("PostgreSQL at " + server_ + ", " + FirstWords(sql) + ": not connected");
  PGresult* r = PQexec(c_, sql.c_str());
  const ExecStatusType st = PQresultStatus(r);
  std::string failed;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_EMPTY_QUERY) failed = Failure(FirstWords(sql), r);
  PQclear(r);
  return failed.empty() ? Status::Ok() : Status::Error(failed);
}

Result<PgResult> PgDb::Query(const std::string& sql, const std::vector<std::optional<std::string>>& params) {
  if (!c_) return Status::Error("PostgreSQL at " + server_ + ", " + FirstWords(sql) + ": not connected");
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  auto r = Answer(PQexecParams(c_, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(), nullptr,
                               nullptr, /*resultFormat=*/0),
                  sql);
  changes_ = r.ok() ? r.value().Affected() : 0;
  return r;
}

Result<PgResult> PgDb::Answer(PGresult* r, std::string_view sql) const {
  const ExecStatusType st = PQresultStatus(r);
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    std::string failed = Failure(FirstWords(sql), r);
    PQclear(r);
    return Status::Error(failed);
  }
  return PgResult(r);
}

Status PgDb::Prepare(const std::string& name, const std::string& sql) {
  if (!c_) return Status::Error("PostgreSQL at " + server_ + ", preparing " + FirstWords(sql) + ": not connected");
  PGresult* r = PQprepare(c_, name.c_str(), sql.c_str(), 0, nullptr);
  std::string failed;
  if (PQresultStatus(r) != PGRES_COMMAND_OK) failed = Failure("preparing " + FirstWords(sql), r);
  PQclear(r);
  return failed.empty() ? Status::Ok() : Status::Error(failed);
}

Result<PgResult> PgDb::ExecPrepared(const std::string& name, const std::string& sql,
                                    const std::vector<std::optional<std::string>>& params) {
  if (!c_) return Status::Error("PostgreSQL at " + server_ + ", " + FirstWords(sql) + ": not connected");
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  auto r = Answer(PQexecPrepared(c_, name.c_str(), static_cast<int>(values.size()), values.data(), nullptr, nullptr,
                                 /*resultFormat=*/0),
                  sql);
  changes_ = r.ok() ? r.value().Affected() : 0;
  return r;
}

Result<int64_t> PgDb::CopyIn(const std::string& copy_sql, const CopyRows& rows) {
  const std::string step = FirstWords(copy_sql);
  if (!rows.error().empty()) return Status::Error("PostgreSQL " + step + ": refused before sending: " + rows.error());
  if (!c_) return Status::Error("PostgreSQL at " + server_ + ", " + step + ": not connected");
  PGresult* r = PQexec(c_, copy_sql.c_str());
  if (PQresultStatus(r) != PGRES_COPY_IN) {
    std::string failed = Failure(step, r);
    PQclear(r);
    return Status::Error(failed);
  }
  PQclear(r);
  const std::string& text = rows.text();
  // Sent in slices: PQputCopyData takes an int length.
  constexpr size_t kSlice = 1 << 20;
  for (size_t at = 0; at < text.size(); at += kSlice) {
    const int n = static_cast<int>(std::min(kSlice, text.size() - at));
    if (PQputCopyData(c_, text.data() + at, n) != 1) {
      PQputCopyEnd(c_, "sending failed");
      while (PGresult* rest = PQgetResult(c_)) PQclear(rest);
      return Status::Error(Failure(step + " (sending rows)", nullptr));
    }
  }
  if (PQputCopyEnd(c_, nullptr) != 1) {
    while (PGresult* rest = PQgetResult(c_)) PQclear(rest);
    return Status::Error(Failure(step + " (ending the copy)", nullptr));
  }
  // The COPY's own result, then none.
  std::string failed;
  int64_t stored = 0;
  while (PGresult* done = PQgetResult(c_)) {
    if (PQresultStatus(done) == PGRES_COMMAND_OK) stored = PgResult(done).Affected();
    else {
      if (failed.empty()) failed = Failure(step, done);
      PQclear(done);
    }
  }
  if (!failed.empty()) return Status::Error(failed);
  return stored;
}

}  // namespace rdmascope::collector
