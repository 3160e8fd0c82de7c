// Compares what `ibv_devinfo -v` says of a device with what
// `rdmactl ports --json` says of it.
//
// Contract: returns one line per difference ("rxe0 port 1 active_mtu: devinfo
// 1024, rdmactl 4096"); empty means they agree on every compared field: node
// GUID; per port state, phys state, active and max MTU, link layer, LID; every
// GID's value (compared as 16 bytes, whatever the notation) and type (devinfo's
// "RoCE v1" is sysfs's "IB/RoCE v1"), and the same set of GID indexes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/labcheck/devinfo_parse.h"

namespace rdmascope::labcheck {

std::vector<std::string> CrossCheck(const std::vector<DevinfoDevice>& devinfo, const nlohmann::json& rdmactl_ports,
                                    const std::vector<std::string>& devices);

}  // namespace rdmascope::labcheck
