// Files written so that a crash leaves them whole or absent.
//
// Contract:
// - WriteSyncedFile creates (or truncates) `path` mode 0600, writes all of
//   `body`, fsyncs and closes it; 0, or the errno of the step that failed
//   (the file may then hold part of `body`: write to a temp name).
// - ReplaceFileAtomically writes `body` to "<path>.tmp" that way, renames it
//   over `path` and fsyncs the directory; on failure the temp file is
//   removed, `path` is untouched, and the error names the step and the file.
#pragma once

#include <string>

#include "common/status.h"

namespace rdmascope {

int WriteSyncedFile(const std::string& path, const std::string& body);
Status ReplaceFileAtomically(const std::string& path, const std::string& body);

}  // namespace rdmascope
