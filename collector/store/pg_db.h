// Thin RAII wrapper over one PostgreSQL connection (libpq): the PostgreSQL
// backend's counterpart of Db (store_db.h).
//
// Contract:
//  - Nothing throws. Every failure comes back as a Status naming the step
//    (connecting to which server, the statement's first words, COPY into
//    which table), PostgreSQL's message and its SQLSTATE when it sent one.
//    The password never appears in an error.
//  - Connect(target, password): target is a libpq connection URI
//    (postgresql://user@host:port/db?...) or keyword string; the password,
//    when not empty, is passed beside it, never written into it. Without a
//    connect_timeout in the target, 10 s. The server is named in errors as
//    host:port (or the socket directory and port).
//  - Query(sql, params): one statement; parameters are $1..$n in text form
//    (nullopt: NULL); rows come back in text form. Exec(sql): one or more
//    statements without parameters and without rows wanted.
//  - CopyIn(copy_sql, rows): runs `COPY table (cols) FROM STDIN` (text
//    format) with the rows CopyRows built, in one round of messages; returns
//    the rows stored. A row CopyRows refused (a NUL byte, which PostgreSQL
//    text cannot hold) fails the call before anything is sent. A COPY the
//    server refuses stores nothing (it is one statement).
//  - Prepare(name, sql) and ExecPrepared(name, ...): a server-side prepared
//    statement, as Query otherwise. A statement lives as long as the
//    connection: generation() changes with every (re)connection, and a
//    statement prepared in an earlier one must be prepared again.
//  - Broken() once the connection is gone (server stopped, restarted,
//    network): every call fails until Reconnect() succeeds.
//  - Not thread-safe: the owner serialises access; a PgResult may outlive
//    the PgDb that made it.
#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collector/store/sql_conn.h"
#include "common/status.h"

namespace rdmascope::collector {

// A query's rows, in text form.
class PgResult {
 public:
  PgResult() = default;
  explicit PgResult(PGresult* r) : r_(r, &PQclear) {}

  int rows() const { return r_ ? PQntuples(r_.get()) : 0; }
  int cols() const { return r_ ? PQnfields(r_.get()) : 0; }
  bool IsNull(int row, int col) const { return PQgetisnull(r_.get(), row, col) != 0; }
  std::string_view Name(int col) const {
    const char* n = r_ ? PQfname(r_.get(), col) : nullptr;
    return n ? std::string_view(n) : std::string_view();
  }
  Oid TypeOid(int col) const { return r_ ? PQftype(r_.get(), col) : 0; }
  // Valid while this PgResult lives; empty when NULL.
  std::string_view Text(int row, int col) const {
    return std::string_view(PQgetvalue(r_.get(), row, col), static_cast<size_t>(PQgetlength(r_.get(), row, col)));
  }
  std::optional<std::string> OptText(int row, int col) const;
  // nullopt when NULL or not an integer.
  std::optional<int64_t> OptInt(int row, int col) const;
  // Rows a command touched (INSERT, UPDATE, DELETE, COPY), 0 when it says none.
  int64_t Affected() const;

 private:
  std::shared_ptr<PGresult> r_;
};

// A number as PostgreSQL reads it back exactly, written into buf: an integer
// in decimal; a double shortest-exact, NaN and the infinities by name. The
// one writer of numbers for statements (PgStmt) and COPY (CopyRows).
std::string_view PgNumberText(int64_t v, char (&buf)[32]);
std::string_view PgNumberText(double v, char (&buf)[32]);

// Rows in COPY's text format: fields escaped (backslash, tab, newline,
// carriage return), NULL as \N.
class CopyRows {
 public:
  CopyRows& Field(std::string_view v);
  CopyRows& Field(int64_t v);
  CopyRows& Field(double v);
  CopyRows& Null();
  template <typename T>
  CopyRows& Field(const std::optional<T>& v) {
    return v ? Field(*v) : Null();
  }
  void EndRow();
  size_t rows() const { return rows_; }
  const std::string& text() const { return text_; }
  // Empty, or the first refusal: which row and why.
  const std::string& error() const { return error_; }

 private:
  void Separator();
  std::string text_;
  size_t rows_ = 0;
  bool row_open_ = false;
  std::string error_;
};

class PgStmt;

// PostgreSQL's connection (the interface: sql_conn.h). Q's statements
// (PgStmt, pg_stmt.h) are kept by their SQL text, named rdmascope_N on the
// server, and follow the PgDb when it is moved.
class PgDb final : public SqlConn {
 public:
  PgDb();
  PgDb(PgDb&& o) noexcept;
  PgDb& operator=(PgDb&& o) noexcept;
  PgDb(const PgDb&) = delete;
  PgDb& operator=(const PgDb&) = delete;
  ~PgDb() override;

  static Result<PgDb> Connect(const std::string& target, const std::string& password = "");
  void Close();  // the connection and Q's statements
  // Connects again with what Connect was given; Q's statements stay valid
  // (prepared again on the new connection at their next run).
  Status Reconnect();
  bool Broken() const { return !c_ || PQstatus(c_) != CONNECTION_OK; }
  // host:port (or socket directory:port), as errors name it.
  const std::string& server() const { return server_; }

  Result<SqlStmt*> Q(const char* sql) override;
  void ResetStatements() override;
  // Q's statement as PostgreSQL's own (calls on it are direct).
  Result<PgStmt*> QStmt(const char* sql);
  Status Exec(const std::string& sql) override;
  Result<int64_t> QueryInt(std::string_view sql) override;
  int64_t Changes() const override { return changes_; }
  // A lost connection (Broken) is made again first: a write transaction
  // after the server came back starts on a new connection. After a failed
  // attempt the next one waits, 250 ms doubling to kReconnectMaxBackoffMs;
  // meanwhile Begin fails at once with that attempt's error, so a server
  // that cannot be reached costs each transaction no connect timeout.
  Status Begin() override;
  static constexpr int64_t kReconnectMaxBackoffMs = 5000;
  // True inside a transaction, also one a failed statement left to be rolled back.
  bool InTransaction() const override;
  PgDb* postgres() override { return this; }
  Result<PgResult> Query(const std::string& sql, const std::vector<std::optional<std::string>>& params = {});
  Result<int64_t> CopyIn(const std::string& copy_sql, const CopyRows& rows);
  Status Prepare(const std::string& name, const std::string& sql);
  Result<PgResult> ExecPrepared(const std::string& name, const std::string& sql,
                                const std::vector<std::optional<std::string>>& params);
  uint64_t generation() const { return generation_; }
  PGconn* raw() const { return c_; }

 private:
  void Disconnect();  // the connection only
  // Names the failure of `step`: PostgreSQL's message and SQLSTATE, the server.
  std::string Failure(std::string_view step, const PGresult* r) const;
  // r as rows or a command's result, or (cleared) the failure of sql.
  Result<PgResult> Answer(PGresult* r, std::string_view sql) const;
  PGconn* c_ = nullptr;
  std::string server_, target_, password_;
  uint64_t generation_ = 0;
  int64_t changes_ = 0;  // of the last command run by Query or ExecPrepared
  // Begin's reconnection: the last failure, when the next attempt may be made, the wait after it.
  std::string reconnect_error_;
  std::chrono::steady_clock::time_point reconnect_at_{};
  int64_t reconnect_backoff_ms_ = 0;
  std::unordered_map<std::string, std::unique_ptr<PgStmt>> stmts_;
};

}  // namespace rdmascope::collector
