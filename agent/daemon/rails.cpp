#include "agent/daemon/rails.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "common/text.h"

namespace rdmascope::agent {
namespace {

// Rail names keep the device names' alphabet, up to 64 characters.
constexpr size_t kMaxRailName = 64, kMaxDeviceName = 63;

bool NameOk(const std::string& s, size_t max) {
  if (s.empty() || s.size() > max) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') return false;
  return true;
}

// The lowest number ("0", "1", ...) that is not in `taken`.
std::string LowestFreeNumber(const std::set<std::string>& taken) {
  size_t n = 0;
  while (taken.count(std::to_string(n))) ++n;
  return std::to_string(n);
}

}  // namespace

bool DeviceNameOk(const std::string& name) { return NameOk(name, kMaxDeviceName); }

Result<RailSpec> ParseRailSpec(const std::string& text) {
  const std::string t(Trim(text, kBlanks));
  size_t eq = t.find('=');
  if (eq == std::string::npos) return Status::Error("rail '" + t + "': expected NAME=DEV[/PORT]");
  RailSpec r;
  r.name = t.substr(0, eq);
  if (!NameOk(r.name, kMaxRailName)) return Status::Error("rail '" + t + "': name must be 1..64 of [A-Za-z0-9._-]");
  std::string where = t.substr(eq + 1);
  size_t slash = where.find('/');
  r.where.device = where.substr(0, slash);
  if (!DeviceNameOk(r.where.device))
    return Status::Error("rail '" + t + "': device name must be 1..63 of [A-Za-z0-9._-]");
  if (slash != std::string::npos) {
    const std::string p = where.substr(slash + 1);
    if (p.empty() || p.size() > 3 || !std::all_of(p.begin(), p.end(), ::isdigit) || std::stoi(p) < 1 ||
        std::stoi(p) > 255)
      return Status::Error("rail '" + t + "': PORT must be 1..255");
    r.where.port = std::stoi(p);
  }
  return r;
}

Result<std::vector<RailSpec>> ParseRailList(const std::string& text) {
  std::vector<RailSpec> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item(Trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start), kBlanks));
    if (!item.empty()) {
      auto r = ParseRailSpec(item);
      if (!r.ok()) return r.status();
      out.push_back(*r);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  Status v = ValidateRails(out);
  if (!v.ok()) return v;
  return out;
}

Status ValidateRails(const std::vector<RailSpec>& rails) {
  std::set<std::string> names;
  std::set<PortRef> ports;
  for (const RailSpec& r : rails) {
    if (!names.insert(r.name).second) return Status::Error("rail name '" + r.name + "' given twice");
    if (!ports.insert(r.where).second)
      return Status::Error("port " + r.where.device + "/" + std::to_string(r.where.port) + " named by two rails");
  }
  return Status::Ok();
}

std::vector<RailSpec> ComputeRails(std::vector<PortRef> known, const std::vector<std::string>& devices,
                                   const std::vector<RailSpec>& named, const std::vector<RailSpec>& previous,
                                   std::vector<std::string>* notes) {
  std::set<PortRef> probed;
  const bool all = devices.empty() && named.empty();
  for (const PortRef& p : known)
    if (all || std::find(devices.begin(), devices.end(), p.device) != devices.end()) probed.insert(p);
  for (const RailSpec& r : named) probed.insert(r.where);
  // Names already decided: the --rail ones, then the running agent's.
  std::map<PortRef, std::string> name_of;
  std::set<std::string> taken;
  for (const RailSpec& r : named) name_of[r.where] = r.name, taken.insert(r.name);
  for (const RailSpec& r : previous)
    if (probed.count(r.where) && !name_of.count(r.where) && !taken.count(r.name))
      name_of[r.where] = r.name, taken.insert(r.name);
  std::vector<RailSpec> out;
  size_t position = 0;
  for (const PortRef& p : probed) {
    const std::string by_position = std::to_string(position++);
    auto it = name_of.find(p);
    if (it != name_of.end()) {
      out.push_back({it->second, p});
      continue;
    }
    std::string name = by_position;
    if (taken.count(name)) {
      name = LowestFreeNumber(taken);
      if (notes)
        notes->push_back("rail " + name + " = " + p.device + "/" + std::to_string(p.port) + ": its position's name " +
                         by_position + " is taken (it appeared after the other rails were named; name the rails "
                         "with --rail, or delete rail-names.json in the spool directory and restart the agent to number "
                         "them by position again)");
    }
    taken.insert(name);
    out.push_back({name, p});
  }
  return out;
}

}  // namespace rdmascope::agent
