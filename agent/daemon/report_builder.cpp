#include "agent/daemon/report_builder.h"

#include <cinttypes>
#include <cstdio>
#include <random>

#include "common/model_json.h"

#ifndef RDMASCOPE_VERSION
#error "RDMASCOPE_VERSION must be defined by the build"
#endif

namespace rdmascope::agent {

const char kAgentVersion[] = RDMASCOPE_VERSION;

namespace {

constexpr size_t kMaxIdChars = 128;

bool IdChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == ':' || c == '-';
}

std::string Hex8(uint32_t v) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08" PRIx32, v);
  return buf;
}

// At most kMaxReportWarnings entries, each at most kMaxWarningChars bytes.
nlohmann::json BoundedWarnings(const std::vector<std::string>& warnings) {
  nlohmann::json out = nlohmann::json::array();
  const size_t keep = warnings.size() > kMaxReportWarnings ? kMaxReportWarnings - 1 : warnings.size();
  for (size_t i = 0; i < keep; ++i) {
    const std::string& w = warnings[i];
    out.push_back(w.size() > kMaxWarningChars ? w.substr(0, kMaxWarningChars - 16) + "..." : w);
  }
  if (keep < warnings.size()) {
    out.push_back(std::to_string(warnings.size() - keep) + " more warnings left out");
  }
  return out;
}

nlohmann::json IntervalSeconds(int64_t ms) {
  if (ms % 1000 == 0) return ms / 1000;
  return static_cast<double>(ms) / 1000.0;
}

}  // namespace

ReportIdGenerator::ReportIdGenerator(std::string node) : node_(std::move(node)) {
  std::random_device rd;
  random_hex_ = Hex8(rd());
}

ReportIdGenerator::ReportIdGenerator(std::string node, uint32_t random_part)
    : node_(std::move(node)), random_hex_(Hex8(random_part)) {}

std::string ReportIdGenerator::Next(int64_t generated_at_ms) {
  ++seq_;
  char seq[32];
  std::snprintf(seq, sizeof seq, "%06" PRIu64, seq_);
  std::string suffix = "-" + std::to_string(generated_at_ms) + "-" + random_hex_ + "-" + seq;
  std::string node = node_;
  for (char& c : node)
    if (!IdChar(c)) c = '_';
  if (node.size() + suffix.size() > kMaxIdChars) node.resize(kMaxIdChars - suffix.size());
  return node + suffix;
}

bool IsValidReportId(const std::string& id) {
  if (id.empty() || id.size() > kMaxIdChars) return false;
  for (char c : id)
    if (!IdChar(c)) return false;
  return true;
}

nlohmann::json ReportInventoryJson(const Inventory& inv) {
  nlohmann::json devices = nlohmann::json::array();
  for (const Device& d : inv.devices) {
    nlohmann::json dev = DeviceToJson(d);
    dev["instance"] = d.instance ? nlohmann::json(*d.instance) : nlohmann::json(nullptr);
    nlohmann::json& ports = dev["ports"];
    for (size_t i = 0; i < d.ports.size() && i < ports.size(); ++i) {
      ports[i]["counters"] = CountersToJson(d.ports[i].counters);
      ports[i]["hw_counters"] = CountersToJson(d.ports[i].hw_counters);
    }
    devices.push_back(std::move(dev));
  }
  return {{"devices", std::move(devices)}, {"warnings", BoundedWarnings(inv.warnings)}};
}

nlohmann::json BuildReport(const ReportHeader& header, const std::string& report_id, int64_t generated_at_ms,
                           const Inventory& inv, const std::vector<nlohmann::json>& probes) {
  std::vector<std::string> warnings = inv.warnings;
  nlohmann::json probe_list = nlohmann::json::array();
  size_t beyond = 0;
  for (size_t i = 0; i < probes.size(); ++i) {
    if (!probes[i].is_object()) {
      warnings.push_back("probe result " + std::to_string(i) + " is not a JSON object (" + probes[i].type_name() +
                         "); left out");
    } else if (probe_list.size() < kMaxReportProbes) {
      probe_list.push_back(probes[i]);
    } else {
      ++beyond;
    }
  }
  if (beyond > 0) {
    warnings.push_back(std::to_string(beyond) + " probe results beyond the " + std::to_string(kMaxReportProbes) +
                       " a report holds; left out");
  }
  nlohmann::json inventory = ReportInventoryJson(inv);
  inventory["warnings"] = BoundedWarnings(warnings);
  nlohmann::json labels = nlohmann::json::object();
  for (const auto& [k, v] : header.labels) labels[k] = v;
  nlohmann::json j = {{"schema_version", kReportSchemaVersion},
                      {"report_id", report_id},
                      {"node", header.node},
                      {"agent_version", kAgentVersion},
                      {"generated_at_ms", generated_at_ms},
                      {"interval_s", IntervalSeconds(header.interval_ms)},
                      {"boot_id", header.boot_id.empty() ? nlohmann::json(nullptr) : nlohmann::json(header.boot_id)},
                      {"labels", std::move(labels)},
                      {"inventory", std::move(inventory)},
                      {"probes", std::move(probe_list)}};
  if (!header.rails.is_null()) j["rails"] = header.rails;
  if (header.spool_dropped > 0) j["spool_dropped"] = header.spool_dropped;
  return j;
}


std::string SerializeReport(const nlohmann::json& report) {
  return report.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace rdmascope::agent
