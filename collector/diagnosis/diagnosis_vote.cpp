// Diagnose(): the rules of diagnosis.h, in their order, over the numbered
// elements of diagnosis_elements.h.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "collector/diagnosis/diagnosis.h"
#include "collector/diagnosis/diagnosis_elements.h"
#include "collector/diagnosis/diagnosis_paths.h"
#include "collector/diagnosis/diagnosis_tier.h"
#include "common/counter_thresholds.h"

namespace rdmascope::collector::diagnosis {
namespace {

using nlohmann::json;

std::string Ratio(int64_t bad, int64_t total) { return std::to_string(bad) + "/" + std::to_string(total); }

double Share(int64_t bad, int64_t total) {
  return total > 0 ? static_cast<double>(bad) / static_cast<double>(total) : 0;
}

// Higher wins a tie of explained paths and shares (diagnosis.h rule 4): a
// live host's one NIC is the more exact element; a silent host is the host.
int Priority(const Element& e, bool silent) {
  switch (e.scope) {
    case Scope::kHost: return silent ? 6 : 4;
    case Scope::kNic: return 5;
    case Scope::kLink: return e.counters_rose ? 7 : 3;  // a cable whose counters rose beats its host
    case Scope::kSwitch: return 2;
    case Scope::kGroupLink: return 1;
    case Scope::kGroup: return 0;
    case Scope::kFleet: return -1;
  }
  return 0;
}

// Two candidates whose excess differs by less than this part of the larger
// are a tie, and the higher share wins: background loss on a big element's
// many paths must not outweigh the fault a small element explains alone.
constexpr double kExcessTie = 0.2;

struct Candidate {
  uint32_t id = 0;
  double excess = 0;     // its bad paths beyond what the rest's bad share predicts
  double share = 0;      // the share that qualified it (a host: the worse direction)
  double plain = 0;      // bad / total over that transport set: compared alike for every scope
  size_t transport = 0;  // the transport set whose share decided
  int priority = 0;
  bool Beats(const Candidate& o) const {
    if (std::abs(excess - o.excess) > kExcessTie * std::max(excess, o.excess)) return excess > o.excess;
    if (plain != o.plain) return plain > o.plain;
    return priority > o.priority;
  }
};

class Vote {
 public:
  Vote(const Input& in, const Options& o, PassBuffers* buffers) : o_(o) {
    if (!buffers) buffers = &own_buffers_;
    if (!buffers->vote) buffers->vote = std::make_shared<VoteScratch>();
    scratch_ = buffers->vote.get();
    // The per-path arrays take the kept memory; ~Vote hands it back.
    f_.kind.swap(scratch_->kind), f_.kind.clear();
    f_.transport_set.swap(scratch_->transport_set);
    std::swap(f_.rail_transport, scratch_->rail_transport);
    lost_.swap(scratch_->lost);
    f_.input = &in;
    for (const NodeFacts& n : in.nodes) {
      f_.group[n.name] = n.group;
      f_.node[n.name] = &n;
    }
    f_.limit = NumberAndLimit(in, o, &f_.rail_transport);
    {
      // Per numbered "rail|transport": TransportSetOf its transport.
      std::vector<uint8_t> set_of(f_.rail_transport.names.size());
      for (size_t k = 0; k < set_of.size(); ++k) {
        const std::string& key = f_.rail_transport.names[k];
        set_of[k] = static_cast<uint8_t>(TransportSetOf(key.substr(key.rfind('|') + 1)));
      }
      RoomForPaths(f_.transport_set, in.paths.size());
      f_.transport_set.resize(in.paths.size());
      for (size_t i = 0; i < in.paths.size(); ++i) f_.transport_set[i] = set_of[f_.rail_transport.id[i]];
    }
    measured_.resize(in.paths.size());
    open_.resize(in.paths.size());
    RoomForPaths(lost_, in.paths.size()), RoomForPaths(f_.kind, in.paths.size());
    lost_.resize(in.paths.size());
    for (size_t i = 0; i < in.paths.size(); ++i) {
      const PathSummary& p = in.paths[i];
      f_.kind.push_back(Classify(p, &f_.limit[f_.rail_transport.id[i]], o));
      measured_[i] = Measured(p);
      int64_t errors = 0;
      for (const auto& [name, n] : p.errors_by_status) errors += std::max<int64_t>(n, 0);
      lost_[i] = std::clamp<int64_t>(std::max(p.sent - p.received, errors), 0, std::max<int64_t>(p.sent, 0));
      if (measured_[i]) ++measured_count_;
      open_[i] = f_.kind[i] != PathKind::kGood;
      if (open_[i]) ++open_count_;
    }
    index_ = std::make_unique<ElementIndex>(f_, measured_, open_, *buffers);  // rounds look at open paths only
    alpha_ = o_.chance_per_pass / static_cast<double>(std::max<size_t>(1, index_->elements().size() * kTransportSets));
  }

  ~Vote() {
    scratch_->kind.swap(f_.kind);
    scratch_->transport_set.swap(f_.transport_set);
    std::swap(scratch_->rail_transport, f_.rail_transport);
    scratch_->lost.swap(lost_);
  }
  Vote(const Vote&) = delete;
  Vote& operator=(const Vote&) = delete;

  std::map<std::string, double> NetworkMedians() const {
    std::map<std::string, double> out;
    for (size_t id = 0; id < f_.limit.size(); ++id) out[f_.rail_transport.names[id]] = f_.limit[id].network_median_us;
    return out;
  }

  std::vector<Verdict> Run() {
    SwitchesDown();
    PortsDown();
    Responders(PathKind::kRnr);
    Responders(PathKind::kAccess);
    FleetLatency();
    for (TierFinding& t : SwitchTierVerdicts(f_, measured_, open_, o_)) Emit(std::move(t.verdict), t.paths);  // 3b
    const ElementIndex& index = *index_;
    const Tallies tallies(f_, index, measured_, *scratch_);
    while (open_count_ > 0 && VoteOnce(index, tallies)) {
    }
    FabricAlone(index);
    Unknown();
    LeafGroupsAsSwitches(*f_.input, &out_);  // 3b
    std::sort(out_.begin(), out_.end(), [](const Verdict& a, const Verdict& b) {
      if (a.severity != b.severity) return a.severity == "critical";
      if (a.scope != b.scope) return a.scope < b.scope;
      return a.subject < b.subject;
    });
    return std::move(out_);
  }

 private:
  const std::vector<PathSummary>& Paths() const { return f_.input->paths; }

  void Explain(const std::vector<size_t>& paths) {
    for (size_t i : paths)
      if (open_[i]) open_[i] = false, --open_count_;
  }

  void Emit(Verdict v, const std::vector<size_t>& bad) {
    Finish(f_, bad, o_, &v);
    Explain(bad);
    named_.insert(v.scope + "|" + v.subject);
    out_.push_back(std::move(v));
  }

  // A path end on `port`: same node and device and, when both know it, port.
  // A path without a device matches only a node with one port.
  bool OnPort(uint32_t node, uint32_t device, int64_t port_no, const PortFacts& port) const {
    if (f_.Name(node) != port.node) return false;
    if (device == 0) return PortsOf(port.node) == 1;
    return f_.Name(device) == port.device && (port_no == 0 || port_no == port.port);
  }
  size_t PortsOf(const std::string& node) const {
    size_t n = 0;
    for (const PortFacts& p : f_.input->ports) n += p.node == node ? 1 : 0;
    return n;
  }

  // 1a. Ports not ACTIVE on min_bad_paths nodes or more, all cabled to one
  // switch: the switch went down (a leaf that fails takes its hosts' links
  // with it), one verdict, not one per port.
  void SwitchesDown() {
    std::map<std::string, std::vector<const PortFacts*>> by_switch;
    std::map<std::string, std::set<std::string>> cabled;  // switch -> nodes cabled to it
    for (const PortFacts& port : f_.input->ports) {
      if (port.switch_guid.empty()) continue;
      cabled[port.switch_guid].insert(port.node);
      auto n = f_.node.find(port.node);
      if (!port.active && (n == f_.node.end() || !n->second->silent)) by_switch[port.switch_guid].push_back(&port);
    }
    const ElementIndex& index = *index_;
    for (const auto& [sw, ports] : by_switch) {
      std::set<std::string> nodes;
      for (const PortFacts* p : ports) nodes.insert(p->node);
      if (static_cast<int64_t>(nodes.size()) < o_.min_bad_paths ||
          static_cast<double>(nodes.size()) < o_.min_share * static_cast<double>(cabled[sw].size()))
        continue;
      std::vector<bool> on_node(index.elements().size());  // host elements with a port down here
      for (const std::string& node : nodes) {
        const int64_t id = index.Find(Scope::kHost, node);
        if (id >= 0) on_node[static_cast<size_t>(id)] = true;
      }
      std::vector<size_t> bad;
      for (size_t i = 0; i < Paths().size(); ++i) {
        if (!open_[i] || !(on_node[index.SrcHost(i)] || on_node[index.DstHost(i)])) continue;
        const PathSummary& p = Paths()[i];
        for (const PortFacts* port : ports)
          if (OnPort(p.src, p.src_device, p.src_port, *port) || OnPort(p.dst, p.dst_device, p.dst_port, *port)) {
            bad.push_back(i);
            break;
          }
      }
      Verdict v;
      v.scope = "switch";
      v.subject = sw;
      v.kind = "unreachable";
      v.confidence = static_cast<double>(nodes.size()) / static_cast<double>(cabled[sw].size());
      v.evidence.push_back({{"what", "ports_down"},
                            {"switch", ports.front()->switch_description},
                            {"nodes_down", nodes.size()},
                            {"nodes_cabled", cabled[sw].size()}});
      for (const PortFacts* p : ports) down_explained_.insert(p);
      if (!bad.empty()) AddPathEvidence(f_, bad, {{"element", "switch"}}, o_, &v);
      Emit(std::move(v), bad);
    }
  }

  // 1. A port not ACTIVE, with bad or not-run paths of its own.
  void PortsDown() {
    for (const PortFacts& port : f_.input->ports) {
      if (port.active || down_explained_.count(&port)) continue;
      auto n = f_.node.find(port.node);
      if (n != f_.node.end() && n->second->silent) continue;  // its state is old news
      bool not_run = false;
      std::vector<size_t> bad;
      const int64_t host = index_->Find(Scope::kHost, port.node);
      for (size_t i = 0; host >= 0 && i < Paths().size(); ++i) {
        if (index_->SrcHost(i) != host && index_->DstHost(i) != host) continue;
        const PathSummary& p = Paths()[i];
        const bool src = OnPort(p.src, p.src_device, p.src_port, port);
        const bool dst = OnPort(p.dst, p.dst_device, p.dst_port, port);
        if (p.not_run && src) not_run = true;
        if ((src || dst) && open_[i]) bad.push_back(i);
      }
      if (bad.empty() && !not_run) continue;
      Verdict v;
      v.scope = "port";
      v.subject = port.node + "/" + port.device + "/" + std::to_string(port.port);
      v.kind = "port_down";
      v.confidence = 1.0;
      v.evidence.push_back({{"what", "port_state"}, {"node", port.node}, {"device", port.device},
                            {"port", port.port}, {"state", port.state.empty() ? "not ACTIVE" : port.state}});
      if (!bad.empty()) AddPathEvidence(f_, bad, json::object(), o_, &v);
      AddCounterEvidence(f_, port.node, port.device, &v);
      Emit(std::move(v), bad);
    }
  }

  // 2. A responder that makes its inbound paths fail with rnr / access. The
  // share counts the inbound paths of the transport that failed (these are
  // RC statuses: the node's UD echo may well be fine).
  void Responders(PathKind kind) {
    const ElementIndex& index = *index_;
    const size_t n = index.elements().size();
    // (dst host, transport set) -> its paths, and its failed ones (kept in
    // the scratch: a fleet's elements make them megabytes)
    std::vector<int64_t>& total = scratch_->responder_total;
    std::vector<std::vector<size_t>>& bad = scratch_->responder_bad;
    total.assign(n * kTransportSets, 0);
    bad.resize(n * kTransportSets);
    for (std::vector<size_t>& b : bad) b.clear();
    for (size_t i = 0; i < Paths().size(); ++i) {
      if (!measured_[i]) continue;
      const size_t key = index.DstHost(i) * kTransportSets + f_.transport_set[i];
      ++total[key];
      if (open_[i] && f_.kind[i] == kind) bad[key].push_back(i);
    }
    std::set<uint32_t> named;
    for (size_t slot = 0; slot < bad.size(); ++slot) {  // per host: rc, then ud, then others
      const size_t key = slot - slot % kTransportSets + (kTransportSets - 1 - slot % kTransportSets);
      const auto host = static_cast<uint32_t>(key / kTransportSets);
      const int64_t nbad = static_cast<int64_t>(bad[key].size());
      const double share = Share(nbad, total[key]);
      if (nbad < o_.min_bad_paths || share < o_.min_share || !named.insert(host).second) continue;
      std::set<uint32_t> sources;
      for (size_t i : bad[key]) sources.insert(index.SrcHost(i));
      const std::string& node = index.elements()[host].node;
      Verdict v;
      v.scope = "host";
      v.subject = node;
      v.kind = KindName(kind);
      v.confidence = share;
      AddPathEvidence(f_, bad[key], {{"element", "responder"}, {"as_dst", Ratio(nbad, total[key])},
                                     {"sources", sources.size()}, {"voted_on", TransportSetName(key % kTransportSets)}},
                      o_, &v);
      AddCounterEvidence(f_, node, "", &v);
      Emit(std::move(v), bad[key]);
    }
  }

  // 3. The fleet's network time as a whole above its baseline.
  void FleetLatency() {
    const auto& base = f_.input->network_baseline_us;
    std::set<std::string> rails, slow_rails, slow_keys;
    json evidence = json::array();
    std::vector<bool> slow_id(f_.limit.size());
    for (size_t id = 0; id < f_.limit.size(); ++id) {
      const std::string& key = f_.rail_transport.names[id];
      const LatencyLimit& limit = f_.limit[id];
      auto b = base.find(key);
      if (b == base.end() || b->second <= 0 || limit.network_median_us <= 0) continue;
      const std::string rail = key.substr(0, key.rfind('|'));
      rails.insert(rail);
      const double m = limit.network_median_us;
      if (m < b->second * o_.fleet_latency_factor || m - b->second < o_.fleet_latency_floor_us) continue;
      slow_rails.insert(rail);
      slow_keys.insert(key);
      slow_id[id] = true;
      evidence.push_back({{"what", "fleet_network_time"}, {"rail_transport", key},
                          {"baseline_us", std::round(b->second * 10) / 10}, {"median_us", std::round(m * 10) / 10}});
    }
    if (slow_keys.empty()) return;
    std::vector<size_t> explained;
    int64_t on_keys = 0, slow = 0;
    for (size_t i = 0; i < Paths().size(); ++i) {
      const PathSummary& p = Paths()[i];
      const uint32_t id = f_.rail_transport.id[i];
      if (!measured_[i] || !p.network_p50_us || !slow_id[id]) continue;
      ++on_keys;
      if (*p.network_p50_us >= base.at(f_.rail_transport.names[id]) * o_.fleet_latency_factor) ++slow;
      if (open_[i] && (f_.kind[i] == PathKind::kLatency || f_.kind[i] == PathKind::kHostBusy)) explained.push_back(i);
    }
    Verdict v;
    v.scope = "fleet";
    if (slow_rails == rails) {
      v.subject = "all";
    } else {
      v.subject = "rail:";
      for (const std::string& r : slow_rails) v.subject += (v.subject.size() > 5 ? "," : "") + r;
    }
    v.kind = "latency";
    v.confidence = Share(slow, on_keys);
    for (json& e : evidence) v.evidence.push_back(std::move(e));
    if (!explained.empty()) AddPathEvidence(f_, explained, {{"element", "fleet"}}, o_, &v);
    Emit(std::move(v), explained);
  }

  // The chance of k or more in n trials at probability p (the binomial
  // tail), summed from k up in log space until the terms stop counting.
  static double TailAtLeast(int64_t n, double p, int64_t k) {
    if (k <= 0) return 1;
    if (k > n) return 0;
    if (p <= 0) return 0;
    if (p >= 1) return 1;
    const double nn = static_cast<double>(n), lp = std::log(p), lq = std::log1p(-p);
    double log_term = std::lgamma(nn + 1) - std::lgamma(static_cast<double>(k) + 1) -
                      std::lgamma(nn - static_cast<double>(k) + 1) + static_cast<double>(k) * lp +
                      (nn - static_cast<double>(k)) * lq;
    double sum = 0;
    for (int64_t j = k; j <= n; ++j) {
      const double term = std::exp(log_term);
      sum += term;
      if (term < 1e-15 * sum || (term == 0 && static_cast<double>(j) > nn * p)) break;
      log_term += std::log(static_cast<double>(n - j)) - std::log(static_cast<double>(j + 1)) + lp - lq;
    }
    return std::min(sum, 1.0);
  }

  // k of n more than chance gives at the rest's rate (rule 4's significance).
  bool BeyondChance(int64_t n, double rest, int64_t k) const {
    return static_cast<double>(k) > static_cast<double>(n) * rest && TailAtLeast(n, rest, k) < alpha_;
  }

  // Its paths' probes pooled lost pooled_min_loss and pooled_factor x what
  // the rest lost, and its bad paths are as many as that loss rate spread
  // evenly would spoil (consistent_share of them at least): loss on some of
  // its paths only is exonerated by the clean rest.
  bool PooledLoss(int64_t sent, int64_t lost, int64_t paths, int64_t bad, const Count& all) const {
    if (lost < o_.min_lost_probes || sent <= 0 || paths <= 0) return false;
    const double rate = Share(lost, sent);
    const double rest = Share(all.lost - lost, all.sent - sent);
    if (rate < o_.pooled_min_loss || rate < o_.pooled_factor * rest) return false;
    if (!BeyondChance(sent, rest, lost)) return false;
    const int64_t per_path = std::max<int64_t>(1, sent / paths);
    return Share(bad, paths) >= o_.consistent_share * SpoiledShare(per_path, rate);
  }

  // The chance that a path of n probes, each lost with probability rate,
  // loses at least bad_loss_ratio of them (a bad path).
  double SpoiledShare(int64_t n, double rate) const {
    const int64_t k = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(o_.bad_loss_ratio * static_cast<double>(n))));
    return TailAtLeast(n, rate, k);
  }

  // The share of element id's paths that are bad over transport set k when
  // it qualifies (rule 4), else < 0.
  double Qualifies(const ElementIndex& index, const Round& r, uint32_t id, size_t k) const {
    const Element& e = index.elements()[id];
    const Count& c = r.count[id][k];
    const Count& all = r.all[k];
    if (e.scope != Scope::kHost && e.scope != Scope::kNic) {
      if (e.scope == Scope::kGroup && index.groups() < 2) return -1;  // one group: the fleet is the same
      if (c.bad < o_.min_bad_paths) return -1;
      const double share = Share(c.bad, c.total);
      if (share >= o_.min_share && BeyondChance(c.total, Share(all.bad - c.bad, all.total - c.total), c.bad))
        return share;
      return e.scope != Scope::kFleet && PooledLoss(c.sent, c.lost, c.total, c.bad, all) ? share : -1;
    }
    if (c.src_bad + c.dst_bad < o_.min_bad_paths || c.dst_total == 0) return -1;
    auto n = f_.node.find(e.node);
    const bool silent = (n != f_.node.end() && n->second->silent) || c.src_total == 0;
    double share = Share(c.dst_bad, c.dst_total);
    if (!silent) share = std::min(share, Share(c.src_bad, c.src_total));
    if (share >= o_.min_share) {
      if (e.home_group < 0) return share;
      const Count& g = r.count[static_cast<size_t>(e.home_group)][k];  // it must stand out from its group
      const double rest = Share(g.bad - c.bad, g.total - c.total);
      if (share - rest >= o_.standout_share) return share;
    }
    const bool pooled = PooledLoss(c.dst_sent, c.dst_lost, c.dst_total, c.dst_bad, all) &&
                        (silent || PooledLoss(c.src_sent, c.src_lost, c.src_total, c.src_bad, all));
    return pooled ? share : -1;
  }

  // A host's or NIC's bad peers lie in more than one group (more than one
  // peer when the fleet has one group).
  bool Spread(const ElementIndex& index, const Round& r, uint32_t id) const {
    std::set<uint32_t> peers;
    std::set<int32_t> groups;
    const int64_t host = index.Find(Scope::kHost, index.elements()[id].node);
    for (uint32_t i : r.bad[id]) {
      const bool is_dst = static_cast<int64_t>(index.DstHost(i)) == host;
      peers.insert(is_dst ? index.SrcHost(i) : index.DstHost(i));
      groups.insert(index.PeerGroup(i, is_dst));
      if (index.groups() > 1 ? groups.size() > 1 : peers.size() > 1) return true;
    }
    return false;
  }

  // 4. One round of the greedy vote; false when no element qualifies.
  bool VoteOnce(const ElementIndex& index, const Tallies& tallies) {
    Round& round = scratch_->round;
    tallies.RoundOf(open_, lost_, &round);
    const Round& r = round;
    bool found = false;
    Candidate best;
    for (uint32_t id = 0; id < index.elements().size(); ++id) {
      if (static_cast<int64_t>(r.bad[id].size()) < o_.min_bad_paths) continue;
      Candidate c;
      c.id = id;
      const Count& n = r.count[id][0];
      c.excess = n.bad - n.total * Share(r.all[0].bad - n.bad, r.all[0].total - n.total);
      {
        const Element& e = index.elements()[id];
        auto n = e.node.empty() ? f_.node.end() : f_.node.find(e.node);
        c.priority = Priority(e, n != f_.node.end() && n->second->silent);
      }
      c.share = -1;
      for (size_t k = 0; k < kTransportSets; ++k) {
        const double s = Qualifies(index, r, id, k);
        if (s > c.share) c.share = s, c.transport = k, c.plain = Share(r.count[id][k].bad, r.count[id][k].total);
      }
      if (c.share < 0 || (found && !c.Beats(best))) continue;
      const Scope scope = index.elements()[id].scope;
      if ((scope == Scope::kHost || scope == Scope::kNic) && !Spread(index, r, id)) continue;
      best = c;
      found = true;
    }
    if (!found) return false;
    // A busy host, or one that answers nothing at all, is the host, not its
    // NIC: when a NIC won on paths that are mostly host_busy or unreachable
    // and its host has just those bad paths, name the host.
    const Element& won = index.elements()[best.id];
    if (won.scope == Scope::kNic) {
      std::vector<size_t> paths(r.bad[best.id].begin(), r.bad[best.id].end());
      const int64_t host = index.Find(Scope::kHost, won.node);
      const PathKind kind = DominantKind(f_, paths);
      if (host >= 0 && (kind == PathKind::kHostBusy || kind == PathKind::kUnreachable) &&
          r.bad[static_cast<size_t>(host)].size() == r.bad[best.id].size())
        best.id = static_cast<uint32_t>(host);
    }
    std::vector<size_t> bad(r.bad[best.id].begin(), r.bad[best.id].end());
    Emit(VerdictOf(index, r, best), bad);
    return true;
  }

  Verdict VerdictOf(const ElementIndex& index, const Round& r, const Candidate& best) const {
    const Element& e = index.elements()[best.id];
    const Count& c = r.count[best.id][0];
    Verdict v;
    v.scope = ScopeName(e.scope);
    v.subject = e.subject();
    v.confidence = best.share;
    json vote = {{"element", v.scope}};
    if (*TransportSetName(best.transport)) vote["voted_on"] = TransportSetName(best.transport);
    const std::vector<size_t> bad(r.bad[best.id].begin(), r.bad[best.id].end());
    if (e.scope == Scope::kHost || e.scope == Scope::kNic) {
      vote["as_src"] = Ratio(c.src_bad, c.src_total);
      vote["as_dst"] = Ratio(c.dst_bad, c.dst_total);
      std::set<std::string> peers, groups;
      const int64_t host = index.Find(Scope::kHost, e.node);
      for (size_t i : bad) {
        const bool is_dst = static_cast<int64_t>(index.DstHost(i)) == host;
        peers.insert(f_.Name(is_dst ? Paths()[i].src : Paths()[i].dst));
        const int32_t g = index.PeerGroup(i, is_dst);
        groups.insert(g < 0 ? std::string() : index.elements()[static_cast<size_t>(g)].subject());
      }
      vote["peers"] = peers.size();
      vote["peer_groups"] = groups;
    } else {
      vote["across"] = Ratio(c.bad, c.total);
      if (e.fabric) vote["description"] = e.fabric->description;
    }
    AddPathEvidence(f_, bad, vote, o_, &v);
    if (e.fabric) {
      AddElementCounterEvidence(*e.fabric, &v);
      if (e.counters_rose) v.confidence = std::max(v.confidence, 0.95);
    }
    if (!e.node.empty()) {
      auto n = f_.node.find(e.node);
      if (n != f_.node.end() && n->second->silent)
        v.evidence.push_back({{"what", "agent_silent"}, {"last_report_at_ms", n->second->last_report_at_ms}});
      AddCounterEvidence(f_, e.node, e.device, &v);
    }
    return v;
  }

  // 5. Fabric elements no verdict names whose error counters rose past their
  // thresholds. (One the sweep lost but no path blames has been routed
  // around: the fabric's own events say it is gone.)
  void FabricAlone(const ElementIndex& index) {
    static const CounterThresholds kThresholds = DefaultCounterThresholds();
    struct Rise {
      const Element* link;
      json moved;
      std::vector<std::string> switches;  // the switch GUIDs at its ends
    };
    std::vector<Rise> rises;
    std::map<std::string, int> per_switch;
    for (const Element& e : index.elements()) {
      if (!e.fabric || e.scope != Scope::kLink || named_.count("link|" + e.subject())) continue;
      const FabricElement& fe = *e.fabric;  // a host cable whose host or NIC has a verdict: theirs
      if (!fe.host_node.empty() &&
          (named_.count("host|" + fe.host_node) || named_.count("nic|" + fe.host_node + "/" + fe.host_device)))
        continue;
      Rise r{&e, json::array(), {}};
      for (const CounterDelta& c : e.fabric->moved) {
        auto t = kThresholds.find(c.name);
        const int64_t limit = c.name == "link_downed" ? 1 : t == kThresholds.end() ? -1 : static_cast<int64_t>(t->second);
        if (limit > 0 && c.delta >= limit) r.moved.push_back(c.name);
      }
      if (r.moved.empty()) continue;
      bool cause_named = false;  // a switch at either end has a verdict: its cables' counters are its story
      const std::string& link = e.subject();
      const size_t between = link.find("<->");
      for (const std::string& end : {link.substr(0, between), link.substr(between + 3)}) {
        const std::string guid = end.substr(0, end.find('/'));
        if (index.Find(Scope::kSwitch, guid) < 0) continue;
        cause_named = cause_named || named_.count("switch|" + guid) > 0;
        r.switches.push_back(guid);
        ++per_switch[guid];
      }
      if (!cause_named) rises.push_back(std::move(r));
    }
    // Cables of one switch whose counters rose together are that switch's
    // (a switch that rebooted downs every link it has): one verdict on it.
    std::map<std::string, std::vector<const Rise*>> on_switch;
    for (const Rise& r : rises) {
      const std::string* shared = nullptr;
      for (const std::string& g : r.switches)
        if (per_switch[g] >= 2 && (!shared || per_switch[g] > per_switch[*shared])) shared = &g;
      if (shared) {
        on_switch[*shared].push_back(&r);
        continue;
      }
      Verdict v;
      v.scope = "link";
      v.subject = r.link->subject();
      v.kind = "link_errors";
      v.confidence = 1.0;
      v.evidence.push_back({{"what", "fabric"}, {"description", r.link->fabric->description}, {"over_threshold", r.moved}});
      AddElementCounterEvidence(*r.link->fabric, &v);
      Finish(f_, {}, o_, &v);
      named_.insert(v.scope + "|" + v.subject);
      out_.push_back(std::move(v));
    }
    for (const auto& [guid, links] : on_switch) {
      Verdict v;
      v.scope = "switch";
      v.subject = guid;
      v.kind = "link_errors";
      v.confidence = 1.0;
      const Element& sw = index.elements()[static_cast<size_t>(index.Find(Scope::kSwitch, guid))];
      v.evidence.push_back({{"what", "fabric"}, {"description", sw.fabric ? sw.fabric->description : ""},
                            {"cables_with_errors", links.size()}});
      for (const Rise* r : links) AddElementCounterEvidence(*r->link->fabric, &v);
      Finish(f_, {}, o_, &v);
      named_.insert(v.scope + "|" + v.subject);
      out_.push_back(std::move(v));
    }
  }

  // 6. Widespread bad paths that no element explains.
  void Unknown() {
    const int64_t left = open_count_;
    if (left < o_.min_bad_paths || static_cast<double>(left) <= o_.unknown_share * static_cast<double>(measured_count_))
      return;
    std::vector<size_t> bad;
    for (size_t i = 0; i < open_.size(); ++i)
      if (open_[i]) bad.push_back(i);
    Verdict v;
    v.scope = "unknown";
    v.subject = "fleet";
    v.confidence = Share(left, std::max<int64_t>(measured_count_, 1));
    AddPathEvidence(f_, bad, {{"element", "none"}, {"unexplained", Ratio(left, measured_count_)}}, o_, &v);
    Emit(std::move(v), bad);
  }

  const Options& o_;
  Fleet f_;
  std::vector<bool> measured_, open_;  // per path; open: bad and no verdict explains it yet
  std::vector<int64_t> lost_;          // per path: probes lost
  int64_t measured_count_ = 0, open_count_ = 0;
  double alpha_ = 0;  // one element's chance_per_pass share (BeyondChance)
  std::set<std::string> named_;  // scope|subject of every verdict made
  std::set<const PortFacts*> down_explained_;  // ports a switch verdict took
  std::vector<Verdict> out_;
  PassBuffers own_buffers_;  // when the caller keeps none
  VoteScratch* scratch_ = nullptr;  // buffers->vote
  std::unique_ptr<ElementIndex> index_;
};

}  // namespace

std::vector<Verdict> Diagnose(const Input& input, const Options& options) {
  return Vote(input, options, nullptr).Run();
}

std::vector<Verdict> Diagnose(const Input& input, const Options& options,
                              std::map<std::string, double>* network_medians_us) {
  return Diagnose(input, options, network_medians_us, nullptr);
}

std::vector<Verdict> Diagnose(const Input& input, const Options& options,
                              std::map<std::string, double>* network_medians_us, PassBuffers* buffers) {
  Vote vote(input, options, buffers);
  if (network_medians_us) *network_medians_us = vote.NetworkMedians();
  return vote.Run();
}

std::map<std::string, double> UpdateNetworkBaseline(const std::map<std::string, double>& before, const Input& input,
                                                    const Options& options) {
  std::map<std::string, double> medians;
  for (const auto& [key, limit] : LatencyLimits(input, options)) medians[key] = limit.network_median_us;
  return UpdateNetworkBaseline(before, medians, options);
}

std::map<std::string, double> UpdateNetworkBaseline(const std::map<std::string, double>& before,
                                                    const std::map<std::string, double>& network_medians_us,
                                                    const Options& options) {
  std::map<std::string, double> after = before;
  for (const auto& [key, m] : network_medians_us) {
    if (m <= 0) continue;
    auto it = after.find(key);
    if (it == after.end()) {
      after[key] = m;
    } else if (m < it->second * options.fleet_latency_factor) {
      it->second += (m - it->second) / 5;
    }
  }
  return after;
}

}  // namespace rdmascope::collector::diagnosis
