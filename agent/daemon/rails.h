// Rails: which (device, port) pairs the agent serves and probes, and their
// names, which is how rails are matched across nodes.
//
// Contract of ComputeRails():
// - The probed ports are the known ports of the --device devices (of every
//   device when none is given and no --rail either), plus every --rail port.
// - Default names are the positions in the sorted list of probed ports
//   ("0", "1", ...), so identical nodes and single-rail nodes match without
//   configuration; a --rail NAME=DEV[/PORT] names its port (port 1 by default).
// - The result is sorted by (device, port). Names are unique (a --rail name
//   that equals another port's default name is an error, reported by
//   ValidateRails on the --rail list alone: duplicate names or ports).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace rdmascope::agent {

struct PortRef {
  std::string device;
  int port = 1;
  bool operator<(const PortRef& o) const { return device != o.device ? device < o.device : port < o.port; }
  bool operator==(const PortRef& o) const { return device == o.device && port == o.port; }
};

struct RailSpec {
  std::string name;
  PortRef where;
};

// An RDMA device name as the kernel allows it: 1..63 of [A-Za-z0-9._-]
// (IB_DEVICE_NAME_MAX is 64 with the terminating NUL).
bool DeviceNameOk(const std::string& name);

// "NAME=DEV[/PORT]" -> spec; the error names the bad part.
Result<RailSpec> ParseRailSpec(const std::string& text);
// Comma-separated list of specs ("" = none), for the config file.
Result<std::vector<RailSpec>> ParseRailList(const std::string& text);
// No name or port twice.
Status ValidateRails(const std::vector<RailSpec>& rails);

std::vector<RailSpec> ComputeRails(std::vector<PortRef> known, const std::vector<std::string>& devices,
                                   const std::vector<RailSpec>& named);

}  // namespace rdmascope::agent
