// Memory bounded by configuration: interned names are freed once nothing
// holds them, a node's destinations in memory stay within the cap, and the
// forget step takes silent nodes and aged rows out of the database and the
// read snapshot. Prints the collector memory one node costs. Built once per
// backend (tests/collector/store_backend.h): the forget step's cases run on
// SQLite and on a real PostgreSQL; the memory cases, which need no database,
// on SQLite only.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "collector/readmodel/read_snapshot.h"
#include "collector/store/storage.h"
#include "tests/collector/store_backend.h"
#include "tests/support/test_reports.h"
#include "tests/support/scratch_dir.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::MakeProbe;
using testing::MakeReport;

constexpr int64_t kT0 = 1700000000000;

#ifndef RDMASCOPE_STORE_TESTS_ON_POSTGRES  // memory only: nothing of the database
std::shared_ptr<const ProbeRow> Row(const std::string& src, const std::string& dst, const std::string& rail,
                                    const std::string& transport, int64_t end) {
  auto r = std::make_shared<ProbeRow>();
  r->src = Intern(src);
  r->dst = Intern(dst);
  r->rail = Intern(rail);
  r->transport = Intern(transport);
  r->local_device = Intern("mlx5_" + rail);
  r->remote_device = Intern("mlx5_" + rail);
  r->interval_start = end - 10000;
  r->interval_end = end;
  r->sent = 100, r->received = 100;
  r->rtt_p50 = 3.5, r->rtt_p99 = 7.25;
  r->report_id = std::make_shared<const std::string>("report-of-" + src);
  return r;
}

TEST(InternedNames, AreFreedOnceNothingHoldsThem) {
  SweepInterned();
  const size_t start = InternedCount();
  {
    std::vector<std::shared_ptr<const ProbeRow>> rows;
    for (int i = 0; i < 100; ++i) rows.push_back(Row("sweep-src", "sweep-dst-" + std::to_string(i), "0", "rc", kT0));
    const ProbeRow copy = *rows[0];  // a copy holds its names too
    rows.clear();
    EXPECT_EQ(SweepInterned(), 99u) << "freed a name the copy still holds, or kept one nothing holds";
    EXPECT_EQ(*copy.dst, "sweep-dst-0");
  }
  SweepInterned();
  EXPECT_EQ(InternedCount(), start);
}

TEST(NodeStateCap, KeepsTheDestinationsReportedLast) {
  NodeState st;
  st.name = "cap-src";
  for (int d = 0; d < 10; ++d)
    for (const char* rail : {"0", "1"}) st.Apply(Row("cap-src", "cap-dst-" + std::to_string(d), rail, "rc", kT0 + d));
  EXPECT_EQ(st.KeepNewestDestinations(20), 0u);
  EXPECT_EQ(st.KeepNewestDestinations(4), 6u);
  ASSERT_EQ(st.pairs.size(), 8u);
  for (const auto& [key, e] : st.pairs) EXPECT_GE(e.newest->interval_end, kT0 + 6) << *key.dst;
}

#endif

class ForgetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions o;
    o.synchronous_full = false;
    o.max_destinations_per_node = 8;
    o.log = [this](const std::string& line) { log_.push_back(line); };
    auto s = db_.Open(o, kT0);
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(s).value();
  }
  void Ingest(const std::string& id, const std::string& node, int64_t at, const std::vector<std::string>& dsts) {
    json r = MakeReport(id, node, at);
    for (const std::string& d : dsts) r["probes"].push_back(MakeProbe(d, at));
    auto res = store_->writer.Ingest(r, at);
    ASSERT_TRUE(res.ok()) << res.status().message();
  }
  std::shared_ptr<const NodeState> Published(const std::string& node) {
    auto parts = store_->read.MetricsSnapshotParts(0, 5);
    EXPECT_TRUE(parts.ok());
    for (const auto& n : parts.value().nodes)
      if (n->name == node) return n;
    return nullptr;
  }
  int64_t Rows(const std::string& sql_table) {
    auto n = store_->db.CountRows(sql_table);
    return n.ok() ? n.value() : -1;
  }
  // Whole rounds of ForgetStep, as the retention pass runs them.
  Retention::ForgetTally ForgetAt(int64_t now, const RetentionPolicy& policy) {
    Retention::ForgetTally tally;
    for (;;) {
      auto n = store_->retention.ForgetStep(now, policy, &tally);
      EXPECT_TRUE(n.ok()) << n.status().message();
      if (!n.ok() || n.value() == 0) break;
    }
    return tally;
  }
  testing::TestStoreDatabase db_{"collector_forget_test"};
  std::unique_ptr<Storage> store_;
  std::vector<std::string> log_;
};

TEST_F(ForgetTest, ANodesDestinationsInMemoryStayWithinTheCap) {
  for (int round = 0; round < 5; ++round) {
    std::vector<std::string> dsts;
    for (int i = 0; i < 5; ++i) dsts.push_back("r" + std::to_string(round) + "-d" + std::to_string(i));
    Ingest("cap-" + std::to_string(round), "node-a", kT0 + round * 10000, dsts);
  }
  auto a = Published("node-a");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->pairs.size(), 8u);  // one rail, one transport: 8 destinations
  for (const auto& [key, e] : a->pairs) EXPECT_GE(e.newest->interval_end, kT0 + 30000) << *key.dst;
  ASSERT_FALSE(log_.empty());
  EXPECT_NE(log_.back().find("node node-a named more than 8 probe destinations"), std::string::npos) << log_.back();
  EXPECT_EQ(Rows("probe_summaries"), 25) << "the database keeps every summary";
}

TEST_F(ForgetTest, SilentNodesAndAgedPairsLeaveTheDatabaseAndMemory) {
  Ingest("old-1", "node-old", kT0, {"node-new", "gone-peer"});
  Ingest("new-1", "node-new", kT0 + 40000, {"node-old"});
  Ingest("new-2", "node-new", kT0 + 100000, {"other-peer"});
  const int64_t new_ports = Rows("ports");
  ASSERT_TRUE(Published("node-old") && Published("node-new"));
  RetentionPolicy policy;
  policy.forget_after_ms = 60000;

  // At kT0 + 110 s node-old is 110 s silent, node-new 10 s: node-old goes
  // whole; node-new keeps its node and ports, but its pair towards node-old
  // (ended at kT0 + 40 s) is older than the forget age.
  const Retention::ForgetTally tally = ForgetAt(kT0 + 110000, policy);
  EXPECT_EQ(tally.nodes, 1);
  EXPECT_EQ(tally.pairs, 1);
  EXPECT_FALSE(Published("node-old"));
  auto n = Published("node-new");
  ASSERT_TRUE(n);
  ASSERT_EQ(n->pairs.size(), 1u);
  EXPECT_EQ(*n->pairs.begin()->first.dst, "other-peer");
  EXPECT_EQ(Rows("nodes"), 1);
  EXPECT_EQ(Rows("ports"), new_ports - 1);
  auto infos = store_->read.NodeInfos();
  ASSERT_TRUE(infos.ok());
  ASSERT_EQ(infos.value().size(), 1u);
  EXPECT_EQ(infos.value()[0].name, "node-new");

  // A node that reports again after being forgotten comes back whole.
  Ingest("old-2", "node-old", kT0 + 120000, {"node-new"});
  EXPECT_TRUE(Published("node-old"));
  EXPECT_EQ(Rows("nodes"), 2);
}

TEST_F(ForgetTest, CountersAndPortsANodeStoppedReportingAreForgotten) {
  json r = MakeReport("c-1", "node-a", kT0);
  r["inventory"]["devices"][0]["ports"][0]["counters"]["invented_counter"] = 5;
  ASSERT_TRUE(store_->writer.Ingest(r, kT0).ok());
  ASSERT_TRUE(store_->writer.Ingest(MakeReport("c-2", "node-a", kT0 + 100000), kT0 + 100000).ok());
  auto counters = [&] {
    auto n = Published("node-a");
    int invented = 0;
    for (const json& c : n->counters) invented += c["name"] == "invented_counter";
    return invented;
  };
  EXPECT_EQ(counters(), 1);
  RetentionPolicy policy;
  policy.forget_after_ms = 60000;
  const Retention::ForgetTally tally = ForgetAt(kT0 + 110000, policy);
  EXPECT_EQ(tally.nodes, 0);
  EXPECT_GE(tally.rows, 1);
  EXPECT_EQ(counters(), 0);
  EXPECT_EQ(Rows("nodes"), 1);
}

// A step visits a range of nodes by name: an aged row is found whichever
// step's range holds its node, and no node is visited twice.
TEST_F(ForgetTest, AgedRowsAreFoundInEveryStepsRangeOfNodes) {
  const int kNodes = 150;  // more than two steps' worth
  auto name = [](int i) { return "node-" + std::string(i < 10 ? "00" : i < 100 ? "0" : "") + std::to_string(i); };
  for (int i = 0; i < kNodes; ++i) {
    json r = MakeReport("a-" + std::to_string(i), name(i), kT0);
    if (i % 70 == 1) r["inventory"]["devices"][0]["ports"][0]["counters"]["invented_counter"] = 5;
    ASSERT_TRUE(store_->writer.Ingest(r, kT0).ok());
    ASSERT_TRUE(store_->writer.Ingest(MakeReport("b-" + std::to_string(i), name(i), kT0 + 100000), kT0 + 100000).ok());
  }
  const int64_t counters = Rows("counters_latest");
  RetentionPolicy policy;
  policy.forget_after_ms = 60000;
  const Retention::ForgetTally tally = ForgetAt(kT0 + 110000, policy);
  EXPECT_EQ(tally.nodes, 0);
  EXPECT_EQ(tally.rows, 3) << "the aged counter of node-001, node-071 and node-141";
  EXPECT_EQ(Rows("counters_latest"), counters - 3);
  for (int i : {1, 71, 141}) {
    auto n = Published(name(i));
    ASSERT_TRUE(n) << name(i);
    for (const json& c : n->counters) EXPECT_NE(c["name"], "invented_counter") << name(i);
  }
}

#ifndef RDMASCOPE_STORE_TESTS_ON_POSTGRES  // memory only: nothing of the database
// The collector memory a node costs in the read snapshot: its state with
// ports, counters and the pairs of `targets` x `rails` x 2 transports.
size_t NodeBytes(int nodes, int targets, int rails) {
  SweepInterned();
  malloc_trim(0);
  const size_t before = mallinfo2().uordblks;
  {
    ReadSnapshot snapshot;
    for (int n = 0; n < nodes; ++n) {
      auto st = std::make_shared<NodeState>();
      st->name = "mem-node-" + std::to_string(n);
      for (int rail = 0; rail < rails; ++rail) {
        st->ports.push_back({{"node", st->name}, {"device", "mlx5_" + std::to_string(rail)}, {"port", 1},
                             {"state", 4}, {"link_layer", "InfiniBand"}, {"lid", 7 + rail},
                             {"gids", json::array({{{"index", 0}, {"gid", "fe80::1"}}})}, {"active_mtu", 4096},
                             {"rate_gbps", 200.0}});
        for (const char* c : {"symbol_error", "link_downed", "port_rcv_errors", "port_xmit_discards",
                              "port_xmit_wait", "port_xmit_data_bytes", "port_rcv_data_bytes", "port_xmit_packets",
                              "port_rcv_packets", "local_link_integrity_errors", "excessive_buffer_overrun_errors"})
          st->counters.push_back({{"node", st->name}, {"device", "mlx5_" + std::to_string(rail)}, {"port", 1},
                                  {"kind", "counters"}, {"name", c}, {"value", 123456}});
        for (int t = 0; t < targets; ++t)
          for (const char* transport : {"rc", "ud"})
            st->Apply(Row(st->name, "mem-node-" + std::to_string((n + 1 + t) % 4096), std::to_string(rail),
                          transport, kT0));
      }
      snapshot.PutNode(std::move(st));
    }
    const size_t with = mallinfo2().uordblks;
    snapshot.Clear();
    SweepInterned();
    EXPECT_LT(mallinfo2().uordblks, before + (with - before) / 20) << "the nodes' memory was not given back";
    return (with - before) / static_cast<size_t>(nodes);
  }
}

TEST(NodeMemory, PerNodeCostIsBoundedAndPrinted) {
  struct Shape {
    int nodes, targets, rails;
  };
  for (const Shape s : {Shape{20, 20, 8}, Shape{10, 128, 8}, Shape{2, 1024, 8}}) {
    const size_t bytes = NodeBytes(s.nodes, s.targets, s.rails);
    std::printf("collector memory per node: %zu bytes (%.2f MB) at %d targets x %d rails x 2 transports\n", bytes,
                bytes / 1048576.0, s.targets, s.rails);
    // A pair costs its row (~300 bytes), its map entry and its summaries; a
    // node's share of the snapshot stays within 1 kB per pair.
    EXPECT_LT(bytes, static_cast<size_t>(s.targets) * s.rails * 2 * 1024 + 256 * 1024);
  }
}

#endif

}  // namespace
}  // namespace rdmascope::collector
