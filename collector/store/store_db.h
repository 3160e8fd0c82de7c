// Thin RAII wrapper over one SQLite connection and its prepared statements.
//
// Contract: every failure comes back as a Status naming the SQL step and
// SQLite's message; nothing throws. A Stmt belongs to the Db that prepared it
// and must not outlive it. Not thread-safe: the owner serialises access.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collector/store/sql_conn.h"
#include "collector/store/sql_stmt.h"
#include "common/status.h"

namespace rdmascope::collector {

// SQLite's statement (the interface: sql_stmt.h).
class Stmt final : public SqlStmt {
 public:
  Stmt() = default;
  Stmt(sqlite3* db, sqlite3_stmt* s) : db_(db), s_(s) {}
  Stmt(Stmt&& o) noexcept : db_(o.db_), s_(o.s_) { o.s_ = nullptr; }
  Stmt& operator=(Stmt&& o) noexcept;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt() override;

  // Binds by 1-based index. Optional values bind NULL when absent.
  Stmt& Bind(int i, int64_t v) override;
  Stmt& Bind(int i, double v) override;
  Stmt& Bind(int i, std::string_view v) override;
  Stmt& Bind(int i, const char* v) { return Bind(i, std::string_view(v)); }
  Stmt& Bind(int i, const std::string& v) { return Bind(i, std::string_view(v)); }
  Stmt& BindNull(int i) override;
  // Bytes as a BLOB (copied).
  Stmt& BindBlob(int i, const std::vector<uint8_t>& bytes) override;
  Stmt& Bind(int i, const std::optional<int64_t>& v) { return v ? Bind(i, *v) : BindNull(i); }
  Stmt& Bind(int i, const std::optional<double>& v) { return v ? Bind(i, *v) : BindNull(i); }
  Stmt& Bind(int i, const std::optional<std::string>& v) { return v ? Bind(i, std::string_view(*v)) : BindNull(i); }
  // Binds text without copying it: v must stay valid and unchanged until the
  // statement is next reset (Run and Reset do that). For hot inserts whose
  // strings outlive the call, e.g. fields of the parsed report.
  Stmt& BindUncopied(int i, std::string_view v) override;
  Stmt& BindUncopied(int i, const std::string& v) { return BindUncopied(i, std::string_view(v)); }
  Stmt& BindUncopied(int i, const std::optional<std::string>& v) {
    return v ? BindUncopied(i, std::string_view(*v)) : BindNull(i);
  }

  // One step: true when a row is available, false when done; error otherwise.
  Result<bool> Step() override;
  // Steps to completion (for statements that return no rows), then resets.
  Status Run() override;
  // Resets and clears bindings for reuse.
  void Reset() override;

  int64_t Changes() const override { return sqlite3_changes(db_); }
  int ColumnCount() const override { return sqlite3_column_count(s_); }
  std::string_view ColumnName(int col) const override { return sqlite3_column_name(s_, col); }
  ValueType ColumnType(int col) const override {
    switch (sqlite3_column_type(s_, col)) {
      case SQLITE_INTEGER: return ValueType::kInteger;
      case SQLITE_FLOAT: return ValueType::kReal;
      case SQLITE_NULL: return ValueType::kNull;
      default: return ValueType::kText;
    }
  }
  bool IsNull(int col) const override { return sqlite3_column_type(s_, col) == SQLITE_NULL; }
  int64_t Int(int col) const override { return sqlite3_column_int64(s_, col); }
  double Real(int col) const override { return sqlite3_column_double(s_, col); }
  std::string Text(int col) const;
  // The same without a copy: valid until the statement's next step; empty when NULL.
  std::string_view TextView(int col) const override {
    const unsigned char* t = sqlite3_column_text(s_, col);
    return t ? std::string_view(reinterpret_cast<const char*>(t), sqlite3_column_bytes(s_, col)) : std::string_view();
  }
  std::optional<int64_t> OptInt(int col) const;
  std::optional<double> OptReal(int col) const;
  std::optional<std::string> OptText(int col) const;
  std::vector<uint8_t> Blob(int col) const override;  // a BLOB column's bytes (empty when NULL)
  sqlite3_stmt* raw() const { return s_; }

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* s_ = nullptr;
};

// SQLite's connection (the interface: sql_conn.h). Q's statements are kept
// by their SQL text and finalised before the connection closes. Every
// connection also has GREATEST(...) and LEAST(...) as PostgreSQL defines
// them (NULL arguments ignored), so the store's statements can be written
// once for both engines.
class Db final : public SqlConn {
 public:
  Db() = default;
  Db(Db&& o) noexcept : db_(o.db_), stmts_(std::move(o.stmts_)) { o.db_ = nullptr; }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db() override { Close(); }

  // Opens (creating) the file; path ":memory:" is an in-memory database.
  static Result<Db> Open(const std::string& path);
  static Result<Db> OpenReadOnly(const std::string& path);  // an existing file, no writes
  void Close();

  Result<SqlStmt*> Q(const char* sql) override;
  void ResetStatements() override {
    for (auto& [sql, stmt] : stmts_) stmt.Reset();
  }
  // Q's statement as SQLite's own (calls on it are direct).
  Result<Stmt*> QStmt(const char* sql);
  Status Exec(const std::string& sql) override;
  Result<Stmt> Prepare(std::string_view sql);
  // The first column of sql's first row as an integer (a PRAGMA's value, a
  // count); an error naming sql when it returns no row.
  Result<int64_t> QueryInt(std::string_view sql) override;
  int64_t Changes() const override { return sqlite3_changes(db_); }
  Status Begin() override { return Exec("BEGIN IMMEDIATE"); }
  bool InTransaction() const override { return db_ && !sqlite3_get_autocommit(db_); }
  Db* sqlite() override { return this; }
  int64_t LastInsertRowid() const { return sqlite3_last_insert_rowid(db_); }
  sqlite3* raw() const { return db_; }
  std::string ErrorMessage() const { return db_ ? sqlite3_errmsg(db_) : "database not open"; }

 private:
  explicit Db(sqlite3* db) : db_(db) {}
  sqlite3* db_ = nullptr;
  std::unordered_map<std::string, Stmt> stmts_;
};

}  // namespace rdmascope::collector
