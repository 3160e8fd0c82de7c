#include "agent/daemon/rail_names_file.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/synced_file.h"

namespace rdmascope::agent {

Result<std::vector<RailSpec>> LoadRailNames(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec) return std::vector<RailSpec>{};
  std::ifstream in(path);
  if (!in) return Status::Error("rail names " + path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("rails") || !doc["rails"].is_array())
    return Status::Error("rail names " + path + ": not a JSON object with a \"rails\" array");
  std::vector<RailSpec> out;
  std::set<PortRef> seen;
  for (const nlohmann::json& e : doc["rails"]) {
    if (out.size() >= kMaxRailNames) break;
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string() || !e.contains("device") ||
        !e["device"].is_string() || !e.contains("port") || !e["port"].is_number_unsigned())
      return Status::Error("rail names " + path + ": an entry is not {\"name\", \"device\", \"port\"}: " + e.dump());
    auto spec = ParseRailSpec(e["name"].get<std::string>() + "=" + e["device"].get<std::string>() + "/" +
                              std::to_string(e["port"].get<uint64_t>()));
    if (!spec.ok()) return Status::Error("rail names " + path + ": " + spec.status().message());
    if (seen.insert(spec->where).second) out.push_back(*spec);
  }
  return out;
}

Status SaveRailNames(const std::string& path, const std::vector<RailSpec>& names) {
  nlohmann::json rails = nlohmann::json::array();
  for (const RailSpec& r : names) {
    if (rails.size() >= kMaxRailNames) break;
    rails.push_back({{"name", r.name}, {"device", r.where.device}, {"port", r.where.port}});
  }
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);  // a failure shows in the write below
  Status s = ReplaceFileAtomically(path, nlohmann::json{{"rails", rails}}.dump(1) + "\n");
  return s.ok() ? s : Status::Error("rail names: " + s.message());
}

std::vector<RailSpec> MergeRailNames(const std::vector<RailSpec>& current, const std::vector<RailSpec>& remembered) {
  std::vector<RailSpec> out = current;
  std::set<PortRef> named;
  for (const RailSpec& r : current) named.insert(r.where);
  for (const RailSpec& r : remembered)
    if (named.insert(r.where).second) out.push_back(r);
  return out;
}

}  // namespace rdmascope::agent
