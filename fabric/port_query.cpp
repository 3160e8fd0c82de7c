#include "fabric/port_query.h"

#include "fabric/mad_codec.h"

namespace rdmascope::fabric {

Result<PortCounterMap> QueryPortCounters(MadTransport& transport, const EngineOptions& options, uint32_t lid,
                                         int port) {
  MadEngine engine(transport, options);
  PortCounterMap basic, ext;
  Status basic_status;
  std::string where = " of LID " + std::to_string(lid) + " port " + std::to_string(port);
  engine.Submit(PmaGet(kAttrPortCounters, lid, port), "PortCounters" + where, [&](const MadAnswer& a) {
    basic_status = a.ok ? PmaStatus(*a.mad, "PortCounters") : Status::Error(a.error);
    if (basic_status.ok()) ParsePortCounters(*a.mad, &basic);
  });
  engine.Submit(PmaGet(kAttrPortCountersExt, lid, port), "PortCountersExtended" + where, [&](const MadAnswer& a) {
    if (a.ok && PmaStatus(*a.mad, "PortCountersExtended").ok()) ParsePortCountersExt(*a.mad, &ext);
  });
  Status s = engine.Run();
  if (!s.ok()) return s;
  if (!basic_status.ok()) return basic_status;
  for (auto& [k, v] : ext) basic[k] = v;
  return basic;
}

}  // namespace rdmascope::fabric
