// One page of the fleet's port list from a read-model view (contract in port_page.h).
#include "collector/readmodel/port_page.h"

#include <algorithm>
#include <string_view>
#include <vector>

namespace rdmascope::collector {

using nlohmann::json;

namespace {

// A row that matched, with what its key and its answer need.
struct Match {
  const NodeState* node;
  const PortListRow* row;
  const std::string* group;  // owned by the per-node groups of the request
};

// The key fields of a match under a sort, as views.
struct KeyView {
  int64_t state;
  std::string_view primary, node, device;
  int64_t port;
};

KeyView KeyOf(const Match& m, PortSort sort) {
  KeyView k{0, {}, m.node->name, m.row->device, m.row->port};
  if (sort == PortSort::kDevice) k.primary = m.row->device;
  if (sort == PortSort::kState) k.state = m.row->state;
  if (sort == PortSort::kFirmware) k.primary = m.row->fw;
  return k;
}

int Compare(const KeyView& a, const KeyView& b) {
  if (a.state != b.state) return a.state < b.state ? -1 : 1;
  if (int c = a.primary.compare(b.primary)) return c < 0 ? -1 : 1;
  if (int c = a.node.compare(b.node)) return c < 0 ? -1 : 1;
  if (int c = a.device.compare(b.device)) return c < 0 ? -1 : 1;
  if (a.port != b.port) return a.port < b.port ? -1 : 1;
  return 0;
}

bool Contains(const std::string& haystack_lc, const std::string& needle_lc) {
  return needle_lc.empty() || haystack_lc.find(needle_lc) != std::string::npos;
}

bool StateMatches(const PortListRow& r, const PortFilter& f) {
  if (!f.state) return true;
  const std::string& want = *f.state;
  bool numeric = !want.empty() && std::all_of(want.begin(), want.end(), [](char c) { return c >= '0' && c <= '9'; });
  bool is = numeric ? (want.size() <= 6 && r.state == std::stoll(want)) : r.state_name_lc == want;
  return is != f.state_negated;
}

// The node's group label, or "" (then each port's leaf decides).
std::string LabelGroup(const NodeState& n, const std::string& label) {
  if (!n.labels.is_object()) return "";
  auto it = n.labels.find(label);
  return it != n.labels.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string PortGroup(const NodeState& n, const std::string& label_group, const PortListRow& r) {
  if (!label_group.empty()) return label_group;
  auto it = n.port_leaves.find(r.device + "/" + std::to_string(r.port));
  if (it != n.port_leaves.end() && !it->second.empty()) return "leaf:" + it->second;
  return n.leaf_switch.empty() ? std::string() : "leaf:" + n.leaf_switch;
}

void AppendRow(const Match& m, const PortPageQuery& q, std::string* out) {
  const PortListRow& r = *m.row;
  *out += r.text;
  if (r.text.size() > 1) out->push_back(',');
  const int64_t last = m.node->last_report_at;
  *out += "\"group\":" + json(*m.group).dump(-1, ' ', false, json::error_handler_t::replace) +
          ",\"node_last_report_at_ms\":" + std::to_string(last) +
          ",\"node_age_s\":" + json(static_cast<double>(q.now_ms - last) / 1000.0).dump() +
          ",\"node_interval_s\":" + (m.node->interval_s ? json(*m.node->interval_s).dump() : "null") +
          ",\"node_stale\":" + (q.now_ms - last > q.stale_after_ms ? "true" : "false") + "}";
}

}  // namespace

std::string SnapshotPortPage(const ReadSnapshot::View& v, const PortPageQuery& q) {
  const PortFilter& f = q.filter;
  std::vector<std::string> groups;  // one per matching port, stable storage for Match::group
  size_t rows = 0;
  for (const auto& n : v.nodes) rows += n->port_list.size();
  groups.reserve(rows);
  std::vector<Match> after;  // matches strictly after the cursor
  int64_t total = 0;
  std::optional<KeyView> cursor;
  if (q.after)
    cursor = KeyView{q.after->key.state, q.after->key.primary, q.after->key.node, q.after->key.device,
                     q.after->key.port};
  const int dir = q.desc ? -1 : 1;
  for (const auto& n : v.nodes) {
    const std::string node_lc = LowerAscii(n->name);
    if (!Contains(node_lc, f.node)) continue;
    const std::string label_group = LabelGroup(*n, q.group_label);
    for (const PortListRow& r : n->port_list) {
      if (!Contains(r.device_lc, f.device) || !Contains(r.gids_lc, f.gid) || !Contains(r.fw_lc, f.firmware) ||
          !StateMatches(r, f))
        continue;
      std::string group = PortGroup(*n, label_group, r);
      if (f.group && group != *f.group) continue;
      if (!f.q.empty() && !Contains(node_lc, f.q) && !Contains(r.any_lc, f.q) && !Contains(LowerAscii(group), f.q))
        continue;
      ++total;
      groups.push_back(std::move(group));
      Match m{n.get(), &r, &groups.back()};
      if (cursor && dir * Compare(KeyOf(m, q.sort), *cursor) <= 0) continue;
      after.push_back(m);
    }
  }
  const auto before = [&](const Match& a, const Match& b) {
    return dir * Compare(KeyOf(a, q.sort), KeyOf(b, q.sort)) < 0;
  };
  const size_t limit = static_cast<size_t>(std::max(q.limit, 1));
  const bool more = after.size() > limit;
  const size_t shown = std::min(after.size(), limit);
  std::partial_sort(after.begin(), after.begin() + static_cast<std::ptrdiff_t>(shown), after.end(), before);

  std::string out = "{\"ports\":[";
  for (size_t i = 0; i < shown; ++i) {
    if (i > 0) out.push_back(',');
    AppendRow(after[i], q, &out);
  }
  out += "],\"total\":" + std::to_string(total) + ",\"truncated\":" + (more ? "true" : "false") + ",\"next_cursor\":";
  if (more) {
    const KeyView k = KeyOf(after[shown - 1], q.sort);
    PortCursor c{q.sort, q.desc,
                 PortKey{k.state, std::string(k.primary), std::string(k.node), std::string(k.device), k.port}};
    out += "\"" + EncodePortCursor(c) + "\"";
  } else {
    out += "null";
  }
  out += ",\"sort\":\"" + std::string(PortSortName(q.sort)) + "\",\"order\":\"" + (q.desc ? "desc" : "asc") +
         "\",\"limit\":" + std::to_string(limit) + "}";
  return out;
}

}  // namespace rdmascope::collector
