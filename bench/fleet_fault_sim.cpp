// fleet_fault_sim: a fleet with routes and injected faults, its synthetic
// agents' reports through the collector's ingest, and the collector's
// diagnosis judged against the faults (see bench/README.md and sim_run.h).
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "bench/bench_args.h"
#include "collector/core/heap_release.h"
#include "bench/sim_output.h"
#include "bench/sim_run.h"
#include "bench/sim_topology.h"

namespace {

using rdmascope::collector::bench::ParseNumberFlag;
using namespace rdmascope::bench;

const char kUsage[] =
    "usage: fleet_fault_sim (--fat-tree LEAVES,HOSTS_PER_LEAF,SPINES[,RAILS] [--hosts N] | --topology FILE)\n"
    "                       [--fault KIND:SUBJECT[:loss=X][:delay=US|P%][:down][:flap=S][:rnr]]...\n"
    "                       [--background-loss X] [--seed N] [--clean-minutes M] [--interval-s S]\n"
    "                       [--warmup-intervals N] [--fault-intervals N] [--close-intervals N]\n"
    "                       [--sweep-every N] [--neighbours-every N] [--pinglist-every N] [--threads N] [--group-labels] [--query-deadline-ms MS]\n"
    "                       [--roce] [--http] [--json] [--verbose]\n"
    "\n"
    "  --fat-tree L,H,S[,R]   a rail-optimised fat tree: L leaves of H hosts, S spines, one plane per rail\n"
    "  --hosts N              only the first N hosts of the fat tree (the last leaf partly filled)\n"
    "  --topology FILE        `rdmactl fabric discover --routes --json` (or an array of them, one per plane)\n"
    "  --fault ...            host NODE | nic NODE/DEV | port NODE/DEV/PORT | link 0xGUID/PORT | switch 0xGUID\n"
    "                         | group NAME | fleet all; a host with no effect is dead, a switch down\n"
    "  --background-loss X    every path loses X of its packets each way (default 0)\n"
    "  --clean-minutes M      simulated minutes without a fault before the faults (false verdicts counted)\n"
    "  --sweep-every N        a sweep per plane every N intervals (0: none; default 1)\n"
    "  --neighbours-every N   the agents' IB neighbours every N intervals (0: none; default 1, as the agent)\n"
    "  --group-labels         label each host group=leaf:0x<GUID> of its first rail's leaf (the pinglist's groups\n"
    "                         without neighbours or sweeps)\n"
    "  --roce                 (with --fat-tree) RoCE: switches forward by ECMP (each direction of a pair takes\n"
    "                         a stable hash's uplink), no sweeps or IB neighbours; the collector's diagnosis\n"
    "                         gets the topology file the simulator writes, and a leaf-spine link fault is\n"
    "                         expected as the leaf's candidate-set verdict listing that uplink\n"
    "  --query-deadline-ms MS the store's deadline on each read, the diagnosis's too (default: the store's, 5 s)\n"
    "  --http                 through POST /api/v1/reports and GET /api/v1/pinglist of a collector served\n"
    "                         on loopback (default: the same ingest function in-process)\n"
    "  --json                 the result as one JSON document\n";

bool Int(int argc, char** argv, int* i, const char* name, int* out) {
  if (std::strcmp(argv[*i], name) != 0) return false;
  if (*i + 1 >= argc || !ParseNumberFlag(argv[*i + 1], out)) {
    std::fprintf(stderr, "%s needs a whole number\n%s", name, kUsage);
    std::exit(2);
  }
  ++*i;
  return true;
}

bool Real(int argc, char** argv, int* i, const char* name, double* out) {
  if (std::strcmp(argv[*i], name) != 0) return false;
  if (*i + 1 >= argc || !ParseNumberFlag(argv[*i + 1], out)) {
    std::fprintf(stderr, "%s needs a number\n%s", name, kUsage);
    std::exit(2);
  }
  ++*i;
  return true;
}

bool Text(int argc, char** argv, int* i, const char* name, std::string* out) {
  if (std::strcmp(argv[*i], name) != 0) return false;
  if (*i + 1 >= argc) {
    std::fprintf(stderr, "%s needs a value\n%s", name, kUsage);
    std::exit(2);
  }
  *out = argv[++*i];
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  rdmascope::collector::FixHeapThresholds();  // the collector's allocator settings (heap_release.h), before any thread
  RunOptions o;
  std::string fat_tree, topology_file, fault;
  int hosts = 0, seed = 1;
  bool json_out = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (Text(argc, argv, &i, "--fat-tree", &fat_tree) || Text(argc, argv, &i, "--topology", &topology_file) ||
        Int(argc, argv, &i, "--hosts", &hosts) || Int(argc, argv, &i, "--seed", &seed) ||
        Real(argc, argv, &i, "--background-loss", &o.world.background_loss) ||
        Real(argc, argv, &i, "--clean-minutes", &o.clean_minutes) || Int(argc, argv, &i, "--interval-s", &o.interval_s) ||
        Int(argc, argv, &i, "--warmup-intervals", &o.warmup_intervals) ||
        Int(argc, argv, &i, "--fault-intervals", &o.fault_intervals) ||
        Int(argc, argv, &i, "--close-intervals", &o.close_intervals) ||
        Int(argc, argv, &i, "--sweep-every", &o.sweep_every) ||
        Int(argc, argv, &i, "--neighbours-every", &o.neighbours_every) || Int(argc, argv, &i, "--pinglist-every", &o.pinglist_every) ||
        Int(argc, argv, &i, "--threads", &o.threads))
      continue;
    if (Text(argc, argv, &i, "--fault", &fault)) {
      o.faults.push_back(fault);
    } else if (a == "--query-deadline-ms" && i + 1 < argc && ParseNumberFlag(argv[i + 1], &o.query_deadline_ms)) {
      ++i;
    } else if (a == "--http") {
      o.http = true;
    } else if (a == "--roce") {
      o.roce = true;
    } else if (a == "--group-labels") {
      o.group_labels = true;
    } else if (a == "--json") {
      json_out = true;
    } else if (a == "--verbose") {
      o.verbose = true;
    } else if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else {
      std::fprintf(stderr, "unknown argument %s\n%s", a.c_str(), kUsage);
      return 2;
    }
  }
  if (fat_tree.empty() == topology_file.empty()) {
    std::fprintf(stderr, "give one of --fat-tree and --topology\n%s", kUsage);
    return 2;
  }
  if (o.interval_s < 1 || o.threads < 1 || o.threads > 64 || o.warmup_intervals < 2 || o.fault_intervals < 1 ||
      o.close_intervals < 0 || o.clean_minutes < 0 || o.world.background_loss < 0 || o.world.background_loss >= 1) {
    std::fprintf(stderr,
                 "out of range: --interval-s >= 1, --threads 1..64, --warmup-intervals >= 2, --fault-intervals >= 1,\n"
                 "--close-intervals >= 0, --clean-minutes >= 0, --background-loss in [0, 1)\n");
    return 2;
  }
  if (o.roce && fat_tree.empty()) {
    std::fprintf(stderr, "--roce needs --fat-tree\n%s", kUsage);
    return 2;
  }
  if (o.roce) o.sweep_every = 0, o.neighbours_every = 0, o.world.roce = true;  // no MADs on RoCE
  o.world.seed = static_cast<uint64_t>(seed);
  rdmascope::Result<SimTopology> topo = rdmascope::Result<SimTopology>::Error("");
  if (!fat_tree.empty()) {
    topo = FatTreeFromSpec(fat_tree, hosts);
  } else {
    std::ifstream in(topology_file);
    if (!in) {
      std::fprintf(stderr, "cannot read %s: check the path\n", topology_file.c_str());
      return 1;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    topo = LoadTopologyJson(ss.str());
  }
  if (!topo.ok()) {
    std::fprintf(stderr, "%s\n", topo.status().message().c_str());
    return 1;
  }
  auto result = RunSimulation(topo.value(), o);
  if (!result.ok()) {
    std::fprintf(stderr, "fleet_fault_sim: %s\n", result.status().message().c_str());
    return 1;
  }
  if (json_out) {
    std::printf("%s\n", RunJson(result.value()).dump().c_str());
  } else {
    PrintTable(result.value(), stdout);
  }
  return 0;
}
