// The build's version: the project version and the git revision the binary
// was built from, e.g. "0.1.0 (git 06b1c5c1a2b3)" ("-dirty" when the tree had
// uncommitted changes, "unknown" outside a checkout). Every binary prints it
// for --version.
#pragma once

#include <string>
#include <vector>

namespace rdmascope {

extern const char kVersion[];

// True when args (argv without the program name) ask for the version:
// "--version" before any "--". Prints "PROGRAM VERSION\n" to stdout then.
bool PrintVersionIfAsked(const char* program, const std::vector<std::string>& args);

}  // namespace rdmascope
