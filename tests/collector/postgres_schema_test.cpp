// The PostgreSQL schema (schemas/postgres/, collector/store/pg_migrate.h) on
// a real server: the same tables and columns as the SQLite schema after
// every migration, in the matching types; migrations applied once when
// collectors start together; a newer database refused; day partitions made
// ahead, rows waiting in the DEFAULT partition moved into their day, whole
// days dropped.
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "collector/store/pg_migrate.h"
#include "collector/store/store_db.h"
#include "collector/store/store_migrate.h"
#include "tests/support/postgres_server.h"

namespace rdmascope::collector {
namespace {

// table -> column -> type, as each backend names it.
using Columns = std::map<std::string, std::map<std::string, std::string>>;

Columns SqliteColumns() {
  auto db = Db::Open(":memory:");
  EXPECT_TRUE(db.ok());
  EXPECT_TRUE(ApplyMigrations(db.value(), BuiltinMigrations()).ok());
  Columns out;
  auto q = db.value().Prepare(
      "SELECT m.name, c.name, c.type FROM sqlite_master m JOIN pragma_table_info(m.name) c "
      "WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'");
  EXPECT_TRUE(q.ok());
  while (q.value().Step().value()) out[q.value().Text(0)][q.value().Text(1)] = q.value().Text(2);
  return out;
}

Columns PostgresColumns(PgDb& db) {
  auto r = db.Query(
      "SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c "
      "JOIN pg_class t ON t.relname = c.table_name AND NOT t.relispartition "
      "WHERE c.table_schema = 'public' AND c.table_name <> 'rdmascope_partitioned'");
  EXPECT_TRUE(r.ok()) << r.status().message();
  Columns out;
  for (int i = 0; r.ok() && i < r.value().rows(); ++i)
    out[std::string(r.value().Text(i, 0))][std::string(r.value().Text(i, 1))] = std::string(r.value().Text(i, 2));
  return out;
}

// The PostgreSQL types a SQLite declared type may become.
bool SameKind(const std::string& sqlite, const std::string& pg) {
  if (sqlite == "INTEGER") return pg == "bigint" || pg == "integer";
  if (sqlite == "REAL") return pg == "double precision";
  if (sqlite == "TEXT") return pg == "text";
  if (sqlite == "BLOB") return pg == "bytea";
  return false;
}

TEST(PostgresSchema, MatchesTheSqliteSchemaColumnByColumn) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  auto db = PgDb::Connect(pg->SocketConninfo());
  ASSERT_TRUE(db.ok()) << db.status().message();
  auto v = ApplyPgMigrations(db.value(), BuiltinPgMigrations());
  ASSERT_TRUE(v.ok()) << v.status().message();
  const Columns lite = SqliteColumns(), post = PostgresColumns(db.value());
  ASSERT_GT(lite.size(), 20u);
  std::set<std::string> tables_lite, tables_post;
  for (const auto& [t, cols] : lite) tables_lite.insert(t);
  for (const auto& [t, cols] : post) tables_post.insert(t);
  EXPECT_EQ(tables_lite, tables_post);
  for (const auto& [table, cols] : lite) {
    auto it = post.find(table);
    if (it == post.end()) continue;
    for (const auto& [col, type] : cols) {
      auto c = it->second.find(col);
      if (c == it->second.end()) {
        ADD_FAILURE() << table << "." << col << " (" << type << ") is missing on PostgreSQL";
        continue;
      }
      EXPECT_TRUE(SameKind(type, c->second)) << table << "." << col << ": SQLite " << type << ", PostgreSQL " << c->second;
    }
    for (const auto& [col, type] : it->second)
      EXPECT_TRUE(cols.count(col)) << table << "." << col << " is on PostgreSQL only";
  }
}

TEST(PostgresSchema, AppliedOnceWhenCollectorsStartTogether) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  const int known = BuiltinPgMigrations().back().version;
  Result<int> results[2] = {Result<int>::Error("not run"), Result<int>::Error("not run")};
  std::thread starters[2];
  for (int i = 0; i < 2; ++i)
    starters[i] = std::thread([&, i] {
      auto db = PgDb::Connect(pg->Url(), pg->password());
      results[i] = db.ok() ? ApplyPgMigrations(db.value(), BuiltinPgMigrations()) : Result<int>::Error(db.status().message());
    });
  for (std::thread& t : starters) t.join();
  for (const Result<int>& r : results) {
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r.value(), known);
  }
  auto db = PgDb::Connect(pg->SocketConninfo());
  ASSERT_TRUE(db.ok()) << db.status().message();
  auto rows = db.value().Query("SELECT count(*), count(DISTINCT version) FROM schema_version");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_EQ(rows.value().OptInt(0, 0), rows.value().OptInt(0, 1)) << "a migration was applied twice";
  EXPECT_EQ(rows.value().OptInt(0, 0), std::optional<int64_t>(BuiltinPgMigrations().size()));
  auto again = ApplyPgMigrations(db.value(), BuiltinPgMigrations());
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again.value(), known);

  ASSERT_TRUE(db.value().Exec("INSERT INTO schema_version(version) VALUES (9999)").ok());
  auto newer = ApplyPgMigrations(db.value(), BuiltinPgMigrations());
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.status().message().find("newer than this collector knows"), std::string::npos)
      << newer.status().message();
}

TEST(PostgresSchema, DayPartitionsMadeAheadFilledAndDropped) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  auto opened = PgDb::Connect(pg->SocketConninfo());
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  PgDb& db = opened.value();
  ASSERT_TRUE(ApplyPgMigrations(db, BuiltinPgMigrations()).ok());
  constexpr int64_t kDay = 86400000;
  const int64_t day0 = 1796083200000;  // 2026-12-01 00:00 UTC
  constexpr int kTables = 5;

  auto made = EnsurePartitions(db, day0 + 3600000, 2);
  ASSERT_TRUE(made.ok()) << made.status().message();
  EXPECT_EQ(made.value(), 3 * kTables);
  auto again = EnsurePartitions(db, day0, 2);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again.value(), 0) << "the days exist already";

  auto insert = [&](int64_t at) {
    return db.Query(
        "INSERT INTO probe_summaries (report_id, src, dst, transport, interval_start, interval_end, sent, received, lost) "
        "VALUES ('r', 'a', 'b', 'ud', $1::bigint, $1::bigint, 10, 10, 0) RETURNING tableoid::regclass::text",
        {std::to_string(at)});
  };
  auto in_day0 = insert(day0 + 7200000);
  ASSERT_TRUE(in_day0.ok()) << in_day0.status().message();
  EXPECT_EQ(in_day0.value().Text(0, 0), "probe_summaries_p20261201");
  auto early = insert(day0 + 10 * kDay);  // no partition for that day yet: the DEFAULT holds it
  ASSERT_TRUE(early.ok()) << early.status().message();
  EXPECT_EQ(early.value().Text(0, 0), "probe_summaries_default");
  ASSERT_TRUE(EnsurePartitions(db, day0 + 10 * kDay, 0).ok());
  auto moved = db.Query("SELECT tableoid::regclass::text FROM probe_summaries WHERE interval_end = $1::bigint",
                        {std::to_string(day0 + 10 * kDay)});
  ASSERT_TRUE(moved.ok()) << moved.status().message();
  ASSERT_EQ(moved.value().rows(), 1) << "the row waiting in the DEFAULT partition was lost";
  EXPECT_EQ(moved.value().Text(0, 0), "probe_summaries_p20261211");

  auto before = PartitionsOf(db, "probe_summaries");
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_EQ(before.value(), (std::vector<std::string>{"probe_summaries_p20261201", "probe_summaries_p20261202",
                                                      "probe_summaries_p20261203", "probe_summaries_p20261211"}));
  auto dropped = DropPartitionsBefore(db, day0 + kDay + 1);  // day 0 has ended; day 1 has not
  ASSERT_TRUE(dropped.ok()) << dropped.status().message();
  EXPECT_EQ(dropped.value(), kTables);
  auto after = PartitionsOf(db, "probe_summaries");
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_EQ(after.value(), (std::vector<std::string>{"probe_summaries_p20261202", "probe_summaries_p20261203",
                                                     "probe_summaries_p20261211"}));
  std::cout << "probe_summaries partitions before retention:";
  for (const std::string& p : before.value()) std::cout << " " << p;
  std::cout << "\nafter dropping the days ended by day0 + 1 day:";
  for (const std::string& p : after.value()) std::cout << " " << p;
  std::cout << "\n";
  auto left = db.Query("SELECT count(*) FROM probe_summaries");
  ASSERT_TRUE(left.ok()) << left.status().message();
  EXPECT_EQ(left.value().OptInt(0, 0), std::optional<int64_t>(1)) << "day 0's row went with its partition";
}

}  // namespace
}  // namespace rdmascope::collector
