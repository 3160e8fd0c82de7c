// The rows of the paged port list (GET /api/v1/ports with paging, see
// port_page.h), made once when a node is published.
//
// Contract:
//  - BuildPortList turns a node's port rows (NodeState::ports: the columns of
//    the ports table, gids parsed) into one PortListRow each, in the same
//    order. A missing or mistyped field is taken as unknown (null / ""),
//    never an error: the rows come from the store, which checked them.
//  - `text` is the row as the API shows it, a JSON object without its
//    closing brace, so that a page appends the fields that depend on the
//    request (group, the node's age) and closes it.
//  - The *_lc fields are lower-case copies the filters search (ASCII
//    lower-casing: names, GIDs and firmware versions are ASCII).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rdmascope::collector {

struct PortListRow {
  static constexpr int64_t kNoState = 0;  // sorts before DOWN (1)
  std::string device;
  int64_t port = 0;
  int64_t state = kNoState;  // ibv_port_state number; kNoState when unknown
  std::string fw;            // "" when unknown
  std::string device_lc, state_name_lc, gids_lc, fw_lc;
  std::string any_lc;  // every shown text of the row (device/port, states, GIDs, firmware, link layer, rate)
  std::string text;    // "{...": the row's JSON object, not closed
};

std::vector<PortListRow> BuildPortList(const nlohmann::json& ports);

// ASCII lower-case copy of s.
std::string LowerAscii(const std::string& s);

}  // namespace rdmascope::collector
