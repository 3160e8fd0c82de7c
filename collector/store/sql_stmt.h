// One prepared statement of either backend — SQLite's Stmt (store_db.h) or
// PostgreSQL's PgStmt (pg_stmt.h) — as the store objects call it, so that
// they run on either engine unchanged.
//
// Contract (each backend keeps it, and states what it adds):
//  - Bind(i, v) by 1-based index; BindNull(i) and an absent optional bind
//    NULL. BindUncopied may keep a view of v until the next Reset or Run.
//  - Step() is true while a row is available, false when done, an error
//    naming the statement otherwise. Run() runs it to completion and resets.
//    Reset() clears the bindings for reuse.
//  - Column readers read the current row by 0-based index: IsNull, Int and
//    Real (0 for NULL), TextView (empty for NULL; valid until the next
//    step), and the conveniences built on them. ColumnCount, ColumnName
//    and ColumnType describe the current row's columns (valid once Step()
//    gave a row): a value's type is what the engine holds, a boolean an
//    integer 0 or 1.
//  - Changes() is the number of rows its last run changed (INSERT, UPDATE,
//    DELETE).
// A backend's class is final, so calls on it (not through this interface)
// are direct.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rdmascope::collector {

class SqlStmt {
 public:
  virtual ~SqlStmt() = default;

  virtual SqlStmt& Bind(int i, int64_t v) = 0;
  virtual SqlStmt& Bind(int i, double v) = 0;
  virtual SqlStmt& Bind(int i, std::string_view v) = 0;
  virtual SqlStmt& BindNull(int i) = 0;
  virtual SqlStmt& BindUncopied(int i, std::string_view v) = 0;
  virtual SqlStmt& BindBlob(int i, const std::vector<uint8_t>& bytes) = 0;  // bytes (BLOB, bytea), copied
  SqlStmt& Bind(int i, const char* v) { return Bind(i, std::string_view(v)); }
  SqlStmt& Bind(int i, const std::string& v) { return Bind(i, std::string_view(v)); }
  SqlStmt& Bind(int i, const std::optional<int64_t>& v) { return v ? Bind(i, *v) : BindNull(i); }
  SqlStmt& Bind(int i, const std::optional<double>& v) { return v ? Bind(i, *v) : BindNull(i); }
  SqlStmt& Bind(int i, const std::optional<std::string>& v) { return v ? Bind(i, std::string_view(*v)) : BindNull(i); }
  SqlStmt& BindUncopied(int i, const std::string& v) { return BindUncopied(i, std::string_view(v)); }
  SqlStmt& BindUncopied(int i, const std::optional<std::string>& v) {
    return v ? BindUncopied(i, std::string_view(*v)) : BindNull(i);
  }

  virtual Result<bool> Step() = 0;
  virtual Status Run() = 0;
  virtual void Reset() = 0;

  virtual int64_t Changes() const = 0;

  enum class ValueType { kNull, kInteger, kReal, kText };
  virtual int ColumnCount() const = 0;
  virtual std::string_view ColumnName(int col) const = 0;
  virtual ValueType ColumnType(int col) const = 0;
  virtual bool IsNull(int col) const = 0;
  virtual int64_t Int(int col) const = 0;
  virtual double Real(int col) const = 0;
  virtual std::string_view TextView(int col) const = 0;
  virtual std::vector<uint8_t> Blob(int col) const = 0;  // a bytes column (empty when NULL)
  std::string Text(int col) const { return std::string(TextView(col)); }
  std::optional<int64_t> OptInt(int col) const { return IsNull(col) ? std::nullopt : std::optional<int64_t>(Int(col)); }
  std::optional<double> OptReal(int col) const { return IsNull(col) ? std::nullopt : std::optional<double>(Real(col)); }
  std::optional<std::string> OptText(int col) const {
    return IsNull(col) ? std::nullopt : std::optional<std::string>(Text(col));
  }

 protected:
  SqlStmt() = default;
  SqlStmt(const SqlStmt&) = default;
  SqlStmt& operator=(const SqlStmt&) = default;
};

}  // namespace rdmascope::collector
