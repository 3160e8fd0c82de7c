#include "probes/prober.h"

#include <dirent.h>

#include <ctime>

#include "probes/control_auth.h"
#include "probes/control_seal.h"
#include "probes/line_socket.h"
#include "probes/probe_clock.h"

namespace rdmascope::probes {

Result<UdInfoReply> FetchUdInfo(LineConn& conn, uint64_t deadline_ns, const std::string& secret, bool strict,
                                ControlSeal* seal) {
  ControlSeal own;
  if (seal == nullptr) seal = &own;
  if (!secret.empty()) {
    auto a = Authenticate(conn, secret, strict, deadline_ns);
    if (!a.ok()) return a.status();
    *seal = std::move(a).value();
  }
  // Every page, from one connection (so from one snapshot of the agent's);
  // each page advances, and there are at most kMaxUdEndpoints endpoints.
  UdInfoReply all;
  size_t from = 0;
  do {
    Status s = WriteSealed(conn, *seal, EncodeUdInfoRequest(from), deadline_ns);
    if (!s.ok()) return Status::Error("control port (ud_info from " + std::to_string(from) + "): " + s.message());
    auto line = ReadSealed(conn, *seal, deadline_ns);
    if (!line.ok()) {
      std::string why = line.status().message();
      if (why == kLineTooLong) {  // pages always fit: an agent that answers in one line
        why += ": the agent answered ud_info in one line over " + std::to_string(kMaxLineBytes) +
               " bytes (an agent older than paged ud_info, serving too many GIDs): upgrade it, or serve "
               "fewer ports or addresses there";
      }
      return Status::Error("control port (ud_info from " + std::to_string(from) + "): " + why);
    }
    auto page = ParseUdInfoReply(*line);
    if (!page.ok()) return page.status();
    s = AppendUdInfoPage(*page, from, &all);
    if (!s.ok()) return s;
    from = all.endpoints.size();
  } while (all.next);
  return all;
}

Result<UdEndpointInfo> ChooseEndpoint(const UdInfoReply& info, const std::string& host,
                                      const LocalPort& local, const std::string& rail) {
  bool target_has_rails = false;
  for (const auto& e : info.endpoints) target_has_rails = target_has_rails || !e.rail.empty();
  if (!rail.empty() && target_has_rails) {
    // On RoCE the rail's IPv4-mapped GID (routable) before its link-local one.
    const UdEndpointInfo* pick = nullptr;
    for (const auto& e : info.endpoints) {
      if (e.rail != rail || e.roce != local.roce) continue;
      auto mapped = [](const std::string& gid) { return gid.rfind("::ffff:", 0) == 0; };  // inet_ntop form
      if (pick == nullptr || (mapped(e.gid) && !mapped(pick->gid))) pick = &e;
    }
    if (pick) return *pick;
    return Status::Error("the target serves no ACTIVE port of rail " + rail);
  }
  auto mapped = Ipv4MappedGid(host);
  if (mapped.ok()) {
    const std::string want = GidToString(*mapped);
    for (const auto& e : info.endpoints) {
      if (e.gid == want) return e;
    }
  }
  for (const auto& e : info.endpoints) {
    if (e.roce == local.roce) return e;
  }
  return Status::Error("the target offers no endpoint on a " +
                       std::string(local.roce ? "RoCE" : "InfiniBand") + " port");
}

bool Stopping(const ProberOptions& opts) { return opts.stop && opts.stop->load(); }

bool RecordError(ProbeRun& run, const ProberOptions& opts, ProbeError e) {
  const bool stop_caused = e.status == IBV_WC_WR_FLUSH_ERR || e.status == kDeadlineStatus ||
                           e.status == kConnectStatus;
  if (stop_caused && Stopping(opts)) return false;
  e.probe_index = run.samples.size();
  if (e.local_qpn == 0) e.local_qpn = run.local_qpn;
  if (e.remote_qpn == 0) e.remote_qpn = run.remote_qpn;
  run.errors.push_back(std::move(e));
  if (opts.on_error) opts.on_error(run.errors.back());
  return true;
}

uint64_t ReceivedAfterLastError(const ProbeRun& run) {
  size_t from = run.errors.empty() ? 0 : size_t(run.errors.back().probe_index) + 1;
  uint64_t n = 0;
  for (size_t i = from; i < run.samples.size(); ++i) n += run.samples[i].received ? 1 : 0;
  return n;
}

int CountOpenFds() {
  DIR* d = opendir("/proc/self/fd");
  if (d == nullptr) return -1;
  int n = 0;
  while (readdir(d) != nullptr) ++n;
  closedir(d);
  return n - 3;  // ".", ".." and the directory's own fd
}

void SleepUntil(uint64_t deadline_ns, const std::atomic<bool>* stop) {
  for (;;) {
    if (stop && stop->load()) return;
    uint64_t now = NowNs();
    if (now >= deadline_ns) return;
    uint64_t d = deadline_ns - now;
    if (d > 100000000ull) d = 100000000ull;
    timespec ts{time_t(d / 1000000000ull), long(d % 1000000000ull)};
    nanosleep(&ts, nullptr);
  }
}

}  // namespace rdmascope::probes
