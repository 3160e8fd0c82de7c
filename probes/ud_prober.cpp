// UD prober for one run (rdmactl probe --transport ud): a UdSession on a
// freshly opened device, resolved once, run once. The agent keeps its
// sessions instead (probe_scheduler.cpp).
#include "probes/prober.h"
#include "probes/ud_session.h"

namespace rdmascope::probes {

Result<ProbeRun> RunUdProbe(const ProberOptions& o) {
  Status valid = ValidateProbeClass(o.probe_class);
  if (!valid.ok()) return valid;
  auto dev = OpenRailDevice(o.device, o.port, o.gid_index, o.gid_subnet);
  if (!dev.ok()) return dev.status();
  auto session = UdSession::Open(*dev);
  if (!session.ok()) return session.status();
  Status s = (*session)->Resolve(o);
  if (!s.ok()) return s;
  return (*session)->Run(o);
}

}  // namespace rdmascope::probes
