// Agent config: defaults, the config file, flags over the file, and errors
// that name the bad key, line or flag.
#include "agent/daemon/agent_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <fstream>
#include <set>
#include <sstream>

#include "agent_test_util.h"
#include "probes/probe_scheduler.h"

namespace rdmascope::agent {
namespace {

using testing::TempDir;

std::string WriteFile(const TempDir& dir, const std::string& name, const std::string& text) {
  std::string path = dir.path() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string Hostname() {
  char buf[HOST_NAME_MAX + 1] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

TEST(AgentConfig, DefaultsWithoutFileOrFlags) {
  auto r = LoadAgentConfig({});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const AgentConfig& c = r->config;
  EXPECT_EQ(c.collector, "");
  EXPECT_EQ(c.token_file, "");
  EXPECT_EQ(c.sysfs_root, "/sys");
  EXPECT_EQ(c.node_name, Hostname());
  EXPECT_EQ(c.spool_dir, "/var/lib/rdmascope/spool");
  EXPECT_EQ(c.spool_max_bytes, 64u * 1024 * 1024);
  EXPECT_EQ(c.report_interval, std::chrono::seconds(10));
  EXPECT_EQ(c.inventory_interval, std::chrono::seconds(60));
  EXPECT_EQ(c.control_port, 18610);
  EXPECT_FALSE(c.once);
  EXPECT_TRUE(c.labels.empty());
  EXPECT_TRUE(r->rest.empty());
}

TEST(AgentConfig, FileSetsEveryKey) {
  TempDir dir;
  std::string path = WriteFile(dir, "agent.conf",
                               "# comment\n"
                               "\n"
                               "collector = http://collector.example:8080/base/\n"
                               "token_file = /etc/rdmascope/token\n"
                               "  sysfs_root=/tmp/sys  \n"
                               "node_name = node-a\n"
                               "spool_dir = /tmp/spool\n"
                               "spool_max_bytes = 1048576\n"
                               "interval = 5\n"
                               "inventory_interval = 120\n"
                               "control_port = 19000\n"
                               "control_host = 192.168.77.1\n"
                               "labels = group=rack1, zone=b\n");
  auto r = LoadAgentConfig({"--config", path});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const AgentConfig& c = r->config;
  EXPECT_EQ(c.collector, "http://collector.example:8080/base/");
  EXPECT_EQ(c.token_file, "/etc/rdmascope/token");
  EXPECT_EQ(c.sysfs_root, "/tmp/sys");
  EXPECT_EQ(c.node_name, "node-a");
  EXPECT_EQ(c.spool_dir, "/tmp/spool");
  EXPECT_EQ(c.spool_max_bytes, 1048576u);
  EXPECT_EQ(c.report_interval, std::chrono::seconds(5));
  EXPECT_EQ(c.inventory_interval, std::chrono::seconds(120));
  EXPECT_EQ(c.control_port, 19000);
  EXPECT_EQ(c.control_host, "192.168.77.1");
  EXPECT_EQ(c.labels, (std::map<std::string, std::string>{{"group", "rack1"}, {"zone", "b"}}));
}

TEST(AgentConfig, FlagsWinOverTheFileWhateverTheirPosition) {
  TempDir dir;
  std::string path = WriteFile(dir, "agent.conf",
                               "collector = http://file:1\ninterval = 5\nlabels = group=rack1,zone=b\n"
                               "node_name = from-file\n");
  auto r = LoadAgentConfig({"--interval=7", "--config", path, "--collector", "http://flag:2", "--labels",
                            "group=rack9", "--once"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->config.collector, "http://flag:2");
  EXPECT_EQ(r->config.report_interval, std::chrono::seconds(7));
  EXPECT_EQ(r->config.node_name, "from-file");  // not overridden
  // --labels replaces the file's labels as a whole.
  EXPECT_EQ(r->config.labels, (std::map<std::string, std::string>{{"group", "rack9"}}));
  EXPECT_TRUE(r->config.once);
}

TEST(AgentConfig, EveryFlagSpelling) {
  auto r = LoadAgentConfig({"--collector", "http://c:1", "--token-file", "/t", "--sysfs-root", "/s",
                            "--node-name", "n1", "--spool-dir", "/sp", "--spool-max-bytes", "70000",
                            "--interval", "3", "--inventory-interval", "30", "--control-port", "1234"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const AgentConfig& c = r->config;
  EXPECT_EQ(c.token_file, "/t");
  EXPECT_EQ(c.sysfs_root, "/s");
  EXPECT_EQ(c.node_name, "n1");
  EXPECT_EQ(c.spool_dir, "/sp");
  EXPECT_EQ(c.spool_max_bytes, 70000u);
  EXPECT_EQ(c.report_interval, std::chrono::seconds(3));
  EXPECT_EQ(c.inventory_interval, std::chrono::seconds(30));
  EXPECT_EQ(c.control_port, 1234);
}

TEST(AgentConfig, OtherArgumentsAreLeftInOrder) {
  auto r = LoadAgentConfig({"--responder-only", "--device", "mlx5_0", "--interval", "4", "--inject", "rnr"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->rest, (std::vector<std::string>{"--responder-only", "--device", "mlx5_0", "--inject", "rnr"}));
  EXPECT_EQ(r->config.report_interval, std::chrono::seconds(4));
}

struct BadFile {
  std::string text;
  std::string expected;  // a substring of the error
};
// Names the case in test listings by what it expects (stable across builds).
void PrintTo(const BadFile& b, std::ostream* os) { *os << b.expected; }

class AgentConfigBadFile : public ::testing::TestWithParam<BadFile> {};

TEST_P(AgentConfigBadFile, ErrorNamesTheLineAndKey) {
  TempDir dir;
  std::string path = WriteFile(dir, "bad.conf", GetParam().text);
  auto r = LoadAgentConfig({"--config", path});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(GetParam().expected), std::string::npos)
      << "error: " << r.status().message();
  EXPECT_EQ(r.status().message().rfind(path, 0), 0u) << "error should start with the file: "
                                                      << r.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, AgentConfigBadFile,
    ::testing::Values(BadFile{"# ok\ninterval = 5\nno equals sign here\n", ":3: expected `key = value`"},
                      BadFile{"colector = http://x\n", ":1: unknown key 'colector'"},
                      BadFile{"interval = 0\n", ":1: key 'interval': needs whole seconds"},
                      BadFile{"interval = 5s\n", ":1: key 'interval'"},
                      BadFile{"inventory_interval = -1\n", ":1: key 'inventory_interval'"},
                      BadFile{"spool_max_bytes = 10\n", "key 'spool_max_bytes': needs a byte count of at least"},
                      BadFile{"control_port = 70000\n", "key 'control_port': needs a TCP port"},
                      BadFile{"labels = group\n", "key 'labels': label 'group' is not k=v"},
                      BadFile{"labels = a b=1\n", "label key 'a b'"},
                      BadFile{"interval = 5\n\ninterval = 6\n", ":3: key 'interval' repeated (first on line 1)"},
                      BadFile{"sysfs_root =\n", ":1: key 'sysfs_root': needs a value"},
                      BadFile{"devices = mlx5_0, " + std::string(64, 'd') + "\n", ":1: key 'devices': needs device names (1..63"},
                      BadFile{"once = 1\n", "command-line flag only"},
                      BadFile{"probe_traffic_class = 256\n", ":1: key 'probe_traffic_class': item '256': traffic class must be a number 0..255"},
                      BadFile{"probe_sl = r0=16\n", ":1: key 'probe_sl': item 'r0=16': service level must be a number 0..15"},
                      BadFile{"probe_sl = 1, 2\n", "more than one value for every rail"},
                      BadFile{"probe_sl = r0=1, r0=2\n", "rail r0 given twice"},
                      BadFile{"gid_subnet = 10.0.0.1/24\n", "key 'gid_subnet': item '10.0.0.1/24': GID subnet must be A.B.C.D/N"},
                      BadFile{"gid_index = r0=3\ngid_subnet = r0=10.0.0.0/24\n", ":2: key 'gid_subnet': rail r0: the local GID is pinned by gid_index or by gid_subnet, not both"}));

// Probe path keys: a value for every rail, RAIL=VALUE for one; flags replace a key's whole list.
TEST(AgentConfig, ProbePathPerRail) {
  TempDir dir;
  const std::string path = WriteFile(dir, "p.conf",
                                     "probe_traffic_class = 104, storage=96\n"
                                     "probe_sl = storage=3\n"
                                     "gid_subnet = 10.0.0.0/24\n"
                                     "gid_index = storage=2\n");
  auto r = LoadAgentConfig({"--config", path});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const RailPaths& p = r->config.probe_paths;
  probes::ProbePathSettings compute = p.For("compute");
  EXPECT_EQ(compute.traffic_class.value(), 104);
  EXPECT_FALSE(compute.sl.has_value());
  EXPECT_EQ(compute.gid_subnet->text, "10.0.0.0/24");
  EXPECT_FALSE(compute.gid_index.has_value());
  probes::ProbePathSettings storage = p.For("storage");
  EXPECT_EQ(storage.traffic_class.value(), 96);
  EXPECT_EQ(storage.sl.value(), 3);
  EXPECT_EQ(storage.gid_index.value(), 2);  // the rail's own pin replaces the common subnet
  EXPECT_FALSE(storage.gid_subnet.has_value());

  probes::SchedulerOptions so;  // what the rail supervisor hands the rail's prober
  probes::ApplyProbePath(storage, &so);
  EXPECT_EQ(so.probe_class.traffic_class, 96);
  EXPECT_EQ(so.probe_class.sl, 3);
  EXPECT_EQ(so.gid_index.value(), 2);

  auto f = LoadAgentConfig({"--config", path, "--probe-traffic-class", "26"});
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->config.probe_paths.For("storage").traffic_class.value(), 26);  // the flag replaced the list
  EXPECT_EQ(f->config.probe_paths.For("storage").sl.value(), 3);

  auto bad = LoadAgentConfig({"--probe-sl", "99"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--probe-sl: key 'probe_sl'"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("0..15"), std::string::npos) << bad.status().message();

  AgentConfig defaults;
  EXPECT_FALSE(defaults.probe_paths.For("0").traffic_class.has_value());
}

TEST(AgentConfig, EmptyNodeNameMeansTheHostname) {
  TempDir dir;
  auto r = LoadAgentConfig({"--config", WriteFile(dir, "a.conf", "node_name =\n")});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->config.node_name, Hostname());
}

TEST(AgentConfig, BadFlagIsNamed) {
  auto r = LoadAgentConfig({"--interval", "soon"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--interval: key 'interval'"), std::string::npos) << r.status().message();

  r = LoadAgentConfig({"--collector"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "--collector needs a value");

  r = LoadAgentConfig({"--once=yes"});
  ASSERT_FALSE(r.ok());
}

TEST(AgentConfig, MissingConfigFileIsNamed) {
  auto r = LoadAgentConfig({"--config", "/nonexistent/agent.conf"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/nonexistent/agent.conf"), std::string::npos);
}

TEST(AgentConfig, ValidationNamesTheKey) {
  auto r = LoadAgentConfig({"--node-name", "bad name"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("key 'node_name'"), std::string::npos) << r.status().message();

  r = LoadAgentConfig({"--collector", "ftp://x"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("key 'collector'"), std::string::npos) << r.status().message();

  r = LoadAgentConfig({"--node-name", std::string(129, 'a')});
  ASSERT_FALSE(r.ok());
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(AgentConfig, ExampleFileParsesAndDocumentsEveryKeyWithItsDefault) {
  const std::string example = std::string(RDMASCOPE_PACKAGING_DIR) + "/rdmascope-agent.conf.example";
  std::string text = Slurp(example);
  ASSERT_FALSE(text.empty()) << example;
  auto as_is = LoadAgentConfig({"--config", example});
  ASSERT_TRUE(as_is.ok()) << as_is.status().message();

  // Uncomment every "#key = value" line: the result must still parse, and the
  // values shown must be the defaults.
  std::stringstream in(text);
  std::string line;
  std::string uncommented;
  std::set<std::string> documented;
  while (std::getline(in, line)) {
    for (const std::string& key : AgentConfigKeys()) {
      if (line.rfind(key + " =", 0) == 0) documented.insert(key);
      if (line.rfind("#" + key + " =", 0) == 0) {
        documented.insert(key);
        line = line.substr(1);
      }
    }
    uncommented += line + "\n";
  }
  for (const std::string& key : AgentConfigKeys()) EXPECT_TRUE(documented.count(key)) << key << " is not documented";
  AgentConfig from_example;
  Status s = ApplyConfigText(uncommented, "example", &from_example);
  ASSERT_TRUE(s.ok()) << s.message();
  AgentConfig defaults;
  EXPECT_EQ(from_example.sysfs_root, defaults.sysfs_root);
  EXPECT_EQ(from_example.spool_dir, defaults.spool_dir);
  EXPECT_EQ(from_example.spool_max_bytes, defaults.spool_max_bytes);
  EXPECT_EQ(from_example.report_interval, defaults.report_interval);
  EXPECT_EQ(from_example.inventory_interval, defaults.inventory_interval);
  EXPECT_EQ(from_example.control_port, defaults.control_port);
  EXPECT_EQ(from_example.fabric_routes, defaults.fabric_routes);
}

TEST(AgentConfig, ControlSecretModeIsStrictUnlessSaidLenient) {
  AgentConfig c;
  EXPECT_TRUE(c.control_secret_strict);
  ASSERT_TRUE(ApplyConfigText("control_secret_mode = lenient\n", "t", &c).ok());
  EXPECT_FALSE(c.control_secret_strict);
  ASSERT_TRUE(ApplyConfigText("control_secret_mode = strict\n", "t", &c).ok());
  EXPECT_TRUE(c.control_secret_strict);
  Status bad = ApplyConfigText("control_secret_mode = off\n", "t", &c);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("control_secret_mode"), std::string::npos) << bad.message();
}

// Sweeps read the switches' forwarding tables unless fabric_routes is false.
TEST(AgentConfig, FabricRoutesIsOnUnlessSaidFalse) {
  AgentConfig c;
  EXPECT_TRUE(c.fabric_routes);
  ASSERT_TRUE(ApplyConfigText("fabric_routes = false\n", "t", &c).ok());
  EXPECT_FALSE(c.fabric_routes);
  auto r = LoadAgentConfig({"--fabric-routes", "true"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->config.fabric_routes);
  Status bad = ApplyConfigText("fabric_routes = maybe\n", "t", &c);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("fabric_routes"), std::string::npos) << bad.message();
}

TEST(AgentConfig, ControlBindTakesNumericAddressesOnly) {
  AgentConfig c;
  ASSERT_TRUE(ApplyConfigText("control_bind = 192.168.77.2, ::1\n", "t", &c).ok());
  EXPECT_EQ(c.control_bind, (std::vector<std::string>{"192.168.77.2", "::1"}));
  Status bad = ApplyConfigText("control_bind = eth0\n", "t", &c);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("control_bind"), std::string::npos) << bad.message();
}

TEST(AgentConfig, Labels) {
  auto l = ParseLabels("a=1,b=, c = x y ");
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(*l, (std::map<std::string, std::string>{{"a", "1"}, {"b", ""}, {"c", "x y"}}));
  EXPECT_TRUE(ParseLabels("")->empty());
  EXPECT_FALSE(ParseLabels("a=1,a=2").ok());
  EXPECT_FALSE(ParseLabels("=1").ok());
  EXPECT_FALSE(ParseLabels("a=" + std::string(257, 'x')).ok());
  EXPECT_FALSE(ParseLabels("a=x\ty").ok());
  std::string many;
  for (size_t i = 0; i <= kMaxUserLabels; ++i) many += "k" + std::to_string(i) + "=v,";
  EXPECT_FALSE(ParseLabels(many).ok());
  auto reserved = ParseLabels("control_port=1");
  ASSERT_FALSE(reserved.ok());
  EXPECT_NE(reserved.status().message().find("reserved"), std::string::npos);
}

TEST(AgentConfig, ReportLabelsCarryTheControlEndpoint) {
  AgentConfig c;
  c.labels = {{"group", "rack1"}};
  EXPECT_EQ(ReportLabels(c), (std::map<std::string, std::string>{{"group", "rack1"}, {"control_port", "18610"}}));
  c.control_port = 19000;
  c.control_host = "10.0.0.5";
  EXPECT_EQ(ReportLabels(c), (std::map<std::string, std::string>{
                                 {"group", "rack1"}, {"control_port", "19000"}, {"control_host", "10.0.0.5"}}));
}

}  // namespace
}  // namespace rdmascope::agent
