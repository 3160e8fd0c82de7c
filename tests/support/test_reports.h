// Synthetic agent reports (schemas/REPORT_FORMAT.md v1) for the collector's
// tests and benchmarks (target rdmascope_report_fixtures).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace rdmascope::collector::testing {

// A probe summary to `target`; `errors` > 0 adds that many RETRY_EXC_ERR completions.
inline nlohmann::json MakeProbe(const std::string& target, int64_t end_ms, int errors = 0, int received = 100,
                                const std::string& transport = "rc", double p99 = 55.0) {
  nlohmann::json p = {
      {"target", target},
      {"transport", transport},
      {"local", {{"device", "rxe0"}, {"port", 1}, {"gid_index", 1}}},
      {"remote", {{"host", "192.0.2.2"}, {"control_port", 18610}, {"device", "rxe1"}, {"port", 1}}},
      {"interval_start_ms", end_ms - 10000},
      {"interval_end_ms", end_ms},
      {"summary",
       {{"sent", 100},
        {"received", received},
        {"lost", 100 - received},
        {"loss_ratio", (100 - received) / 100.0},
        {"rtt_us",
         {{"count", received}, {"min", 20.1}, {"avg", 31.0}, {"p50", 30.2}, {"p90", 40.0}, {"p99", p99},
          {"p999", p99 + 5}, {"max", p99 + 6}}},
        {"network_us", nullptr},
        {"responder_us", nullptr},
        {"read_us", nullptr},
        {"errors_by_status", nlohmann::json::object()}}},
      {"errors", nlohmann::json::array()}};
  if (errors > 0) {
    p["summary"]["errors_by_status"]["RETRY_EXC_ERR (12)"] = errors;
    for (int i = 0; i < errors; ++i)
      p["errors"].push_back({{"status", 12},
                             {"status_name", "RETRY_EXC_ERR"},
                             {"vendor_err", 129},
                             {"opcode", "SEND"},
                             {"wall_ms", static_cast<double>(end_ms - 5000)},
                             {"after_ms", 31.2},
                             {"since_post_us", 31200.0},
                             {"local_qpn", 17},
                             {"remote_qpn", 18},
                             {"explanation", "transport retry counter exceeded"}});
  }
  return p;
}

// One device, one port in `state` (4 ACTIVE), a few counters.
inline nlohmann::json MakeReport(const std::string& id, const std::string& node, int64_t generated_ms,
                                 int state = 4, int64_t symbol_error = 0) {
  nlohmann::json port = {
      {"port", 1},
      {"state", {{"number", state}, {"name", state == 4 ? "ACTIVE" : "DOWN"}}},
      {"phys_state", {{"number", state == 4 ? 5 : 3}, {"name", state == 4 ? "LinkUp" : "Disabled"}}},
      {"lid", 7},
      {"sm_lid", 1},
      {"link_layer", "InfiniBand"},
      {"active_mtu", 4096},
      {"rate", {{"gbps", 100.0}, {"width", "4X"}, {"speed", "EDR"}, {"text", "100 Gb/sec (4X EDR)"}}},
      {"gids", {{{"index", 0}, {"gid", "fe80:0000:0000:0000:0002:c903:0001:2345"}, {"type", nullptr},
                 {"ndev", nullptr}}}},
      {"counters",
       {{"symbol_error", symbol_error},
        {"link_downed", 0},
        {"port_rcv_errors", 0},
        {"port_xmit_data_bytes", 4000},
        {"port_rcv_data_bytes", 8000},
        {"port_xmit_packets", 10},
        {"VL15_dropped", nullptr}}},
      {"hw_counters", {{"local_ack_timeout_err", 0}}}};
  return {{"schema_version", 1},
          {"report_id", id},
          {"node", node},
          {"agent_version", "0.1.0"},
          {"generated_at_ms", generated_ms},
          {"interval_s", 10},
          {"labels", {{"group", "rack1"}}},
          {"inventory",
           {{"devices", {{{"name", "mlx5_0"}, {"fw_ver", "16.35.2000"}, {"node_guid", "0002:c903:0001:2345"},
                          {"ports", {port}}}}},
            {"warnings", nlohmann::json::array()}}},
          {"probes", nlohmann::json::array()}};
}

// A minimal fabric sweep (the report's "fabric" part): one switch, one port.
inline nlohmann::json MakeSweep(const std::string& switch_guid, const std::string& description) {
  return {{"nodes",
           {{{"guid", switch_guid},
             {"type", "Switch"},
             {"description", description},
             {"ports", {{{"port", 1}, {"state", "ACTIVE"}}}}}}}};
}

}  // namespace rdmascope::collector::testing
