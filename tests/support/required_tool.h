// Tests that need an external tool (promtool, prometheus, python3-jsonschema,
// node, chromium) skip when it is missing on a developer's machine, and FAIL
// when every tool is required: in CI (CI=true) or with RDMASCOPE_REQUIRE_ALL=1,
// because scripts/setup-deps.sh installs all of them there and a skip would
// hide a broken install step.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace rdmascope::testsupport {

// True when CI=true (or 1) or RDMASCOPE_REQUIRE_ALL=1 is set.
bool EveryToolRequired();

// The absolute path of `name` on PATH (or `name` itself when it holds a '/'
// and is executable), nullopt when there is none.
std::optional<std::string> FindTool(const std::string& name);

}  // namespace rdmascope::testsupport

// In a TEST body: skip (or fail, when every tool is required) naming the tool,
// its Debian package and what is not checked without it.
#define RDMASCOPE_TOOL_MISSING(tool, package, what)                                                         \
  do {                                                                                                     \
    if (::rdmascope::testsupport::EveryToolRequired()) {                                                   \
      GTEST_FAIL() << (tool) << " not found (Debian package " << (package) << "); CI=true or "             \
                   << "RDMASCOPE_REQUIRE_ALL=1 requires it: scripts/setup-deps.sh should have installed " \
                   << "it. Not checked: " << (what);                                                       \
    }                                                                                                      \
    GTEST_SKIP() << (tool) << " not found (Debian package " << (package) << "); not checked: " << (what); \
  } while (0)
