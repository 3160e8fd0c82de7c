// AttrReader: reads and parses sysfs attributes, collecting one warning per
// file that exists but cannot be read or parsed.
//
// Contract: every accessor returns nullopt for an absent file (silently) and
// for a bad one (with a warning that names the file relative to the sysfs
// root and says what was wrong). It never throws and never aborts.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "agent/node/sysfs_reader.h"

namespace rdmascope {

class AttrReader {
 public:
  AttrReader(const SysfsReader& fs, std::vector<std::string>* warnings) : fs_(fs), warnings_(warnings) {}

  const SysfsReader& fs() const { return fs_; }

  // The raw text. An empty file is bad (warned) unless empty_is_absent, which
  // suits free-text attributes some drivers leave empty (rxe's fw_ver).
  std::optional<std::string> Text(const std::string& rel, bool empty_is_absent = false);

  // Text parsed by `parse`; what = the expected format, for the warning.
  template <typename T>
  std::optional<T> Parsed(const std::string& rel, const std::function<std::optional<T>(const std::string&)>& parse,
                          const char* what) {
    auto text = Text(rel);
    if (!text) return std::nullopt;
    auto v = parse(*text);
    if (!v) Warn(rel, "cannot parse \"" + Shorten(*text) + "\" as " + what);
    return v;
  }

  // Entries of a directory; a warning when it exists but cannot be listed.
  std::vector<std::string> List(const std::string& rel);

  void Warn(const std::string& rel, const std::string& what);

 private:
  static std::string Shorten(const std::string& text);

  const SysfsReader& fs_;
  std::vector<std::string>* warnings_;
};

}  // namespace rdmascope
