#include "agent/node/attr_reader.h"

namespace rdmascope {

std::optional<std::string> AttrReader::Text(const std::string& rel, bool empty_is_absent) {
  auto r = fs_.ReadAttr(rel);
  if (!r.ok()) {
    warnings_->push_back(r.status().message());
    return std::nullopt;
  }
  if (!r.value()) return std::nullopt;
  if (r.value()->empty()) {
    if (!empty_is_absent) Warn(rel, "empty file");
    return std::nullopt;
  }
  return *r.value();
}

std::vector<std::string> AttrReader::List(const std::string& rel) {
  auto r = fs_.ListDir(rel);
  if (!r.ok()) {
    warnings_->push_back(r.status().message());
    return {};
  }
  return r.value();
}

void AttrReader::Warn(const std::string& rel, const std::string& what) {
  warnings_->push_back(fs_.FullPath(rel) + ": " + what);
}

std::string AttrReader::Shorten(const std::string& text) {
  std::string out;
  for (char c : text.substr(0, 40)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (text.size() > 40) out += "...";
  return out;
}

}  // namespace rdmascope
