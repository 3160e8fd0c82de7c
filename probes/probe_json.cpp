#include "probes/probe_json.h"

namespace rdmascope::probes {

using nlohmann::json;

json StatsToJson(const LatencyStats& s) {
  return {{"count", s.count}, {"min", s.min}, {"p50", s.p50}, {"avg", s.avg}, {"p90", s.p90},
          {"p99", s.p99}, {"p999", s.p999}, {"max", s.max}};
}

json SummaryToJson(const ProbeSummary& s) {
  json j = {{"sent", s.sent}, {"received", s.received}, {"lost", s.lost},
            {"loss_ratio", s.loss_ratio}, {"rtt_us", StatsToJson(s.rtt)}};
  j["network_us"] = s.network ? StatsToJson(*s.network) : json(nullptr);
  j["responder_us"] = s.responder ? StatsToJson(*s.responder) : json(nullptr);
  j["read_us"] = s.read ? StatsToJson(*s.read) : json(nullptr);
  if (s.cold) j["cold_rtt_us"] = StatsToJson(*s.cold);
  j["errors_by_status"] = json::object();
  for (const auto& [k, v] : s.errors_by_status) j["errors_by_status"][k] = v;
  return j;
}

json ErrorToJson(const ProbeError& e) {
  const auto qpn = [](uint32_t n) { return n ? json(n) : json(nullptr); };
  return {{"status", e.status}, {"status_name", e.status_name}, {"vendor_err", e.vendor_err},
          {"opcode", e.opcode}, {"wall_ms", e.wall_ms}, {"after_ms", e.after_ms},
          {"since_post_us", e.since_post_us ? json(*e.since_post_us) : json(nullptr)},
          {"local_qpn", qpn(e.local_qpn)}, {"remote_qpn", qpn(e.remote_qpn)},
          {"explanation", e.explanation}, {"probe_index", e.probe_index}};
}

ProbeSummary SummarizeRun(const ProbeRun& run) {
  std::vector<std::string> keys;
  for (const auto& e : run.errors) keys.push_back(e.Key());
  return Summarize(run.samples, keys);
}

json RunToJson(const ProbeRun& run, const ProbeSummary& summary, const std::string& target_name,
               const std::string& host, int control_port) {
  json j;
  j["target"] = target_name;
  j["transport"] = run.transport;
  j["local"] = {{"device", run.local.device}, {"port", run.local.port},
                {"gid_index", run.local.gid_index}, {"gid", GidToString(run.local.gid)},
                {"lid", run.local.lid}};
  j["remote"] = {{"host", host}, {"control_port", control_port}, {"device", run.target.device},
                 {"port", run.target.port}, {"gid", run.target.gid}, {"lid", run.target.lid},
                 {"qpn", run.target.qpn}};
  j["interval_start_ms"] = int64_t(run.start_wall_ms);
  j["interval_end_ms"] = int64_t(run.end_wall_ms);
  j["summary"] = SummaryToJson(summary);
  j["errors"] = json::array();
  for (const auto& e : run.errors) j["errors"].push_back(ErrorToJson(e));
  j["flushed_after_error"] = run.flushed;
  j["reconnects"] = run.reconnects;
  j["received_after_last_error"] = ReceivedAfterLastError(run);
  j["device_timestamps"] = run.device_timestamps;
  if (run.open_fds_before >= 0) {
    j["open_fds_before"] = run.open_fds_before;
    j["open_fds_after"] = run.open_fds_after;
  }
  return j;
}

}  // namespace rdmascope::probes
