#include "agent/daemon/pinglist_client.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "agent/client/collector_client.h"
#include "agent/client/token_file.h"

namespace rdmascope::agent {
namespace {

constexpr int kConnectTimeoutS = 3;
constexpr int kReadTimeoutS = 5;

// Node names as the collector accepts them: [A-Za-z0-9._-]+.
std::string UrlEncodeNode(const std::string& node) {
  std::string out;
  for (unsigned char c : node) {
    if (std::isalnum(c) || c == '.' || c == '_' || c == '-') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

}  // namespace

Result<PinglistClient> PinglistClient::Create(const std::string& collector_url, const std::string& token_file,
                                              const std::string& node_name, const std::string& ca_file) {
  auto urls = client::ParseCollectorUrls(collector_url);
  if (!urls.ok()) return urls.status();
  return PinglistClient(std::move(urls).value(), token_file, node_name, ca_file);
}

Result<std::vector<probes::ProbeTarget>> ParsePinglist(const std::string& body) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::Error("pinglist is not a JSON object");
  if (j.value("schema_version", 0) != 1) return Status::Error("pinglist /schema_version is not 1");
  if (!j.contains("targets") || !j["targets"].is_array()) return Status::Error("pinglist /targets is not an array");
  std::vector<probes::ProbeTarget> targets;
  for (size_t i = 0; i < j["targets"].size(); ++i) {
    const auto& t = j["targets"][i];
    const std::string at = "pinglist /targets/" + std::to_string(i);
    if (!t.is_object() || !t.contains("node") || !t["node"].is_string() || !t.contains("host") ||
        !t["host"].is_string() || !t.contains("control_port") || !t["control_port"].is_number_integer())
      return Status::Error(at + ": needs string node and host and integer control_port");
    int port = t["control_port"].get<int>();
    if (port < 1 || port > 65535) return Status::Error(at + "/control_port out of range");
    targets.push_back({t["node"].get<std::string>(), t["host"].get<std::string>(), port});
  }
  return targets;
}

Result<std::vector<probes::ProbeTarget>> PinglistClient::Fetch(const std::string& rail) const {
  std::string errors;
  const size_t first = current_->load();
  for (size_t tried = 0; tried < urls_.size(); ++tried) {
    const size_t i = (first + tried) % urls_.size();
    auto targets = FetchFrom(urls_[i], rail);
    if (targets.ok()) {
      current_->store(i);
      return targets;
    }
    if (urls_.size() == 1) return targets;
    errors += (errors.empty() ? "" : "; ") + targets.status().message();
  }
  return Status::Error("no collector gave a pinglist: " + errors);
}

Result<std::vector<probes::ProbeTarget>> PinglistClient::FetchFrom(const client::CollectorUrl& url,
                                                                   const std::string& rail) const {
  std::string path = url.path_prefix + "/api/v1/pinglist?node=" + UrlEncodeNode(node_);
  if (!rail.empty()) path += "&rail=" + UrlEncodeNode(rail);
  const std::string where = url.scheme_host_port + path;
  httplib::Headers headers;
  if (!token_file_.empty()) {
    auto token = client::ReadTokenFile(token_file_);
    if (!token.ok()) return token.status();
    headers.emplace("Authorization", "Bearer " + *token);
  }
  auto client = client::MakeCollectorClient(url.scheme_host_port, ca_file_);
  client->set_connection_timeout(kConnectTimeoutS, 0);
  client->set_read_timeout(kReadTimeoutS, 0);
  auto res = client->Get(path, headers);
  if (!res) return Status::Error("GET " + where + ": " + client::DescribeHttpError(res.error(), ca_file_));
  if (res->status != 200)
    return Status::Error("GET " + where + ": HTTP " + std::to_string(res->status) + " " + res->body.substr(0, 200));
  auto targets = ParsePinglist(res->body);
  if (!targets.ok()) return Status::Error("GET " + where + ": " + targets.status().message());
  return targets;
}

}  // namespace rdmascope::agent
