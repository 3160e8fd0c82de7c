#include "agent/daemon/rail_paths.h"

#include <sstream>

#include "agent/daemon/rails.h"
#include "common/text.h"

namespace rdmascope::agent {
namespace {

// Unsets field `name` in *s.
void Clear(const std::string& name, probes::ProbePathSettings* s) {
  if (name == "gid_index") s->gid_index.reset();
  if (name == "gid_subnet") s->gid_subnet.reset();
  if (name == "probe_traffic_class") s->traffic_class.reset();
  if (name == "probe_sl") s->sl.reset();
}

}  // namespace

probes::ProbePathSettings RailPaths::For(const std::string& rail) const {
  probes::ProbePathSettings out = all;
  auto it = by_rail.find(rail);
  if (it == by_rail.end()) return out;
  const probes::ProbePathSettings& r = it->second;
  if (r.gid_index || r.gid_subnet) {  // the rail's own pin replaces the common one
    out.gid_index = r.gid_index;
    out.gid_subnet = r.gid_subnet;
  }
  if (r.traffic_class) out.traffic_class = r.traffic_class;
  if (r.sl) out.sl = r.sl;
  return out;
}

Status ApplyRailPathKey(const std::string& name, const std::string& value, RailPaths* paths) {
  if (!probes::IsProbePathSetting(name)) return Status::Error("unknown probe path key '" + name + "'");
  RailPaths next = *paths;
  Clear(name, &next.all);
  for (auto& [rail, s] : next.by_rail) Clear(name, &s);
  bool have_all = false;
  std::stringstream ss(value);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item = std::string(Trim(item, kBlanks));
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    probes::ProbePathSettings* target = &next.all;
    std::string v = item;
    if (eq != std::string::npos) {
      const std::string rail(Trim(item.substr(0, eq), kBlanks));
      if (rail.empty()) return Status::Error("item '" + item + "': expected VALUE or RAIL=VALUE");
      probes::ProbePathSettings& s = next.by_rail[rail];
      if ((name == "gid_index" && s.gid_index) || (name == "gid_subnet" && s.gid_subnet) ||
          (name == "probe_traffic_class" && s.traffic_class) || (name == "probe_sl" && s.sl))
        return Status::Error("rail " + rail + " given twice");
      target = &s;
      v = std::string(Trim(item.substr(eq + 1), kBlanks));
    } else {
      if (have_all) return Status::Error("more than one value for every rail ('" + item + "')");
      have_all = true;
    }
    Status st = probes::ApplyProbePathSetting(name, v, target);
    if (!st.ok()) return Status::Error("item '" + item + "': " + st.message());
  }
  for (const auto& [rail, s] : next.by_rail) {
    Status st = probes::ValidateProbePathSettings(s);
    if (!st.ok()) return Status::Error("rail " + rail + ": " + st.message());
  }
  Status st = probes::ValidateProbePathSettings(next.all);
  if (!st.ok()) return st;
  *paths = std::move(next);
  return Status::Ok();
}

}  // namespace rdmascope::agent
