// Diagnose(): the voting over path elements (rules in diagnosis.h).
#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "collector/diagnosis/diagnosis.h"
#include "collector/diagnosis/diagnosis_paths.h"

namespace rdmascope::collector::diagnosis {
namespace {

using nlohmann::json;

// How the remaining bad paths fall on one element.
struct Tally {
  int64_t src_total = 0, src_bad = 0, dst_total = 0, dst_bad = 0, total = 0;
  std::set<std::string> bad_peers, bad_peer_groups;
  std::vector<size_t> bad;
};

struct Candidate {
  std::string scope, subject, node, device;
  double share = 0;
  int priority = 0;  // higher wins a tie of shares
  const Tally* tally = nullptr;  // the element over the paths of every transport
  const char* transport = "";    // the transport whose paths gave the share ("": all)
};

// The tallies of one round over the paths of one transport (or all): per
// host, per NIC ("node/device") and per link between two groups.
struct Tallies {
  std::map<std::string, Tally> hosts, nics, links;
};

// The transports a round tallies alone; "" is all of them.
constexpr const char* kTransports[] = {"", "ud", "rc"};

// One round's tallies: `by[k]` over the paths of kTransports[k], and the
// devices each node was seen with in the paths.
struct RoundTallies {
  std::array<Tallies, 3> by;
  std::map<std::string, std::set<std::string>> devices;
};

std::string Ratio(int64_t bad, int64_t total) { return std::to_string(bad) + "/" + std::to_string(total); }

std::string LinkName(std::string a, std::string b) {
  if (b < a) std::swap(a, b);
  return a + "<->" + b;
}

bool Measured(const PathSummary& p) {
  if (p.not_run) return false;
  if (p.sent > 0) return true;
  for (const auto& [k, n] : p.errors_by_status)
    if (n > 0) return true;
  return false;
}

class Vote {
 public:
  Vote(const Input& in, const Options& o) : o_(o) {
    f_.input = &in;
    for (const NodeFacts& n : in.nodes) {
      f_.group[n.name] = n.group;
      f_.node[n.name] = &n;
      groups_.insert(n.group);
    }
    f_.latency_limit = LatencyLimits(in.paths, o);
    for (const PathSummary& p : in.paths) f_.kind.push_back(Classify(p, f_.latency_limit, o));
    for (size_t i = 0; i < in.paths.size(); ++i) {
      if (Measured(in.paths[i])) ++measured_;
      if (f_.kind[i] != PathKind::kGood) open_.insert(i);
    }
  }

  std::vector<Verdict> Run() {
    PortsDown();
    Responders(PathKind::kRnr);
    Responders(PathKind::kAccess);
    while (VoteOnce()) {
    }
    Unknown();
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
    for (size_t i : paths) open_.erase(i);
  }

  // 1. A port not ACTIVE, with bad or not-run paths on its device.
  void PortsDown() {
    for (const PortFacts& port : f_.input->ports) {
      if (port.active) continue;
      auto n = f_.node.find(port.node);
      if (n != f_.node.end() && n->second->silent) continue;  // its state is old news
      bool not_run = false;
      std::vector<size_t> bad;
      for (size_t i = 0; i < Paths().size(); ++i) {
        const PathSummary& p = Paths()[i];
        bool src = p.src == port.node && (p.src_device.empty() || p.src_device == port.device);
        bool dst = p.dst == port.node && (p.dst_device.empty() || p.dst_device == port.device);
        if (p.not_run && src) not_run = true;
        if ((src || dst) && open_.count(i)) bad.push_back(i);
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
      Finish(f_, bad, o_, &v);
      Explain(bad);
      out_.push_back(std::move(v));
    }
  }

  // 2. A responder that makes its inbound paths fail with rnr / access. The
  // share counts the inbound paths of the transport that failed (these are
  // RC statuses: the node's UD echo may well be fine).
  void Responders(PathKind kind) {
    std::map<std::pair<std::string, std::string>, Tally> in;  // (dst, transport)
    for (size_t i = 0; i < Paths().size(); ++i) {
      const PathSummary& p = Paths()[i];
      if (!Measured(p)) continue;
      Tally& t = in[{p.dst, p.transport}];
      ++t.dst_total;
      if (open_.count(i) && f_.kind[i] == kind) {
        ++t.dst_bad;
        t.bad_peers.insert(p.src);
        t.bad.push_back(i);
      }
    }
    std::set<std::string> named;
    for (const auto& [key, t] : in) {
      const std::string& node = key.first;
      double share = static_cast<double>(t.dst_bad) / static_cast<double>(t.dst_total);
      if (t.dst_bad < o_.min_bad_paths || share < o_.min_share || !named.insert(node).second) continue;
      Verdict v;
      v.scope = "host";
      v.subject = node;
      v.kind = KindName(kind);
      v.confidence = share;
      AddPathEvidence(f_, t.bad, {{"element", "responder"}, {"as_dst", Ratio(t.dst_bad, t.dst_total)},
                                  {"sources", t.bad_peers.size()}, {"voted_on", key.second}},
                      o_, &v);
      AddCounterEvidence(f_, node, "", &v);
      Finish(f_, t.bad, o_, &v);
      Explain(t.bad);
      out_.push_back(std::move(v));
    }
  }

  // 3. One round of the vote; false when no element qualifies. Elements are
  // tallied over all paths and over each transport alone: RC retransmits
  // what a lossy element drops, so its loss may show only on the UD paths —
  // all of them — while its RC paths stay clean. The share that decides is
  // the best of the three; the evidence and the paths explained are the
  // element's bad paths of every transport.
  bool VoteOnce() {
    const RoundTallies round = TallyRound();
    const std::vector<Candidate> cands = CandidatesOf(round);
    if (cands.empty()) return false;
    const Candidate* best = &cands.front();
    for (const Candidate& c : cands)
      if (c.share > best->share || (c.share == best->share && c.priority > best->priority)) best = &c;
    Verdict v = VerdictOf(*best);
    const Tally& t = *best->tally;
    Finish(f_, t.bad, o_, &v);
    Explain(t.bad);
    out_.push_back(std::move(v));
    return true;
  }

  // Counts measured path i on an endpoint's tally, as its source or its
  // destination; a bad path also names the peer and the peer's group.
  void CountEndpoint(Tally& t, bool as_src, const std::string& peer, bool bad, size_t i) const {
    ++(as_src ? t.src_total : t.dst_total);
    ++t.total;
    if (!bad) return;
    ++(as_src ? t.src_bad : t.dst_bad);
    t.bad_peers.insert(peer);
    t.bad_peer_groups.insert(f_.GroupOf(peer));
    t.bad.push_back(i);
  }

  // Counts measured path i on the tallies of one transport: both hosts,
  // both NICs when named, and `link` (LinkName of the two groups; empty
  // when both ends are in one group).
  void CountPath(Tallies& t, const PathSummary& p, const std::string& link, bool bad, size_t i) const {
    CountEndpoint(t.hosts[p.src], true, p.dst, bad, i);
    CountEndpoint(t.hosts[p.dst], false, p.src, bad, i);
    if (!p.src_device.empty()) CountEndpoint(t.nics[p.src + "/" + p.src_device], true, p.dst, bad, i);
    if (!p.dst_device.empty()) CountEndpoint(t.nics[p.dst + "/" + p.dst_device], false, p.src, bad, i);
    if (link.empty()) return;
    Tally& l = t.links[link];
    ++l.total;
    if (bad) {
      ++l.src_bad;
      l.bad.push_back(i);
    }
  }

  // Every measured path counted over all transports and over its own; a
  // path is bad while no verdict explains it.
  RoundTallies TallyRound() const {
    RoundTallies round;
    for (size_t i = 0; i < Paths().size(); ++i) {
      const PathSummary& p = Paths()[i];
      if (!Measured(p)) continue;
      const bool bad = open_.count(i) > 0;
      if (!p.src_device.empty()) round.devices[p.src].insert(p.src_device);
      if (!p.dst_device.empty()) round.devices[p.dst].insert(p.dst_device);
      const std::string ga = f_.GroupOf(p.src), gb = f_.GroupOf(p.dst);
      const std::string link = ga != gb ? LinkName(ga, gb) : std::string();
      for (size_t k = 0; k < round.by.size(); ++k)
        if (k == 0 || p.transport == kTransports[k]) CountPath(round.by[k], p, link, bad, i);
    }
    return round;
  }

  // A host or NIC as a candidate when enough of its paths are bad, its
  // share (the lower of as source and as destination, unless the node is
  // silent or sent nothing) reaches min_share and its bad peers are spread
  // over more than one group (one peer when there is one group). t is its
  // tally over one transport's paths (or all), all the one over all paths.
  void AddEndpointCandidate(std::vector<Candidate>* cands, const char* scope, const std::string& subject,
                            const std::string& node, const std::string& device, const Tally& t, const Tally& all,
                            int priority, const char* transport) const {
    if (t.src_bad + t.dst_bad < o_.min_bad_paths || t.dst_total == 0) return;
    auto n = f_.node.find(node);
    const bool silent = (n != f_.node.end() && n->second->silent) || t.src_total == 0;
    double share = static_cast<double>(t.dst_bad) / static_cast<double>(t.dst_total);
    if (!silent) share = std::min(share, static_cast<double>(t.src_bad) / static_cast<double>(t.src_total));
    if (share < o_.min_share) return;
    const bool spread = groups_.size() > 1 ? t.bad_peer_groups.size() > 1 : t.bad_peers.size() > 1;
    if (spread) cands->push_back({scope, subject, node, device, share, priority, &all, transport});
  }

  // The elements that qualify in this round, per transport (or all): hosts,
  // NICs of nodes seen with two devices or more, and group links.
  std::vector<Candidate> CandidatesOf(const RoundTallies& round) const {
    std::vector<Candidate> cands;
    const Tallies& all = round.by[0];
    for (size_t k = 0; k < round.by.size(); ++k) {
      const Tallies& t = round.by[k];
      for (const auto& [node, h] : t.hosts)
        AddEndpointCandidate(&cands, "host", node, node, "", h, all.hosts.at(node), 3, kTransports[k]);
      for (const auto& [nic, h] : t.nics) {
        std::string node = nic.substr(0, nic.find('/'));
        // One NIC: host and NIC are the same evidence.
        const auto seen = round.devices.find(node);
        if (seen == round.devices.end() || seen->second.size() < 2) continue;
        AddEndpointCandidate(&cands, "nic", nic, node, nic.substr(nic.find('/') + 1), h, all.nics.at(nic), 2,
                             kTransports[k]);
      }
      for (const auto& [link, l] : t.links) {
        if (l.src_bad < o_.min_bad_paths) continue;
        double share = static_cast<double>(l.src_bad) / static_cast<double>(l.total);
        if (share < o_.min_share) continue;
        cands.push_back({"group_link", link, "", "", share, 1, &all.links.at(link), kTransports[k]});
      }
    }
    return cands;
  }

  // The verdict on the winning element: its vote and bad paths, and for a
  // host or NIC whether its agent is silent and its moved error counters.
  Verdict VerdictOf(const Candidate& best) const {
    const Tally& t = *best.tally;
    Verdict v;
    v.scope = best.scope;
    v.subject = best.subject;
    v.confidence = best.share;
    json vote = {{"element", best.scope}};
    if (*best.transport) vote["voted_on"] = best.transport;
    if (best.scope == "group_link") {
      vote["across"] = Ratio(t.src_bad, t.total);
    } else {
      vote["as_src"] = Ratio(t.src_bad, t.src_total);
      vote["as_dst"] = Ratio(t.dst_bad, t.dst_total);
      vote["peers"] = t.bad_peers.size();
      vote["peer_groups"] = t.bad_peer_groups;
    }
    AddPathEvidence(f_, t.bad, vote, o_, &v);
    if (!best.node.empty()) {
      auto n = f_.node.find(best.node);
      if (n != f_.node.end() && n->second->silent)
        v.evidence.push_back({{"what", "agent_silent"}, {"last_report_at_ms", n->second->last_report_at_ms}});
      AddCounterEvidence(f_, best.node, best.device, &v);
    }
    return v;
  }

  // 4. Widespread bad paths that no element explains.
  void Unknown() {
    const int64_t left = static_cast<int64_t>(open_.size());
    if (left < o_.min_bad_paths || static_cast<double>(left) <= o_.unknown_share * static_cast<double>(measured_))
      return;
    std::vector<size_t> bad(open_.begin(), open_.end());
    Verdict v;
    v.scope = "unknown";
    v.subject = "fleet";
    v.confidence = static_cast<double>(left) / static_cast<double>(std::max<int64_t>(measured_, 1));
    AddPathEvidence(f_, bad, {{"element", "none"}, {"unexplained", Ratio(left, measured_)}}, o_, &v);
    Finish(f_, bad, o_, &v);
    Explain(bad);
    out_.push_back(std::move(v));
  }

  const Options& o_;
  Fleet f_;
  std::set<std::string> groups_;
  std::set<size_t> open_;  // bad paths no verdict explains yet
  int64_t measured_ = 0;
  std::vector<Verdict> out_;
};

}  // namespace

std::vector<Verdict> Diagnose(const Input& input, const Options& options) { return Vote(input, options).Run(); }

}  // namespace rdmascope::collector::diagnosis
