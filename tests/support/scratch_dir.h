// A test's own scratch directory.
//
// Contract: the constructor makes a new directory /tmp/PREFIX.XXXXXX
// (mkdtemp: no two tests, nor two runs, share it) and throws if it cannot;
// the destructor removes it with everything in it, also when the test stopped
// at a failed ASSERT. Declare it before the members that keep files open in it
// (stores, children), so that it is destroyed after them.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace rdmascope::testsupport {

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix) {
    std::string tmpl = "/tmp/" + prefix + ".XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp " + tmpl + " failed");
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace rdmascope::testsupport
