// JSON mapping of the model (common/model.h).
//
// Contract: absent values are written as null, never omitted and never 0, so
// a consumer can tell "not reported" from "zero". Field names are stable: they
// are the report format the collector and scripts read.
#pragma once

#include <nlohmann/json.hpp>

#include "common/model.h"

namespace rdmascope {

void to_json(nlohmann::json& j, const NumberedName& v);
void to_json(nlohmann::json& j, const Gid& v);
void to_json(nlohmann::json& j, const Rate& v);
void to_json(nlohmann::json& j, const VerbsDeviceCaps& v);

// A port without its counters, and the counters of a port on their own.
nlohmann::json PortToJson(const Port& p);
nlohmann::json PortCountersToJson(const Port& p);
nlohmann::json CountersToJson(const CounterMap& m);

// A device with its ports (without counters).
nlohmann::json DeviceToJson(const Device& d);

// {"devices": [device...], "warnings": [...]}
nlohmann::json InventoryToJson(const Inventory& inv);
// {"devices": [{"name", "ports": [{"port", "counters", "hw_counters"}]}], "warnings": [...]}
nlohmann::json InventoryCountersToJson(const Inventory& inv);

}  // namespace rdmascope
