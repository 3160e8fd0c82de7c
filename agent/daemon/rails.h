// Rails: which (device, port) pairs the agent serves and probes, and their
// names, which is how rails are matched across nodes.
//
// Contract of ComputeRails():
// - The probed ports are the known ports of the --device devices (of every
//   device when none is given and no --rail either), plus every --rail port.
// - A --rail NAME=DEV[/PORT] names its port (port 1 by default).
// - Every other port keeps the name it was given before (`previous`, the
//   names of the running agent), so a device that appears late never renames
//   another rail. A port seen for the first time is named by its position in
//   the sorted list of probed ports ("0", "1", ...), so identical nodes and
//   single-rail nodes match without configuration; when that name is already
//   taken (a device that appeared after the others, or a --rail using a
//   position's name) it gets the lowest free number instead, and `notes`
//   receives a line saying so.
// - The result is sorted by (device, port). Names are unique (duplicate
//   --rail names or ports are errors, reported by ValidateRails on the --rail
//   list alone).
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
                                   const std::vector<RailSpec>& named,
                                   const std::vector<RailSpec>& previous = {},
                                   std::vector<std::string>* notes = nullptr);

}  // namespace rdmascope::agent
