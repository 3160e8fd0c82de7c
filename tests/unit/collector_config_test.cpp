// Collector settings: defaults, config files (key=value and JSON), command
// line overrides, errors naming the key; token files.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "collector/http/api_auth.h"
#include "collector/http/api_server.h"
#include "collector/service/collector_config.h"
#include "collector/service/storage_open.h"
#include "collector/store/storage_fault.h"
#include "collector/store/storage.h"

namespace rdmascope::collector {
namespace {

std::string TempFile(const std::string& text) {
  char tmpl[] = "/tmp/collector_config_test.XXXXXX";
  int fd = mkstemp(tmpl);
  close(fd);
  std::ofstream(tmpl) << text;
  return tmpl;
}

TEST(CollectorConfig, Defaults) {
  auto c = ParseCollectorArgs({});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.value().listen_host, "127.0.0.1");
  EXPECT_EQ(c.value().listen_port, 9470);
  EXPECT_EQ(c.value().db, "./rdmascope.db");
  EXPECT_EQ(c.value().max_body_bytes, 4 << 20);
  EXPECT_EQ(c.value().raw_retention_minutes, 60);
  EXPECT_EQ(c.value().retention_days, 0) << "unset: the minutes decide";
  EXPECT_EQ(c.value().minute_rollup_retention_days, 1);
  EXPECT_FALSE(c.value().no_auth);
}

TEST(CollectorConfig, KeyValueFileThenCommandLineOverrides) {
  std::string f = TempFile("# comment\nretention_days = 3\nlisten=0.0.0.0:9000\nweb_dir=/srv/web\n");
  auto c = ParseCollectorArgs({"--retention-days", "5", "--config", f, "--max-body-bytes=2048"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c.value().retention_days, 5);
  EXPECT_EQ(c.value().listen_host, "0.0.0.0");
  EXPECT_EQ(c.value().listen_port, 9000);
  EXPECT_EQ(c.value().web_dir, "/srv/web");
  EXPECT_EQ(c.value().max_body_bytes, 2048);
  std::remove(f.c_str());
}

TEST(CollectorConfig, JsonFile) {
  std::string f = TempFile("{\"retention_days\": 30, \"no_auth\": true, \"listen\": \"[::1]:9471\"}");
  auto c = ParseCollectorArgs({"--config=" + f});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c.value().retention_days, 30);
  EXPECT_TRUE(c.value().no_auth);
  EXPECT_EQ(c.value().listen_host, "::1");
  EXPECT_EQ(c.value().listen_port, 9471);
  std::remove(f.c_str());
}

TEST(CollectorConfig, DiagnosisLatencyFactor) {
  auto d = ParseCollectorArgs({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.value().diagnosis_latency_factor_pct, 300);
  auto c = ParseCollectorArgs({"--diagnosis-latency-factor-pct", "200"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c.value().diagnosis_latency_factor_pct, 200);
  auto low = ParseCollectorArgs({"--diagnosis-latency-factor-pct", "100"});  // every path would be slow
  ASSERT_FALSE(low.ok());
  EXPECT_NE(low.status().message().find("110"), std::string::npos) << low.status().message();
}

TEST(CollectorConfig, TopologyFile) {
  EXPECT_EQ(ParseCollectorArgs({}).value().topology, "");
  auto c = ParseCollectorArgs({"--topology", "/etc/rdmascope/topology.json"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c.value().topology, "/etc/rdmascope/topology.json");
  const std::string file = TempFile("topology = /srv/roce.json\n");
  auto f = ParseCollectorArgs({"--config", file});
  unlink(file.c_str());
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f.value().topology, "/srv/roce.json");
  EXPECT_FALSE(ParseCollectorArgs({"--topology", ""}).ok());
}

TEST(CollectorConfig, HttpWorkers) {
  auto d = ParseCollectorArgs({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.value().http_workers, 8);
  EXPECT_EQ(ApiOptions{}.http_workers, 8u) << "an ApiServer built without the config serves like the collector";
  auto c = ParseCollectorArgs({"--http-workers", "64"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c.value().http_workers, 64);
  for (const char* bad : {"0", "1025", "-1", "many"}) {
    auto b = ParseCollectorArgs({"--http-workers", bad});
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_NE(b.status().message().find("from 1 to 1024"), std::string::npos) << b.status().message();
  }
}

TEST(CollectorConfig, ErrorsNameTheKeyAndOrigin) {
  std::string f = TempFile("retention_days=7\nbogus=1\n");
  auto c = ParseCollectorArgs({"--config", f});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find(f + ":2"), std::string::npos) << c.status().message();
  EXPECT_NE(c.status().message().find("bogus"), std::string::npos);
  std::remove(f.c_str());
  auto bad = ParseCollectorArgs({"--retention-days", "zero"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--retention-days"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(ParseCollectorArgs({"--listen", "nocolon"}).ok());
  EXPECT_FALSE(ParseCollectorArgs({"--db"}).ok());
  EXPECT_FALSE(ParseCollectorArgs({"stray"}).ok());
}

// The destination cap cannot refuse the reports of the collector's own pinglists.
TEST(CollectorConfig, DestinationCapAndForgetAge) {
  auto c = ParseCollectorArgs({"--max-destinations-per-node", "4096", "--forget-after-s", "3"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c.value().max_destinations_per_node, 4096);
  EXPECT_EQ(c.value().forget_after_s, 3);
  auto below = ParseCollectorArgs({"--max-destinations-per-node", "64"});
  ASSERT_FALSE(below.ok());
  EXPECT_NE(below.status().message().find("below --pinglist-max-targets (128)"), std::string::npos)
      << below.status().message();
  EXPECT_TRUE(ParseCollectorArgs({"--max-destinations-per-node", "64", "--pinglist-max-targets", "64"}).ok());
  EXPECT_FALSE(ParseCollectorArgs({"--forget-after-s", "0"}).ok());
}

// Cross-group coverage settings; the retired cross-group target count is
// refused with what replaced it.
TEST(CollectorConfig, PinglistCoverageSettings) {
  auto c = ParseCollectorArgs({"--pinglist-sources-per-group-pair", "4", "--pinglist-rotation-s", "60"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c.value().pinglist_sources_per_group_pair, 4);
  EXPECT_EQ(c.value().pinglist_rotation_s, 60);
  EXPECT_EQ(CollectorConfig{}.pinglist_sources_per_group_pair, 3);
  EXPECT_FALSE(ParseCollectorArgs({"--pinglist-sources-per-group-pair", "0"}).ok());
  auto retired = ParseCollectorArgs({"--pinglist-cross-group-targets", "4"});
  ASSERT_FALSE(retired.ok());
  EXPECT_NE(retired.status().message().find("pinglist_sources_per_group_pair"), std::string::npos)
      << retired.status().message();
}

TEST(CollectorConfig, ShippedExampleParses) {
  auto c = ParseCollectorArgs({"--config", RDMASCOPE_COLLECTOR_CONF_EXAMPLE});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c.value().listen_host, "0.0.0.0");
}

TEST(CollectorAuth, TokenFile) {
  std::string f = TempFile("# agents\n  node-a token-aaa-1  \n\nnode-b token-bbb-2\n*   token-fleet-3\nsweep node-s token-sweep-4\n");
  auto t = LoadTokenFile(f);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t.value().size(), 4u);
  EXPECT_EQ(TokenGrantOf("Bearer token-aaa-1", t.value()).value().node, "node-a");
  EXPECT_EQ(TokenGrantOf("Bearer token-bbb-2", t.value()).value().node, "node-b");
  EXPECT_EQ(TokenGrantOf("Bearer token-fleet-3", t.value()).value().node, "*");
  EXPECT_EQ(TokenGrantOf("Bearer token-sweep-4", t.value()).value().node, "node-s");
  auto node = TokenGrantOf("Bearer token-bbb-2", t.value());
  ASSERT_TRUE(node.has_value());
  EXPECT_FALSE(node->MaySweep());
  EXPECT_FALSE(node->Fleet());
  auto sweeper = TokenGrantOf("Bearer token-sweep-4", t.value());
  ASSERT_TRUE(sweeper.has_value());
  EXPECT_TRUE(sweeper->MaySweep());
  EXPECT_FALSE(sweeper->Fleet());
  auto fleet = TokenGrantOf("Bearer token-fleet-3", t.value());
  ASSERT_TRUE(fleet.has_value());
  EXPECT_TRUE(fleet->MaySweep());
  EXPECT_TRUE(fleet->Fleet());
  EXPECT_TRUE(BearerMatches("Bearer token-bbb-2", t.value()));
  EXPECT_FALSE(BearerMatches("Bearer token-bbb-", t.value()));
  EXPECT_FALSE(BearerMatches("Bearer node-b", t.value()));
  EXPECT_FALSE(BearerMatches("Bearer ", t.value()));
  EXPECT_FALSE(BearerMatches("token-aaa-1", t.value()));
  std::remove(f.c_str());
  std::string empty = TempFile("# nothing\n\n");
  auto none = LoadTokenFile(empty);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no token"), std::string::npos);
  std::remove(empty.c_str());
  std::string short_token = TempFile("node-a abc\n");
  EXPECT_FALSE(LoadTokenFile(short_token).ok());
  std::remove(short_token.c_str());
  EXPECT_FALSE(LoadTokenFile("/nonexistent/tokens").ok());
}

// Every malformed line stops the load with FILE:LINE and what was expected;
// none of them silently becomes a token (a one-word line once became a fleet token).
TEST(CollectorAuth, MalformedTokenLineIsAnErrorNamingFileAndLine) {
  struct Case {
    const char* body;  // after a first comment line
    int line;
    const char* problem;
  };
  const Case cases[] = {
      {"  token-one-1  \n", 2, "found a single word (a fleet-wide token is written `* TOKEN`)"},
      {"node-a token-aaaa-1 extra\n", 2, "found 3 words not starting with `sweep`"},
      {"sweep node-a token-aaaa-1 extra\n", 2, "found 4 words"},
      {"sweep token-aaaa-1\n", 2, "`sweep` needs the node it reports as: `sweep NODE TOKEN`"},
      {"sweep * token-aaaa-1\n", 2, "`sweep *` is not a node"},
      {"node-a token-aaaa-1\nnode-b token-aaaa-1\n", 3, "this token is already given on line 2"},
  };
  for (const Case& c : cases) {
    std::string f = TempFile(std::string("# tokens\n") + c.body);
    auto r = LoadTokenFile(f);
    ASSERT_FALSE(r.ok()) << c.body;
    const std::string& m = r.status().message();
    EXPECT_NE(m.find(f + ":" + std::to_string(c.line) + ": "), std::string::npos) << m;
    EXPECT_NE(m.find(c.problem), std::string::npos) << m;
    std::remove(f.c_str());
  }
}

// Found by config_files_fuzzer: a line of a vertical tab read the last word
// of an empty list.
TEST(CollectorAuth, TokenFileLineOfOtherBlanksIsBlank) {
  std::string f = TempFile("\v\n\f \v\n* token-fleet-3\n");
  auto t = LoadTokenFile(f);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t.value().size(), 1u);
  EXPECT_EQ(t.value()[0].token, "token-fleet-3");
  std::remove(f.c_str());
}

TEST(CollectorConfig, TlsAndReadTokenAndDbCap) {
  auto c = ParseCollectorArgs({"--tls-cert", "/etc/c.crt", "--tls-key=/etc/c.key", "--read-token-file", "/etc/r",
                               "--db-max-bytes", "1048576"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c.value().tls_cert, "/etc/c.crt");
  EXPECT_EQ(c.value().tls_key, "/etc/c.key");
  EXPECT_EQ(c.value().read_token_file, "/etc/r");
  EXPECT_EQ(c.value().db_max_bytes, 1048576);
  auto half = ParseCollectorArgs({"--tls-key", "/etc/c.key"});
  ASSERT_FALSE(half.ok());
  EXPECT_NE(half.status().message().find("--tls-cert and --tls-key go together"), std::string::npos);
  EXPECT_FALSE(ParseCollectorArgs({"--db-max-bytes", "-1"}).ok());
}

// A PostgreSQL --db takes its password from a file, refuses SQLite's file cap,
// and is named in logs without a password written into the URL.
TEST(CollectorConfig, PostgresDatabaseAndItsPasswordFile) {
  auto c = ParseCollectorArgs({"--db", "postgresql://rdmascope@db.example:5432/fleet", "--db-password-file", "/etc/pw"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(IsPostgresDb(c.value().db));
  EXPECT_EQ(c.value().db_password_file, "/etc/pw");
  EXPECT_FALSE(IsPostgresDb("./rdmascope.db"));
  EXPECT_TRUE(IsPostgresDb("postgres://h/db"));

  auto capped = ParseCollectorArgs({"--db", "postgresql://h/db", "--db-max-bytes", "1048576"});
  ASSERT_FALSE(capped.ok());
  EXPECT_NE(capped.status().message().find("--db-max-bytes caps a SQLite file"), std::string::npos);
  auto stray = ParseCollectorArgs({"--db", "/var/lib/rdmascope/c.db", "--db-password-file", "/etc/pw"});
  ASSERT_FALSE(stray.ok());
  EXPECT_NE(stray.status().message().find("is a SQLite file"), std::string::npos) << stray.status().message();

  EXPECT_EQ(DatabaseName("postgresql://u:secret@h:5432/db"), "postgresql://u@h:5432/db");
  EXPECT_EQ(DatabaseName("postgresql://u@h/db?sslmode=require"), "postgresql://u@h/db?sslmode=require");
  EXPECT_EQ(DatabaseName("postgresql://h:5432/db"), "postgresql://h:5432/db");
  EXPECT_EQ(DatabaseName("./rdmascope.db"), "./rdmascope.db");
}

TEST(CollectorConfig, AMissingPasswordFileIsAnErrorNamingIt) {
  auto c = ParseCollectorArgs({"--db", "postgresql://rdmascope@127.0.0.1:1/fleet", "--db-password-file",
                               "/nonexistent/rdmascope-pw"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto store = OpenCollectorStorage(c.value(), StoreOptions(), 0);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("/nonexistent/rdmascope-pw"), std::string::npos) << store.status().message();
}

TEST(CollectorAuth, ReadTokensAsBearerOrBasicPassword) {
  const std::vector<NodeToken> read = {NodeToken("reader-token-1")};
  EXPECT_TRUE(ReadAuthorized("Bearer reader-token-1", read));
  // base64("ops:reader-token-1") and base64(":reader-token-1")
  EXPECT_TRUE(ReadAuthorized("Basic b3BzOnJlYWRlci10b2tlbi0x", read));
  EXPECT_TRUE(ReadAuthorized("Basic OnJlYWRlci10b2tlbi0x", read));
  EXPECT_FALSE(ReadAuthorized("Basic b3BzOnJlYWRlci10b2tlbi0y", read));  // ops:reader-token-2
  EXPECT_FALSE(ReadAuthorized("Basic cmVhZGVyLXRva2VuLTE=", read));      // no colon: reader-token-1
  EXPECT_FALSE(ReadAuthorized("Basic !!!!", read));
  EXPECT_FALSE(ReadAuthorized("Basic ", read));
  EXPECT_FALSE(ReadAuthorized("", read));
  EXPECT_FALSE(ReadAuthorized("Bearer reader-token-2", read));
}

// PostgreSQL's errors as PgDb words them: the server gone or refusing is
// "unavailable" (503, agents retry), its disk full or damage as on SQLite,
// a statement the server refused for the report's sake is no storage fault.
TEST(StorageFault, ClassifiesPostgresErrors) {
  EXPECT_EQ(ClassifyStorageFault("connecting to PostgreSQL at 10.0.0.5:5432: connection to server at \"10.0.0.5\", "
                                 "port 5432 failed: Connection refused"),
            StorageFault::kUnavailable);
  EXPECT_EQ(ClassifyStorageFault("PostgreSQL at db:5432, BEGIN: server closed the connection unexpectedly"),
            StorageFault::kUnavailable);
  EXPECT_EQ(ClassifyStorageFault("PostgreSQL at db:5432, INSERT INTO nodes: terminating connection due to "
                                 "administrator command [SQLSTATE 57P01]"),
            StorageFault::kUnavailable);
  EXPECT_EQ(ClassifyStorageFault("PostgreSQL at db:5432, COPY probe_summaries: could not extend file: No space left "
                                 "on device [SQLSTATE 53100]"),
            StorageFault::kFull);
  EXPECT_EQ(ClassifyStorageFault("PostgreSQL at db:5432, SELECT: invalid page in block 7 [SQLSTATE XX001]"),
            StorageFault::kCorrupt);
  EXPECT_EQ(ClassifyStorageFault("PostgreSQL at db:5432, INSERT INTO nodes: duplicate key value [SQLSTATE 23505]"),
            StorageFault::kNone);
  EXPECT_NE(StorageFaultAdvice(StorageFault::kUnavailable, "").find("cannot be reached"), std::string::npos);
}

TEST(StorageFault, ClassifiesSqliteTextsAndTracksTheNewestWrite) {
  EXPECT_EQ(ClassifyStorageFault("sqlite step failed (database or disk is full) in: INSERT"), StorageFault::kFull);
  EXPECT_EQ(ClassifyStorageFault("sqlite exec failed (database disk image is malformed) in: x"),
            StorageFault::kCorrupt);
  EXPECT_EQ(ClassifyStorageFault("file is not a database"), StorageFault::kCorrupt);
  EXPECT_EQ(ClassifyStorageFault("disk I/O error"), StorageFault::kIo);
  EXPECT_EQ(ClassifyStorageFault("probes[0].rtt: not a number"), StorageFault::kNone);
  StorageHealth h;
  EXPECT_FALSE(h.Problem());
  h.Note(Status::Error("schema violation"));
  EXPECT_FALSE(h.Problem()) << "a bad report is not a storage problem";
  h.Note(Status::Error("sqlite exec failed (database or disk is full) in: COMMIT"));
  ASSERT_TRUE(h.Problem());
  EXPECT_EQ(h.Problem()->rfind("storage full: ", 0), 0u) << *h.Problem();
  h.Note(Status::Ok());
  EXPECT_FALSE(h.Problem());
  EXPECT_NE(StorageFaultAdvice(StorageFault::kCorrupt, "/var/lib/x.db").find("/var/lib/x.db"), std::string::npos);
}

TEST(StorageFault, ADamagedDatabaseIsRefusedAtOpenNamingTheFileAndWhatToDo) {
  std::string f = TempFile(std::string(8192, 'x'));
  StoreOptions o;
  o.path = f;
  auto store = Storage::Open(o);
  ASSERT_FALSE(store.ok());
  const std::string& m = store.status().message();
  EXPECT_NE(m.find(f), std::string::npos) << m;
  EXPECT_NE(m.find("is damaged"), std::string::npos) << m;
  EXPECT_NE(m.find("move"), std::string::npos) << m;
  std::remove(f.c_str());
}

}  // namespace
}  // namespace rdmascope::collector
