// A fake MadTransport holding a small subnet in memory, for the fabric unit
// tests: answers directed-route NodeInfo/NodeDescription/SwitchInfo/PortInfo/
// LinearForwardingTable and PMA PortCounters/PortCountersExtended like a real
// subnet would, and can drop a node's MADs (all, or one attribute's)
// silently or report them as timed out. Switches have forwarding tables once
// RouteShortest() (or a test) fills `lfts`; until then SwitchInfo says they
// have no linear table.
#pragma once

#include <infiniband/mad.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "fabric/mad_transport.h"

namespace rdmascope::fabric::testing {

struct FakeNode {
  std::string name;
  int type = 1;  // 1 CA, 2 switch
  uint64_t guid = 0;
  int nports = 1;
  uint32_t lid = 0;  // switch: port 0; CA: port 1 (port p: lid + p - 1)
  std::map<int, std::pair<int, int>> links;  // port -> (node index, port)
  std::map<int, std::map<int, uint64_t>> counters;  // port -> PortCounters field -> value
};

// A node's PMA: its ClassPortInfo CapabilityMask / CapabilityMask2 (the
// default: PortCountersExtended and XmitWait, as ibsim's CAs) and the 64-bit
// error counters PortCountersExtended carries when mask2 has bit 1.
struct FakePma {
  uint16_t mask = 0x1200;
  uint32_t mask2 = 0;
  std::map<int, std::map<int, uint64_t>> ext_counters;  // port -> PortCountersExtended field -> value
};

class FakeSubnet : public MadTransport {
 public:
  std::vector<FakeNode> nodes;  // nodes[0] is the local CA, sending from port 1
  std::set<std::string> silent;        // nodes whose MADs vanish
  std::set<std::string> timing_out;    // nodes whose MADs come back as ETIMEDOUT
  std::map<std::string, std::set<int>> silent_attrs;  // node -> SMP attribute ids whose MADs vanish
  std::map<std::string, std::vector<uint8_t>> lfts;   // switch -> egress port by LID (0xff none)
  std::deque<int> answer_delays_ms;    // the next answers queued arrive this late, in order
  int in_flight = 0, max_in_flight = 0, sent = 0;
  std::map<int, int> in_flight_at, max_in_flight_at;  // node index -> MADs toward it not yet answered (and the most)
  std::vector<int> burst_starts;  // in_flight when a send followed an answer (or began the run)
  std::map<std::string, FakePma> pma;                 // node -> its PMA, where not the default
  // node -> LinkSpeedExtActive (and Supported) of every port: the ports say
  // IsExtendedSpeedsSupported in their CapabilityMask, except a switch's
  // external ports, whose mask is reserved (0) as IBA has it: port 0 speaks.
  std::map<std::string, int> ext_speed;
  std::map<std::string, int> class_port_info_asked;  // node -> PMA ClassPortInfo Gets
  int extended_asked = 0;                             // PortCountersExtended Gets
  int sa_asked = 0;                                   // subnet administration Gets

  int Add(FakeNode n) {
    nodes.push_back(std::move(n));
    return static_cast<int>(nodes.size()) - 1;
  }
  void Link(int a, int pa, int b, int pb) {
    nodes[a].links[pa] = {b, pb};
    nodes[b].links[pb] = {a, pa};
  }

  // The LID of node i's port p (a switch: its one LID, port 0's).
  uint32_t LidOf(int i, int p) const { return nodes[i].type == 2 ? nodes[i].lid : nodes[i].lid + p - 1; }

  // Min-hop forwarding tables for every switch (lowest port number among
  // equals), LIDs 0..the highest in the subnet.
  void RouteShortest() {
    uint32_t top = 0;
    for (size_t i = 0; i < nodes.size(); ++i) top = std::max(top, LidOf(static_cast<int>(i), nodes[i].nports));
    for (const FakeNode& n : nodes)
      if (n.type == 2) lfts[n.name].assign(top + 1, 0xff);
    for (size_t d = 0; d < nodes.size(); ++d) {
      const FakeNode& dn = nodes[d];
      if (dn.type == 2) {
        RouteTo(dn.lid, static_cast<int>(d), 0);
        continue;
      }
      for (const auto& [port, peer] : dn.links)
        if (nodes[peer.first].type == 2) RouteTo(LidOf(static_cast<int>(d), port), peer.first, peer.second);
    }
  }

  Status Send(const OutgoingMad& out, int) override {
    if (!last_was_send_) burst_starts.push_back(in_flight);
    last_was_send_ = true;
    ++sent;
    ++in_flight;
    max_in_flight = std::max(max_in_flight, in_flight);
    IncomingMad in;
    in.mad = out.mad;
    if (out.cls == MadClass::kSubnAdm) return AnswerSa(in);
    uint8_t* mad = in.mad.data();
    uint8_t* data = mad + IB_SMP_DATA_OFFS;
    int attr = static_cast<int>(mad_get_field(mad, 0, IB_MAD_ATTRID_F));
    uint32_t mod = mad_get_field(mad, 0, IB_MAD_ATTRMOD_F);
    int target = -1, arrival = 1;
    if (out.cls == MadClass::kDirectedSmp) {
      int hops = static_cast<int>(mad_get_field(mad, 0, IB_DRSMP_HOPCNT_F));
      target = 0;
      for (int h = 1; h <= hops && target >= 0; ++h) {
        int port = mad[128 + h];
        auto l = nodes[target].links.find(port);
        if (l == nodes[target].links.end()) target = -1;
        else { arrival = l->second.second; target = l->second.first; }
      }
      if (hops == 0) arrival = 1;
    } else {
      for (size_t i = 0; i < nodes.size(); ++i)
        if (out.dlid >= nodes[i].lid && out.dlid < nodes[i].lid + (nodes[i].type == 2 ? 1 : nodes[i].nports))
          target = static_cast<int>(i);
    }
    if (target >= 0) {
      int& now = ++in_flight_at[target];
      max_in_flight_at[target] = std::max(max_in_flight_at[target], now);
    }
    if (target < 0 || silent.count(nodes[target].name)) return Status::Ok();
    const FakeNode& n = nodes[target];
    answering_ = target;
    auto sa = silent_attrs.find(n.name);
    if (out.cls == MadClass::kDirectedSmp && sa != silent_attrs.end() && sa->second.count(attr)) return Status::Ok();
    if (timing_out.count(n.name)) {
      in.status = ETIMEDOUT;
      Queue(in);
      return Status::Ok();
    }
    mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET_RESPONSE);
    if (out.cls == MadClass::kDirectedSmp) {
      if (attr == IB_ATTR_NODE_INFO) {
        mad_set_field(data, 0, IB_NODE_TYPE_F, n.type);
        mad_set_field(data, 0, IB_NODE_NPORTS_F, n.nports);
        mad_set_field64(data, 0, IB_NODE_GUID_F, n.guid);
        mad_set_field64(data, 0, IB_NODE_PORT_GUID_F, n.guid + (n.type == 2 ? 0 : arrival));
        mad_set_field(data, 0, IB_NODE_LOCAL_PORT_F, n.type == 2 && mad_get_field(mad, 0, IB_DRSMP_HOPCNT_F) == 0 ? 0 : arrival);
      } else if (attr == IB_ATTR_NODE_DESC) {
        std::strncpy(reinterpret_cast<char*>(data), n.name.c_str(), 63);
      } else if (attr == IB_ATTR_SWITCH_INFO) {
        auto t = lfts.find(n.name);
        if (t != lfts.end() && !t->second.empty()) {
          mad_set_field(data, 0, IB_SW_LINEAR_FDB_CAP_F, 49152);
          mad_set_field(data, 0, IB_SW_LINEAR_FDB_TOP_F, static_cast<uint32_t>(t->second.size() - 1));
        }
      } else if (attr == IB_ATTR_LINEARFORWTBL) {
        auto t = lfts.find(n.name);
        for (uint32_t i = 0; i < 64; ++i) {
          size_t lid = mod * 64 + i;
          data[i] = t != lfts.end() && lid < t->second.size() ? t->second[lid] : 0xff;
        }
      } else if (attr == IB_ATTR_PORT_INFO) {
        int port = static_cast<int>(mod);
        bool up = port == 0 || n.links.count(port);
        mad_set_field(data, 0, IB_PORT_LID_F, n.type == 2 ? n.lid : n.lid + port - 1);
        mad_set_field(data, 0, IB_PORT_STATE_F, up ? 4 : 1);
        mad_set_field(data, 0, IB_PORT_PHYS_STATE_F, up ? 5 : 2);
        mad_set_field(data, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, 2);
        mad_set_field(data, 0, IB_PORT_LINK_WIDTH_SUPPORTED_F, 3);
        mad_set_field(data, 0, IB_PORT_LINK_SPEED_ACTIVE_F, 4);
        mad_set_field(data, 0, IB_PORT_LINK_SPEED_SUPPORTED_F, 7);
        if (auto e = ext_speed.find(n.name); e != ext_speed.end()) {
          if (n.type != 2 || port == 0) mad_set_field(data, 0, IB_PORT_CAPMASK_F, 1u << 14);
          mad_set_field(data, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F, static_cast<uint32_t>(e->second));
          mad_set_field(data, 0, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F, static_cast<uint32_t>(e->second));
        }
      }
    } else if (attr == CLASS_PORT_INFO) {
      ++class_port_info_asked[n.name];
      const FakePma& p = pma[n.name];
      mad_set_field(data, 0, IB_CPI_CAPMASK_F, p.mask);
      mad_set_field(data, 0, IB_CPI_CAPMASK2_F, p.mask2);
    } else {
      int port = static_cast<int>(mad_get_field(data, 0, IB_PC_PORT_SELECT_F));
      if (attr == IB_GSI_PORT_COUNTERS_EXT) ++extended_asked;
      const FakePma& pm = pma[n.name];
      if (auto e = pm.ext_counters.find(port); e != pm.ext_counters.end() && attr == IB_GSI_PORT_COUNTERS_EXT)
        for (auto& [field, value] : e->second) mad_set_field64(data, 0, static_cast<enum MAD_FIELDS>(field), value);
      auto c = n.counters.find(port);
      if (attr == IB_GSI_PORT_COUNTERS && c != n.counters.end())
        for (auto& [field, value] : c->second) mad_set_field(data, 0, static_cast<enum MAD_FIELDS>(field), static_cast<uint32_t>(value));
      if (attr == IB_GSI_PORT_COUNTERS_EXT) mad_set_field64(data, 0, IB_PC_EXT_XMT_BYTES_F, 1000 + port);
    }
    Queue(in);
    return Status::Ok();
  }

  // The subnet administrator (it knows every node, silent ones too): a Get
  // of the LinkRecord from (LID, port) or of the NodeRecord of a LID; MAD
  // status 0x0d00 (no records) when none matches.
  Status AnswerSa(IncomingMad& in) {
    ++sa_asked;
    uint8_t* mad = in.mad.data();
    uint8_t* r = mad + IB_SA_DATA_OFFS;
    const int attr = static_cast<int>(mad_get_field(mad, 0, IB_MAD_ATTRID_F));
    mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET_RESPONSE);
    const uint32_t lid = uint32_t{r[0]} << 8 | r[1];
    bool found = false;
    for (size_t i = 0; i < nodes.size() && !found; ++i) {
      const FakeNode& n = nodes[i];
      if (attr == 0x20) {  // LinkRecord: FromLID, FromPort -> ToPort, ToLID
        for (const auto& [port, peer] : n.links)
          if (LidOf(static_cast<int>(i), port) == lid && port == r[2]) {
            const uint32_t to = LidOf(peer.first, peer.second);
            r[3] = static_cast<uint8_t>(peer.second), r[4] = static_cast<uint8_t>(to >> 8), r[5] = static_cast<uint8_t>(to);
            found = true;
          }
      } else if (attr == 0x11 && lid >= n.lid && lid < n.lid + (n.type == 2 ? 1u : static_cast<uint32_t>(n.nports))) {
        std::memset(r + 2, 0, 106);
        r[4 + 2] = static_cast<uint8_t>(n.type);
        for (int b = 0; b < 8; ++b) r[4 + 12 + b] = static_cast<uint8_t>(n.guid >> (56 - 8 * b));
        std::strncpy(reinterpret_cast<char*>(r + 44), n.name.c_str(), 63);
        found = true;
      }
    }
    if (!found) mad_set_field(mad, 0, IB_MAD_STATUS_F, 0x0d00);
    answering_ = -1;
    Queue(in);
    return Status::Ok();
  }

  // The first answer that is due, else waits up to wait_ms for one to fall due.
  Result<bool> Receive(IncomingMad* out, int wait_ms) override {
    auto end = Clock::now() + std::chrono::milliseconds(wait_ms);
    for (;;) {
      for (auto it = queue_.begin(); it != queue_.end(); ++it) {
        if (it->first <= Clock::now()) {
          *out = it->second.second;
          --in_flight_at[it->second.first];
          queue_.erase(it);
          --in_flight;
          last_was_send_ = false;
          return true;
        }
      }
      if (Clock::now() >= end) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

 private:
  using Clock = std::chrono::steady_clock;
  // Every switch's entry for `lid`, which leaves switch `last` by `port`:
  // breadth first from `last` over switch-to-switch cables.
  void RouteTo(uint32_t lid, int last, int port) {
    std::vector<int> dist(nodes.size(), -1);
    std::deque<int> todo{last};
    dist[last] = 0;
    lfts[nodes[last].name][lid] = static_cast<uint8_t>(port);
    while (!todo.empty()) {
      int at = todo.front();
      todo.pop_front();
      for (const auto& [p, peer] : nodes[at].links) {
        (void)p;
        int next = peer.first;
        if (nodes[next].type != 2 || dist[next] >= 0) continue;
        dist[next] = dist[at] + 1;
        todo.push_back(next);
      }
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i].type != 2 || dist[i] <= 0) continue;
      for (const auto& [p, peer] : nodes[i].links)  // ports in order: the lowest wins
        if (nodes[peer.first].type == 2 && dist[peer.first] == dist[i] - 1) {
          lfts[nodes[i].name][lid] = static_cast<uint8_t>(p);
          break;
        }
    }
  }
  void Queue(const IncomingMad& in) {
    int delay = 0;
    if (!answer_delays_ms.empty()) {
      delay = answer_delays_ms.front();
      answer_delays_ms.pop_front();
    }
    queue_.emplace_back(Clock::now() + std::chrono::milliseconds(delay), std::make_pair(answering_, in));
  }
  // Answers due, each with the node it comes from.
  std::deque<std::pair<Clock::time_point, std::pair<int, IncomingMad>>> queue_;
  int answering_ = -1;
  bool last_was_send_ = false;
};

// hca1 - sw1[1]; sw1[3] - sw2[3] (and sw1[5] - sw2[5] with trunk2); hca2 - sw1[2]; hca3 - sw2[1].
// hca1 is the local node.
inline FakeSubnet SmallSubnet(bool trunk2) {
  FakeSubnet s;
  int h1 = s.Add({"hca1", 1, 0x100, 1, 1, {}, {}});
  int s1 = s.Add({"sw1", 2, 0x200, 8, 10, {}, {}});
  int s2 = s.Add({"sw2", 2, 0x201, 8, 11, {}, {}});
  int h2 = s.Add({"hca2", 1, 0x102, 1, 2, {}, {}});
  int h3 = s.Add({"hca3", 1, 0x104, 1, 3, {}, {}});
  s.Link(h1, 1, s1, 1);
  s.Link(s1, 3, s2, 3);
  if (trunk2) s.Link(s1, 5, s2, 5);
  s.Link(h2, 1, s1, 2);
  s.Link(h3, 1, s2, 1);
  return s;
}

// `s` as node `host` sees it: that node becomes the local one (nodes[0]),
// links renumbered to match, so its agent's view (QueryNeighbour) can be taken.
inline FakeSubnet AsSeenFrom(const FakeSubnet& s, int host) {
  FakeSubnet view = s;
  std::swap(view.nodes[0], view.nodes[host]);
  for (auto& n : view.nodes)
    for (auto& [port, peer] : n.links) {
      if (peer.first == 0) peer.first = host;
      else if (peer.first == host) peer.first = 0;
    }
  return view;
}

}  // namespace rdmascope::fabric::testing
