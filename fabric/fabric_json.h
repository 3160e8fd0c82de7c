// The JSON shapes of `rdmactl fabric discover|counters` and of the fabric
// section of an agent report.
//
// Contract (discover): {"nodes":[{"guid","type","description","lid","ports":[
// {"port","lid","state","phys_state","width","speed","width_supported",
// "speed_supported","remote":{"guid","port"}|null}]}],"unreachable":[{"path",
// "guid"?,"via"?,"what"}],"sweep_ms",...}. With counters each port also has
// "counters":{name:value} and, when any, "saturated":[names] and
// "counters_error". FabricFromJson reads the same shape back.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "fabric/fabric_model.h"

namespace rdmascope::fabric {

nlohmann::json PortToJson(const FabricPort& p, bool with_counters);
nlohmann::json FabricToJson(const Fabric& f, bool with_counters);
// The same document as FabricToJson(...).dump(), written straight to text:
// a 600-node sweep with counters is ~40k values, and building the tree first
// costs more than the sweep's own CPU time.
std::string FabricJsonText(const Fabric& f, bool with_counters);
Result<Fabric> FabricFromJson(const nlohmann::json& j);

}  // namespace rdmascope::fabric
