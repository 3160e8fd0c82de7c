#include "collector/store/store_db.h"

#include <mutex>

namespace rdmascope::collector {

Stmt& Stmt::operator=(Stmt&& o) noexcept {
  if (this != &o) {
    if (s_) sqlite3_finalize(s_);
    db_ = o.db_;
    s_ = o.s_;
    o.s_ = nullptr;
  }
  return *this;
}

Stmt::~Stmt() {
  if (s_) sqlite3_finalize(s_);
}

Stmt& Stmt::Bind(int i, int64_t v) {
  sqlite3_bind_int64(s_, i, v);
  return *this;
}
Stmt& Stmt::Bind(int i, double v) {
  sqlite3_bind_double(s_, i, v);
  return *this;
}
Stmt& Stmt::Bind(int i, std::string_view v) {
  sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Stmt& Stmt::BindUncopied(int i, std::string_view v) {
  sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
  return *this;
}
Stmt& Stmt::BindBlob(int i, const std::vector<uint8_t>& bytes) {
  // A zero-length blob still binds a blob (not NULL): data may not be null.
  static const uint8_t kEmpty = 0;
  sqlite3_bind_blob(s_, i, bytes.empty() ? &kEmpty : bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
  return *this;
}
Stmt& Stmt::BindNull(int i) {
  sqlite3_bind_null(s_, i);
  return *this;
}

Result<bool> Stmt::Step() {
  int rc = sqlite3_step(s_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  std::string sql = sqlite3_sql(s_) ? sqlite3_sql(s_) : "?";
  if (sql.size() > 80) sql = sql.substr(0, 80) + "...";
  return Result<bool>::Error("sqlite step failed (" + std::string(sqlite3_errmsg(db_)) + ") in: " + sql);
}

Status Stmt::Run() {
  for (;;) {
    auto r = Step();
    if (!r.ok()) {
      Reset();
      return r.status();
    }
    if (!r.value()) break;
  }
  Reset();
  return Status::Ok();
}

void Stmt::Reset() {
  sqlite3_reset(s_);
  sqlite3_clear_bindings(s_);
}

std::string Stmt::Text(int col) const {
  const unsigned char* t = sqlite3_column_text(s_, col);
  return t ? std::string(reinterpret_cast<const char*>(t), sqlite3_column_bytes(s_, col)) : std::string();
}
std::vector<uint8_t> Stmt::Blob(int col) const {
  const auto* b = static_cast<const uint8_t*>(sqlite3_column_blob(s_, col));
  const int n = sqlite3_column_bytes(s_, col);
  return b && n > 0 ? std::vector<uint8_t>(b, b + n) : std::vector<uint8_t>();
}
std::optional<int64_t> Stmt::OptInt(int col) const {
  return IsNull(col) ? std::nullopt : std::optional<int64_t>(Int(col));
}
std::optional<double> Stmt::OptReal(int col) const {
  return IsNull(col) ? std::nullopt : std::optional<double>(Real(col));
}
std::optional<std::string> Stmt::OptText(int col) const {
  return IsNull(col) ? std::nullopt : std::optional<std::string>(Text(col));
}

namespace {

// Process-wide SQLite settings, made once before the library initialises
// (sqlite3_config answers SQLITE_MISUSE after that, which is then ignored):
// no memory statistics, which nothing reads and which take a global mutex
// on every allocation SQLite makes (5-9 % of the writer's time in profiles
// of the fleet load).
void ConfigureSqliteOnce() {
  static std::once_flag once;
  std::call_once(once, [] { (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
}

// a < b (-1), a == b (0), a > b (1) for two non-NULL values: numbers by
// value, anything else by its bytes (as text).
int CompareValues(sqlite3_value* a, sqlite3_value* b) {
  const int ta = sqlite3_value_numeric_type(a), tb = sqlite3_value_numeric_type(b);
  const bool na = ta == SQLITE_INTEGER || ta == SQLITE_FLOAT, nb = tb == SQLITE_INTEGER || tb == SQLITE_FLOAT;
  if (na && nb) {
    if (ta == SQLITE_INTEGER && tb == SQLITE_INTEGER) {
      const sqlite3_int64 x = sqlite3_value_int64(a), y = sqlite3_value_int64(b);
      return x < y ? -1 : x > y;
    }
    const double x = sqlite3_value_double(a), y = sqlite3_value_double(b);
    return x < y ? -1 : x > y;
  }
  const std::string_view x(reinterpret_cast<const char*>(sqlite3_value_text(a)), sqlite3_value_bytes(a));
  const std::string_view y(reinterpret_cast<const char*>(sqlite3_value_text(b)), sqlite3_value_bytes(b));
  const int c = x.compare(y);
  return c < 0 ? -1 : c > 0;
}

// GREATEST(...) and LEAST(...) as PostgreSQL has them (NULLs ignored; NULL
// only when every argument is), so that a statement using them runs on
// either backend. sign: 1 for GREATEST, -1 for LEAST.
void Extreme(sqlite3_context* ctx, int argc, sqlite3_value** argv, int sign) {
  sqlite3_value* best = nullptr;
  for (int i = 0; i < argc; ++i) {
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) continue;
    if (!best || CompareValues(argv[i], best) * sign > 0) best = argv[i];
  }
  if (best) sqlite3_result_value(ctx, best);
  else sqlite3_result_null(ctx);
}
void Greatest(sqlite3_context* ctx, int argc, sqlite3_value** argv) { Extreme(ctx, argc, argv, 1); }
void Least(sqlite3_context* ctx, int argc, sqlite3_value** argv) { Extreme(ctx, argc, argv, -1); }

// The functions every connection has beside SQLite's own; an error names the one not registered.
Status AddFunctions(sqlite3* db) {
  constexpr int kFlags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  if (sqlite3_create_function_v2(db, "greatest", -1, kFlags, nullptr, &Greatest, nullptr, nullptr, nullptr) != SQLITE_OK ||
      sqlite3_create_function_v2(db, "least", -1, kFlags, nullptr, &Least, nullptr, nullptr, nullptr) != SQLITE_OK)
    return Status::Error(std::string("sqlite: cannot register GREATEST and LEAST: ") + sqlite3_errmsg(db));
  return Status::Ok();
}

}  // namespace

Result<Db> Db::Open(const std::string& path) {
  ConfigureSqliteOnce();
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    if (raw) sqlite3_close(raw);
    return Result<Db>::Error("cannot open database " + path + ": " + msg +
                             " (check the directory exists and is writable)");
  }
  if (Status f = AddFunctions(raw); !f.ok()) {
    sqlite3_close(raw);
    return f;
  }
  return Db(raw);
}

Result<Db> Db::OpenReadOnly(const std::string& path) {
  ConfigureSqliteOnce();
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    if (raw) sqlite3_close(raw);
    return Result<Db>::Error("cannot open database " + path + " to read: " + msg + " (check it exists and is readable)");
  }
  if (Status f = AddFunctions(raw); !f.ok()) {
    sqlite3_close(raw);
    return f;
  }
  return Db(raw);
}

void Db::Close() {
  stmts_.clear();  // statements before the connection
  if (db_) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
  }
}

Status Db::Exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : ErrorMessage();
    sqlite3_free(err);
    std::string head = sql.size() > 80 ? sql.substr(0, 80) + "..." : sql;
    return Status::Error("sqlite exec failed (" + msg + ") in: " + head);
  }
  return Status::Ok();
}

Result<int64_t> Db::QueryInt(std::string_view sql) {
  auto q = Prepare(sql);
  if (!q.ok()) return q.status();
  auto row = q.value().Step();
  if (!row.ok()) return row.status();
  if (!row.value()) return Result<int64_t>::Error(std::string(sql) + " returned no row");
  return q.value().Int(0);
}

Result<Stmt> Db::Prepare(std::string_view sql) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &s, nullptr) !=
      SQLITE_OK) {
    return Result<Stmt>::Error("sqlite prepare failed (" + ErrorMessage() + ") for: " + std::string(sql.substr(0, 80)));
  }
  return Stmt(db_, s);
}

Result<Stmt*> Db::QStmt(const char* sql) {
  auto it = stmts_.find(sql);
  if (it != stmts_.end()) {
    it->second.Reset();
    return &it->second;
  }
  auto s = Prepare(sql);
  if (!s.ok()) return s.status();
  return &stmts_.emplace(sql, std::move(s).value()).first->second;
}

Result<SqlStmt*> Db::Q(const char* sql) {
  auto s = QStmt(sql);
  if (!s.ok()) return s.status();
  return static_cast<SqlStmt*>(s.value());
}

}  // namespace rdmascope::collector
