// The verbs seam for inventory: what only libibverbs knows (MTU, device caps).
//
// Contract: VerbsInfoSource lists the devices the verbs library sees and
// queries one by name. The real source opens the device, queries and closes it;
// failures come back as errors naming the verb. Tests use a fake.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/model.h"
#include "common/status.h"

namespace rdmascope {

struct VerbsPortInfo {
  int port = 0;
  uint32_t active_mtu = 0;  // bytes
  uint32_t max_mtu = 0;     // bytes
};

struct VerbsDeviceInfo {
  VerbsDeviceCaps caps;
  std::vector<VerbsPortInfo> ports;
};

class VerbsInfoSource {
 public:
  virtual ~VerbsInfoSource() = default;
  virtual std::vector<std::string> ListDevices() = 0;
  virtual Result<VerbsDeviceInfo> Query(const std::string& device) = 0;
};

// The libibverbs-backed source.
std::unique_ptr<VerbsInfoSource> MakeLibibverbsInfoSource();

}  // namespace rdmascope
