#include "cli/probe_output.h"

#include <ctime>
#include <set>

namespace rdmascope::cli {

namespace {

void PrintStats(std::FILE* out, const char* label, const probes::LatencyStats& st) {
  std::fprintf(out,
               "%-22s t_min %9.2f  t_typical %9.2f  t_avg %9.2f  p90 %9.2f  p99 %9.2f  "
               "p99.9 %9.2f  t_max %9.2f\n",
               label, st.min, st.p50, st.avg, st.p90, st.p99, st.p999, st.max);
}

std::string WallText(double wall_ms) {
  time_t secs = time_t(wall_ms / 1000);
  tm t{};
  gmtime_r(&secs, &t);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%02d:%02d:%02d.%03dZ", t.tm_hour, t.tm_min, t.tm_sec,
                int(wall_ms - double(secs) * 1000));
  return buf;
}

}  // namespace

std::string ProbeErrorLine(const probes::ProbeError& e) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "[%s] %s on %s after %.1f ms (vendor_err 0x%x", WallText(e.wall_ms).c_str(),
                e.Key().c_str(), e.opcode.c_str(), e.after_ms, e.vendor_err);
  std::string line = buf;
  if (e.local_qpn != 0 || e.remote_qpn != 0) {
    std::snprintf(buf, sizeof buf, ", qpn 0x%x -> 0x%x", e.local_qpn, e.remote_qpn);
    line += buf;
  }
  return line + "): " + e.explanation;
}

void PrintProbeText(std::FILE* out, const probes::ProbeRun& run, const probes::ProbeSummary& s,
                    const std::string& host, int control_port) {
  std::fprintf(out, "%s probe %s/%d (gid %s) -> %s:%d %s/%d (gid %s, qpn %u)\n",
               run.transport == "rc" ? "RC" : "UD", run.local.device.c_str(), run.local.port,
               probes::GidToString(run.local.gid).c_str(), host.c_str(), control_port,
               run.target.device.c_str(), run.target.port, run.target.gid.c_str(),
               run.target.qpn);
  std::fprintf(out, "sent %llu  received %llu  lost %llu (%.2f%%)  errors %zu  reconnects %llu\n",
               (unsigned long long)s.sent, (unsigned long long)s.received,
               (unsigned long long)s.lost, s.loss_ratio * 100, run.errors.size(),
               (unsigned long long)run.reconnects);
  if (s.rtt.count > 0) {
    PrintStats(out, "RTT (usec)", s.rtt);
    if (s.network) PrintStats(out, "network RTT (usec)", *s.network);
    if (s.responder) PrintStats(out, "responder delay (usec)", *s.responder);
    if (s.cold && s.cold->count > 0) PrintStats(out, "primers: cold RTT (usec)", *s.cold);
    if (s.read) PrintStats(out, "RDMA READ (usec)", *s.read);
    std::fprintf(out, "timing: %s\n", run.device_timestamps ? "device completion timestamps"
                                                            : "host monotonic clock at poll");
  }
  if (run.open_fds_before >= 0) {
    std::fprintf(out, "self-test: open fds before the first connect %d, after the last teardown %d\n",
                 run.open_fds_before, run.open_fds_after);
  }
  if (!s.errors_by_status.empty()) {
    std::fprintf(out, "errors by status:");
    for (const auto& [k, v] : s.errors_by_status) std::fprintf(out, "  %s x%llu", k.c_str(), (unsigned long long)v);
    std::fprintf(out, "\n");
    if (run.flushed) std::fprintf(out, "  (+%llu WR_FLUSH_ERR after a first failure, not listed)\n", (unsigned long long)run.flushed);
    std::fprintf(out, "recovered: %llu probes answered after the last error\n",
                 (unsigned long long)probes::ReceivedAfterLastError(run));
    std::set<int> shown;
    for (const auto& e : run.errors) {
      if (!shown.insert(e.status).second) continue;
      std::fprintf(out, "first %s\n", ProbeErrorLine(e).c_str());
    }
  }
}

}  // namespace rdmascope::cli
