// The agent's reports pass the collector's validation of the report format
// (schemas/REPORT_FORMAT.md): every fixture tree, with labels and a probe
// entry in the contract's shape, and with the bounds the builder enforces.
#include <gtest/gtest.h>

#include "agent/daemon/agent_config.h"
#include "agent/node/inventory.h"
#include "agent/daemon/report_builder.h"
#include "collector/ingest/report_validate.h"

namespace rdmascope::agent {
namespace {

const std::string kFixtures = RDMASCOPE_FIXTURES_DIR;

nlohmann::json ContractProbe() {
  return nlohmann::json::parse(R"J({
    "target": "node-b", "transport": "rc",
    "local":  {"device": "rxe0", "port": 1, "gid_index": 1},
    "remote": {"host": "192.168.77.2", "control_port": 18515, "device": "rxe1", "port": 1},
    "interval_start_ms": 1699999990000, "interval_end_ms": 1700000000000,
    "summary": {
      "sent": 100, "received": 100, "lost": 0, "loss_ratio": 0.0,
      "rtt_us": {"count": 100, "min": 20.1, "avg": 31.0, "p50": 30.2, "p90": 40.0, "p99": 55.0, "p999": 60.0, "max": 61.0},
      "network_us": null, "responder_us": null, "read_us": null,
      "errors_by_status": {"RETRY_EXC_ERR (12)": 1}
    },
    "errors": [
      {"status": 12, "status_name": "RETRY_EXC_ERR", "vendor_err": 129, "opcode": "SEND",
       "wall_ms": 1699999995000.0, "after_ms": 31.2, "explanation": "peer QP gone"}
    ]})J");
}

// The report as the collector receives it: serialised and parsed again.
nlohmann::json OverTheWire(const Inventory& inv, const std::vector<nlohmann::json>& probes) {
  AgentConfig c;
  c.node_name = "node-a";
  c.labels = {{"group", "rack1"}};
  c.control_host = "192.168.77.1";
  ReportHeader h;
  h.node = c.node_name;
  h.labels = ReportLabels(c);
  ReportIdGenerator ids(c.node_name);
  return nlohmann::json::parse(SerializeReport(BuildReport(h, ids.Next(1700000000000), 1700000000000, inv, probes)));
}

class Contract : public ::testing::TestWithParam<std::string> {};

TEST_P(Contract, FixtureReportIsValid) {
  InventoryOptions o;
  o.read_counters = true;
  Inventory inv = ReadInventory(SysfsReader(kFixtures + "/sys/" + GetParam()), o);
  auto bad = collector::ValidateReport(OverTheWire(inv, {ContractProbe()}));
  EXPECT_FALSE(bad) << bad->field << ": " << bad->problem;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Contract,
                         ::testing::Values("mlx5_roce", "mlx5_ib", "mlx5_ib_errors", "mlx4_nopma", "rxe", "broken",
                                           "empty"));

TEST(Contract, BoundedWarningsAndProbesStayValid) {
  Inventory inv;
  for (int i = 0; i < 1000; ++i) inv.warnings.push_back(std::string(2000, 'w'));
  std::vector<nlohmann::json> probes(kMaxReportProbes + 10, ContractProbe());
  auto bad = collector::ValidateReport(OverTheWire(inv, probes));
  EXPECT_FALSE(bad) << bad->field << ": " << bad->problem;
}

}  // namespace
}  // namespace rdmascope::agent
