// PathRouter (contract in diagnosis_routes.h).
#include "collector/diagnosis/diagnosis_routes.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <unordered_set>
#include <string_view>

namespace rdmascope::collector {
namespace {

// Appends n in decimal (no locale, no allocation beyond the string's own).
void AppendNumber(int n, std::string* out) {
  char digits[16];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), n);
  out->append(digits, end);
}

// Appends "0x<GUID>/<port>" (a fleet's index names some sixty thousand ends).
void AppendEnd(const fabric::PortRef& p, std::string* out) {
  fabric::AppendGuidText(p.guid, out);
  out->push_back('/');
  AppendNumber(p.port, out);
}

// " port <n>" (a number of a few digits stays in the string's own bytes).
std::string PortWords(int port) {
  std::string out = " port ";
  AppendNumber(port, &out);
  return out;
}

// A route's cache key: the source port (its GUID hashed with the port) and the
// destination LID.
uint64_t Key(const FabricAddress& from, uint32_t to_lid) {
  uint64_t h = from.node_guid * 0x9e3779b97f4a7c15ull;
  h ^= (static_cast<uint64_t>(from.port) << 17) ^ (static_cast<uint64_t>(to_lid) << 33) ^ to_lid;
  return h;
}

}  // namespace

Status PathRouter::Refresh(Storage& store) {
  auto version = store.topology.Version();
  if (!version.ok()) return Status::Error("reading the fabric topology version: " + version.status().message());
  if (version.value() != version_) {
    auto topo = store.topology.Topology();
    if (!topo.ok()) return Status::Error("reading the fabric topology: " + topo.status().message());
    topology_ = std::move(topo.value());
    const std::vector<diagnosis::FabricElement> before_elements = std::move(elements_);
    const std::unordered_map<uint64_t, size_t> tables_before = std::move(tables_);
    const int64_t before = version_;
    version_ = topology_.version;
    Index();
    version_before_ = before;
    NoteChanges(before_elements, tables_before);
  }
  auto addresses = store.topology.PortAddresses();
  if (!addresses.ok()) return Status::Error("reading the agents' fabric addresses: " + addresses.status().message());
  addresses_.clear();
  for (const auto& [port, address] : addresses.value())  // in (node, device, port) order
    addresses_[port.node].push_back({port.device, port.port, address});
  return Status::Ok();
}

void PathRouter::Index() {
  // Pairs are kept: each is traced again in place (PairRoute::traced) the
  // first time a pass names it, without building the million lists anew.
  elements_.clear(), switch_link_.clear(), cable_.clear(), switch_.clear(), routes_.clear();
  // A node an earlier version had and this one lacks (a switch that stopped
  // answering, left out of the topology) comes back for tracing.
  // So do the ports a node had and this version lacks (the store keeps no
  // ports of a node the newest sweep did not reach); their cables come back
  // below.
  std::unordered_set<uint64_t> present;
  present.reserve(topology_.fabric.nodes.size());
  std::vector<int> have;
  for (fabric::FabricNode& n : topology_.fabric.nodes) {
    present.insert(n.guid);
    auto was = remembered_nodes_.find(n.guid);
    if (was == remembered_nodes_.end()) continue;
    have.clear();
    for (const fabric::FabricPort& p : n.ports) have.push_back(p.number);
    std::sort(have.begin(), have.end());
    for (const fabric::FabricPort& old : was->second.ports)
      if (!std::binary_search(have.begin(), have.end(), old.number)) {
        fabric::FabricPort p = old;
        p.remote.reset();
        n.ports.push_back(std::move(p));
      }
  }
  for (const auto& [guid, node] : remembered_nodes_) {
    if (present.count(guid)) continue;
    fabric::FabricNode back = node;
    for (fabric::FabricPort& p : back.ports) p.remote.reset();
    topology_.fabric.nodes.push_back(std::move(back));
  }
  for (const fabric::FabricNode& n : topology_.fabric.nodes) remembered_nodes_[n.guid] = n;
  // Cables seen now are remembered; ports without one get back the cable
  // they had, when its other end is still there without one either, or
  // still names this port (a switch not swept keeps its old rows).
  size_t ports = 0, switches = 0;
  for (const fabric::FabricNode& n : topology_.fabric.nodes)
    ports += n.ports.size(), switches += n.type == fabric::NodeType::kSwitch;
  std::unordered_set<fabric::PortRef, PortRefHash> uncabled;
  std::unordered_map<fabric::PortRef, fabric::PortRef, PortRefHash> claimed;  // a port -> the port whose row names it as its remote
  claimed.reserve(ports), remembered_.reserve(ports);
  for (const fabric::FabricNode& n : topology_.fabric.nodes)
    for (const fabric::FabricPort& p : n.ports) {
      if (p.remote) {
        remembered_[{n.guid, p.number}] = *p.remote;
        claimed[{p.remote->guid, p.remote->port}] = {n.guid, p.number};
      } else {
        uncabled.insert({n.guid, p.number});
      }
    }
  std::unordered_set<fabric::PortRef, PortRefHash> down;
  for (fabric::FabricNode& n : topology_.fabric.nodes)
    for (fabric::FabricPort& p : n.ports) {
      if (p.remote) continue;
      const fabric::PortRef me{n.guid, p.number};
      auto it = remembered_.find(me);
      if (it == remembered_.end()) continue;
      const fabric::PortRef other{it->second.guid, it->second.port};
      auto claim = claimed.find(me);
      if (!uncabled.count(other) && !(claim != claimed.end() && claim->second == other)) continue;
      p.remote = it->second;
      down.insert(me);
      down.insert(other);
    }
  table_ = std::make_unique<fabric::RouteTable>(topology_.fabric);
  elements_.reserve(switches + ports / 2 + 1), switch_link_.reserve(switches + ports / 2 + 1);  // a cable has two ports
  cable_.reserve(ports), switch_.reserve(switches);
  for (const fabric::FabricNode& n : topology_.fabric.nodes) {
    if (n.type != fabric::NodeType::kSwitch) continue;
    switch_[n.guid] = static_cast<uint32_t>(elements_.size());
    elements_.push_back({"switch", fabric::GuidText(n.guid), n.description, {}, false});
    switch_link_.push_back(false);
  }
  std::string ea, eb;  // the two ends' names, their memory reused cable after cable
  for (const fabric::FabricNode& n : topology_.fabric.nodes) {
    for (const fabric::FabricPort& p : n.ports) {
      if (!p.remote) continue;
      const fabric::PortRef a{n.guid, p.number}, b{p.remote->guid, p.remote->port};
      if (cable_.count(a) || cable_.count(b)) continue;
      const fabric::FabricNode* other = table_->Node(b.guid);
      ea.clear(), eb.clear();
      AppendEnd(a, &ea), AppendEnd(b, &eb);
      const std::string_view va(ea), vb(eb);
      const bool ordered = va < vb;
      const std::string_view first = ordered ? va : vb, second = ordered ? vb : va;
      std::string subject;
      subject.reserve(first.size() + 3 + second.size());
      subject.append(first).append("<->").append(second);
      const std::string_view desc_b_node = other ? std::string_view(other->description) : vb;
      const std::string pa = PortWords(a.port), pb = PortWords(b.port);
      std::string description;
      description.reserve(n.description.size() + pa.size() + 5 + desc_b_node.size() + pb.size());
      if (ordered) description.append(n.description).append(pa).append(" <-> ").append(desc_b_node).append(pb);
      else description.append(desc_b_node).append(pb).append(" <-> ").append(n.description).append(pa);
      const uint32_t id = static_cast<uint32_t>(elements_.size());
      elements_.push_back({"link", std::move(subject), std::move(description), {}, down.count(a) > 0});
      switch_link_.push_back(n.type == fabric::NodeType::kSwitch && other &&
                             other->type == fabric::NodeType::kSwitch);
      cable_[a] = id, cable_[b] = id;
    }
  }
  graph_.Build(
      topology_.fabric,
      [this](uint64_t guid) {
        auto it = switch_.find(guid);
        return it == switch_.end() ? RouteGraph::kNone : it->second;
      },
      [this](const fabric::PortRef& end) {
        auto it = cable_.find(end);
        return it == cable_.end() ? RouteGraph::kNone : it->second;
      });
}

const FabricAddress* PathRouter::AddressOf(const std::vector<PortAddress>* ports, const std::string& device,
                                           int64_t port) {
  if (!ports || device.empty()) return nullptr;
  for (const PortAddress& p : *ports) {  // without a port: the device's first port with a LID
    if (p.device != device) continue;
    if (port > 0 && p.port == port) return p.address.lid == 0 ? nullptr : &p.address;
    if (port <= 0 && p.address.lid != 0) return &p.address;
  }
  return nullptr;
}

const std::vector<uint32_t>* PathRouter::Route(const FabricAddress& from, uint32_t to_lid) {
  const uint64_t key = Key(from, to_lid);
  auto it = routes_.find(key);
  if (it != routes_.end()) return it->second.empty() ? nullptr : &it->second;
  std::vector<uint32_t>& ids = routes_[key];
  if (!TraceInto(from, to_lid, &ids)) ids.clear();  // cached as empty: not routable in this version
  return ids.empty() ? nullptr : &ids;
}

bool PathRouter::TraceInto(const FabricAddress& from, uint32_t to_lid, std::vector<uint32_t>* ids) const {
  return graph_.TraceInto(from.node_guid, static_cast<int>(from.port), to_lid, ids);
}

size_t PathRouter::PortKeyHash::operator()(const PortKey& k) const {
  const uint64_t h = (k.guid * 0x9e3779b97f4a7c15ull) ^ (k.port_lid * 0xbf58476d1ce4e5b9ull);
  return static_cast<size_t>(h ^ (h >> 31));
}

PathRouter::PortKey PathRouter::KeyOf(const FabricAddress& a) {
  return {a.node_guid, static_cast<uint64_t>(static_cast<uint32_t>(a.port)) << 32 | a.lid};
}

void PathRouter::NoteChanges(const std::vector<diagnosis::FabricElement>& elements_before,
                             const std::unordered_map<uint64_t, size_t>& tables_before) {
  tables_.clear();
  table_changed_.assign(elements_.size(), false);
  for (const fabric::FabricNode& n : topology_.fabric.nodes) {
    if (n.type != fabric::NodeType::kSwitch) continue;
    const size_t h = std::hash<std::string_view>()(
        std::string_view(reinterpret_cast<const char*>(n.lft.data()), n.lft.size()));
    tables_[n.guid] = h;
    auto was = tables_before.find(n.guid);
    auto id = switch_.find(n.guid);
    if (id != switch_.end() && (was == tables_before.end() || was->second != h)) table_changed_[id->second] = true;
  }
  bool same = elements_before.size() == elements_.size();
  for (size_t i = 0; same && i < elements_.size(); ++i) same = elements_before[i].subject == elements_[i].subject;
  if (!same) version_before_ = -1;  // numbered anew: every pair is traced again
}

bool PathRouter::StillRouted(const PairRoute& pair) const {
  if (version_before_ < 0 || pair.traced != version_before_ || pair.crosses.empty()) return false;
  for (uint32_t id : pair.crosses)
    if (id >= table_changed_.size() || table_changed_[id]) return false;
  return true;
}

uint32_t PathRouter::SourceOf(const FabricAddress& a) {
  auto [it, fresh] = source_of_.try_emplace(KeyOf(a), static_cast<uint32_t>(sources_.size()));
  if (fresh) sources_.emplace_back();
  return it->second;
}

size_t PathRouter::IndexOf(const SourcePairs& s, const PortKey& to) {
  const size_t n = s.pairs.size();
  for (size_t k = 0; k < n; ++k)  // from the cursor on, wrapping: the next pair, or one moved a few places
    if (const size_t j = (s.cursor + k) % n; s.pairs[j].first == to) return j;
  return n;
}

PathRouter::PairRoute& PathRouter::PairFrom(uint32_t source, const FabricAddress& a, const FabricAddress& b) {
  SourcePairs& s = sources_[source];
  const PortKey to = KeyOf(b);
  if (s.cursor == 0 || s.pairs[s.cursor - 1].first != to) {  // else the same pair again (its other transport)
    const size_t at = IndexOf(s, to);
    if (at == s.pairs.size()) s.pairs.emplace_back(to, &pair_store_.emplace_back());
    s.cursor = at + 1;
  }
  return Current(*s.pairs[s.cursor - 1].second, a, b);
}

PathRouter::PairRoute& PathRouter::Current(PairRoute& pair, const FabricAddress& a, const FabricAddress& b) {
  if (pair.traced == version_) return pair;
  const bool kept = StillRouted(pair);
  pair.traced = version_;
  if (kept) return pair;
  ++coverage_.pairs_traced;
  // Both ways are walked into reused lists and merged there, so the pair's
  // own list is allocated once, to its size (a fleet's first pass makes
  // half a million), or its memory reused when traced again.
  there_.clear(), back_.clear();
  pair.crosses.clear();
  if (!TraceInto(a, b.lid, &there_) || there_.empty() || !TraceInto(b, a.lid, &back_) || back_.empty())
    return pair;  // not routable in this version
  for (uint32_t id : back_)
    if (std::find(there_.begin(), there_.end(), id) == there_.end()) there_.push_back(id);
  pair.crosses.assign(there_.begin(), there_.end());
  return pair;
}

const std::vector<uint32_t>* PathRouter::MeasuredPair(const FabricAddress& from, const FabricAddress& to) const {
  auto source = source_of_.find(KeyOf(from));
  const PairRoute* pair = nullptr;
  if (source != source_of_.end()) {
    const SourcePairs& s = sources_[source->second];
    const size_t at = IndexOf(s, KeyOf(to));
    if (at < s.pairs.size()) pair = s.pairs[at].second;
  }
  return pair && pair->measured_in == pass_ && !pair->crosses.empty() ? &pair->crosses : nullptr;
}

void PathRouter::Resolve(diagnosis::Input* in,
                         const std::map<fabric::PortRef, std::vector<diagnosis::CounterDelta>>& rises) {
  coverage_ = RouteCoverage();
  ++pass_;
  agents_.clear();
  pairs_crossing_.assign(elements_.size(), 0);
  in->elements = elements_;
  std::vector<bool> at_switch(elements_.size());  // per cable: a rise counted at a switch port
  for (const auto& [port, moved] : rises) {
    auto e = cable_.find(port);
    if (e == cable_.end()) continue;
    auto& into = in->elements[e->second].moved;
    into.insert(into.end(), moved.begin(), moved.end());
    const fabric::FabricNode* n = table_ ? table_->Node(port.guid) : nullptr;
    if (!n || n->type == fabric::NodeType::kSwitch) at_switch[e->second] = true;
  }
  for (size_t i = 0; i < elements_.size(); ++i)
    if (!in->elements[i].moved.empty() && !at_switch[i]) in->elements[i].rose_at_host_only = true;
  for (const auto& [node, ports] : addresses_)  // host cables name the agent's node and device at their end
    for (const PortAddress& p : ports) {
      auto e = cable_.find(fabric::PortRef{p.address.node_guid, static_cast<int>(p.address.port)});
      if (e == cable_.end()) continue;
      in->elements[e->second].host_node = node;
      in->elements[e->second].host_device = p.device;
    }
  if (!table_ || elements_.empty()) {
    coverage_.paths_unrouted = static_cast<int64_t>(in->paths.size());
    return;
  }
  std::vector<bool> crossed(elements_.size());
  // A path end's address, looked up once per (node, device, port) a pass
  // names: per node id, its (device id, port) -> address.
  struct End {
    uint32_t device;
    int64_t port;
    const FabricAddress* address;
    int64_t source;  // its SourcePairs, once it was a path's source (-1: not yet)
  };
  std::vector<std::vector<End>> ends(in->names.size());
  std::vector<std::vector<uint32_t>> agent_rails(in->names.size());  // node id -> rails with an agent noted
  // The end's entry in ends (valid until the node's next new end); null without a device.
  auto address = [&](uint32_t node, uint32_t device, int64_t port, uint32_t rail) -> End* {
    if (device == 0) return nullptr;
    for (End& e : ends[node])
      if (e.device == device && e.port == port) return &e;
    auto it = addresses_.find(in->names[node]);
    const FabricAddress* a = AddressOf(it == addresses_.end() ? nullptr : &it->second, in->names[device], port);
    ends[node].push_back({device, port, a, -1});
    std::vector<uint32_t>& rails = agent_rails[node];
    if (a && std::find(rails.begin(), rails.end(), rail) == rails.end()) {
      rails.push_back(rail);
      agents_.push_back({node, rail, *a});
    }
    return &ends[node].back();
  };
  // The pairs of an older topology or of LIDs since changed: dropped once
  // they outnumber the pass's paths a few times over.
  if (pair_store_.size() > 4 * in->paths.size() + 4096) pair_store_.clear(), sources_.clear(), source_of_.clear();
  for (SourcePairs& s : sources_) s.cursor = 0;
  for (size_t i = 0; i < in->paths.size(); ++i) {
    diagnosis::PathSummary& p = in->paths[i];
    p.routed = nullptr;
    End* src = address(p.src, p.src_device, p.src_port, p.rail);
    const FabricAddress* a = src ? src->address : nullptr;
    int64_t source = -1;
    if (a) {
      if (src->source < 0) src->source = SourceOf(*a);
      source = src->source;
    }
    End* dst = address(p.dst, p.dst_device, p.dst_port, p.rail);  // src may dangle from here
    const FabricAddress* b = dst ? dst->address : nullptr;
    PairRoute* pair = a && b ? &PairFrom(static_cast<uint32_t>(source), *a, *b) : nullptr;
    if (!pair || pair->crosses.empty()) {
      ++coverage_.paths_unrouted;
      continue;
    }
    ++coverage_.paths_routed;
    p.routed = &pair->crosses;
    if (p.not_run || p.sent <= 0 || pair->measured_in == pass_) continue;
    pair->measured_in = pass_;  // a pair's transports count it once
    for (uint32_t id : pair->crosses) {
      crossed[id] = true;
      ++pairs_crossing_[id];
    }
  }
  for (size_t i = 0; i < elements_.size(); ++i) {
    if (!switch_link_[i]) continue;
    ++coverage_.switch_links;
    if (crossed[i]) ++coverage_.switch_links_crossed;
  }
}

}  // namespace rdmascope::collector
