// LoadDiagnosisInput: Storage rows -> diagnosis::Input (contract in diagnosis_input.h).
#include "collector/diagnosis/diagnosis_input.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "collector/core/json_view.h"
#include "collector/readmodel/read_snapshot.h"
#include "collector/core/probe_error_name.h"
#include "collector/readmodel/pinglist.h"
#include "collector/core/sat_int.h"
#include "collector/rules/error_counters.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using diagnosis::CounterDelta;

constexpr int64_t kPortActive = 4;

// A number as int64_t, saturated (a stored row holds what agents sent).
int64_t IntOf(const json& v) { return SaturatedInt64Of(NlohmannView(v)); }

int64_t Int(const json& row, const char* k, int64_t dflt = 0) {
  auto it = row.find(k);
  return it != row.end() && it->is_number() ? IntOf(*it) : dflt;
}

// Member k of row when it is an array, else an empty one (never operator[]
// on a const json: an absent key is an assertion).
const json& Rows(const json& row, const char* k) {
  static const json kNone = json::array();
  auto it = row.find(k);
  return it != row.end() && it->is_array() ? *it : kNone;
}

std::string Text(const json& row, const char* k) {
  auto it = row.find(k);
  return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<double> Real(const json& row, const char* k) {
  auto it = row.find(k);
  if (it == row.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::optional<double> Real(double v) { return std::isnan(v) ? std::nullopt : std::optional<double>(v); }

// Input::names ids of the read model's interned strings. Equal pointers
// are equal names, so a small direct-mapped cache of pointers answers most
// lookups without hashing a string (a pass names about a million paths).
class NameIds {
 public:
  explicit NameIds(diagnosis::Names* names) : names_(names), slots_(kSlots) {}
  uint32_t operator()(const std::string* s) {
    if (!s) return 0;
    Slot& slot = slots_[(reinterpret_cast<uintptr_t>(s) >> 4) % kSlots];
    if (slot.key != s) slot = {s, names_->Id(*s)};
    return slot.id;
  }

 private:
  static constexpr size_t kSlots = 4096;
  struct Slot {
    const std::string* key = nullptr;
    uint32_t id = 0;
  };
  diagnosis::Names* names_;
  std::vector<Slot> slots_;
};

// A path from the read model's newest row of a pair (the row the store holds).
diagnosis::PathSummary PathOf(const ProbeRow& r, NameIds& name) {
  diagnosis::PathSummary p;
  p.src = name(r.src), p.dst = name(r.dst), p.rail = name(r.rail), p.transport = name(r.transport);
  p.src_device = name(r.local_device), p.dst_device = name(r.remote_device);
  p.interval_start_ms = r.interval_start, p.interval_end_ms = r.interval_end;
  p.sent = r.sent, p.received = r.received, p.lost = r.lost;
  p.rtt_min_us = Real(r.rtt_min), p.rtt_p50_us = Real(r.rtt_p50), p.rtt_p99_us = Real(r.rtt_p99);
  p.network_p50_us = Real(r.network_p50);
  p.src_port = r.local_port == ProbeRow::kNullInt ? 0 : r.local_port;
  p.dst_port = r.remote_port == ProbeRow::kNullInt ? 0 : r.remote_port;
  p.not_run = r.not_run != nullptr;
  if (r.errors_by_status != "{}") {
    const json by = json::parse(r.errors_by_status, nullptr, /*allow_exceptions=*/false);
    if (by.is_object())
      for (const auto& [k, v] : by.items())
        if (v.is_number_integer()) {
          int64_t& n = p.errors_by_status[StatusKeyName(k)];
          n = SatAdd(n, IntOf(v));
        }
  }
  return p;
}

using PortId = std::tuple<std::string, std::string, int64_t>;

PortId IdOf(const json& r) { return {Text(r, "node"), Text(r, "device"), Int(r, "port")}; }

// Error counters of the newest switch sample that rose over the one before.
std::vector<CounterDelta> SwitchMoved(const json& newest, const json& before) {
  std::vector<CounterDelta> out;
  auto a = newest.find("counters");
  auto b = before.find("counters");
  if (a == newest.end() || b == before.end() || !a->is_object() || !b->is_object()) return out;
  for (const auto& [k, v] : a->items()) {
    auto was = b->find(k);
    if (!v.is_number_integer() || was == b->end() || !was->is_number_integer()) continue;
    const int64_t d = SatSub(IntOf(v), IntOf(*was));
    if (d > 0 && IsErrorCounter(k)) out.push_back({k, d});
  }
  return out;
}

}  // namespace

Result<diagnosis::Input> LoadDiagnosisInput(Storage& store, int64_t now_ms, const DiagnosisSourceOptions& o,
                                            FabricCounterRises* rises) {
  auto infos = store.read.NodeInfos();
  if (!infos.ok()) return infos.status();
  auto nodes = store.history.Nodes(now_ms, 0);
  if (!nodes.ok()) return nodes.status();
  const int64_t interval = std::max<int64_t>(o.report_interval_ms, 1);
  std::map<std::string, int64_t> own_interval;  // a node's own interval_s: its silence is counted in it
  for (const json& n : Rows(nodes.value(), "nodes")) {
    auto s = Real(n, "interval_s");
    if (s && *s > 0) own_interval[Text(n, "name")] = static_cast<int64_t>(*s * 1000);
  }

  diagnosis::Input in;
  std::map<std::string, bool> silent;
  for (const NodeInfo& n : infos.value()) {
    // Its own interval, within 4 x the fleet's: one node cannot make itself never silent.
    const int64_t own = std::min(own_interval.count(n.name) ? own_interval[n.name] : interval, 4 * interval);
    bool quiet = now_ms - n.last_report_at > static_cast<int64_t>(o.silent_intervals * static_cast<double>(own));
    silent[n.name] = quiet;
    in.nodes.push_back({n.name, NodeGroup(n, o.group_label), quiet, n.last_report_at});
  }

  // Groups per rail: a node without the group label is grouped by the leaf
  // switch each of its devices is cabled to (a rail-optimised fabric has one
  // leaf per rail), else by its node group.
  std::map<std::string, bool> labelled;
  for (const NodeInfo& n : infos.value()) {
    auto l = n.labels.find(o.group_label);
    labelled[n.name] = l != n.labels.end() && l->is_string() && !l->get<std::string>().empty();
  }
  const int64_t since = now_ms - static_cast<int64_t>(o.window_intervals * static_cast<double>(interval));
  // A counter moved when its newest sample in the window rose over the
  // sample before it, which is one report earlier: two intervals back is
  // enough and keeps the query's cost to the window, not the history.
  auto facts = store.diagnoses.DiagnosisFacts(since, since - 2 * interval);
  if (!facts.ok()) return facts.status();
  const json& f = facts.value();
  std::map<std::pair<std::string, std::string>, std::string> leaf;  // (node, device) -> "leaf:<GUID>"
  for (const json& r : Rows(f, "neighbours")) {
    const std::string guid = Text(r, "switch_guid");
    auto [it, added] = leaf.try_emplace({Text(r, "node"), Text(r, "device")}, "leaf:" + guid);
    (void)it, (void)added;  // a device's first port names its leaf
  }
  auto rail_group = [&](const std::string& node, const std::string& device) -> std::string {
    if (device.empty()) return "";
    auto l = labelled.find(node);
    if (l != labelled.end() && l->second) return "";
    auto it = leaf.find({node, device});
    return it == leaf.end() ? "" : it->second;
  };
  // (node, device) by the read model's interned names -> its rail group:
  // looked up once per end, not once per path; a small direct-mapped cache
  // of pointer pairs in front of the map answers most ends without hashing.
  struct PtrPairHash {
    size_t operator()(const std::pair<const std::string*, const std::string*>& k) const {
      return std::hash<const void*>()(k.first) * 31 + std::hash<const void*>()(k.second);
    }
  };
  std::unordered_map<std::pair<const std::string*, const std::string*>, int32_t, PtrPairHash> groups;
  std::map<std::string, int32_t> group_ids;
  struct GroupSlot {
    const std::string *node = nullptr, *device = nullptr;
    int32_t group = -1;
  };
  std::vector<GroupSlot> group_slots(8192);
  auto group_of = [&](const std::string* node, const std::string* device) -> int32_t {
    GroupSlot& slot = group_slots[((reinterpret_cast<uintptr_t>(node) >> 4) * 31 + (reinterpret_cast<uintptr_t>(device) >> 4)) %
                                  group_slots.size()];
    if (slot.node == node && slot.device == device && node) return slot.group;
    auto [it, added] = groups.try_emplace({node, device}, -1);
    if (added) {
      const std::string g = node && device ? rail_group(*node, *device) : std::string();
      if (!g.empty()) {
        auto [id, fresh] = group_ids.try_emplace(g, static_cast<int32_t>(in.group_names.size()));
        if (fresh) in.group_names.push_back(g);
        it->second = id->second;
      }
    }
    slot = {node, device, it->second};
    return it->second;
  };
  // The newest summary of every pair, from the read model (no SQL: a
  // million pairs at fleet size), ending within the window.
  const ReadSnapshot::View view = store.read.snapshot().Take();
  NameIds name_ids(&in.names);
  size_t pairs = 0;
  for (const auto& node : view.nodes) pairs += node->pairs.size();
  in.paths.reserve(pairs);
  for (const auto& node : view.nodes) {
    auto quiet = silent.find(node->name);
    if (quiet != silent.end() && quiet->second) continue;  // old summaries of a node that went quiet
    for (const auto& [key, entry] : node->pairs) {
      if (!entry.newest || entry.newest->interval_end < since) continue;
      const ProbeRow& r = *entry.newest;
      in.paths.push_back(PathOf(r, name_ids));
      diagnosis::PathSummary& p = in.paths.back();
      p.src_group = group_of(r.src, r.local_device);
      p.dst_group = group_of(r.dst, r.remote_device);
    }
  }
  std::map<PortId, diagnosis::PortFacts> ports;
  for (const json& r : Rows(f, "ports")) {
    diagnosis::PortFacts& p = ports[IdOf(r)];
    p.node = Text(r, "node"), p.device = Text(r, "device"), p.port = Int(r, "port");
    p.state = Text(r, "state_name");
    auto state = r.find("state");
    p.active = state == r.end() || state->is_null() || Int(r, "state") == kPortActive;
  }
  for (const json& r : Rows(f, "moved")) {
    auto it = ports.find(IdOf(r));
    if (it != ports.end() && IsErrorCounter(Text(r, "name"))) it->second.moved.push_back({Text(r, "name"), Int(r, "delta")});
  }
  const json& sw = Rows(f, "switch");  // newest first per node port: pairs (newest, before)
  for (size_t i = 0; i < sw.size(); ++i) {
    auto it = ports.find(IdOf(sw[i]));
    if (it == ports.end()) continue;
    diagnosis::PortFacts& p = it->second;
    p.switch_guid = Text(sw[i], "switch_guid"), p.switch_port = Int(sw[i], "switch_port");
    p.switch_description = Text(sw[i], "switch_description");
    if (i + 1 < sw.size() && IdOf(sw[i + 1]) == IdOf(sw[i])) {
      if (Int(sw[i], "at") >= since) p.switch_moved = SwitchMoved(sw[i], sw[i + 1]);
      ++i;
    }
  }
  for (auto& [id, p] : ports) {
    if (p.switch_guid.empty()) {  // the switch its cable goes to, from the node's own neighbour report
      auto it = leaf.find({p.node, p.device});
      if (it != leaf.end()) p.switch_guid = it->second.substr(5);  // "leaf:" + GUID
    }
    in.ports.push_back(std::move(p));
  }
  if (rises) {
    rises->clear();
    const json& fm = Rows(f, "fabric_moved");  // newest first per port: pairs (newest, before)
    for (size_t i = 0; i + 1 < fm.size(); ++i) {
      const json &a = fm[i], &b = fm[i + 1];
      if (Text(a, "guid") != Text(b, "guid") || Int(a, "port") != Int(b, "port")) continue;
      ++i;
      if (Int(a, "at") < since) continue;
      uint64_t guid = 0;
      if (!fabric::ParseGuid(Text(a, "guid"), &guid)) continue;
      std::vector<CounterDelta> moved = SwitchMoved(a, b);
      if (!moved.empty()) (*rises)[fabric::PortRef{guid, static_cast<int>(Int(a, "port"))}] = std::move(moved);
    }
  }
  return in;
}

}  // namespace rdmascope::collector
