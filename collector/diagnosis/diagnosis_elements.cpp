// ElementIndex and Tallies (contract in diagnosis_elements.h).
#include "collector/diagnosis/diagnosis_elements.h"

#include <algorithm>

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

void Touch(uint32_t id, std::vector<uint32_t>* out) {
  for (uint32_t t : *out)
    if (t == id) return;
  out->push_back(id);
}

VoteScratch& ScratchOf(PassBuffers& buffers) {
  if (!buffers.vote) buffers.vote = std::make_shared<VoteScratch>();
  return *buffers.vote;
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

size_t TransportSetOf(const std::string& transport) { return transport == "ud" ? 1 : transport == "rc" ? 2 : 0; }

uint32_t ElementIndex::Add(Scope scope, std::string subject) {
  Element e;
  e.scope = scope;
  e.own_subject = std::move(subject);
  elements_.push_back(std::move(e));
  scratch_.base.emplace_back(), scratch_.ends.emplace_back();
  return static_cast<uint32_t>(elements_.size() - 1);
}

void ElementIndex::AddCounts(uint32_t id, const PathCounts& c, bool endpoint, bool dst) {
  Tallies::Base& b = scratch_.base[id];
  for (size_t k = 0; k < kTransportSets; ++k) b.total[k] += c.total[k], b.sent[k] += c.sent[k];
  if (!endpoint) return;
  Tallies::Ends& e = scratch_.ends[id];
  int32_t* total = dst ? e.dst_total : e.src_total;
  int64_t* sent = dst ? e.dst_sent : e.src_sent;
  for (size_t k = 0; k < kTransportSets; ++k) total[k] += c.total[k], sent[k] += c.sent[k];
}

uint32_t ElementIndex::Host(const Names& names, uint32_t node) {
  int64_t& known = host_of_name_[node];
  if (known >= 0) return static_cast<uint32_t>(known);
  const uint32_t id = Add(Scope::kHost, names[node]);
  elements_[id].node = names[node];
  hosts_.emplace(names[node], id);
  if (nics_.size() <= id) nics_.resize(id + 1), nic_ids_.resize(id + 1);
  known = id;
  return id;
}

uint32_t ElementIndex::Nic(const Names& names, uint32_t host, uint32_t device) {
  return nic_cache_.Get({host, device}, static_cast<size_t>(host) * 31 + device,
                        [&](const std::pair<uint32_t, uint32_t>&) {
                          for (const auto& [d, id] : nic_ids_[host])
                            if (d == device) return id;
                          const std::string node = elements_[host].node;  // a copy: Add() may move elements_
                          const uint32_t id = Add(Scope::kNic, node + "/" + names[device]);
                          elements_[id].node = node, elements_[id].device = names[device];
                          nics_[host].emplace_back(names[device], id);
                          nic_ids_[host].emplace_back(device, id);
                          return id;
                        });
}

int32_t ElementIndex::Group(const std::string& name) {
  if (name.empty()) return -1;
  auto it = groups_by_name_.find(name);
  if (it != groups_by_name_.end()) return static_cast<int32_t>(it->second);
  const uint32_t id = Add(Scope::kGroup, name);
  groups_by_name_.emplace(name, id);
  return static_cast<int32_t>(id);
}

uint32_t ElementIndex::GroupLink(int32_t a, int32_t b) {
  const auto lo = static_cast<uint64_t>(static_cast<uint32_t>(std::min(a, b)));
  const auto hi = static_cast<uint64_t>(static_cast<uint32_t>(std::max(a, b)));
  const uint64_t key = lo << 32 | hi;
  auto it = group_links_.find(key);
  if (it != group_links_.end()) return it->second;
  auto name = [&](int32_t g) { return g < 0 ? std::string() : elements_[static_cast<size_t>(g)].subject(); };
  const uint32_t id = Add(Scope::kGroupLink, LinkName(name(a), name(b)));
  group_links_.emplace(key, id);
  return id;
}

int64_t ElementIndex::Find(Scope scope, const std::string& subject) const {
  switch (scope) {
    case Scope::kFleet: return subject == "all" ? 0 : -1;
    case Scope::kHost: {
      auto it = hosts_.find(subject);
      return it == hosts_.end() ? -1 : static_cast<int64_t>(it->second);
    }
    case Scope::kNic: {
      const size_t slash = subject.find('/');
      auto it = slash == std::string::npos ? hosts_.end() : hosts_.find(subject.substr(0, slash));
      if (it == hosts_.end()) return -1;
      for (const auto& [d, id] : nics_[it->second])
        if (d == subject.substr(slash + 1)) return id;
      return -1;
    }
    case Scope::kGroup: {
      auto it = groups_by_name_.find(subject);
      return it == groups_by_name_.end() ? -1 : static_cast<int64_t>(it->second);
    }
    case Scope::kLink:
    case Scope::kSwitch: {
      if (!fabric_indexed_) {
        fabric_indexed_ = true;
        fabric_.reserve(fabric_count_);
        for (uint32_t id = kFabricBase; id < kFabricBase + fabric_count_; ++id)
          fabric_.emplace(std::string(ScopeName(elements_[id].scope)) + "|" + elements_[id].subject(), id);
      }
      auto it = fabric_.find(std::string(ScopeName(scope)) + "|" + subject);
      return it == fabric_.end() ? -1 : static_cast<int64_t>(it->second);
    }
    case Scope::kGroupLink:
      for (size_t id = 0; id < elements_.size(); ++id)
        if (elements_[id].scope == scope && elements_[id].subject() == subject) return static_cast<int64_t>(id);
      return -1;
  }
  return -1;
}

ElementIndex::ElementIndex(const Fleet& f, const std::vector<bool>& measured, const std::vector<bool>& keep,
                           PassBuffers& buffers)
    : elements_(ScratchOf(buffers).elements),
      routes_(buffers.routes),
      touches_(buffers.touches),
      offset_(buffers.offsets),
      src_host_(buffers.src_host),
      dst_host_(buffers.dst_host),
      src_group_(buffers.src_group),
      dst_group_(buffers.dst_group),
      scratch_(ScratchOf(buffers)) {
  const Input& in = *f.input;
  scratch_.base.clear(), scratch_.ends.clear(), elements_.clear();
  Add(Scope::kFleet, "all");
  fabric_count_ = static_cast<uint32_t>(in.elements.size());
  elements_.reserve(1 + in.elements.size() + 16 * in.nodes.size());  // fabric, then hosts and NICs, about
  for (const FabricElement& fe : in.elements) {
    const Scope scope = fe.scope == "switch" ? Scope::kSwitch : Scope::kLink;
    const uint32_t id = Add(scope, std::string());  // kFabricBase + its index in Input::elements; named by fe
    elements_[id].fabric = &fe;
    if (!fe.rose_at_host_only)
      for (const CounterDelta& c : fe.moved) elements_[id].counters_rose |= c.delta > 0 && Physical(c.name);
  }
  const size_t n = in.paths.size();
  RoomForPaths(offset_, n + 1), RoomForPaths(src_host_, n), RoomForPaths(dst_host_, n);
  RoomForPaths(src_group_, n), RoomForPaths(dst_group_, n), RoomForPaths(routes_, n);
  offset_.assign(n + 1, 0);
  src_host_.resize(n), dst_host_.resize(n);
  src_group_.assign(n, -1), dst_group_.assign(n, -1);
  touches_.clear();
  routes_.assign(n, nullptr);
  {
    size_t need = 0;  // at most: fleet, two hosts, two NICs, two groups, a group link (and a route by hand)
    for (size_t i = 0; i < n; ++i) need += measured[i] && keep[i] ? 8 + in.paths[i].crosses.size() : 0;
    RoomForPaths(touches_, need);
  }
  std::vector<uint32_t> touched;
  std::vector<int32_t> named_group(in.group_names.size(), -2);  // Input::group_names index -> element (-2: not yet)
  host_of_name_.assign(in.names.size(), -1);
  nic_cache_ = DirectMapped<std::pair<uint32_t, uint32_t>, uint32_t>(  // about four slots per NIC, at most
      std::max<size_t>(1024, 4 * 16 * in.nodes.size()));
  std::vector<int32_t> node_group(in.names.size(), -2);  // a node's NodeFacts::group element (-2: not yet)
  auto group = [&](int32_t named, uint32_t node) {
    if (named < 0) {
      int32_t& g = node_group[node];
      if (g == -2) g = Group(f.GroupOf(node));
      return g;
    }
    int32_t& id = named_group[static_cast<size_t>(named)];
    if (id == -2) id = Group(in.group_names[static_cast<size_t>(named)]);
    return id;
  };
  // Paths come in runs that share elements: a block's paths share their
  // source host, the NIC of each rail and the group on it; a pair's paths
  // (one per transport) share their destination side and their route.
  // Counts are summed over a run and added once the run ends, not path by
  // path. The fleet element's are all_ (set after).
  constexpr uint32_t kNone = UINT32_MAX;
  struct SourceRun {
    uint32_t id = kNone;
    bool endpoint = false;  // a host or NIC: its source-role counts too
    PathCounts counts;
  };
  SourceRun src_host_run, src_nic_run, src_group_run;
  auto flush = [&](SourceRun& r) {
    if (r.id != kNone) AddCounts(r.id, r.counts, r.endpoint, false);
    r = SourceRun();
  };
  auto run_on = [&](SourceRun& r, uint32_t id, bool endpoint, size_t own, int64_t sent) {
    if (r.id != id) flush(r), r.id = id, r.endpoint = endpoint;
    r.counts.Add(own, sent);
  };
  struct DstRun {
    uint32_t host = kNone, nic = kNone, group = kNone, group_link = kNone;  // kNone: not counted
    const std::vector<uint32_t>* routed = nullptr;
    bool Same(const DstRun& o) const {
      return host == o.host && nic == o.nic && group == o.group && group_link == o.group_link && routed == o.routed;
    }
    PathCounts counts;
  } dst_run;
  auto flush_dst = [&] {
    const DstRun& r = dst_run;
    if (r.host != kNone) AddCounts(r.host, r.counts, true, true);
    if (r.nic != kNone) AddCounts(r.nic, r.counts, true, true);
    if (r.group != kNone) AddCounts(r.group, r.counts, false, false);
    if (r.group_link != kNone) AddCounts(r.group_link, r.counts, false, false);
    if (r.routed)
      for (uint32_t c : *r.routed)
        if (c < fabric_count_) AddCounts(kFabricBase + c, r.counts, false, false);
    dst_run = DstRun();
  };
  uint32_t last_src = UINT32_MAX, last_src_device = 0, last_src_nic = 0;
  for (size_t i = 0; i < n; ++i) {
    offset_[i] = touches_.size();
    const PathSummary& p = in.paths[i];
    const uint32_t src = Host(in.names, p.src), dst = Host(in.names, p.dst);
    src_host_[i] = src, dst_host_[i] = dst;
    if (!measured[i]) continue;
    const int32_t ga = group(p.src_group, p.src), gb = group(p.dst_group, p.dst);
    src_group_[i] = ga, dst_group_[i] = gb;
    const size_t own = f.transport_set[i];
    const int64_t sent = std::max<int64_t>(p.sent, 0);
    ++all_[0].total, all_[0].sent += sent;
    if (own != 0) ++all_[own].total, all_[own].sent += sent;
    // Each element once, a host or NIC with its role (touched lists the
    // fleet too, for Touches; its counts are all_).
    touched.clear();
    touched.push_back(0);
    touched.push_back(src);
    touched.push_back(dst | kDstRole);
    run_on(src_host_run, src, true, own, sent);
    DstRun next;
    next.host = dst;
    if (p.src_device != 0) {
      if (src != last_src || p.src_device != last_src_device)
        last_src = src, last_src_device = p.src_device, last_src_nic = Nic(in.names, src, p.src_device);
      touched.push_back(last_src_nic);
      run_on(src_nic_run, last_src_nic, true, own, sent);
    }
    if (p.dst_device != 0) {
      const uint32_t nic = Nic(in.names, dst, p.dst_device);
      touched.push_back(nic | kDstRole);
      next.nic = nic;
    }
    if (ga >= 0) {
      touched.push_back(static_cast<uint32_t>(ga));
      run_on(src_group_run, static_cast<uint32_t>(ga), false, own, sent);
    }
    if (gb >= 0 && gb != ga) {
      touched.push_back(static_cast<uint32_t>(gb));
      next.group = static_cast<uint32_t>(gb);
    }
    const std::vector<uint32_t>& crosses = p.Crosses();
    if (ga != gb && crosses.empty()) {
      const uint32_t link = GroupLink(ga, gb);
      touched.push_back(link);
      next.group_link = link;
    }
    // Fabric ids are none of the above; a router's list names each once
    // and is read in place (Touches); a list filled by hand may not: Touch
    // keeps that case to one count.
    if (!p.routed)
      for (uint32_t c : crosses)
        if (c < in.elements.size()) {
          const size_t before = touched.size();
          Touch(kFabricBase + c, &touched);
          if (touched.size() != before) {
            PathCounts one;
            one.Add(own, sent);
            AddCounts(kFabricBase + c, one, false, false);
          }
        }
    next.routed = p.routed;
    if (!next.Same(dst_run)) flush_dst(), dst_run = next;
    dst_run.counts.Add(own, sent);
    if (!keep[i]) continue;
    routes_[i] = p.routed;
    touches_.insert(touches_.end(), touched.begin(), touched.end());
  }
  flush(src_host_run), flush(src_nic_run), flush(src_group_run), flush_dst();
  for (size_t k = 0; k < kTransportSets; ++k)
    scratch_.base[0].total[k] = all_[k].total, scratch_.base[0].sent[k] = all_[k].sent;
  offset_[n] = touches_.size();
  groups_ = groups_by_name_.size();
  for (Element& e : elements_) {
    if (e.scope != Scope::kHost && e.scope != Scope::kNic) continue;
    e.home_group = static_cast<int32_t>(Find(Scope::kGroup, f.GroupOf(e.node)));
  }
}

namespace {

// Calls f(k) for each transport set a path of set `own` counts in: all, and
// its own transport when it has one.
template <typename F>
void InSets(size_t own, F f) {
  f(size_t(0));
  if (own != 0) f(own);
}

// Calls f(id, dst, endpoint) for each element path i touches: dst when the
// element is the path's destination, endpoint for a host or NIC.
template <typename F>
void EachTouch(const ElementIndex& index, size_t i, F f) {
  index.Touches(i, [&](uint32_t e, bool routed) {
    if (routed) return f(e, false, false);
    const uint32_t id = e & ~ElementIndex::kDstRole;
    const Scope scope = index.elements()[id].scope;
    f(id, (e & ElementIndex::kDstRole) != 0, scope == Scope::kHost || scope == Scope::kNic);
  });
}

}  // namespace

Tallies::Tallies(const Fleet& f, const ElementIndex& index, const std::vector<bool>& measured, VoteScratch& scratch)
    : f_(f), index_(index), measured_(measured), base_(scratch.base), ends_(scratch.ends) {}

void Tallies::RoundOf(const std::vector<bool>& open, const std::vector<int64_t>& lost, Round* into) const {
  Round& r = *into;
  r.all = index_.all();
  r.count.resize(base_.size());
  for (size_t id = 0; id < base_.size(); ++id)
    for (size_t k = 0; k < kTransportSets; ++k) {
      Count& c = r.count[id][k];
      c = Count();
      c.total = base_[id].total[k], c.sent = base_[id].sent[k];
      c.src_total = ends_[id].src_total[k], c.dst_total = ends_[id].dst_total[k];
      c.src_sent = ends_[id].src_sent[k], c.dst_sent = ends_[id].dst_sent[k];
    }
  r.bad.resize(index_.elements().size());
  for (std::vector<uint32_t>& b : r.bad) b.clear();
  for (size_t i = 0; i < open.size(); ++i) {
    if (!open[i] || !measured_[i]) continue;
    const bool host_only = f_.kind[i] == PathKind::kHostBusy;
    const size_t own = f_.transport_set[i];
    const int64_t gone = lost[i];
    InSets(own, [&](size_t k) {
      r.all[k].bad += host_only ? 0 : 1;
      r.all[k].lost += gone;
    });
    EachTouch(index_, i, [&](uint32_t id, bool dst, bool endpoint) {
      const bool counts_bad = endpoint || !host_only;
      InSets(own, [&](size_t k) {
        Count& c = r.count[id][k];
        c.lost += gone;
        if (endpoint) (dst ? c.dst_lost : c.src_lost) += gone;
        if (counts_bad) {
          ++c.bad;
          if (endpoint) ++(dst ? c.dst_bad : c.src_bad);
        }
      });
      if (counts_bad) r.bad[id].push_back(static_cast<uint32_t>(i));
    });
  }
}

}  // namespace rdmascope::collector::diagnosis
