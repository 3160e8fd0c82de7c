#include "fabric/sweep.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "fabric/mad_codec.h"

namespace rdmascope::fabric {
namespace {

constexpr int kMaxHops = 63;
constexpr int kPhysLinkUp = 5;

struct NodeState {
  FabricNode node;
  std::map<int, FabricPort> ports;
  std::set<int> ports_asked;
  std::map<int, uint64_t> port_guids;  // from NodeInfo, by the port it arrived through
  bool reported_unreachable = false;
  bool lft_failed = false;  // a block or SwitchInfo failed: the table is dropped
  // The PMA's ClassPortInfo: asked once, before the node's first counters;
  // the ports whose counters wait for it (port, LID).
  enum class Pma { kUnasked, kAsking, kAnswered } pma = Pma::kUnasked;
  std::optional<PmaCapabilities> pma_caps;  // none: ClassPortInfo failed, every attribute is asked
  std::vector<std::pair<int, uint32_t>> pma_waiting;
  // A switch's port 0 CapabilityMask, which speaks for its external ports
  // (theirs is reserved); none until port 0 answered.
  std::optional<uint32_t> port0_capmask;
};

class Sweeper {
 public:
  Sweeper(MadTransport& transport, const SweepOptions& options)
      : options_(options), engine_(transport, options.engine) {}

  Result<Fabric> Run() {
    auto start = std::chrono::steady_clock::now();
    QueryNode({}, std::nullopt);
    Status s = engine_.Run();
    if (!s.ok()) return s;
    NameSilentNodes();
    Fabric f = Assemble();
    f.stats = engine_.stats();
    f.sweep_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    return f;
  }

 private:
  void QueryNode(std::vector<int> path, std::optional<RemoteEnd> via) {
    std::string what = "NodeInfo via DR " + PathText(path);
    engine_.Submit(DirectedGet(kAttrNodeInfo, 0, path), what, [this, path, via, what](const MadAnswer& a) {
      Status st = a.ok ? SmpStatus(*a.mad, "NodeInfo") : Status::Error(a.error);
      if (!st.ok()) {
        Unreachable u;
        u.path = PathText(path);
        u.via = via;
        u.what = a.ok ? what + ": " + st.message() : a.error;
        unreachable_.push_back(std::move(u));
        return;
      }
      OnNodeInfo(path, via, ParseNodeInfo(*a.mad));
    });
  }

  void OnNodeInfo(const std::vector<int>& path, std::optional<RemoteEnd> via, const NodeInfoData& info) {
    if (via) {
      links_[{via->guid, via->port}] = RemoteEnd{info.node_guid, info.local_port};
      links_[{info.node_guid, info.local_port}] = *via;
    }
    auto it = nodes_.find(info.node_guid);
    if (it != nodes_.end()) {
      it->second->port_guids.emplace(info.local_port, info.port_guid);
      // Seen before through another cable: a CA's other port still needs its PortInfo.
      if (info.type != NodeType::kSwitch) QueryPort(it->second.get(), path, info.local_port, path.empty());
      return;
    }
    auto st = std::make_unique<NodeState>();
    NodeState* n = st.get();
    n->node.guid = info.node_guid;
    n->node.type = info.type;
    n->node.num_ports = info.num_ports;
    n->node.dr_path = path;
    n->port_guids.emplace(info.local_port, info.port_guid);
    nodes_.emplace(info.node_guid, std::move(st));

    engine_.Submit(DirectedGet(kAttrNodeDesc, 0, path), "NodeDescription via DR " + PathText(path),
                   [this, n](const MadAnswer& a) {
                     Status s = a.ok ? SmpStatus(*a.mad, "NodeDescription") : Status::Error(a.error);
                     if (s.ok()) n->node.description = ParseNodeDescription(*a.mad);
                     else Partial(n, s.message());
                   });
    if (info.type == NodeType::kSwitch) {
      engine_.Submit(DirectedGet(kAttrSwitchInfo, 0, path), "SwitchInfo via DR " + PathText(path),
                     [this, n, path](const MadAnswer& a) {
                       Status s = a.ok ? SmpStatus(*a.mad, "SwitchInfo") : Status::Error(a.error);
                       if (!s.ok()) {
                         n->lft_failed = true;
                         Partial(n, s.message());
                       } else if (options_.routes) {
                         ReadLft(n, path, ParseSwitchInfo(*a.mad));
                       }
                     });
      // Port 0 carries the switch's LID; the other ports follow once it is known
      // so that their PMA queries can go out with their PortInfo.
      std::string what0 = "PortInfo port 0 via DR " + PathText(path);
      int arrival = info.local_port;
      engine_.Submit(DirectedGet(kAttrPortInfo, 0, path), what0, [this, n, path, arrival](const MadAnswer& a) {
        Status s = a.ok ? SmpStatus(*a.mad, "PortInfo") : Status::Error(a.error);
        if (!s.ok()) {
          Partial(n, s.message());
        } else {
          FabricPort p0;
          ParsePortInfo(*a.mad, &p0);
          n->node.lid = p0.lid;
          n->port0_capmask = ParsePortCapabilityMask(*a.mad);
        }
        for (int p = 1; p <= n->node.num_ports; ++p) QuerySwitchPort(n, path, p, arrival);
      });
    } else {
      QueryPort(n, path, info.local_port, path.empty());
    }
  }

  // The LinearForwardingTable up to LinearFDBTop, one block per MAD; any
  // block that fails drops the whole table (Assemble) and names the block.
  void ReadLft(NodeState* n, const std::vector<int>& path, const SwitchInfoData& sw) {
    if (sw.linear_fdb_cap == 0) return;  // no linear table (a random or no unicast table)
    int top = std::min(sw.linear_fdb_top, sw.linear_fdb_cap - 1);
    n->node.lft.assign(static_cast<size_t>(top) + 1, kNoRoute);
    for (int block = 0; block <= top / kLftBlock; ++block) {
      std::string what = "LinearForwardingTable block " + std::to_string(block) + " via DR " + PathText(path);
      engine_.Submit(DirectedGet(kAttrLinearFwdTable, static_cast<uint32_t>(block), path), what,
                     [this, n, block](const MadAnswer& a) {
                       Status s = a.ok ? SmpStatus(*a.mad, "LinearForwardingTable") : Status::Error(a.error);
                       if (!s.ok()) {
                         n->lft_failed = true;
                         Partial(n, s.message() + " (its forwarding table is left out)");
                         return;
                       }
                       uint8_t ports[kLftBlock];
                       ParseLftBlock(*a.mad, ports);
                       size_t first = static_cast<size_t>(block) * kLftBlock;
                       for (size_t i = 0; i < kLftBlock && first + i < n->node.lft.size(); ++i)
                         n->node.lft[first + i] = ports[i];
                     });
    }
  }

  // PortInfo of one port; `then` runs on the stored port once it answered.
  void SubmitPortInfo(NodeState* n, const std::vector<int>& path, int port, std::function<void(FabricPort&)> then) {
    std::string what = "PortInfo port " + std::to_string(port) + " via DR " + PathText(path);
    engine_.Submit(DirectedGet(kAttrPortInfo, static_cast<uint32_t>(port), path), what,
                   [this, n, port, then = std::move(then)](const MadAnswer& a) {
                     Status s = a.ok ? SmpStatus(*a.mad, "PortInfo") : Status::Error(a.error);
                     if (!s.ok()) {
                       Partial(n, s.message());
                       return;
                     }
                     FabricPort& fp = n->ports[port];
                     fp.number = port;
                     ParsePortInfo(*a.mad, &fp, n->node.type == NodeType::kSwitch ? n->port0_capmask : std::nullopt);
                     then(fp);
                   });
  }

  void QuerySwitchPort(NodeState* n, const std::vector<int>& path, int port, int arrival) {
    SubmitPortInfo(n, path, port, [this, n, path, port, arrival](FabricPort& fp) {
      fp.lid = n->node.lid;
      if (options_.counters) QueryCounters(n, port, n->node.lid);
      bool root = path.empty();
      // A cable already seen from its other end needs no NodeInfo from this one.
      bool known = links_.count({n->node.guid, port}) > 0;
      if (fp.phys_state == kPhysLinkUp && (root || port != arrival) && !known &&
          static_cast<int>(path.size()) < kMaxHops) {
        std::vector<int> next = path;
        next.push_back(port);
        QueryNode(next, RemoteEnd{n->node.guid, port});
      }
    });
  }

  // A CA (or router) port: PortInfo, its counters, and from the local CA the way out.
  void QueryPort(NodeState* n, const std::vector<int>& path, int port, bool explore) {
    if (!n->ports_asked.insert(port).second) return;
    SubmitPortInfo(n, path, port, [this, n, port, explore](FabricPort& fp) {
      if (n->node.lid == 0) n->node.lid = fp.lid;
      if (options_.counters) QueryCounters(n, port, fp.lid);
      if (explore && fp.phys_state == kPhysLinkUp) QueryNode({port}, RemoteEnd{n->node.guid, port});
    });
  }

  // A port's counters, once its node's PMA said what it answers
  // (ClassPortInfo, asked with the first port's).
  void QueryCounters(NodeState* n, int port, uint32_t lid) {
    FabricPort* fp = &n->ports[port];
    if (lid == 0) {
      fp->counters_error = "no LID on " + GuidText(n->node.guid) + ": is a subnet manager running?";
      return;
    }
    if (n->pma == NodeState::Pma::kAnswered) return SubmitCounters(n, port, lid);
    n->pma_waiting.emplace_back(port, lid);
    if (n->pma == NodeState::Pma::kAsking) return;
    n->pma = NodeState::Pma::kAsking;
    engine_.Submit(PmaGet(kAttrClassPortInfo, lid, -1),
                   "ClassPortInfo of " + GuidText(n->node.guid) + " (LID " + std::to_string(lid) + ")",
                   [this, n](const MadAnswer& a) {
                     Status s = a.ok ? PmaStatus(*a.mad, "ClassPortInfo") : Status::Error(a.error);
                     if (s.ok()) n->pma_caps = ParseClassPortInfo(*a.mad);
                     n->pma = NodeState::Pma::kAnswered;
                     for (const auto& [p, l] : std::exchange(n->pma_waiting, {})) SubmitCounters(n, p, l);
                   });
  }

  // PortCounters, and PortCountersExtended where the PMA has it (or when
  // it did not say): extended values win; XmitWait is left out where the
  // PMA does not count it (absent, not 0).
  void SubmitCounters(NodeState* n, int port, uint32_t lid) {
    FabricPort* fp = &n->ports[port];
    const std::optional<PmaCapabilities> caps = n->pma_caps;
    const bool no_xmit_wait = caps && !caps->xmit_wait();
    std::string where = " of " + GuidText(n->node.guid) + " port " + std::to_string(port) + " (LID " +
                        std::to_string(lid) + ")";
    engine_.Submit(PmaGet(kAttrPortCounters, lid, port), "PortCounters" + where, [fp, no_xmit_wait](const MadAnswer& a) {
      Status s = a.ok ? PmaStatus(*a.mad, "PortCounters") : Status::Error(a.error);
      if (s.ok() && fp->counters.empty()) {
        ParsePortCounters(*a.mad, &fp->counters);  // the usual order: straight in
      } else if (s.ok()) {
        PortCounterMap basic;
        ParsePortCounters(*a.mad, &basic);
        for (auto& [k, v] : basic) fp->counters.emplace(k, v);  // extended values win
      } else {
        fp->counters_error = s.message();
      }
      if (no_xmit_wait) fp->counters.erase("port_xmit_wait");
    });
    if (caps && !caps->extended()) return;  // the 32-bit data counters stand
    const bool errors = caps && caps->extended_errors();
    engine_.Submit(PmaGet(kAttrPortCountersExt, lid, port), "PortCountersExtended" + where,
                   [fp, errors, no_xmit_wait](const MadAnswer& a) {
                     Status s = a.ok ? PmaStatus(*a.mad, "PortCountersExtended") : Status::Error(a.error);
                     if (!s.ok()) return;  // no extended counters is normal on old ports: the 32-bit ones stand
                     ParsePortCountersExt(*a.mad, &fp->counters);  // assigns: extended values win
                     if (errors) ParsePortCountersExtErrors(*a.mad, &fp->counters);
                     if (no_xmit_wait) fp->counters.erase("port_xmit_wait");
                   });
  }

  // Nodes silent from their first MAD are named by the subnet administrator:
  // the LinkRecord from the port whose cable leads to one gives the LID at
  // the other end, its NodeRecord the GUID and description. A fabric
  // without a reachable SA (none running, a transport that cannot ask it)
  // leaves them unnamed: the sweep does not fail for it.
  void NameSilentNodes() {
    bool asked = false;
    for (size_t i = 0; i < unreachable_.size(); ++i) {
      const Unreachable& u = unreachable_[i];
      if (u.guid || !u.via) continue;
      auto from = nodes_.find(u.via->guid);
      if (from == nodes_.end()) continue;
      const NodeState& n = *from->second;
      uint32_t lid = n.node.lid;
      if (n.node.type != NodeType::kSwitch)
        if (auto p = n.ports.find(u.via->port); p != n.ports.end()) lid = p->second.lid;
      if (lid == 0) continue;
      asked = true;
      const std::string what = "SA LinkRecord from LID " + std::to_string(lid) + " port " + std::to_string(u.via->port);
      engine_.Submit(SaLinkRecordGet(lid, u.via->port), what, [this, i](const MadAnswer& a) {
        if (!a.ok || !SaStatus(*a.mad, "LinkRecord").ok()) return;
        const SaLinkRecord link = ParseSaLinkRecord(*a.mad);
        if (link.to_lid == 0) return;
        engine_.Submit(SaNodeRecordGet(link.to_lid), "SA NodeRecord of LID " + std::to_string(link.to_lid),
                       [this, i](const MadAnswer& b) {
                         if (!b.ok || !SaStatus(*b.mad, "NodeRecord").ok()) return;
                         const SaNodeRecord node = ParseSaNodeRecord(*b.mad);
                         if (node.node_guid == 0) return;
                         Unreachable& named = unreachable_[i];
                         named.guid = node.node_guid;
                         named.description = node.description;
                         named.lid = node.lid;
                       });
      });
    }
    if (asked) (void)engine_.Run();  // a transport that cannot reach the SA names nobody; the sweep stands
  }

  void Partial(NodeState* n, const std::string& what) {
    if (n->reported_unreachable) return;
    n->reported_unreachable = true;
    Unreachable u;
    u.path = PathText(n->node.dr_path);
    u.guid = n->node.guid;
    u.what = what;
    unreachable_.push_back(std::move(u));
  }

  Fabric Assemble() {
    Fabric f;
    for (auto& [guid, st] : nodes_) {
      FabricNode node = std::move(st->node);
      if (st->lft_failed) node.lft.clear();
      // A switch answers NodeInfo with port 0's GUID whichever port it came in by.
      uint64_t port0_guid = st->port_guids.empty() ? 0 : st->port_guids.begin()->second;
      for (auto& [num, port] : st->ports) {
        auto l = links_.find({guid, num});
        if (l != links_.end()) port.remote = l->second;
        auto g = st->port_guids.find(num);
        port.guid = node.type == NodeType::kSwitch ? port0_guid : g != st->port_guids.end() ? g->second : 0;
        node.ports.push_back(std::move(port));
      }
      f.nodes.push_back(std::move(node));
    }
    std::stable_sort(f.nodes.begin(), f.nodes.end(), [](const FabricNode& a, const FabricNode& b) {
      bool as = a.type == NodeType::kSwitch, bs = b.type == NodeType::kSwitch;
      if (as != bs) return as;
      return a.guid < b.guid;
    });
    f.unreachable = std::move(unreachable_);
    return f;
  }

  SweepOptions options_;
  MadEngine engine_;
  std::map<uint64_t, std::unique_ptr<NodeState>> nodes_;
  std::map<std::pair<uint64_t, int>, RemoteEnd> links_;
  std::vector<Unreachable> unreachable_;
};

}  // namespace

Result<Fabric> SweepSubnet(MadTransport& transport, const SweepOptions& options) {
  Sweeper s(transport, options);
  return s.Run();
}

}  // namespace rdmascope::fabric
