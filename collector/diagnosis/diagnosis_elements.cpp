// ElementIndex and Tally (contract in diagnosis_elements.h).
#include "collector/diagnosis/diagnosis_elements.h"

#include <algorithm>
#include <map>

namespace rdmascope::collector::diagnosis {
namespace {

std::string LinkName(std::string a, std::string b) {
  if (b < a) std::swap(a, b);
  return a + "<->" + b;
}

// The counters whose rise says a cable is bad at the physical layer.
bool Physical(const std::string& name) {
  return name == "symbol_error" || name == "link_error_recovery" || name == "link_downed" ||
         name == "local_link_integrity_errors" || name == "port_rcv_errors";
}

}  // namespace

const char* ScopeName(Scope s) {
  switch (s) {
    case Scope::kHost: return "host";
    case Scope::kNic: return "nic";
    case Scope::kLink: return "link";
    case Scope::kSwitch: return "switch";
    case Scope::kGroupLink: return "group_link";
    case Scope::kGroup: return "group";
    case Scope::kFleet: return "fleet";
  }
  return "unknown";
}

const char* TransportSetName(size_t k) { return k == 1 ? "ud" : k == 2 ? "rc" : ""; }

uint32_t ElementIndex::Id(Scope scope, const std::string& subject) {
  auto [it, added] = ids_.try_emplace(std::string(ScopeName(scope)) + "|" + subject,
                                      static_cast<uint32_t>(elements_.size()));
  if (added) {
    Element e;
    e.scope = scope;
    e.subject = subject;
    elements_.push_back(std::move(e));
  }
  return it->second;
}

int64_t ElementIndex::Find(Scope scope, const std::string& subject) const {
  auto it = ids_.find(std::string(ScopeName(scope)) + "|" + subject);
  return it == ids_.end() ? -1 : static_cast<int64_t>(it->second);
}

void ElementIndex::Touch(uint32_t id, std::vector<uint32_t>* out) {
  for (uint32_t t : *out)
    if (t == id) return;
  out->push_back(id);
}

ElementIndex::ElementIndex(const Fleet& f, const std::vector<bool>& measured) {
  const Input& in = *f.input;
  Id(Scope::kFleet, "all");
  const uint32_t fabric_base = static_cast<uint32_t>(elements_.size());
  for (const FabricElement& fe : in.elements) {
    const uint32_t id = Id(fe.scope == "switch" ? Scope::kSwitch : Scope::kLink, fe.subject);
    elements_[id].fabric = &fe;
    for (const CounterDelta& c : fe.moved) elements_[id].counters_rose |= c.delta > 0 && Physical(c.name);
  }
  std::set<std::string> group_names;
  offset_.assign(in.paths.size() + 1, 0);
  src_group_.resize(in.paths.size());
  dst_group_.resize(in.paths.size());
  std::vector<uint32_t> touched;
  for (size_t i = 0; i < in.paths.size(); ++i) {
    offset_[i] = touches_.size();
    if (!measured[i]) continue;
    const PathSummary& p = in.paths[i];
    const std::string ga = f.SrcGroup(p), gb = f.DstGroup(p);
    src_group_[i] = ga, dst_group_[i] = gb;
    touched.clear();
    touched.push_back(0);
    auto endpoint = [&](Scope scope, const std::string& subject, const std::string& node, const std::string& device,
                        bool dst) {
      const uint32_t id = Id(scope, subject);
      Element& e = elements_[id];
      e.node = node, e.device = device;
      touched.push_back(id | (dst ? kDstRole : 0));
    };
    endpoint(Scope::kHost, p.src, p.src, "", false);
    endpoint(Scope::kHost, p.dst, p.dst, "", true);
    if (!p.src_device.empty()) {
      endpoint(Scope::kNic, p.src + "/" + p.src_device, p.src, p.src_device, false);
    }
    if (!p.dst_device.empty()) {
      endpoint(Scope::kNic, p.dst + "/" + p.dst_device, p.dst, p.dst_device, true);
    }
    if (!ga.empty()) Touch(Id(Scope::kGroup, ga), &touched), group_names.insert(ga);
    if (!gb.empty()) Touch(Id(Scope::kGroup, gb), &touched), group_names.insert(gb);
    if (ga != gb && p.crosses.empty()) Touch(Id(Scope::kGroupLink, LinkName(ga, gb)), &touched);
    for (uint32_t c : p.crosses)
      if (c < in.elements.size()) Touch(fabric_base + c, &touched);
    touches_.insert(touches_.end(), touched.begin(), touched.end());
  }
  offset_[in.paths.size()] = touches_.size();
  groups_ = group_names.size();
  for (Element& e : elements_) {
    if (e.scope != Scope::kHost && e.scope != Scope::kNic) continue;
    const std::string g = f.GroupOf(e.node);
    auto it = g.empty() ? ids_.end() : ids_.find("group|" + g);
    if (it != ids_.end()) e.home_group = static_cast<int32_t>(it->second);
  }
}

Round Tally(const Fleet& f, const ElementIndex& index, const std::vector<bool>& measured,
            const std::vector<bool>& open, const std::vector<int64_t>& lost) {
  const size_t n = index.elements().size();
  Round r;
  for (auto& c : r.count) c.assign(n, Count());
  r.bad.resize(n);
  const auto& paths = f.input->paths;
  const auto& elements = index.elements();
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!measured[i]) continue;
    const bool bad = open[i];
    const bool host_only = bad && f.kind[i] == PathKind::kHostBusy;
    const std::string& t = paths[i].transport;
    const size_t own = t == "ud" ? 1 : t == "rc" ? 2 : 0;
    const int64_t sent = std::max<int64_t>(paths[i].sent, 0), gone = bad ? lost[i] : 0;
    for (size_t k : {size_t(0), own}) {
      ++r.all[k].total;
      r.all[k].bad += bad && !host_only ? 1 : 0;
      r.all[k].sent += sent, r.all[k].lost += gone;
      if (own == 0) break;
    }
    for (const uint32_t* e = index.begin(i); e != index.end(i); ++e) {
      const uint32_t id = *e & ~ElementIndex::kDstRole;
      const bool dst = (*e & ElementIndex::kDstRole) != 0;
      const Scope scope = elements[id].scope;
      const bool endpoint = scope == Scope::kHost || scope == Scope::kNic;
      const bool counts_bad = bad && (endpoint || !host_only);
      for (size_t k : {size_t(0), own}) {
        Count& c = r.count[k][id];
        ++c.total;
        c.sent += sent, c.lost += gone;
        if (endpoint) {
          ++(dst ? c.dst_total : c.src_total);
          (dst ? c.dst_sent : c.src_sent) += sent;
          (dst ? c.dst_lost : c.src_lost) += gone;
        }
        if (counts_bad) {
          ++c.bad;
          if (endpoint) ++(dst ? c.dst_bad : c.src_bad);
        }
        if (own == 0) break;  // another transport: counted once, over all
      }
      if (counts_bad) r.bad[id].push_back(static_cast<uint32_t>(i));
    }
  }
  return r;
}

}  // namespace rdmascope::collector::diagnosis
