// rdmascope-agent: the rails' responders and probers (agent/daemon/rail_supervisor.h)
// and (unless --responder-only) the reporting daemon that sends inventory,
// counters, rails and probe summaries to the collector; each rail probes
// every --probe-target, or else the peers of the collector's pinglist that
// have the same rail.
//
// Contract: stops on SIGINT or SIGTERM; exit 0 after a clean stop, 2 when the
// options, the control port or the daemon setup fail (the message names the
// option or the missing setting). No RDMA device, ports down, devices that
// vanish: reported, never an exit. --responder-only runs
// the responders and nothing else (for tests and operators). The responders
// serve the control port of the configuration (--control-port).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <memory>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "agent/daemon/agent_config.h"
#include "agent/daemon/agent_options.h"
#include "agent/daemon/daemon.h"
#include "agent/daemon/fabric_report.h"
#include "agent/daemon/pinglist_client.h"
#include "agent/daemon/rail_supervisor.h"
#include "agent/node/verbs_info.h"
#include "common/version.h"
#include "probes/probe_scheduler.h"
#include "probes/control_auth.h"
#include "probes/responder.h"
#include "probes/verbs_resources.h"

namespace {

using namespace rdmascope;

// Blocks SIGINT and SIGTERM in this thread (and the threads it starts).
sigset_t BlockStopSignals() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &s, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return s;
}

Result<std::unique_ptr<probes::Responder>> StartResponder(const probes::ResponderOptions& opts) {
  auto r = probes::Responder::Start(opts);
  if (!r.ok()) return r.status();
  const char* inject = opts.inject == probes::Injection::kRnr    ? " (FAULT INJECTION: rnr)"
                       : opts.inject == probes::Injection::kDrop ? " (FAULT INJECTION: drop)"
                       : opts.inject == probes::Injection::kUdSendError ? " (FAULT INJECTION: ud-send-error)"
                                                                  : "";
  std::printf("rdmascope-agent: responder ready on control port %d%s\n", opts.control_port, inject);
  for (const auto& e : (*r)->UdInfo().endpoints) {
    std::printf("  ud %s/%d gid[%d] %s lid %u qpn %u\n", e.device.c_str(), e.port, e.gid_index,
                e.gid.c_str(), e.lid, e.qpn);
  }
  std::fflush(stdout);
  return r;
}

int RunResponderOnly(const agent::AgentOptions& opts, sigset_t stop_signals) {
  if (!opts.probe_targets.empty()) {
    std::fprintf(stderr, "rdmascope-agent: --probe-target needs the reporting daemon (drop --responder-only)\n");
    return 2;
  }
  auto responder = StartResponder(opts.responder);
  if (!responder.ok()) {
    std::fprintf(stderr, "rdmascope-agent: %s\n", responder.status().message().c_str());
    return 2;
  }
  int sig = 0;
  sigwait(&stop_signals, &sig);
  std::printf("rdmascope-agent: signal %d, stopping\n", sig);
  (*responder)->Stop();
  return 0;
}

// The rails' targets: the fixed --probe-target list for every rail, else the
// collector's pinglist for that rail (fetched again every round). Unset when
// there is nothing to probe with (no collector to ask).
std::function<std::optional<std::vector<probes::ProbeTarget>>(const std::string&)> TargetSource(
    const agent::AgentConfig& config) {
  if (!config.probe_targets.empty()) {
    auto fixed = config.probe_targets;
    return [fixed](const std::string&) { return std::optional<std::vector<probes::ProbeTarget>>(fixed); };
  }
  if (config.collector.empty()) return {};
  auto client = agent::PinglistClient::Create(config.collector, config.token_file, config.node_name, config.ca_file);
  if (!client.ok()) return {};
  auto last_error = std::make_shared<std::string>();
  auto mu = std::make_shared<std::mutex>();
  return [client = *client, last_error, mu](const std::string& rail) -> std::optional<std::vector<probes::ProbeTarget>> {
    auto targets = client.Fetch(rail);
    std::lock_guard<std::mutex> lock(*mu);
    if (!targets.ok()) {
      // Logged once per change of cause; the previous targets stay.
      if (targets.status().message() != *last_error)
        std::fprintf(stderr, "rdmascope-agent: pinglist: %s\n", targets.status().message().c_str());
      *last_error = targets.status().message();
      return std::nullopt;
    }
    last_error->clear();
    return *targets;
  };
}

int RunFullAgent(const std::vector<std::string>& args, sigset_t stop_signals) {
  auto loaded = agent::LoadAgentConfig(args);
  if (!loaded.ok()) {
    std::fprintf(stderr, "rdmascope-agent: %s\n", loaded.status().message().c_str());
    return 2;
  }
  auto opts = agent::ParseAgentOptions(loaded->rest);
  if (!opts.ok()) {
    std::fprintf(stderr, "rdmascope-agent: %s\n", opts.status().message().c_str());
    return 2;
  }
  agent::AgentConfig config = loaded->config;
  if (!opts->devices.empty()) config.devices = opts->devices;
  if (!opts->rails.empty()) config.rails = opts->rails;
  if (!opts->probe_targets.empty()) config.probe_targets = opts->probe_targets;
  agent::DaemonHooks hooks;
  if (config.sysfs_root == "/sys") hooks.verbs = MakeLibibverbsInfoSource();
  // Reports cover the devices the agent serves (all of them when not narrowed).
  for (const auto& dev : config.devices) hooks.only_device += (hooks.only_device.empty() ? "" : ",") + dev;
  for (const auto& r : config.rails)
    if (("," + hooks.only_device + ",").find("," + r.where.device + ",") == std::string::npos)
      hooks.only_device += (hooks.only_device.empty() ? "" : ",") + r.where.device;
  auto fabric = std::make_shared<agent::FabricReporter>(config.fabric_sweep_interval, nullptr,
                                                       config.fabric_routes);
  hooks.collect_fabric = [fabric](const Inventory& inv, nlohmann::json* report, std::vector<std::string>* warnings) {
    fabric->Collect(inv, report, warnings);
  };
  if (config.once) {
    // One report of inventory and counters: needs neither responder nor prober,
    // so a node without RDMA devices still reports.
    auto daemon = agent::AgentDaemon::Create(config, std::move(hooks));
    if (!daemon.ok()) {
      std::fprintf(stderr, "rdmascope-agent: %s\n", daemon.status().message().c_str());
      return 2;
    }
    Status s = (*daemon)->RunOnce();
    if (!s.ok()) std::fprintf(stderr, "rdmascope-agent: %s\n", s.message().c_str());
    return s.ok() ? 0 : 2;
  }
  // The daemon exists after the supervisor; events before it are reported by its first report.
  auto daemon_ptr = std::make_shared<std::atomic<agent::AgentDaemon*>>(nullptr);
  agent::RailSupervisorOptions so;
  so.sysfs_root = config.sysfs_root;
  so.devices = config.devices;
  so.rails = config.rails;
  so.responder = opts->responder;
  so.responder.control_port = config.control_port;
  so.responder.control_bind = config.control_bind;
  if (!config.control_secret_file.empty()) {
    auto secret = probes::ReadSecretFile(config.control_secret_file);
    if (!secret.ok()) {
      std::fprintf(stderr, "rdmascope-agent: %s\n", secret.status().message().c_str());
      return 2;
    }
    so.responder.control_secret = *secret;
  }
  so.responder.control_strict = config.control_secret_strict;
  // Peers reach us where the pinglist says: control_host, else the node name.
  so.responder.extra_bind = probes::NumericAddresses(
      config.control_host.empty() ? config.node_name : config.control_host);
  so.probe_count = config.probe_count;
  so.paths = config.probe_paths;
  so.interval_ms = uint64_t(config.report_interval.count());
  so.names_file = config.spool_dir + "/rail-names.json";
  so.targets = TargetSource(config);
  so.on_change = [daemon_ptr](const std::string&) {
    if (agent::AgentDaemon* d = daemon_ptr->load()) d->TriggerReport();
  };
  so.on_probe_turn = [daemon_ptr] {
    if (agent::AgentDaemon* d = daemon_ptr->load()) d->ReportSoon();
  };
  so.log = [](const std::string& line) {
    std::fprintf(stderr, "rdmascope-agent: %s\n", line.c_str());
  };
  auto supervisor = agent::RailSupervisor::Start(so);
  if (!supervisor.ok()) {
    std::fprintf(stderr, "rdmascope-agent: %s\n", supervisor.status().message().c_str());
    return 2;
  }
  agent::RailSupervisor* sup = supervisor->get();
  std::string names;
  for (const auto& n : sup->RailNames()) names += (names.empty() ? "" : ",") + n;
  std::printf("rdmascope-agent: control port %d, rails: %s\n", config.control_port,
              names.empty() ? "none (no RDMA port found yet)" : names.c_str());
  std::fflush(stdout);
  hooks.collect_probes = [sup] { return sup->Collect(); };
  hooks.rails = [sup] { return sup->RailsJson(); };
  hooks.rail_names = [sup] { return sup->RailNames(); };
  hooks.responder_events = [sup] { return sup->TakeResponderEvents(); };
  auto daemon = agent::AgentDaemon::Create(config, std::move(hooks));
  if (!daemon.ok()) {
    std::fprintf(stderr, "rdmascope-agent: %s\n", daemon.status().message().c_str());
    return 2;
  }
  agent::AgentDaemon* d = daemon->get();
  daemon_ptr->store(d);
  std::thread waiter([d, stop_signals]() mutable {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    d->Stop();
  });
  Status s = d->Run();
  if (!d->stop_requested()) kill(getpid(), SIGTERM);  // Run() ended by itself: release the waiter
  waiter.join();
  daemon_ptr->store(nullptr);
  sup->Stop();
  if (!s.ok()) {
    std::fprintf(stderr, "rdmascope-agent: %s\n", s.message().c_str());
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (rdmascope::PrintVersionIfAsked("rdmascope-agent", args)) return 0;
  for (const auto& a : args) {
    if (a == "-h" || a == "--help") {
      std::fputs(agent::kAgentUsage, stdout);
      std::fputs(agent::kAgentConfigUsage, stdout);
      return 0;
    }
  }
  sigset_t stop_signals = BlockStopSignals();
  bool responder_only = false;
  for (const auto& a : args) responder_only = responder_only || a == "--responder-only";
  if (!responder_only) return RunFullAgent(args, stop_signals);
  auto opts = agent::ParseAgentOptions(args);
  if (!opts.ok()) {
    std::fprintf(stderr, "rdmascope-agent: %s\n\n%s", opts.status().message().c_str(), agent::kAgentUsage);
    return 2;
  }
  return RunResponderOnly(*opts, stop_signals);
}
