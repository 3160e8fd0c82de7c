#include "bench/fleet_reports.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "tests/support/test_reports.h"

namespace rdmascope::collector::bench {
namespace {

using nlohmann::json;

// Values no real report holds, replaced by the holes.
constexpr int64_t kHoleG = 911111111111111, kHoleS = 922222222222222, kHoleE = 933333333333333;

}  // namespace

std::string NodeName(int i) { return "node-" + std::to_string(i); }

std::string ReportTemplate::Fill(const std::string& id, int64_t generated, int64_t start, int64_t end) const {
  std::string out;
  out.reserve(parts.size() * 64 + 4096);
  for (size_t i = 0; i < parts.size(); ++i) {
    out += parts[i];
    if (i < holes.size()) {
      switch (holes[i]) {
        case 'I': out += id; break;
        case 'G': out += std::to_string(generated); break;
        case 'S': out += std::to_string(start); break;
        default: out += std::to_string(end); break;
      }
    }
  }
  return out;
}

ReportTemplate MakeReportTemplate(int node, const FleetArgs& a) {
  json r = rdmascope::collector::testing::MakeReport(kTemplateReportId, NodeName(node), kHoleG);
  std::string rails;
  json devices = json::array();
  json dev0 = r["inventory"]["devices"][0];
  for (int k = 0; k < a.rails; ++k) {
    rails += (k ? "," : "") + std::to_string(k);
    json d = dev0;
    d["name"] = "mlx5_" + std::to_string(k);
    devices.push_back(d);
  }
  r["inventory"]["devices"] = devices;
  r["labels"] = {{"group", "rack" + std::to_string(node / 40)}, {"rails", rails}};
  for (int k = 0; k < a.rails; ++k)
    for (int j = 1; j <= a.targets; ++j) {
      const int dst = (node + j * std::max(1, a.nodes / (a.targets + 1))) % a.nodes;
      for (const char* transport : {"rc", "ud"}) {
        json p = rdmascope::collector::testing::MakeProbe(NodeName(dst == node ? (node + 1) % a.nodes : dst), kHoleE, 0,
                                                          100, transport, 8.0 + (node + j) % 7);
        p["interval_start_ms"] = kHoleS;
        p["rail"] = std::to_string(k);
        p["local"]["device"] = "mlx5_" + std::to_string(k);
        r["probes"].push_back(p);
      }
    }
  const std::string text = r.dump();
  ReportTemplate t;
  size_t pos = 0;
  const std::string holes[] = {std::string("\"") + kTemplateReportId + "\"", std::to_string(kHoleG),
                               std::to_string(kHoleS), std::to_string(kHoleE)};
  const char names[] = {'I', 'G', 'S', 'E'};
  // Next occurrence of each hole, found again only after it is consumed
  // (one pass over the text, not one per hole).
  size_t next[4];
  for (int h = 0; h < 4; ++h) next[h] = text.find(holes[h]);
  for (;;) {
    size_t best = std::string::npos;
    int which = -1;
    for (int h = 0; h < 4; ++h)
      if (next[h] < best) best = next[h], which = h;
    if (which < 0) break;
    next[which] = text.find(holes[which], best + holes[which].size());
    t.parts.push_back(text.substr(pos, best - pos) + (which == 0 ? "\"" : ""));
    t.holes.push_back(names[which]);
    pos = best + holes[which].size();
    if (which == 0) pos -= 1;  // the closing quote starts the next part
  }
  t.parts.push_back(text.substr(pos));
  return t;
}

std::string ReportId(int node, int round, int64_t generated_ms) {
  char tail[64];
  std::snprintf(tail, sizeof tail, "-%lld-%08x-%06d", static_cast<long long>(generated_ms),
                static_cast<unsigned>(node) * 2654435761u, round + 1);
  return NodeName(node) + tail;
}

}  // namespace rdmascope::collector::bench
