// rdmactl run as a user runs it, against the fixture trees.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>

#include "tests/support/run_command.h"

namespace {

const std::string kFixtures = RDMASCOPE_FIXTURES_DIR;

struct CmdRun {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// rdmactl with `args` split on spaces (no argument here holds one); output
// through pipes, so tests running in parallel never share a file.
CmdRun Rdmactl(const std::string& args) {
  std::vector<std::string> argv = {RDMACTL_PATH};
  std::istringstream words(args);
  for (std::string w; words >> w;) argv.push_back(w);
  auto res = rdmascope::testsupport::RunCommand(argv, 30000);
  return CmdRun{res.exit_code, res.out, res.err};
}

std::string Root(const std::string& fixture) { return "--sysfs-root " + kFixtures + "/sys/" + fixture; }

TEST(Rdmactl, NoDevicesIsANormalAnswer) {
  CmdRun r = Rdmactl(Root("empty") + " ports");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "no RDMA devices found\n");
  CmdRun j = Rdmactl(Root("empty") + " ports --json");
  EXPECT_EQ(j.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(j.out)["devices"].size(), 0u);
}

TEST(Rdmactl, PortsJsonMatchesGoldenForEveryFixture) {
  for (const char* f : {"mlx5_roce", "mlx5_ib", "mlx5_ib_errors", "mlx4_nopma", "rxe"}) {
    CmdRun r = Rdmactl(Root(f) + " ports --json");
    ASSERT_EQ(r.exit_code, 0) << f << ": " << r.err;
    std::ifstream in(kFixtures + "/expected/" + f + ".ports.json");
    EXPECT_EQ(nlohmann::json::parse(r.out), nlohmann::json::parse(in)) << f;
  }
}

TEST(Rdmactl, TextOutputShowsPortFields) {
  CmdRun r = Rdmactl(Root("mlx5_ib") + " ports");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("CA 'mlx5_0'"), std::string::npos);
  EXPECT_NE(r.out.find("State: ACTIVE (4)"), std::string::npos);
  EXPECT_NE(r.out.find("Base lid: 26"), std::string::npos);
  EXPECT_NE(r.out.find("Link layer: InfiniBand"), std::string::npos);
}

TEST(Rdmactl, ExplainKnownAndUnknown) {
  CmdRun r12 = Rdmactl("explain 12");
  EXPECT_EQ(r12.exit_code, 0);
  for (const char* s : {"12 RETRY_EXC_ERR", "verbs text:", "meaning:", "likely causes:", "what to check:"})
    EXPECT_NE(r12.out.find(s), std::string::npos) << s;
  CmdRun rnr = Rdmactl("explain RNR_RETRY_EXC");
  EXPECT_EQ(rnr.exit_code, 0);
  EXPECT_NE(rnr.out.find("13 RNR_RETRY_EXC_ERR"), std::string::npos);
  CmdRun bad = Rdmactl("explain NOT_A_STATUS");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown work-completion status"), std::string::npos);
  CmdRun j = Rdmactl("explain IBV_WC_REM_ACCESS_ERR --json");
  EXPECT_EQ(j.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(j.out)["number"], 10);
}

TEST(Rdmactl, HealthExitCodes) {
  EXPECT_EQ(Rdmactl(Root("mlx5_ib") + " health").exit_code, 0);
  CmdRun down = Rdmactl(Root("mlx5_roce") + " health");
  EXPECT_EQ(down.exit_code, 2);
  EXPECT_NE(down.out.find("CRITICAL"), std::string::npos);
  // Its adapter's PCIe link trained at 8 GT/s x8 of 16 GT/s x16.
  EXPECT_NE(down.out.find("WARNING: mlx5_0: degraded PCIe link: x8 < max x16"), std::string::npos) << down.out;
  CmdRun sym = Rdmactl(Root("mlx5_ib_errors") + " health");
  EXPECT_EQ(sym.exit_code, 1);
  EXPECT_NE(sym.out.find("symbol_error 42 > 10"), std::string::npos);
  // A raised threshold clears the warning.
  EXPECT_EQ(Rdmactl(Root("mlx5_ib_errors") + " health --threshold symbol_error=100").exit_code, 0);
  // No infiniband class at all: the check cannot run.
  CmdRun unknown = Rdmactl(Root("empty") + " health");
  EXPECT_EQ(unknown.exit_code, 3);
  EXPECT_EQ(unknown.out.rfind("RDMA UNKNOWN - ", 0), 0u) << unknown.out;
  EXPECT_EQ(Rdmactl("--sysfs-root /nonexistent health").exit_code, 3);
  EXPECT_EQ(Rdmactl(Root("mlx5_ib") + " health --bogus").exit_code, 3);
}

TEST(Rdmactl, HealthPerfdataAndExpectations) {
  for (const char* tree : {"mlx5_ib", "mlx5_roce", "mlx5_ib_errors"}) {
    CmdRun r = Rdmactl(Root(tree) + " health");
    std::string first = r.out.substr(0, r.out.find('\n'));
    EXPECT_NE(first.find(" | ports_checked="), std::string::npos) << tree << ": " << first;
  }
  // The rxe fixture's port runs at 10 Gb/s, 1X.
  EXPECT_EQ(Rdmactl(Root("rxe") + " health --expect-rate 10").exit_code, 0);
  CmdRun slow = Rdmactl(Root("rxe") + " health --expect-rate 25");
  EXPECT_EQ(slow.exit_code, 1);
  EXPECT_NE(slow.out.find("degraded link: rate 10 Gb/s < expected 25 Gb/s"), std::string::npos) << slow.out;
  EXPECT_EQ(Rdmactl(Root("rxe") + " health --expect-width 4X").exit_code, 1);
  EXPECT_EQ(Rdmactl(Root("rxe") + " health --expect-width 1X").exit_code, 0);
  EXPECT_EQ(Rdmactl(Root("rxe") + " health --port rxe0/1").exit_code, 0);
  EXPECT_EQ(Rdmactl(Root("rxe") + " health --port nosuch").exit_code, 3);
}

TEST(Rdmactl, HealthStateFileComparesIncreases) {
  char dir[] = "/tmp/rdmactl-state-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string state = std::string(dir) + "/state";
  // First run: absolute values (symbol_error 42 > 10); second run: no increase.
  EXPECT_EQ(Rdmactl(Root("mlx5_ib_errors") + " health --state-file " + state).exit_code, 1);
  CmdRun again = Rdmactl(Root("mlx5_ib_errors") + " health --state-file " + state);
  EXPECT_EQ(again.exit_code, 0) << again.out;
  std::remove(state.c_str());
  rmdir(dir);
}

TEST(Rdmactl, BrokenTreeWarnsPerBadFileAndKeepsTheRest) {
  CmdRun r = Rdmactl(Root("broken") + " counters --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json counters = nlohmann::json::parse(r.out);
  CmdRun p = Rdmactl(Root("broken") + " ports --json");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  nlohmann::json ports = nlohmann::json::parse(p.out);
  std::ifstream bad(kFixtures + "/expected/broken.bad_files.txt");
  std::string line;
  int n = 0;
  while (std::getline(bad, line)) {
    if (line.empty() || line[0] == '#') continue;
    ++n;
    bool named = false;
    for (const auto& w : counters["warnings"]) named |= w.get<std::string>().find(line) != std::string::npos;
    EXPECT_TRUE(named) << "no warning names " << line;
    EXPECT_NE(r.err.find(line), std::string::npos) << "stderr does not name " << line;
  }
  EXPECT_GT(n, 5);
  // Every good value is still reported: good_values.json holds partial
  // documents ("ports", "counters"); each of their leaves must be in the output.
  std::ifstream in(kFixtures + "/expected/broken.good_values.json");
  nlohmann::json good = nlohmann::json::parse(in);
  for (const auto& [part, got] : {std::pair<const char*, nlohmann::json&>{"ports", ports}, {"counters", counters}}) {
    ASSERT_TRUE(good.contains(part)) << part;
    nlohmann::json flat_want = good[part].flatten(), flat_got = got.flatten();
    for (auto it = flat_want.begin(); it != flat_want.end(); ++it) {
      ASSERT_TRUE(flat_got.contains(it.key())) << part << ": missing " << it.key();
      EXPECT_EQ(flat_got[it.key()], it.value()) << part << ": " << it.key();
    }
  }
}

TEST(Rdmactl, HelpAndBadUsage) {
  for (const char* c : {"--help", "ports --help", "counters --help", "devices --help", "health --help", "explain --help"})
    EXPECT_EQ(Rdmactl(c).exit_code, 0) << c;
  EXPECT_EQ(Rdmactl("").exit_code, 2);
  EXPECT_EQ(Rdmactl("frobnicate").exit_code, 2);
  EXPECT_EQ(Rdmactl(Root("mlx5_ib") + " ports nosuchdev").exit_code, 2);
  EXPECT_EQ(Rdmactl(Root("mlx5_ib") + " ports --bogus").exit_code, 2);
}

// The front `rdmactl` loads only the MAD libraries; other commands run in
// rdmactl-full beside it, and without it they fail saying where it looked.
TEST(Rdmactl, FrontLinksOnlyTheMadLibraries) {
  auto r = rdmascope::testsupport::RunCommand({"readelf", "-d", RDMACTL_PATH}, 30000);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("libibumad"), std::string::npos) << r.out;
  for (const char* heavy : {"libibverbs", "libssl", "libcrypto", "httplib", "libnl"})
    EXPECT_EQ(r.out.find(heavy), std::string::npos) << heavy << " is loaded by the front rdmactl:\n" << r.out;
}

TEST(Rdmactl, FrontWithoutRdmactlFullNamesWhereItLooked) {
  char dir[] = "/tmp/rdmactl_front_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string alone = std::string(dir) + "/rdmactl";
  {
    std::ifstream in(RDMACTL_PATH, std::ios::binary);
    std::ofstream out(alone, std::ios::binary);
    out << in.rdbuf();
  }
  ASSERT_EQ(chmod(alone.c_str(), 0755), 0);
  auto r = rdmascope::testsupport::RunCommand({alone, "explain", "12"}, 30000);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("rdmactl explain: cannot run rdmactl-full"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(std::string(dir) + "/rdmactl-full: No such file"), std::string::npos) << r.err;
  auto v = rdmascope::testsupport::RunCommand({alone, "--version"}, 30000);
  EXPECT_EQ(v.exit_code, 0) << v.err;  // the front's own answers need nothing else
  unlink(alone.c_str());
  rmdir(dir);
  // Beside its rdmactl-full, the front hands the command over with its options.
  CmdRun e = Rdmactl("--json explain 12");
  EXPECT_EQ(e.exit_code, 0) << e.err;
  EXPECT_TRUE(nlohmann::json::accept(e.out)) << e.out;
}

}  // namespace
