// PgStmt (collector/store/pg_stmt.h): the store's SQLite-form statements on
// a real PostgreSQL server (tests/support/postgres_server.h). Placeholders
// are renumbered outside quotes; values of every kind come back exactly as
// bound; a statement outlives a server restart (prepared again); the same
// statement text gives the same rows on SQLite (Stmt) and on PostgreSQL.
#include "collector/store/pg_stmt.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "collector/store/store_db.h"
#include "tests/support/postgres_server.h"

namespace rdmascope::collector {
namespace {

TEST(PgSql, RenumbersPlaceholdersOutsideQuotes) {
  int n = 0;
  EXPECT_EQ(PgSql("SELECT ?1, ?2 WHERE a = ?1", &n), "SELECT $1, $2 WHERE a = $1");
  EXPECT_EQ(n, 2);
  EXPECT_EQ(PgSql("VALUES (?, ?, ?)", &n), "VALUES ($1, $2, $3)");
  EXPECT_EQ(n, 3);
  EXPECT_EQ(PgSql("SELECT '?1', \"col?\" FROM t WHERE x = ?3 AND y = 'it''s ?2'", &n),
            "SELECT '?1', \"col?\" FROM t WHERE x = $3 AND y = 'it''s ?2'");
  EXPECT_EQ(n, 3);
  EXPECT_EQ(PgSql("SELECT 1", &n), "SELECT 1");
  EXPECT_EQ(n, 0);
}

TEST(PgSql, DropsSQLitesIndexHintsOnly) {
  EXPECT_EQ(PgSql("SELECT a FROM t INDEXED BY t_at WHERE at >= ?1 ORDER BY a"),
            "SELECT a FROM t  WHERE at >= $1 ORDER BY a");
  EXPECT_EQ(PgSql("SELECT id FROM d indexed by d_key_closed WHERE k = ?1"), "SELECT id FROM d  WHERE k = $1");
  EXPECT_EQ(PgSql("SELECT 'INDEXED BY x', reindexed_by FROM t"), "SELECT 'INDEXED BY x', reindexed_by FROM t");
}

PgDb Connect(const testsupport::PostgresServer& pg) {
  auto db = PgDb::Connect(pg.SocketConninfo());
  EXPECT_TRUE(db.ok()) << db.status().message();
  return db.ok() ? std::move(db).value() : PgDb();
}

TEST(PgStmt, ValuesComeBackAsBound) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  PgDb db = Connect(*pg);
  ASSERT_TRUE(db.Exec("CREATE TABLE v (k bigint PRIMARY KEY, i bigint, d double precision, t text)").ok());
  PgDb& q = db;
  static const char kInsert[] = "INSERT INTO v(k, i, d, t) VALUES (?1, ?2, ?3, ?4)";
  static const char kSelect[] = "SELECT i, d, t FROM v WHERE k = ?1";
  const double doubles[] = {0.1, -0.0, 1e-300, DBL_MAX, DBL_MIN, 2.5e-310, 1.0 / 3.0,
                            std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  const int64_t ints[] = {0, -1, INT64_MAX, INT64_MIN, 1700000000000};
  const std::string texts[] = {"", "node'1; DROP TABLE v", "tab\tnew\nline", "π ≈ 3.14159", "back\\slash"};
  int64_t k = 0;
  for (double d : doubles)
    for (int64_t i : ints)
      for (const std::string& t : texts) {
        auto ins = q.QStmt(kInsert);
        ASSERT_TRUE(ins.ok()) << ins.status().message();
        ASSERT_TRUE(ins.value()->Bind(1, ++k).Bind(2, i).Bind(3, d).Bind(4, t).Run().ok());
        auto sel = q.QStmt(kSelect);
        ASSERT_TRUE(sel.ok());
        PgStmt& s = *sel.value();
        s.Bind(1, k);
        auto row = s.Step();
        ASSERT_TRUE(row.ok() && row.value()) << (row.ok() ? "no row" : row.status().message());
        EXPECT_EQ(s.Int(0), i);
        EXPECT_EQ(std::signbit(s.Real(1)), std::signbit(d));
        EXPECT_EQ(s.Real(1), d) << "bound " << d;
        EXPECT_EQ(s.Text(2), t);
        auto end = s.Step();
        ASSERT_TRUE(end.ok());
        EXPECT_FALSE(end.value());
      }
  // NaN and NULL.
  auto ins = q.QStmt(kInsert);
  ASSERT_TRUE(ins.ok());
  ASSERT_TRUE(ins.value()->Bind(1, ++k).BindNull(2).Bind(3, std::nan("")).Bind(4, std::optional<std::string>()).Run().ok());
  auto sel = q.QStmt(kSelect);
  ASSERT_TRUE(sel.ok());
  PgStmt& s = *sel.value();
  s.Bind(1, k);
  ASSERT_TRUE(s.Step().value());
  EXPECT_TRUE(s.IsNull(0));
  EXPECT_EQ(s.OptInt(0), std::nullopt);
  EXPECT_EQ(s.Int(0), 0);
  EXPECT_TRUE(std::isnan(s.Real(1)));
  EXPECT_EQ(s.OptText(2), std::nullopt);
  EXPECT_EQ(s.TextView(2), "");
}

TEST(PgStmt, SaysWhatFailedAndCountsChanges) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  PgDb db = Connect(*pg);
  ASSERT_TRUE(db.Exec("CREATE TABLE n (name text PRIMARY KEY, seen bigint NOT NULL)").ok());
  PgStmt bad(&db, "bad_index", "INSERT INTO n(name, seen) VALUES (?1, ?2)");
  Status s = bad.Bind(1, "a").Bind(3, int64_t{1}).Run();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("parameter 3 is not in 1..2"), std::string::npos) << s.message();

  PgStmt ins(&db, "ins", "INSERT INTO n(name, seen) VALUES (?1, ?2)");
  ASSERT_TRUE(ins.Bind(1, "a").Bind(2, int64_t{1}).Run().ok());
  Status dup = ins.Bind(1, "a").Bind(2, int64_t{2}).Run();
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.message().find("INSERT INTO n(name, seen)"), std::string::npos) << dup.message();
  EXPECT_NE(dup.message().find("SQLSTATE 23505"), std::string::npos) << dup.message();
  Status null = ins.Bind(1, "b").BindNull(2).Run();
  EXPECT_NE(null.message().find("SQLSTATE 23502"), std::string::npos) << null.message();

  ASSERT_TRUE(ins.Bind(1, "b").Bind(2, int64_t{5}).Run().ok());
  PgStmt up(&db, "up", "UPDATE n SET seen = seen + 1 WHERE seen >= ?1");
  ASSERT_TRUE(up.Bind(1, int64_t{0}).Run().ok());
  EXPECT_EQ(up.Changes(), 2);
  ASSERT_TRUE(up.Bind(1, int64_t{100}).Run().ok());
  EXPECT_EQ(up.Changes(), 0);
}

TEST(PgStmt, OutlivesAServerRestart) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  PgDb db = Connect(*pg);
  ASSERT_TRUE(db.Exec("CREATE TABLE r (x bigint)").ok());
  PgStmt ins(&db, "ins", "INSERT INTO r VALUES (?1)");
  ASSERT_TRUE(ins.Bind(1, int64_t{1}).Run().ok());
  ASSERT_EQ(pg->Pause(), "");
  Status down = ins.Bind(1, int64_t{2}).Run();
  ASSERT_FALSE(down.ok());
  EXPECT_TRUE(db.Broken());
  ASSERT_EQ(pg->Resume(), "");
  ASSERT_TRUE(db.Reconnect().ok());
  Status again = ins.Bind(1, int64_t{3}).Run();
  ASSERT_TRUE(again.ok()) << again.message();
  auto n = db.Query("SELECT count(*), sum(x) FROM r");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n.value().OptInt(0, 0), 2);
  EXPECT_EQ(n.value().OptInt(0, 1), 4);
}

// One statement text, as the store writes it, on both engines through the
// one interface (SqlStmt): an upsert adding to a count, parameters used out
// of order, then a read.
void Upserts(SqlStmt& up, SqlStmt& read, std::vector<std::string>* out) {
  const struct {
    const char* node;
    const char* status;
    int64_t n;
  } adds[] = {{"a", "RETRY_EXC_ERR", 2}, {"a", "RETRY_EXC_ERR", 3}, {"b", "RNR_RETRY_EXC_ERR", 1}, {"a", "WR_FLUSH_ERR", 7}};
  for (const auto& a : adds) ASSERT_TRUE(up.Bind(3, a.n).Bind(1, a.node).Bind(2, a.status).Run().ok());
  read.Bind(1, int64_t{2});
  for (;;) {
    auto row = read.Step();
    ASSERT_TRUE(row.ok()) << row.status().message();
    if (!row.value()) break;
    out->push_back(read.Text(0) + "|" + read.Text(1) + "|" + std::to_string(read.Int(2)) + "|" +
                   (read.IsNull(3) ? "null" : read.Text(3)));
  }
}

TEST(PgStmt, TheSameStatementGivesTheSameRowsOnBothEngines) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  static const char kTable[] =
      "CREATE TABLE totals (node text NOT NULL, status text NOT NULL, count bigint NOT NULL, note text, "
      "PRIMARY KEY (node, status))";
  static const char kUpsert[] =
      "INSERT INTO totals(node, status, count) VALUES (?1, ?2, ?3) "
      "ON CONFLICT(node, status) DO UPDATE SET count = totals.count + excluded.count";
  static const char kRead[] = "SELECT node, status, count, note FROM totals WHERE count >= ?1 ORDER BY node, status";

  auto lite = Db::Open(":memory:");
  ASSERT_TRUE(lite.ok());
  ASSERT_TRUE(lite.value().Exec(kTable).ok());
  auto lite_up = lite.value().Prepare(kUpsert);
  auto lite_read = lite.value().Prepare(kRead);
  ASSERT_TRUE(lite_up.ok() && lite_read.ok());
  std::vector<std::string> from_sqlite;
  Upserts(lite_up.value(), lite_read.value(), &from_sqlite);

  PgDb db = Connect(*pg);
  ASSERT_TRUE(db.Exec(kTable).ok());
  PgDb& q = db;
  auto pg_up = q.QStmt(kUpsert);
  auto pg_read = q.QStmt(kRead);
  ASSERT_TRUE(pg_up.ok() && pg_read.ok());
  std::vector<std::string> from_postgres;
  Upserts(*pg_up.value(), *pg_read.value(), &from_postgres);

  const std::vector<std::string> expected = {"a|RETRY_EXC_ERR|5|null", "a|WR_FLUSH_ERR|7|null"};
  EXPECT_EQ(from_sqlite, expected);
  EXPECT_EQ(from_postgres, expected);
}

}  // namespace
}  // namespace rdmascope::collector
