#include "cli/status_client.h"

#include <httplib.h>

#include <cstdio>
#include <memory>

#include "agent/client/collector_client.h"
#include "agent/client/token_file.h"
#include "common/http_date.h"

namespace rdmascope::cli {
namespace {

using nlohmann::json;

// A client for `url` with the read token's header; errors name the URL.
struct Connection {
  std::unique_ptr<httplib::Client> client;
  httplib::Headers headers;
};

Result<Connection> Connect(const std::string& url, const CollectorAccess& access) {
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
    return Result<Connection>::Error("bad collector URL \"" + url +
                                     "\": expected http://HOST:PORT or https://HOST:PORT");
  Connection c;
  c.client = client::MakeCollectorClient(url, access.ca_file);
  if (!c.client->is_valid())
    return Result<Connection>::Error("bad collector URL \"" + url +
                                     "\": expected http://HOST:PORT or https://HOST:PORT");
  if (!access.token_file.empty()) {
    auto token = client::ReadTokenFile(access.token_file);
    if (!token.ok()) return token.status();
    c.headers.emplace("Authorization", "Bearer " + token.value());
  }
  c.client->set_connection_timeout(2, 0);
  c.client->set_read_timeout(5, 0);
  return c;
}

Result<json> GetMember(Connection& c, const std::string& url, const std::string& path, const char* member,
                       const std::string& ca_file) {
  auto res = c.client->Get(path.c_str(), c.headers);
  if (!res)
    return Result<json>::Error("collector " + url + " unreachable (" + client::DescribeHttpError(res.error(), ca_file) +
                               "): is rdmascope-collector running and listening there? (see --collector)");
  if (res->status == 401)
    return Result<json>::Error("collector " + url + path + " answered HTTP 401: it needs a read token; give one with "
                               "--token-file FILE (a token of the collector's --read-token-file)");
  if (res->status != 200)
    return Result<json>::Error("collector " + url + path + " answered HTTP " + std::to_string(res->status) + ": " +
                               res->body.substr(0, 200));
  json body = json::parse(res->body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object() || !body.contains(member) || !(*body.find(member)).is_array())
    return Result<json>::Error("collector " + url + path + " answered something that is not the expected JSON (no \"" +
                               member + "\" array): is this an rdmascope collector?");
  return body[member];
}

}  // namespace

const char kCollectorAccessHelp[] =
    "  --ca-file FILE   https:// collector: PEM file of the CA that signed its certificate\n"
    "                   (default: the system's CA store)\n"
    "  --token-file FILE  file holding a read token, for a collector started with\n"
    "                   --read-token-file\n";

Result<bool> ParseCollectorAccessArg(const std::vector<std::string>& args, size_t* i, CollectorAccess* access) {
  for (auto [flag, field] : {std::pair<const char*, std::string*>{"--ca-file", &access->ca_file},
                             std::pair<const char*, std::string*>{"--token-file", &access->token_file}}) {
    const std::string name = flag, with_eq = name + "=";
    if (args[*i] == name) {
      if (*i + 1 >= args.size()) return Result<bool>::Error(name + " needs a file");
      *field = args[++*i];
      return true;
    }
    if (args[*i].rfind(with_eq, 0) == 0) {
      *field = args[*i].substr(with_eq.size());
      return true;
    }
  }
  return false;
}

int PrintCollectorFailure(const std::string& url, const std::string& message, bool as_json) {
  if (as_json)
    std::printf("%s\n",
                json{{"status", "CRITICAL"}, {"exit_code", 2}, {"collector", url}, {"error", message}}.dump(2).c_str());
  else
    std::printf("RDMA CRITICAL - %s\n", message.c_str());
  return 2;
}

bool TakeCollectorArg(const std::vector<std::string>& args, size_t* i, std::string* url) {
  if (args[*i] == "--collector" && *i + 1 < args.size()) {
    *url = args[++*i];
    return true;
  }
  if (args[*i].rfind("--collector=", 0) == 0) {
    *url = args[*i].substr(12);
    return true;
  }
  return false;
}

std::string IsoTime(const json& ms) {
  if (!ms.is_number()) return "n/a";
  return FormatUtcTimestamp(ms.get<int64_t>());
}

Result<json> FetchCollectorList(const std::string& url, const std::string& path, const char* member,
                                const CollectorAccess& access) {
  auto c = Connect(url, access);
  if (!c.ok()) return c.status();
  return GetMember(c.value(), url, path, member, access.ca_file);
}

Result<CollectorView> FetchCollectorView(const std::string& url, int worst_pairs, const CollectorAccess& access) {
  auto c = Connect(url, access);
  if (!c.ok()) return c.status();
  CollectorView v;
  struct Part {
    std::string path;
    const char* member;
    json* out;
  };
  Part parts[] = {
      {"/api/v1/nodes", "nodes", &v.nodes},
      {"/api/v1/ports", "ports", &v.ports},
      {"/api/v1/probes/worst?limit=" + std::to_string(worst_pairs), "pairs", &v.worst_pairs},
      {"/api/v1/events?open=1", "events", &v.open_events},
  };
  for (Part& p : parts) {
    auto r = GetMember(c.value(), url, p.path, p.member, access.ca_file);
    if (!r.ok()) return r.status();
    *p.out = r.value();
  }
  return v;
}

}  // namespace rdmascope::cli
