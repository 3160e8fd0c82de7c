// SysfsReader: the only way the agent reads sysfs. Every path is relative to a
// root directory passed in (default "/sys"), so tests point it at fixture trees.
//
// Contract: ReadAttr distinguishes three outcomes, because an absent attribute
// is not an error (drivers differ in what they expose) but a present one that
// cannot be read is:
//   ok(value)    the file was read; value has trailing whitespace removed
//   ok(nullopt)  nothing exists at that path (not even a dangling link)
//   error        something exists but could not be read; the message names
//                the path and the reason
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace rdmascope {

class SysfsReader {
 public:
  explicit SysfsReader(std::string root);

  const std::string& root() const { return root_; }
  // root + "/" + rel, for messages.
  std::string FullPath(const std::string& rel) const;

  Result<std::optional<std::string>> ReadAttr(const std::string& rel) const;

  // Entry names in a directory, sorted, without "." and "..". ok(empty) when
  // the directory does not exist; error when it exists but cannot be listed.
  Result<std::vector<std::string>> ListDir(const std::string& rel) const;

  bool IsDir(const std::string& rel) const;

  // Target of a symbolic link, or nullopt when rel is not a link.
  std::optional<std::string> ReadLink(const std::string& rel) const;

  // The inode number of what rel names (links followed), or nullopt when it
  // cannot be stat()ed. In sysfs an object's inode is its kernfs node id,
  // allocated cyclically: an object removed and created again (a device
  // re-added, a driver reloaded) gets a new one within a boot.
  std::optional<uint64_t> Inode(const std::string& rel) const;

 private:
  std::string root_;
};

}  // namespace rdmascope
