// LoadDiagnosisInput: Storage rows -> diagnosis::Input (contract in diagnosis_input.h).
#include "collector/diagnosis/diagnosis_input.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <unordered_map>
#include <vector>

#include "collector/core/json_view.h"
#include "collector/diagnosis/direct_mapped.h"
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

std::optional<double> Real(double v) { return std::isnan(v) ? std::nullopt : std::optional<double>(v); }

// Input::names ids of the read model's interned strings. Equal pointers
// are equal names, so a small direct-mapped cache of pointers answers most
// lookups without hashing a string (a pass names about a million paths).
class NameIds {
 public:
  explicit NameIds(diagnosis::Names* names) : names_(names), cache_(4096) {}
  uint32_t operator()(const std::string* s) {
    if (!s) return 0;
    return cache_.Get(s, reinterpret_cast<uintptr_t>(s) >> 4, [this](const std::string* k) { return names_->Id(*k); });
  }

 private:
  diagnosis::Names* names_;
  diagnosis::DirectMapped<const std::string*, uint32_t> cache_;
};

// A port number, 0 (unknown) when the row has none or none a port can be.
uint16_t PortOf(int64_t v) { return v > 0 && v <= UINT16_MAX ? static_cast<uint16_t>(v) : 0; }

// A path from the read model's newest row of a pair (the row the store
// holds), into a default one (filled in place: a pass fills a million).
void FillPath(const ProbeRow& r, NameIds& name, diagnosis::PathSummary& p) {
  p.src = name(r.src), p.dst = name(r.dst), p.rail = name(r.rail), p.transport = name(r.transport);
  p.src_device = name(r.local_device), p.dst_device = name(r.remote_device);
  p.interval_start_ms = r.interval_start, p.interval_end_ms = r.interval_end;
  p.sent = r.sent, p.received = r.received, p.lost = r.lost;
  p.rtt_min_us = Real(r.rtt_min), p.rtt_p50_us = Real(r.rtt_p50);
  p.network_p50_us = Real(r.network_p50);
  p.src_port = PortOf(r.local_port), p.dst_port = PortOf(r.remote_port);
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
}

// Rises as the diagnosis's counter deltas (both ordered by name).
std::vector<CounterDelta> DeltasOf(const std::vector<DiagnosisFactRows::Rise>& rises) {
  std::vector<CounterDelta> out;
  out.reserve(rises.size());
  for (const DiagnosisFactRows::Rise& r : rises) out.push_back({r.name, r.delta});
  return out;
}

// Orders a port by (node, device, port), as the store's rows are ordered.
template <typename A, typename B>
bool PortBefore(const A& a, const B& b) {
  if (int c = a.node.compare(b.node)) return c < 0;
  if (int c = a.device.compare(b.device)) return c < 0;
  return a.port < b.port;
}

}  // namespace

Result<diagnosis::Input> LoadDiagnosisInput(Storage& store, int64_t now_ms, const DiagnosisSourceOptions& o,
                                            FabricCounterRises* rises) {
  diagnosis::Input in;
  if (Status s = LoadDiagnosisInput(store, now_ms, o, &in, rises); !s.ok()) return s;
  return in;
}

Status LoadDiagnosisInput(Storage& store, int64_t now_ms, const DiagnosisSourceOptions& o, diagnosis::Input* into,
                          FabricCounterRises* rises, DiagnosisInputCache* cache) {
  {
    // The paths are kept and overwritten in place (a pass fills a million);
    // with a cache, the numbering the kept ones use too, and the fabric
    // elements the router overwrites.
    diagnosis::Input keep;
    keep.paths = std::move(into->paths);
    keep.ports = std::move(into->ports);  // its memory; every port is read again below
    keep.ports.clear();
    if (cache) {
      keep.names = std::move(into->names), keep.group_names = std::move(into->group_names);
      keep.elements = std::move(into->elements);
    }
    *into = std::move(keep);
  }
  diagnosis::Input& in = *into;
  auto infos = store.read.NodeInfos();
  if (!infos.ok()) return infos.status();
  // The read model's nodes: their interval and their newest summaries.
  const ReadSnapshot::View view = store.read.snapshot().Take();
  const int64_t interval = std::max<int64_t>(o.report_interval_ms, 1);
  std::map<std::string, int64_t> own_interval;  // a node's own interval_s: its silence is counted in it
  for (const auto& n : view.nodes)
    if (n->interval_s && *n->interval_s > 0 && std::isfinite(*n->interval_s))
      own_interval[n->name] = static_cast<int64_t>(std::min(*n->interval_s, 1e12) * 1000);
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
  DiagnosisFactRows one_pass_facts;
  DiagnosisFactRows& f = cache ? cache->facts : one_pass_facts;
  if (Status s = store.diagnoses.DiagnosisFacts(since, since - 2 * interval, &f); !s.ok()) return s;
  std::map<std::pair<std::string, std::string>, std::string> leaf;  // (node, device) -> "leaf:<GUID>"
  for (const DiagnosisFactRows::Neighbour& r : f.neighbours)
    leaf.try_emplace({r.node, r.device}, "leaf:" + r.switch_guid);  // a device's first port names its leaf
  PathBlocks one_pass;
  PathBlocks& blocks = cache ? cache->blocks : one_pass;
  if (cache) {
    // Kept paths hold group and name numbers: when what groups are taken
    // from changed, or names piled up past the fleet's, all are numbered anew.
    if (cache->labelled != labelled || cache->leaf != leaf || in.names.size() > 2 * cache->names_numbered + 1024) {
      blocks.Forget();
      in.names = diagnosis::Names();
      in.group_names.clear();
      cache->labelled = labelled, cache->leaf = leaf;
    }
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
  std::map<std::string, int32_t> group_ids;  // Input::group_names by name
  for (size_t g = 0; g < in.group_names.size(); ++g) group_ids.emplace(in.group_names[g], static_cast<int32_t>(g));
  // Twice the (node, device) ends a pass names, about.
  diagnosis::DirectMapped<std::pair<const std::string*, const std::string*>, int32_t> group_cache(
      std::max<size_t>(8192, 2 * 16 * view.nodes.size()));
  auto group_of = [&](const std::string* node, const std::string* device) -> int32_t {
    if (!node) return -1;
    const size_t hash = (reinterpret_cast<uintptr_t>(node) >> 4) * 31 + (reinterpret_cast<uintptr_t>(device) >> 4);
    return group_cache.Get({node, device}, hash, [&](const std::pair<const std::string*, const std::string*>&) {
      auto [it, added] = groups.try_emplace({node, device}, -1);
      if (added) {
        const std::string g = device ? rail_group(*node, *device) : std::string();
        if (!g.empty()) {
          auto [id, fresh] = group_ids.try_emplace(g, static_cast<int32_t>(in.group_names.size()));
          if (fresh) in.group_names.push_back(g);
          it->second = id->second;
        }
      }
      return it->second;
    });
  };
  // The newest summary of every pair, from the read model (no SQL: a
  // million pairs at fleet size), ending within the window.
  NameIds name_ids(&in.names);
  std::vector<std::shared_ptr<const NodeState>> heard;  // the nodes whose summaries count: not silent
  heard.reserve(view.nodes.size());
  for (const auto& node : view.nodes) {
    auto quiet = silent.find(node->name);
    if (quiet == silent.end() || !quiet->second) heard.push_back(node);  // a node gone quiet: its old summaries are not
  }
  auto fill = [&](const NodeState& node, BlockSink& sink) {
    // The rows lie all over the heap: ask for the lines of the row a few
    // paths ahead while this one is read (a pass reads a million of them).
    constexpr size_t kAhead = 8;
    const std::vector<const ProbeRow*>& rows = node.newest_rows;
    // The node's newest report round: a pair it stopped probing (its
    // pinglist changed) ended a whole interval or more before it.
    const int64_t current = node.newest_end - interval / 2;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (i + kAhead < rows.size()) {
        const char* ahead = reinterpret_cast<const char*>(rows[i + kAhead]);
        for (size_t line = 0; line < sizeof(ProbeRow); line += 64) __builtin_prefetch(ahead + line);
      }
      const ProbeRow& r = *rows[i];
      if (r.interval_end < since || r.interval_end < current) continue;
      diagnosis::PathSummary& p = sink.Next();
      FillPath(r, name_ids, p);
      p.src_group = group_of(r.src, r.local_device);
      p.dst_group = group_of(r.dst, r.remote_device);
    }
  };
  blocks.Refill(heard, since, fill, &in.paths);
  if (cache && blocks.kept() == 0) cache->names_numbered = in.names.size();
  // Every port, in the store's order (node, device, port; one row each):
  // the moved counters and the neighbour rows, in the same order, are
  // found by binary search.
  in.ports.reserve(f.ports.size());
  for (const DiagnosisFactRows::Port& r : f.ports) {
    diagnosis::PortFacts& p = in.ports.emplace_back();
    p.node = r.node, p.device = r.device, p.port = r.port;
    p.state = r.state_name;
    p.active = !r.state || *r.state == kPortActive;
  }
  auto before = [](const diagnosis::PortFacts& a, const diagnosis::PortFacts& b) { return PortBefore(a, b); };
  if (!std::is_sorted(in.ports.begin(), in.ports.end(), before))  // never, unless a collation differs
    std::sort(in.ports.begin(), in.ports.end(), before);
  auto port_of = [&](const auto& r) -> diagnosis::PortFacts* {
    auto it = std::lower_bound(in.ports.begin(), in.ports.end(), r,
                               [](const diagnosis::PortFacts& p, const auto& k) { return PortBefore(p, k); });
    return it != in.ports.end() && !PortBefore(r, *it) ? &*it : nullptr;
  };
  for (const DiagnosisFactRows::Moved& r : f.moved)
    if (diagnosis::PortFacts* p = port_of(r); p && IsErrorCounter(r.name)) p->moved.push_back({r.name, r.delta});
  for (const DiagnosisFactRows::Neighbour& r : f.neighbours) {
    diagnosis::PortFacts* p = port_of(r);
    if (!p) continue;
    p->switch_guid = r.switch_guid, p->switch_port = r.switch_port, p->switch_description = r.switch_description;
    p->switch_moved = DeltasOf(r.switch_rises);
  }
  for (diagnosis::PortFacts& p : in.ports) {
    if (p.switch_guid.empty()) {  // the switch its cable goes to, from the node's own neighbour report
      auto it = leaf.find({p.node, p.device});
      if (it != leaf.end()) p.switch_guid = it->second.substr(5);  // "leaf:" + GUID
    }
  }
  if (rises) {
    rises->clear();
    for (const DiagnosisFactRows::FabricRise& r : f.fabric_rises) {
      uint64_t guid = 0;
      if (r.rises.empty() || !fabric::ParseGuid(r.guid, &guid)) continue;
      (*rises)[fabric::PortRef{guid, static_cast<int>(r.port)}] = DeltasOf(r.rises);
    }
  }
  return Status::Ok();
}

}  // namespace rdmascope::collector
