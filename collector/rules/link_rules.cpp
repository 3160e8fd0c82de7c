#include "collector/rules/link_rules.h"

#include <algorithm>

#include "collector/core/json_get.h"
#include "collector/core/json_view.h"
#include "collector/core/sat_int.h"
#include "collector/rules/error_counters.h"
#include "common/ib_encoding.h"
#include "common/link_rate.h"

namespace rdmascope::collector {

using nlohmann::json;

std::string LinkEndText(const LinkEnd& e, const std::map<std::string, std::string>& names) {
  auto it = names.find(e.guid);
  std::string name = it == names.end() ? "" : " \"" + it->second + "\"";
  return e.guid + "[" + std::to_string(e.port) + "]" + name;
}

std::string LinkKey(const char* kind, const LinkEnd& a, const LinkEnd& b) {
  return std::string(kind) + "|" + a.guid + "|" + std::to_string(a.port) + "|" + b.guid + "|" + std::to_string(b.port);
}

LinkRate JudgeLinkRate(const json& pa, const json& pb, const std::string& a_text, const std::string& b_text) {
  auto end = [](const json& p) {
    return ib::LinkEndRate{OptText(p, "width").value_or(""), OptText(p, "speed").value_or(""),
                           OptText(p, "width_supported").value_or(""), OptText(p, "speed_supported").value_or("")};
  };
  const ib::LinkRateVerdict v = ib::JudgeLinkRate(end(pa), end(pb));
  LinkRate out;
  if (!v.degraded) return out;
  out.degraded = true;
  out.status = v.status;
  out.detail = "link " + a_text + " <-> " + b_text + " runs " + v.width + " " + v.speed + "; both ends support " +
               OptText(pa, "width_supported").value_or("?") + "/" + OptText(pb, "width_supported").value_or("?") +
               " " + OptText(pa, "speed_supported").value_or("?") + "/" +
               OptText(pb, "speed_supported").value_or("?");
  return out;
}

std::string RisenErrorCounters(const json& errors, const json& before, const CounterThresholds& thresholds) {
  std::string rose;
  for (const auto& [k, v] : errors.items()) {
    const uint64_t now = v.get<uint64_t>();
    const uint64_t prev =
        before.is_object() && before.contains(k) && before[k].is_number_unsigned() ? before[k].get<uint64_t>() : now;
    const uint64_t delta = now >= prev ? now - prev : now;  // backwards: reset, all of it is new
    if (delta >= thresholds.at(k))
      rose += (rose.empty() ? "" : ", ") + k + " +" + std::to_string(delta) + " (threshold " +
              std::to_string(thresholds.at(k)) + ")";
  }
  return rose;
}

json SampleErrorRises(const json& newest, const json& before) {
  json out = json::object();
  if (!newest.is_object() || !before.is_object()) return out;
  for (const auto& [k, v] : newest.items()) {
    auto was = before.find(k);
    if (!v.is_number_integer() || was == before.end() || !was->is_number_integer()) continue;
    const int64_t d = SatSub(SaturatedInt64Of(NlohmannView(v)), SaturatedInt64Of(NlohmannView(*was)));
    if (d > 0 && IsErrorCounter(k)) out[k] = d;
  }
  return out;
}

}  // namespace rdmascope::collector
