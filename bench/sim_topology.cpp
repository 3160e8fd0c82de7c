#include "bench/sim_topology.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fabric/fabric_json.h"

namespace rdmascope::bench {

using fabric::Fabric;
using fabric::FabricNode;
using fabric::FabricPort;
using fabric::NodeType;

namespace {

constexpr uint64_t kCaBase = 0x0002c90300000000ull;
constexpr uint64_t kLeafBase = 0x0008f10400000000ull;
constexpr uint64_t kSpineBase = 0x0008f10500000000ull;

std::string HostName(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "node%04d", i + 1);
  return buf;
}

FabricPort ActivePort(int number, uint32_t lid, uint64_t remote_guid, int remote_port) {
  FabricPort p;
  p.number = number;
  p.lid = lid;
  p.state = 4;
  p.phys_state = 5;
  p.width_active = 2;  // 4X
  p.width_supported = 3;
  p.speed_active = 4;
  p.speed_supported = 7;
  p.speed_ext_active = 4;  // HDR
  p.speed_ext_supported = 7;
  p.remote = fabric::RemoteEnd{remote_guid, remote_port};
  for (const char* c : {"symbol_error", "link_error_recovery", "link_downed", "port_rcv_errors", "port_xmit_discards"})
    p.counters[c] = fabric::CounterValue{0, false};
  return p;
}

// One plane of the fat tree: hosts [0, n) on leaves of h, s spines.
std::unique_ptr<Fabric> FatTreePlane(int plane, int leaves, int h, int s, int n) {
  auto f = std::make_unique<Fabric>();
  const uint64_t pl = static_cast<uint64_t>(plane) << 24;
  const uint32_t first_host_lid = static_cast<uint32_t>(leaves + s + 1);
  auto leaf_lid = [](int l) { return static_cast<uint32_t>(l + 1); };
  auto spine_lid = [&](int sp) { return static_cast<uint32_t>(leaves + sp + 1); };
  auto host_lid = [&](int i) { return first_host_lid + static_cast<uint32_t>(i); };
  const uint32_t max_lid = host_lid(n - 1);
  auto leaf_guid = [&](int l) { return kLeafBase | pl | static_cast<uint64_t>(l + 1); };
  auto spine_guid = [&](int sp) { return kSpineBase | pl | static_cast<uint64_t>(sp + 1); };
  for (int i = 0; i < n; ++i) {
    FabricNode ca;
    ca.guid = kCaBase | pl | static_cast<uint64_t>(i + 1);
    ca.type = NodeType::kCa;
    ca.description = HostName(i) + " mlx5_" + std::to_string(plane);
    ca.num_ports = 1;
    ca.lid = host_lid(i);
    ca.ports.push_back(ActivePort(1, host_lid(i), leaf_guid(i / h), i % h + 1));
    f->nodes.push_back(std::move(ca));
  }
  for (int l = 0; l < leaves; ++l) {
    FabricNode sw;
    sw.guid = leaf_guid(l);
    sw.type = NodeType::kSwitch;
    char desc[64];
    std::snprintf(desc, sizeof desc, "leaf%02d-p%d", l, plane);
    sw.description = desc;
    sw.num_ports = h + s;
    sw.lid = leaf_lid(l);
    for (int k = 0; k < h; ++k) {
      const int i = l * h + k;
      if (i < n) sw.ports.push_back(ActivePort(k + 1, sw.lid, kCaBase | pl | static_cast<uint64_t>(i + 1), 1));
    }
    for (int sp = 0; sp < s; ++sp) sw.ports.push_back(ActivePort(h + sp + 1, sw.lid, spine_guid(sp), l + 1));
    sw.lft.assign(max_lid + 1, fabric::kNoRoute);
    for (uint32_t d = 1; d <= max_lid; ++d) {
      if (d == sw.lid) {
        sw.lft[d] = 0;
      } else if (d >= first_host_lid && static_cast<int>(d - first_host_lid) / h == l) {
        sw.lft[d] = static_cast<uint8_t>((d - first_host_lid) % h + 1);
      } else if (d > static_cast<uint32_t>(leaves) && d < first_host_lid) {
        sw.lft[d] = static_cast<uint8_t>(h + (d - leaves - 1) + 1);  // a spine: straight up
      } else {
        sw.lft[d] = static_cast<uint8_t>(h + d % s + 1);
      }
    }
    f->nodes.push_back(std::move(sw));
  }
  for (int sp = 0; sp < s; ++sp) {
    FabricNode sw;
    sw.guid = spine_guid(sp);
    sw.type = NodeType::kSwitch;
    char desc[64];
    std::snprintf(desc, sizeof desc, "spine%02d-p%d", sp, plane);
    sw.description = desc;
    sw.num_ports = leaves;
    sw.lid = spine_lid(sp);
    for (int l = 0; l < leaves; ++l) sw.ports.push_back(ActivePort(l + 1, sw.lid, leaf_guid(l), h + sp + 1));
    sw.lft.assign(max_lid + 1, fabric::kNoRoute);
    for (uint32_t d = 1; d <= max_lid; ++d) {
      if (d == sw.lid) {
        sw.lft[d] = 0;
      } else if (d >= first_host_lid) {
        sw.lft[d] = static_cast<uint8_t>((d - first_host_lid) / h + 1);
      } else if (d <= static_cast<uint32_t>(leaves)) {
        sw.lft[d] = static_cast<uint8_t>(d);  // leaf d-1 on port d
      } else {
        sw.lft[d] = static_cast<uint8_t>(d % leaves + 1);  // another spine: down to a leaf, which sends it up
      }
    }
    f->nodes.push_back(std::move(sw));
  }
  return f;
}

}  // namespace

void SimTopology::Index() {
  host_index.clear();
  rails = 0;
  for (size_t i = 0; i < hosts.size(); ++i) {
    host_index[hosts[i].name] = i;
    rails = std::max(rails, static_cast<int>(hosts[i].nics.size()));
  }
  for (SimPlane& p : planes) p.routes = std::make_unique<fabric::RouteTable>(*p.fabric);
}

Result<SimTopology> GenerateFatTree(int leaves, int hosts_per_leaf, int spines, int rails, int hosts) {
  if (leaves < 1 || hosts_per_leaf < 1 || spines < 1 || rails < 1)
    return Result<SimTopology>::Error("fat tree: leaves, hosts per leaf, spines and rails must each be at least 1");
  if (hosts_per_leaf + spines > 254 || leaves > 254)
    return Result<SimTopology>::Error("fat tree: a switch has at most 254 ports (hosts per leaf + spines, leaves)");
  const int n = hosts > 0 ? std::min(hosts, leaves * hosts_per_leaf) : leaves * hosts_per_leaf;
  if (n + leaves + spines >= 0xc000) return Result<SimTopology>::Error("fat tree: more nodes than unicast LIDs");
  if (rails > 100) return Result<SimTopology>::Error("fat tree: at most 100 rails");
  SimTopology t;
  for (int r = 0; r < rails; ++r) t.planes.push_back(SimPlane{FatTreePlane(r, leaves, hosts_per_leaf, spines, n), nullptr});
  for (int i = 0; i < n; ++i) {
    SimHost h;
    h.name = HostName(i);
    for (int r = 0; r < rails; ++r) {
      const FabricNode& ca = t.planes[r].fabric->nodes[i];
      SimNic nic;
      nic.device = "mlx5_" + std::to_string(r);
      nic.rail = std::to_string(r);
      nic.plane = r;
      nic.guid = ca.guid;
      nic.port = 1;
      nic.lid = ca.lid;
      nic.leaf_guid = ca.ports[0].remote->guid;
      nic.leaf_port = ca.ports[0].remote->port;
      h.nics.push_back(nic);
    }
    t.hosts.push_back(std::move(h));
  }
  t.Index();
  return t;
}

Result<SimTopology> FatTreeFromSpec(const std::string& spec, int hosts) {
  std::vector<int> v;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      size_t used = 0;
      const int x = std::stoi(item, &used);
      if (used != item.size()) throw std::invalid_argument(item);
      v.push_back(x);
    } catch (const std::exception&) {
      return Result<SimTopology>::Error("--fat-tree " + spec + ": '" + item + "' is not a whole number");
    }
  }
  if (v.size() != 3 && v.size() != 4)
    return Result<SimTopology>::Error("--fat-tree " + spec + ": expected LEAVES,HOSTS_PER_LEAF,SPINES[,RAILS]");
  return GenerateFatTree(v[0], v[1], v[2], v.size() == 4 ? v[3] : 1, hosts);
}

Result<SimTopology> LoadTopologyJson(const std::string& text) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) return Result<SimTopology>::Error("topology: not JSON (expected `rdmactl fabric discover --routes --json`)");
  std::vector<nlohmann::json> docs;
  if (doc.is_array()) {
    for (auto& d : doc) docs.push_back(d);
  } else {
    docs.push_back(doc);
  }
  SimTopology t;
  struct Found {
    SimNic nic;
    bool named;
  };
  std::map<std::string, std::vector<Found>> by_host;
  std::vector<std::string> order;
  for (size_t k = 0; k < docs.size(); ++k) {
    if (!docs[k].is_object() || !docs[k].contains("nodes"))
      return Result<SimTopology>::Error("topology document " + std::to_string(k) + " has no \"nodes\"");
    auto f = fabric::FabricFromJson(docs[k]);
    if (!f.ok()) return Result<SimTopology>::Error("topology document " + std::to_string(k) + ": " + f.status().message());
    auto plane = std::make_unique<Fabric>(std::move(f.value()));
    for (const FabricNode& n : plane->nodes) {
      if (n.type != NodeType::kCa) continue;
      std::istringstream words(n.description);
      std::string host, device;
      words >> host >> device;
      if (host.empty()) host = fabric::GuidText(n.guid);
      const FabricPort* cabled = nullptr;
      for (const FabricPort& p : n.ports)
        if (p.remote) {
          cabled = &p;
          break;
        }
      if (!cabled) continue;  // a CA seen without a cable: nothing routes to it
      SimNic nic;
      nic.device = device;
      nic.plane = static_cast<int>(k);
      nic.guid = n.guid;
      nic.port = cabled->number;
      nic.lid = cabled->lid ? cabled->lid : n.lid;
      nic.leaf_guid = cabled->remote->guid;
      nic.leaf_port = cabled->remote->port;
      if (!by_host.count(host)) order.push_back(host);
      by_host[host].push_back(Found{nic, !device.empty()});
    }
    t.planes.push_back(SimPlane{std::move(plane), nullptr});
  }
  if (order.empty()) return Result<SimTopology>::Error("topology: no CA with a cabled port (no hosts to simulate)");
  std::sort(order.begin(), order.end());
  for (const std::string& name : order) {
    SimHost h;
    h.name = name;
    std::vector<Found>& found = by_host[name];
    std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
      return a.nic.plane != b.nic.plane ? a.nic.plane < b.nic.plane : a.nic.device < b.nic.device;
    });
    for (size_t r = 0; r < found.size(); ++r) {
      SimNic nic = found[r].nic;
      if (!found[r].named) nic.device = "mlx5_" + std::to_string(r);
      nic.rail = std::to_string(r);
      h.nics.push_back(nic);
    }
    t.hosts.push_back(std::move(h));
  }
  t.Index();
  return t;
}

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace rdmascope::bench
