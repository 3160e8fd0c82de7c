// One connection of either backend — SQLite's Db (store_db.h) or
// PostgreSQL's PgDb (pg_db.h) — as the store objects use it, so that a
// store object written once runs on either engine.
//
// Contract (each backend keeps it, and states what it adds):
//  - Q(sql) gives the connection's prepared statement for sql, reset and
//    ready to bind; the first call prepares it. sql is in the store's form
//    (?N placeholders) and valid on both engines. The statement lives as
//    long as the connection.
//  - Exec(sql) runs one or more statements without parameters and without
//    rows wanted; QueryInt(sql) gives the first column of the first row as
//    an integer, an error naming sql when there is no row.
//  - Changes() is the number of rows the last INSERT, UPDATE or DELETE run
//    on this connection changed.
//  - Begin() opens a write transaction (SQLite takes the write lock at
//    once; PostgreSQL connects again first when the connection was lost). InTransaction() is true from Begin() until COMMIT or ROLLBACK
//    ends it; false once SQLite rolled it back itself (a storage fault), and
//    still true for a PostgreSQL transaction that a failed statement left to
//    be rolled back.
//  - Errors are values naming the statement and the engine's message.
//  - Not thread-safe: the owner serialises access.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "collector/store/sql_stmt.h"
#include "common/status.h"

namespace rdmascope::collector {

class Db;
class PgDb;

class SqlConn {
 public:
  virtual ~SqlConn() = default;

  virtual Result<SqlStmt*> Q(const char* sql) = 0;
  // Resets every statement Q gave: none is left inside its rows (on SQLite a
  // statement stopped inside its rows keeps its read transaction open).
  virtual void ResetStatements() = 0;
  virtual Status Exec(const std::string& sql) = 0;
  virtual Result<int64_t> QueryInt(std::string_view sql) = 0;
  virtual int64_t Changes() const = 0;
  virtual Status Begin() = 0;
  virtual bool InTransaction() const = 0;

  // The engine underneath, for what only one of them has (SQLite's WAL,
  // PostgreSQL's COPY): the connection itself, or nullptr for the other.
  virtual Db* sqlite() { return nullptr; }
  virtual PgDb* postgres() { return nullptr; }

 protected:
  SqlConn() = default;
  SqlConn(const SqlConn&) = default;
  SqlConn& operator=(const SqlConn&) = default;
};

// Rolls back on destruction unless Commit() succeeded.
class Transaction {
 public:
  explicit Transaction(SqlConn& db) : db_(db) {}
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  Status Begin();
  Status Commit();

 private:
  SqlConn& db_;
  bool open_ = false;
};

}  // namespace rdmascope::collector
