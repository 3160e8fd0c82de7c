// JudgeLinkRate (contract in link_rate.h).
#include "common/link_rate.h"

#include <algorithm>

#include "common/ib_encoding.h"

namespace rdmascope::ib {

LinkRateVerdict JudgeLinkRate(const LinkEndRate& a, const LinkEndRate& b) {
  // The slower end's view of the active rate (both ends should agree).
  auto slower = [](const std::string& x, const std::string& y, int (*rank)(const std::string&)) {
    return rank(y) >= 0 && (rank(x) < 0 || rank(y) < rank(x)) ? y : x;
  };
  LinkRateVerdict out;
  out.width = slower(a.width, b.width, WidthRank);
  out.speed = slower(a.speed, b.speed, SpeedRank);
  const int best_w = std::min(WidthRank(a.width_supported), WidthRank(b.width_supported));
  const int best_s = std::min(SpeedRank(a.speed_supported), SpeedRank(b.speed_supported));
  const bool slow_w = WidthRank(out.width) >= 0 && best_w >= 0 && WidthRank(out.width) < best_w;
  const bool slow_s = SpeedRank(out.speed) >= 0 && best_s >= 0 && SpeedRank(out.speed) < best_s;
  if (!slow_w && !slow_s) return out;
  out.degraded = true;
  out.status = slow_w ? "width " + out.width : "speed " + out.speed;
  return out;
}

LinkEndRate LinkEndRateOf(int width_active, int speed_active, int speed_ext_active, int width_supported,
                          int speed_supported, int speed_ext_supported) {
  return {WidthText(width_active), SpeedText(speed_active, speed_ext_active), BestWidthText(width_supported),
          BestSpeedText(speed_supported, speed_ext_supported)};
}

}  // namespace rdmascope::ib
