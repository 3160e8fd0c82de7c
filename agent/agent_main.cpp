// rdmascope-agent: the probe responders, and (unless --responder-only) the
// reporting daemon that sends inventory, counters and probe summaries to the
// collector, with the prober feeding those summaries: every --probe-target,
// or else the peers of the collector's pinglist.
//
// Contract: stops on SIGINT or SIGTERM; exit 0 after a clean stop, 2 when the
// options, the responder setup or the daemon setup fail (the message names
// the option, the failing verb or the missing setting). --responder-only runs
// the responders and nothing else (for tests and operators). The responders
// serve the control port of the configuration (--control-port).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "agent/agent_config.h"
#include "agent/agent_options.h"
#include "agent/daemon.h"
#include "agent/fabric_report.h"
#include "agent/pinglist_client.h"
#include "agent/verbs_info.h"
#include "probes/probe_scheduler.h"
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

// The prober: for every --probe-target when some are given, else for the
// peers of the collector's pinglist (fetched again every round). Null when
// there is nothing to probe with: no collector to ask, or no RDMA device
// (a node without devices still reports its empty inventory).
Result<std::unique_ptr<probes::ProbeScheduler>> StartProbing(const agent::AgentOptions& opts,
                                                             const agent::AgentConfig& config) {
  const bool follow_pinglist = opts.probe_targets.empty();
  if (follow_pinglist && config.collector.empty()) return std::unique_ptr<probes::ProbeScheduler>();
  probes::SchedulerOptions so;
  so.device = opts.probe_device;
  if (so.device.empty()) {
    auto names = probes::ListDeviceNames();
    if (names.empty() && follow_pinglist) {
      std::fprintf(stderr, "rdmascope-agent: no RDMA devices found: not probing\n");
      return std::unique_ptr<probes::ProbeScheduler>();
    }
    if (names.size() != 1) {
      return Status::Error("--probe-device is required (" + std::to_string(names.size()) + " RDMA devices found)");
    }
    so.device = names[0];
  }
  so.port = opts.probe_port;
  so.count = opts.probe_count;
  so.interval_ms = uint64_t(config.report_interval.count());
  so.targets = opts.probe_targets;
  so.spacing_ms = probes::SpreadSpacingMs(so.interval_ms, so.count, so.targets.size());
  if (follow_pinglist) {
    auto client = agent::PinglistClient::Create(config.collector, config.token_file, config.node_name);
    if (!client.ok()) return client.status();
    auto last_error = std::make_shared<std::string>();
    so.refresh_targets = [client = *client, last_error]() -> std::optional<std::vector<probes::ProbeTarget>> {
      auto targets = client.Fetch();
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
  return probes::ProbeScheduler::Start(so);
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
  opts.value().responder.control_port = loaded->config.control_port;
  agent::DaemonHooks hooks;
  if (loaded->config.sysfs_root == "/sys") hooks.verbs = MakeLibibverbsInfoSource();
  hooks.only_device = opts.value().responder.device;
  auto fabric = std::make_shared<agent::FabricReporter>(loaded->config.fabric_sweep_interval);
  hooks.collect_fabric = [fabric](const Inventory& inv, nlohmann::json* report, std::vector<std::string>* warnings) {
    fabric->Collect(inv, report, warnings);
  };
  if (loaded->config.once) {
    // One report of inventory and counters: needs neither responder nor prober,
    // so a node without RDMA devices still reports.
    auto daemon = agent::AgentDaemon::Create(loaded->config, std::move(hooks));
    if (!daemon.ok()) {
      std::fprintf(stderr, "rdmascope-agent: %s\n", daemon.status().message().c_str());
      return 2;
    }
    Status s = (*daemon)->RunOnce();
    if (!s.ok()) std::fprintf(stderr, "rdmascope-agent: %s\n", s.message().c_str());
    return s.ok() ? 0 : 2;
  }
  auto scheduler = StartProbing(*opts, loaded->config);
  if (!scheduler.ok()) {
    std::fprintf(stderr, "rdmascope-agent: %s\n", scheduler.status().message().c_str());
    return 2;
  }
  if (*scheduler) {
    probes::ProbeScheduler* sched = scheduler->get();
    hooks.collect_probes = [sched] { return sched->Collect(); };
  }
  auto daemon = agent::AgentDaemon::Create(loaded->config, std::move(hooks));
  if (!daemon.ok()) {
    std::fprintf(stderr, "rdmascope-agent: %s\n", daemon.status().message().c_str());
    return 2;
  }
  // Without any RDMA device there is nothing to respond with: keep reporting
  // (the empty inventory is the answer). Any other responder failure is fatal.
  std::unique_ptr<probes::Responder> responder;
  if (!probes::ListDeviceNames().empty()) {
    auto started = StartResponder(opts->responder);
    if (!started.ok()) {
      std::fprintf(stderr, "rdmascope-agent: %s\n", started.status().message().c_str());
      return 2;
    }
    responder = std::move(started).value();
  } else {
    std::fprintf(stderr, "rdmascope-agent: no RDMA devices found: reporting without responders\n");
  }
  agent::AgentDaemon* d = daemon->get();
  std::thread waiter([d, stop_signals]() mutable {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    d->Stop();
  });
  Status s = d->Run();
  if (!d->stop_requested()) kill(getpid(), SIGTERM);  // Run() ended by itself: release the waiter
  waiter.join();
  if (responder) responder->Stop();
  if (!s.ok()) {
    std::fprintf(stderr, "rdmascope-agent: %s\n", s.message().c_str());
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
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
