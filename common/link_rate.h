// Whether an InfiniBand link runs below what both its ends support: the one
// rule `rdmactl fabric errors` and the collector's link_degraded events share.
//
// Contract: each end is given by its spellings (common/ib_encoding.h): the
// active width and speed ("4X", "EDR") and the best it supports
// (BestWidthText / BestSpeedText). The link runs at the slower end's view of
// the active rate; it is degraded when that width or speed ranks below the
// lower of the two ends' best supported. A spelling that is unknown ("?",
// "") judges nothing on its axis: no verdict from missing data.
#pragma once

#include <string>

namespace rdmascope::ib {

struct LinkEndRate {
  std::string width, speed;                      // active
  std::string width_supported, speed_supported;  // the best each end supports
};

struct LinkRateVerdict {
  bool degraded = false;
  std::string status;     // when degraded: what is slow, "width 1X" (width first) or "speed SDR"
  std::string width, speed;  // the rate the link runs at (the slower end's view)
};

LinkRateVerdict JudgeLinkRate(const LinkEndRate& a, const LinkEndRate& b);

// The spellings of a port's PortInfo fields (bits as ib_encoding.h reads them).
LinkEndRate LinkEndRateOf(int width_active, int speed_active, int speed_ext_active, int width_supported,
                          int speed_supported, int speed_ext_supported);

}  // namespace rdmascope::ib
