// PgDb (collector/store/pg_db.h) against a real PostgreSQL server
// (tests/support/postgres_server.h): connecting and what its errors say,
// parameters and NULLs, COPY of hostile text, a refused COPY storing nothing,
// and an outage: calls fail naming the lost connection, Reconnect() works
// once the server is back.
#include "collector/store/pg_db.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/postgres_server.h"

namespace rdmascope::collector {
namespace {

using testsupport::PostgresServer;


TEST(PgDb, ConnectsAndSaysWhyNot) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  auto ok = PgDb::Connect(pg->Url(), pg->password());
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_FALSE(ok.value().Broken());
  EXPECT_EQ(ok.value().server(), "127.0.0.1:" + std::to_string(pg->port()));

  auto wrong = PgDb::Connect(pg->Url(), "not-the-password");
  ASSERT_FALSE(wrong.ok());
  const std::string& m = wrong.status().message();
  EXPECT_NE(m.find("127.0.0.1:" + std::to_string(pg->port())), std::string::npos) << m;
  EXPECT_NE(m.find("password authentication failed"), std::string::npos) << m;
  EXPECT_EQ(m.find("not-the-password"), std::string::npos) << "the password must not be in an error: " << m;

  // The password given apart wins over none in the URL; in the URL alone it is taken too.
  auto in_url = PgDb::Connect(pg->Url() + "?password=" + pg->password());
  EXPECT_TRUE(in_url.ok()) << in_url.status().message();

  auto no_db = PgDb::Connect(pg->Url("no_such_database"), pg->password());
  ASSERT_FALSE(no_db.ok());
  EXPECT_NE(no_db.status().message().find("no_such_database"), std::string::npos) << no_db.status().message();
}

TEST(PgDb, QueriesWithParametersAndNulls) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  auto db = PgDb::Connect(pg->SocketConninfo());
  ASSERT_TRUE(db.ok()) << db.status().message();
  PgDb& c = db.value();
  ASSERT_TRUE(c.Exec("CREATE TABLE nodes (name text PRIMARY KEY, rails bigint, note text)").ok());
  auto ins = c.Query("INSERT INTO nodes VALUES ($1, $2, $3), ($4, $5, $6)",
                     {"node1", "8", std::nullopt, "node'2; DROP TABLE nodes", std::nullopt, "x\ty"});
  ASSERT_TRUE(ins.ok()) << ins.status().message();
  EXPECT_EQ(ins.value().Affected(), 2);
  auto rows = c.Query("SELECT name, rails, note FROM nodes ORDER BY name");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  const PgResult& r = rows.value();
  ASSERT_EQ(r.rows(), 2);
  EXPECT_EQ(r.Text(0, 0), "node'2; DROP TABLE nodes");
  EXPECT_EQ(r.OptInt(0, 1), std::nullopt);
  EXPECT_EQ(r.OptText(0, 2), std::optional<std::string>("x\ty"));
  EXPECT_EQ(r.OptInt(1, 1), std::optional<int64_t>(8));
  EXPECT_TRUE(r.IsNull(1, 2));

  auto dup = c.Query("INSERT INTO nodes VALUES ($1, 1, NULL)", {"node1"});
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("SQLSTATE 23505"), std::string::npos) << dup.status().message();
  EXPECT_NE(dup.status().message().find("INSERT INTO nodes"), std::string::npos) << dup.status().message();
  EXPECT_FALSE(c.Broken()) << "a refused statement leaves the connection usable";
}

TEST(PgDb, CopyKeepsEveryByteAndAllOrNothing) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  auto db = PgDb::Connect(pg->SocketConninfo());
  ASSERT_TRUE(db.ok()) << db.status().message();
  PgDb& c = db.value();
  ASSERT_TRUE(c.Exec("CREATE TABLE rows (k bigint PRIMARY KEY, s text, v double precision)").ok());
  const std::vector<std::string> hostile = {"plain", "tab\there", "line\nbreak", "cr\rreturn", "back\\slash",
                                            "\\N", "\\.", "quote'\"", "ünïcödé ✓", ""};
  CopyRows rows;
  for (size_t i = 0; i < hostile.size(); ++i) rows.Field(int64_t(i)).Field(hostile[i]).Field(0.1 * double(i)).EndRow();
  rows.Field(int64_t(100)).Null().Null().EndRow();
  auto copied = c.CopyIn("COPY rows (k, s, v) FROM STDIN", rows);
  ASSERT_TRUE(copied.ok()) << copied.status().message();
  EXPECT_EQ(copied.value(), int64_t(hostile.size() + 1));
  auto back = c.Query("SELECT k, s, v FROM rows ORDER BY k");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back.value().rows(), int(hostile.size() + 1));
  for (size_t i = 0; i < hostile.size(); ++i) {
    EXPECT_EQ(back.value().OptText(int(i), 1), std::optional<std::string>(hostile[i])) << "row " << i;
    EXPECT_DOUBLE_EQ(std::stod(std::string(back.value().Text(int(i), 2))), 0.1 * double(i));
  }
  EXPECT_TRUE(back.value().IsNull(int(hostile.size()), 1));

  // A row the server refuses (a key already there) fails the COPY: nothing of it is stored.
  CopyRows clash;
  clash.Field(int64_t(200)).Field("new").Field(1.0).EndRow();
  clash.Field(int64_t(0)).Field("again").Field(1.0).EndRow();
  auto refused = c.CopyIn("COPY rows (k, s, v) FROM STDIN", clash);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("SQLSTATE 23505"), std::string::npos) << refused.status().message();
  auto count = c.Query("SELECT count(*) FROM rows");
  ASSERT_TRUE(count.ok()) << count.status().message();
  EXPECT_EQ(count.value().OptInt(0, 0), std::optional<int64_t>(int64_t(hostile.size() + 1)));

  // A NUL byte cannot be PostgreSQL text: refused before anything is sent.
  CopyRows nul;
  nul.Field(int64_t(300)).Field(std::string("a\0b", 3)).Field(1.0).EndRow();
  auto bad = c.CopyIn("COPY rows (k, s, v) FROM STDIN", nul);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("NUL"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(c.Broken());
}

TEST(PgDb, OutageFailsNamingTheLostConnectionThenReconnects) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  auto db = PgDb::Connect(pg->Url(), pg->password());
  ASSERT_TRUE(db.ok()) << db.status().message();
  PgDb& c = db.value();
  ASSERT_TRUE(c.Exec("CREATE TABLE t (k bigint)").ok());
  ASSERT_EQ(pg->Pause(), "");
  auto during = c.Query("SELECT count(*) FROM t");
  ASSERT_FALSE(during.ok());
  EXPECT_TRUE(c.Broken());
  EXPECT_NE(during.status().message().find("127.0.0.1:" + std::to_string(pg->port())), std::string::npos)
      << during.status().message();
  Status again = c.Reconnect();
  EXPECT_FALSE(again.ok()) << "nothing listens while the server is down";
  ASSERT_EQ(pg->Resume(), "");
  ASSERT_TRUE(c.Reconnect().ok());
  auto after = c.Query("SELECT count(*) FROM t");
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_EQ(after.value().OptInt(0, 0), std::optional<int64_t>(0));
}

}  // namespace
}  // namespace rdmascope::collector
