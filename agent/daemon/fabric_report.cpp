#include "agent/daemon/fabric_report.h"

#include "fabric/fabric_json.h"
#include "fabric/neighbour.h"
#include "fabric/sweep.h"
#include "fabric/umad_transport.h"

namespace rdmascope::agent {
namespace {

bool IsActiveIbPort(const Port& p) {
  return p.link_layer && *p.link_layer == "InfiniBand" && p.state && p.state->number == 4;
}

}  // namespace

FabricReporter::FabricReporter(std::chrono::milliseconds sweep_interval, TransportOpener opener, bool routes)
    : sweep_interval_(sweep_interval), opener_(std::move(opener)), routes_(routes) {
  if (!opener_) {
    opener_ = [](const std::string& device, int port) -> Result<std::unique_ptr<fabric::MadTransport>> {
      auto t = fabric::UmadTransport::Open(device, port);
      if (!t.ok()) return t.status();
      return std::unique_ptr<fabric::MadTransport>(std::move(t).value());
    };
  }
}

void FabricReporter::Collect(const Inventory& inv, nlohmann::json* report, std::vector<std::string>* warnings) {
  nlohmann::json neighbours = nlohmann::json::array();
  bool swept = false;
  for (const Device& d : inv.devices) {
    for (const Port& p : d.ports) {
      if (!IsActiveIbPort(p)) continue;
      std::string where = d.name + " port " + std::to_string(p.number);
      auto t = opener_(d.name, p.number);
      if (!t.ok()) {
        warnings->push_back("neighbour of " + where + ": " + t.status().message());
        continue;
      }
      Result<fabric::Neighbour> n = fabric::QueryNeighbour(*t.value(), engine_, p.number);
      if (!n.ok()) {
        warnings->push_back("neighbour of " + where + ": " + n.status().message());
      } else {
        nlohmann::json j = fabric::NeighbourToJson(n.value());
        j["device"] = d.name;
        neighbours.push_back(std::move(j));
      }
      auto now = std::chrono::steady_clock::now();
      if (!swept && sweep_interval_.count() > 0 && now >= next_sweep_) {
        swept = true;
        next_sweep_ = now + sweep_interval_;
        fabric::SweepOptions so;
        so.engine = engine_;
        so.routes = routes_;
        Result<fabric::Fabric> f = fabric::SweepSubnet(*t.value(), so);
        if (!f.ok()) {
          warnings->push_back("fabric sweep from " + where + ": " + f.status().message());
        } else {
          nlohmann::json fj = fabric::FabricToJson(f.value(), true);
          fj["from"] = {{"device", d.name}, {"port", p.number}};
          (*report)["fabric"] = std::move(fj);
        }
      }
    }
  }
  (*report)["neighbours"] = std::move(neighbours);
}

}  // namespace rdmascope::agent
