// The agent's InfiniBand fabric view for its reports: the neighbour of every
// IB port and, on agents with a sweep interval, the whole subnet.
//
// Contract: Collect() returns {"neighbours":[...]} (one entry per ACTIVE
// InfiniBand port: {"device","port", ...NeighbourToJson}) and, when a sweep is
// due, "fabric" (FabricToJson with counters, plus "from":{"device","port"};
// with routes, every switch's forwarding table as its "lft").
// Failures are warnings naming the device/port and the MAD or umad call,
// never exceptions; no IB port means an empty result. The MAD transport is
// opened per call (a seam: tests pass their own opener).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/model.h"
#include "fabric/mad_engine.h"
#include "fabric/mad_transport.h"

namespace rdmascope::agent {

using TransportOpener =
    std::function<Result<std::unique_ptr<fabric::MadTransport>>(const std::string& device, int port)>;

class FabricReporter {
 public:
  // sweep_interval 0: neighbours only. opener unset: libibumad. routes: the
  // sweeps also read the switches' forwarding tables (SweepOptions::routes).
  FabricReporter(std::chrono::milliseconds sweep_interval, TransportOpener opener = nullptr, bool routes = true);
  bool routes() const { return routes_; }

  // Adds "neighbours" (and "fabric" when a sweep is due) to *report; warnings
  // go to *warnings.
  void Collect(const Inventory& inv, nlohmann::json* report, std::vector<std::string>* warnings);

 private:
  std::chrono::milliseconds sweep_interval_;
  TransportOpener opener_;
  bool routes_ = true;
  fabric::EngineOptions engine_;
  std::chrono::steady_clock::time_point next_sweep_{};
};

}  // namespace rdmascope::agent
