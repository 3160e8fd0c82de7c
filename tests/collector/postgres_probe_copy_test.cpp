// Probe summaries by COPY (collector/store/pg_probe_copy.h) into the
// PostgreSQL schema on a real server (tests/support/postgres_server.h): every
// row read back through ProbeRowFrom with a PgStmt equals the row appended
// (NULLs, hostile text, extreme numbers included), rows land in the day
// partition of their interval's end, and a batch with a row PostgreSQL text
// cannot hold stores nothing.
#include "collector/store/pg_probe_copy.h"

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "collector/store/pg_migrate.h"
#include "collector/store/pg_stmt.h"
#include "collector/store/probe_row_sql.h"
#include "tests/support/postgres_server.h"

namespace rdmascope::collector {
namespace {

constexpr int64_t kDay = 86400000;
constexpr int64_t kDay0 = 1800000000000 / kDay * kDay;  // a UTC midnight

// Rows of one report: a clean UD probe, a failing RC one with NULLs where
// nothing was measured, and one whose text and numbers are at the edges.
std::vector<ProbeRow> Rows(const std::shared_ptr<const std::string>& report_id) {
  std::vector<ProbeRow> rows(3);
  for (size_t i = 0; i < rows.size(); ++i) {
    ProbeRow& r = rows[i];
    r.report_id = report_id;
    r.src = Intern("node-a");
    r.dst = Intern("node-" + std::to_string(i));
    r.transport = Intern(i == 1 ? "rc" : "ud");
    r.interval_start = kDay0 + 3600000 + static_cast<int64_t>(i);
    r.interval_end = r.interval_start + 10000;
  }
  ProbeRow& clean = rows[0];
  clean.local_device = Intern("mlx5_0"), clean.local_port = 1, clean.remote_host = Intern("192.0.2.7");
  clean.sent = 100, clean.received = 100, clean.loss_ratio = 0, clean.rtt_count = 100;
  clean.rtt_min = 4.25, clean.rtt_avg = 5.1, clean.rtt_p50 = 5, clean.rtt_p90 = 6.5, clean.rtt_p99 = 9.75;
  clean.rtt_p999 = 12, clean.rtt_max = 13.5, clean.network_p50 = 3.3, clean.network_p99 = 7.7;
  clean.responder_p50 = 0.4, clean.responder_p99 = 0.9, clean.read_p50 = 0.1, clean.read_p99 = 0.2;
  clean.rail = Intern("0"), clean.remote_device = Intern("mlx5_3"), clean.remote_port = 1;

  ProbeRow& failing = rows[1];  // no latency measured: NULL quantiles, rtt_count NULL
  failing.sent = 50, failing.received = 0, failing.lost = 50, failing.loss_ratio = 1;
  failing.error_count = 50, failing.errors_by_status = R"j({"RETRY_EXC_ERR (12)":50})j";
  failing.not_run = Intern("peer has no such rail");

  ProbeRow& edges = rows[2];
  edges.local_device = Intern("dev\twith\ttabs\\and\nnewline\r");
  edges.remote_host = Intern("π ≈ 3.14159, 'quoted' \"and\" \\N");
  edges.sent = std::numeric_limits<int64_t>::max(), edges.received = 0, edges.lost = -1;
  edges.local_port = std::numeric_limits<int64_t>::min() + 1;
  edges.loss_ratio = 1.0 / 3.0, edges.rtt_count = 0;
  edges.rtt_min = 5e-324, edges.rtt_max = std::numeric_limits<double>::max();
  edges.rtt_avg = -0.0, edges.rtt_p50 = std::numeric_limits<double>::infinity();
  edges.errors_by_status = "{\"a\\tb\":1}";
  return rows;
}

TEST(PgProbeCopy, RowsComeBackAsAppendedInTheirDayPartition) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  auto conn = PgDb::Connect(pg->SocketConninfo());
  ASSERT_TRUE(conn.ok()) << conn.status().message();
  PgDb& db = conn.value();
  ASSERT_TRUE(ApplyPgMigrations(db, BuiltinPgMigrations()).ok());
  ASSERT_TRUE(EnsurePartitions(db, kDay0, 1).ok());

  const auto report_id = std::make_shared<const std::string>("node-a-1800000000000-000001");
  const std::vector<ProbeRow> rows = Rows(report_id);
  CopyRows copy;
  for (const ProbeRow& r : rows) AppendProbeRow(r, &copy);
  ASSERT_TRUE(db.Exec("BEGIN").ok());
  auto stored = CopyProbeRows(db, copy);
  ASSERT_TRUE(stored.ok()) << stored.status().message();
  EXPECT_EQ(stored.value(), 3);
  ASSERT_TRUE(db.Exec("COMMIT").ok());

  static const std::string kRead = std::string("SELECT ") + kProbeRowColumns +
                                   ", tableoid::regclass::text FROM probe_summaries ORDER BY interval_start";
  PgStmt read(&db, "read", kRead);
  std::vector<std::string> partitions;
  for (const ProbeRow& want : rows) {
    auto row = read.Step();
    ASSERT_TRUE(row.ok()) << row.status().message();
    ASSERT_TRUE(row.value());
    const ProbeRow got = ProbeRowFrom(read, report_id);
    EXPECT_EQ(ProbeRowJson(got).dump(), ProbeRowJson(want).dump());
    EXPECT_EQ(got.report_id, report_id) << "the hint is shared when it matches";
    EXPECT_EQ(std::signbit(got.rtt_avg), std::signbit(want.rtt_avg));
    // The JSON shows an infinity as null: compared here.
    EXPECT_TRUE(got.rtt_p50 == want.rtt_p50 || (std::isnan(got.rtt_p50) && std::isnan(want.rtt_p50)))
        << got.rtt_p50 << " for " << want.rtt_p50;
    partitions.push_back(read.Text(33));
  }
  EXPECT_FALSE(read.Step().value());
  EXPECT_EQ(partitions, std::vector<std::string>(3, "probe_summaries_p20270115"));
}

TEST(PgProbeCopy, ABatchWithARowTextCannotHoldStoresNothing) {
  RDMASCOPE_POSTGRES_SERVER(pg);
  auto conn = PgDb::Connect(pg->SocketConninfo());
  ASSERT_TRUE(conn.ok()) << conn.status().message();
  PgDb& db = conn.value();
  ASSERT_TRUE(ApplyPgMigrations(db, BuiltinPgMigrations()).ok());

  std::vector<ProbeRow> rows = Rows(std::make_shared<const std::string>("r1"));
  rows[2].not_run = Intern(std::string("a NUL \0 byte", 12));
  CopyRows copy;
  for (const ProbeRow& r : rows) AppendProbeRow(r, &copy);
  auto refused = CopyProbeRows(db, copy);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("row 3: a NUL byte"), std::string::npos) << refused.status().message();
  EXPECT_NE(refused.status().message().find("COPY probe_summaries"), std::string::npos) << refused.status().message();
  auto n = db.Query("SELECT count(*) FROM probe_summaries");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n.value().OptInt(0, 0), 0);
}

}  // namespace
}  // namespace rdmascope::collector
