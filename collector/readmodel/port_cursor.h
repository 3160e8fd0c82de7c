// The cursor of the paged port list: the sort key of the last row a page
// held, so that the next page starts strictly after it (port_page.h).
//
// Contract:
//  - EncodePortCursor gives an opaque URL-safe text ([A-Za-z0-9_-], base64url
//    of a small JSON array: version, sort, order and the key); DecodePortCursor
//    takes back exactly what EncodePortCursor made, and answers an error
//    saying what is wrong for any other text (never throws).
//  - The key is the full sort key, unique tiebreak included, so a cursor
//    names one place in the order whether or not its row still exists.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/status.h"

namespace rdmascope::collector {

enum class PortSort { kNode, kDevice, kState, kFirmware };

// "node", "device", "state", "firmware".
const char* PortSortName(PortSort s);
std::optional<PortSort> PortSortByName(const std::string& name);

// The sort key of a row: (state, primary, node, device, port) compared in
// that order; state and primary are 0 and "" when the sort does not use them.
struct PortKey {
  int64_t state = 0;
  std::string primary, node, device;
  int64_t port = 0;
};

struct PortCursor {
  PortSort sort = PortSort::kNode;
  bool desc = false;
  PortKey key;
};

std::string EncodePortCursor(const PortCursor& c);
Result<PortCursor> DecodePortCursor(const std::string& text);

}  // namespace rdmascope::collector
