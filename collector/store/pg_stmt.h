// A prepared statement on PostgreSQL: the SqlStmt interface (sql_stmt.h) that
// SQLite's Stmt also implements, so that the store's statements, written
// once, run on either backend.
//
// Contract:
//  - The SQL is written as for SQLite, parameters ?1..?N (or bare ?, numbered
//    in order); PgSql() gives the PostgreSQL text ($1..$N), leaving quoted
//    strings and identifiers alone, and drops SQLite's planner hint
//    "INDEXED BY name". Other dialect differences are the caller's: the
//    statement must be valid on both engines.
//  - Bind(i, v) by 1-based index as Stmt does; every value is sent in text
//    form (integers in decimal, doubles shortest-exact, so they round-trip;
//    NaN and the infinities as PostgreSQL spells them). BindUncopied copies
//    too: there is no saving to be had.
//  - The first Step() (or Run()) sends the statement with its bindings,
//    preparing it on the server first when this connection has not (the
//    statement survives a reconnection: it is prepared again). Step() then
//    walks the rows; Run() runs it, discards any rows and resets.
//    Changes() gives the rows the last run touched.
//  - Columns read as Stmt reads them: Int() of NULL is 0, of a boolean 1 or
//    0, of a number with a fraction its integer part; Real() of NULL 0.
//  - Errors name the statement's first words, PostgreSQL's message and
//    SQLSTATE (PgDb); a parameter index out of 1..N fails the next run.
//  - Not thread-safe; must not outlive its PgDb. PgDb::Q keeps one per SQL text.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collector/store/pg_db.h"
#include "collector/store/sql_stmt.h"

namespace rdmascope::collector {

// sql with ?N (and bare ?) placeholders as $N and without INDEXED BY
// clauses; *params: the highest N.
std::string PgSql(std::string_view sql, int* params = nullptr);

class PgStmt final : public SqlStmt {
 public:
  // sql in SQLite's form (see PgSql); name: unique on the connection.
  PgStmt(PgDb* db, std::string name, std::string_view sql);

  PgStmt& Bind(int i, int64_t v) override;
  PgStmt& Bind(int i, double v) override;
  PgStmt& Bind(int i, std::string_view v) override;
  PgStmt& BindNull(int i) override;
  PgStmt& BindUncopied(int i, std::string_view v) override { return Bind(i, v); }
  // bytea in its hex text form (\x...), as it is also read back.
  PgStmt& BindBlob(int i, const std::vector<uint8_t>& bytes) override;
  using SqlStmt::Bind;  // const char*, std::string and the optionals
  using SqlStmt::BindUncopied;

  Result<bool> Step() override;
  Status Run() override;
  void Reset() override;
  int64_t Changes() const override { return changes_; }
  int ColumnCount() const override { return result_.cols(); }
  std::string_view ColumnName(int col) const override { return result_.Name(col); }
  ValueType ColumnType(int col) const override;
  std::vector<uint8_t> Blob(int col) const override;

  bool IsNull(int col) const override { return result_.IsNull(row_, col); }
  int64_t Int(int col) const override;
  double Real(int col) const override;
  std::string_view TextView(int col) const override { return IsNull(col) ? std::string_view() : result_.Text(row_, col); }
  // Text, OptInt, OptReal, OptText: SqlStmt's.
  const std::string& sql() const { return sql_; }
  // The connection it now belongs to (its PgDb was moved).
  void Rehome(PgDb* db) { db_ = db; }

 private:
  Status Execute();
  PgDb* db_;
  std::string name_, sql_;
  int params_ = 0;
  uint64_t prepared_in_ = 0;  // the PgDb generation it was prepared in (0: none)
  std::vector<std::optional<std::string>> values_;
  std::string bind_error_;
  bool executed_ = false;
  PgResult result_;
  int row_ = -1;
  int64_t changes_ = 0;
};

}  // namespace rdmascope::collector
