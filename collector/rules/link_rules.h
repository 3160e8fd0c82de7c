// Judgements on an InfiniBand link, from the two ends a fabric sweep saw
// (the port objects of a report's "fabric" section).
//
// Contract:
//  - A link's ends are ordered (LinkEnd::operator<); events about it are
//    keyed by LinkKey(kind, lower end, higher end).
//  - JudgeLinkRate: degraded when the active width or speed (the slower
//    end's view) is below the best that both ends support (the lower of
//    the two ends' highest supported); unknown spellings judge nothing.
//    The status names what is slow ("width 1X" / "speed SDR"); the detail
//    says what runs and what both ends support.
//  - RisenErrorCounters: the error counters (those with a threshold) that
//    rose by at least their threshold since `before` (the previous sweep's
//    values; a counter that went backwards was reset: all of it is new), as
//    "name +delta (threshold t), ..."; "" when none did.
//  - SampleErrorRises: the error counters (IsErrorCounter) of a port's
//    newest stored sample that rose over the sample before it, as
//    {"name": delta}: integers on both sides, delta the saturated difference,
//    kept when > 0 (a counter that went backwards rose by nothing here);
//    {} when none did. What fabric_port_rises keeps for the diagnosis.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "collector/rules/thresholds.h"

namespace rdmascope::collector {

struct LinkEnd {
  std::string guid;
  int64_t port = 0;
  bool operator<(const LinkEnd& o) const { return guid < o.guid || (guid == o.guid && port < o.port); }
  bool operator==(const LinkEnd& o) const { return guid == o.guid && port == o.port; }
};

// "guid[port]" and, when names knows the guid, its description in quotes.
std::string LinkEndText(const LinkEnd& e, const std::map<std::string, std::string>& names);
std::string LinkKey(const char* kind, const LinkEnd& a, const LinkEnd& b);

struct LinkRate {
  bool degraded = false;
  std::string status;  // "width 1X" or "speed SDR" when degraded
  std::string detail;
};
LinkRate JudgeLinkRate(const nlohmann::json& a, const nlohmann::json& b, const std::string& a_text,
                       const std::string& b_text);

std::string RisenErrorCounters(const nlohmann::json& errors, const nlohmann::json& before,
                               const CounterThresholds& thresholds);

nlohmann::json SampleErrorRises(const nlohmann::json& newest, const nlohmann::json& before);

}  // namespace rdmascope::collector
