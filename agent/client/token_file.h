// The bearer token a collector client sends, read from its token file.
//
// Contract: the token is the file's text without surrounding ASCII whitespace;
// the file holds at most 4096 bytes and one line of token. Any failure (cannot
// open, too long, empty, a token spanning lines) is an error naming the file.
#pragma once

#include <string>

#include "common/status.h"

namespace rdmascope::client {

Result<std::string> ReadTokenFile(const std::string& path);

}  // namespace rdmascope::client
