// The topology file of a RoCE fabric (contract in roce_topology.h).
#include "collector/readmodel/roce_topology.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace rdmascope::collector {
namespace {

using nlohmann::json;

// Errors in the shape "FILE: /json/pointer: what".
class Reader {
 public:
  explicit Reader(std::string origin) : origin_(std::move(origin)) {}

  Status Bad(const std::string& pointer, const std::string& why) const {
    return Status::Error("topology file " + origin_ + ": " + (pointer.empty() ? "/" : pointer) + ": " + why);
  }

  // Only the keys in `allowed`.
  Status Keys(const json& obj, const std::string& at, std::initializer_list<const char*> allowed) const {
    for (const auto& [k, v] : obj.items()) {
      bool known = false;
      for (const char* a : allowed) known = known || k == a;
      if (known) continue;
      std::string list;
      for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
      return Bad(at + "/" + k, "unknown key (expected " + list + ")");
    }
    return Status::Ok();
  }

  // obj[key] as a non-empty string (required, or "" when absent and optional).
  Status Name(const json& obj, const std::string& at, const char* key, bool required, std::string* out) const {
    auto it = obj.find(key);
    if (it == obj.end()) return required ? Bad(at, std::string("missing \"") + key + "\" (expected a non-empty string)")
                                         : Status::Ok();
    if (!it->is_string() || it->get<std::string>().empty())
      return Bad(at + "/" + key, "expected a non-empty string, got " + it->dump());
    *out = it->get<std::string>();
    return Status::Ok();
  }

  // obj[key] as an array (an absent optional one is empty).
  Status Array(const json& obj, const std::string& at, const char* key, bool required, const json** out) const {
    static const json kEmpty = json::array();
    auto it = obj.find(key);
    *out = &kEmpty;
    if (it == obj.end()) return required ? Bad(at, std::string("missing \"") + key + "\" (expected an array)") : Status::Ok();
    if (!it->is_array()) return Bad(at + "/" + key, "expected an array, got " + it->dump());
    *out = &*it;
    return Status::Ok();
  }

 private:
  std::string origin_;
};

// The names of "PREFIX[FIRST-LAST]SUFFIX" (FIRST's digits set the width:
// "node[01-16]" is node01 .. node16), or the name itself without brackets.
constexpr int64_t kMaxRange = 100000;

Status Expand(const Reader& r, const std::string& at, const std::string& name, std::vector<std::string>* out) {
  const size_t open = name.find('['), close = name.find(']');
  if (open == std::string::npos && close == std::string::npos) {
    out->push_back(name);
    return Status::Ok();
  }
  const std::string want = "expected NAME or PREFIX[FIRST-LAST]SUFFIX with FIRST <= LAST (e.g. node[01-16]), got \"" +
                           name + "\"";
  if (open == std::string::npos || close == std::string::npos || close < open ||
      name.find('[', open + 1) != std::string::npos || name.find(']', close + 1) != std::string::npos)
    return r.Bad(at, want);
  const std::string range = name.substr(open + 1, close - open - 1);
  const size_t dash = range.find('-');
  const std::string a = range.substr(0, dash), b = dash == std::string::npos ? "" : range.substr(dash + 1);
  auto digits = [](const std::string& x) {
    return !x.empty() && x.size() <= 9 && x.find_first_not_of("0123456789") == std::string::npos;
  };
  if (!digits(a) || !digits(b)) return r.Bad(at, want);
  const int64_t first = std::stoll(a), last = std::stoll(b);
  if (first > last || last - first >= kMaxRange) return r.Bad(at, want + " (at most 100000 names)");
  for (int64_t i = first; i <= last; ++i) {
    std::string n = std::to_string(i);
    if (n.size() < a.size()) n.insert(0, a.size() - n.size(), '0');
    out->push_back(name.substr(0, open) + n + name.substr(close + 1));
  }
  return Status::Ok();
}

Status ReadHost(const Reader& r, const json& h, const std::string& at, size_t leaf, RoceTopology* t) {
  if (!h.is_object()) return r.Bad(at, "expected a host {\"node\", \"rail\"?, \"device\"?}, got " + h.dump());
  if (Status s = r.Keys(h, at, {"node", "rail", "device"}); !s.ok()) return s;
  std::string pattern, rail, device;
  if (Status s = r.Name(h, at, "node", true, &pattern); !s.ok()) return s;
  if (Status s = r.Name(h, at, "rail", false, &rail); !s.ok()) return s;
  if (Status s = r.Name(h, at, "device", false, &device); !s.ok()) return s;
  if (!rail.empty() && !device.empty()) return r.Bad(at, "give \"rail\" or \"device\", not both");
  std::vector<std::string> nodes;
  if (Status s = Expand(r, at + "/node", pattern, &nodes); !s.ok()) return s;
  auto placed = [&](const std::string& what, size_t other) {
    return r.Bad(at, what + " is already on leaf " + t->leaves[other].name + " (one place each)");
  };
  for (const std::string& node : nodes) {
    if (!device.empty()) {
      auto [it, added] = t->by_device.try_emplace({node, device}, leaf);
      if (!added) return placed(node + " device " + device, it->second);
    } else if (!rail.empty()) {
      auto [it, added] = t->by_rail.try_emplace({node, rail}, leaf);
      if (!added) return placed(node + " rail " + rail, it->second);
    } else {
      auto [it, added] = t->by_node.try_emplace(node, leaf);
      if (!added) return placed(node, it->second);
    }
    t->first_leaf.try_emplace(node, leaf);
  }
  return Status::Ok();
}

}  // namespace

std::string UplinkName(const std::string& leaf, const RoceUplink& u) {
  return leaf + (u.port > 0 ? "/" + std::to_string(u.port) : "") + "<->" + u.spine;
}

const RoceLeaf* RoceTopology::LeafOf(const std::string& node, const std::string& rail, const std::string& device) const {
  if (!device.empty())
    if (auto it = by_device.find({node, device}); it != by_device.end()) return &leaves[it->second];
  if (!rail.empty())
    if (auto it = by_rail.find({node, rail}); it != by_rail.end()) return &leaves[it->second];
  if (auto it = by_node.find(node); it != by_node.end()) return &leaves[it->second];
  return nullptr;
}

const RoceLeaf* RoceTopology::FirstLeafOf(const std::string& node) const {
  auto it = first_leaf.find(node);
  return it == first_leaf.end() ? nullptr : &leaves[it->second];
}

Result<RoceTopology> ParseRoceTopology(const std::string& text, const std::string& origin) {
  const Reader r(origin);
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return r.Bad("", "not JSON (expected an object {\"leaves\": [...], \"spines\": [...]})");
  if (!doc.is_object()) return r.Bad("", std::string("expected an object {\"leaves\": [...], \"spines\": [...]}, got ") + doc.type_name());
  if (Status s = r.Keys(doc, "", {"leaves", "spines"}); !s.ok()) return s;
  RoceTopology t;
  t.source = origin;
  const json *leaves = nullptr, *spines = nullptr;
  if (Status s = r.Array(doc, "", "spines", true, &spines); !s.ok()) return s;
  if (Status s = r.Array(doc, "", "leaves", true, &leaves); !s.ok()) return s;
  if (leaves->empty()) return r.Bad("/leaves", "expected at least one leaf");
  std::set<std::string> names;
  for (size_t i = 0; i < spines->size(); ++i) {
    const std::string at = "/spines/" + std::to_string(i);
    const json& s = (*spines)[i];
    if (!s.is_object()) return r.Bad(at, "expected a spine {\"name\"}, got " + s.dump());
    if (Status st = r.Keys(s, at, {"name"}); !st.ok()) return st;
    std::string name;
    if (Status st = r.Name(s, at, "name", true, &name); !st.ok()) return st;
    if (!names.insert(name).second) return r.Bad(at + "/name", "\"" + name + "\" is named twice");
    t.spines.push_back(name);
  }
  for (size_t i = 0; i < leaves->size(); ++i) {
    const std::string at = "/leaves/" + std::to_string(i);
    const json& l = (*leaves)[i];
    if (!l.is_object()) return r.Bad(at, "expected a leaf {\"name\", \"hosts\", \"uplinks\"}, got " + l.dump());
    if (Status s = r.Keys(l, at, {"name", "hosts", "uplinks"}); !s.ok()) return s;
    RoceLeaf leaf;
    if (Status s = r.Name(l, at, "name", true, &leaf.name); !s.ok()) return s;
    if (!names.insert(leaf.name).second) return r.Bad(at + "/name", "\"" + leaf.name + "\" is named twice");
    t.leaves.push_back(leaf);
  }
  for (size_t i = 0; i < leaves->size(); ++i) {
    const std::string at = "/leaves/" + std::to_string(i);
    const json& l = (*leaves)[i];
    const json *hosts = nullptr, *uplinks = nullptr;
    if (Status s = r.Array(l, at, "hosts", true, &hosts); !s.ok()) return s;
    if (Status s = r.Array(l, at, "uplinks", false, &uplinks); !s.ok()) return s;
    for (size_t k = 0; k < hosts->size(); ++k)
      if (Status s = ReadHost(r, (*hosts)[k], at + "/hosts/" + std::to_string(k), i, &t); !s.ok()) return s;
    std::set<std::string> seen;
    for (size_t k = 0; k < uplinks->size(); ++k) {
      const std::string uat = at + "/uplinks/" + std::to_string(k);
      const json& u = (*uplinks)[k];
      if (!u.is_object()) return r.Bad(uat, "expected an uplink {\"spine\", \"port\"?}, got " + u.dump());
      if (Status s = r.Keys(u, uat, {"spine", "port"}); !s.ok()) return s;
      RoceUplink up;
      if (Status s = r.Name(u, uat, "spine", true, &up.spine); !s.ok()) return s;
      bool known = false;
      for (const std::string& sp : t.spines) known = known || sp == up.spine;
      if (!known) {
        std::string list;
        for (const std::string& sp : t.spines) list += (list.empty() ? "" : ", ") + sp;
        return r.Bad(uat + "/spine", "\"" + up.spine + "\" names no spine of /spines (expected one of " +
                                         (list.empty() ? "none: /spines is empty" : list) + ")");
      }
      if (auto p = u.find("port"); p != u.end()) {
        if (!p->is_number_integer() || p->get<int64_t>() < 1 || p->get<int64_t>() > 65535)
          return r.Bad(uat + "/port", "expected a port number 1..65535, got " + p->dump());
        up.port = p->get<int64_t>();
      }
      const std::string name = UplinkName(t.leaves[i].name, up);
      if (!seen.insert(name).second)
        return r.Bad(uat, name + " is listed twice (give each uplink to the same spine its \"port\")");
      t.leaves[i].uplinks.push_back(up);
    }
  }
  return t;
}

Result<RoceTopology> LoadRoceTopologyFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::Error("topology file " + path + ": cannot read it: " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseRoceTopology(ss.str(), path);
}

}  // namespace rdmascope::collector
