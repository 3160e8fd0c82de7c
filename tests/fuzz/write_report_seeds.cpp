// Writes the report fuzzer's InfiniBand seeds into the directory given as
// argv[1]: reports carrying a fabric sweep and neighbours, made the way
// collector_fabric_test makes them (the fabric library sweeping an in-memory
// subnet, QueryNeighbour from a host's port), so the fuzzer starts from what
// agents really send. Run by hand after a report-format change:
//   cmake --build build --target write_report_seeds && build/bin/write_report_seeds tests/fuzz/corpus/report
#include <infiniband/mad.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "fabric/fabric_json.h"
#include "fabric/neighbour.h"
#include "fabric/sweep.h"
#include "tests/fabric/fake_subnet.h"
#include "tests/support/test_reports.h"

namespace {

using nlohmann::json;
using rdmascope::fabric::testing::FakeSubnet;

constexpr int64_t kAt = 1'800'000'000'000;

json Sweep(FakeSubnet& s) {
  rdmascope::fabric::SweepOptions o;
  o.engine.timeout_ms = 20;
  auto f = rdmascope::fabric::SweepSubnet(s, o);
  if (!f.ok()) {
    std::fprintf(stderr, "sweep failed: %s\n", f.status().message().c_str());
    std::exit(1);
  }
  return rdmascope::fabric::FabricToJson(f.value(), true);
}

// The neighbour of node `host` of `s`, as that host's agent reports it.
json NeighbourOf(const FakeSubnet& s, int host) {
  FakeSubnet view = rdmascope::fabric::testing::AsSeenFrom(s, host);
  auto nb = rdmascope::fabric::QueryNeighbour(view, rdmascope::fabric::EngineOptions{}, 1);
  if (!nb.ok()) {
    std::fprintf(stderr, "neighbour query failed: %s\n", nb.status().message().c_str());
    std::exit(1);
  }
  json j = rdmascope::fabric::NeighbourToJson(nb.value());
  j["device"] = "mlx5_0";
  return j;
}

void Write(const std::string& dir, const std::string& name, const json& report) {
  std::ofstream(dir + "/" + name) << report.dump() << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_report_seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  using rdmascope::collector::testing::MakeProbe;
  using rdmascope::collector::testing::MakeReport;

  FakeSubnet small = rdmascope::fabric::testing::SmallSubnet(false);
  json r = MakeReport("seed-fabric-1", "hca1-host", kAt);
  r["fabric"] = Sweep(small);
  Write(dir, "fabric_sweep.json", r);

  // Two trunks, one port's errors risen, one switch silent (unreachable).
  FakeSubnet trunk = rdmascope::fabric::testing::SmallSubnet(true);
  trunk.nodes[2].counters[3] = {{IB_PC_ERR_SYM_F, 42}, {IB_PC_LINK_DOWNED_F, 1}};
  trunk.silent.insert("hca3");
  r = MakeReport("seed-fabric-2", "hca1-host", kAt + 10000);
  r["fabric"] = Sweep(trunk);
  Write(dir, "fabric_sweep_errors_unreachable.json", r);

  json host = MakeReport("seed-neighbours-1", "host2", kAt);
  host["neighbours"] = json::array({NeighbourOf(small, 3)});
  host["probes"] = json::array({MakeProbe("host1", kAt, 2), MakeProbe("host3", kAt, 0, 100, "ud")});
  Write(dir, "neighbours_and_probes.json", host);
  return 0;
}
