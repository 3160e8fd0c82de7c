#include "cli/status_client.h"

#include <httplib.h>

#include <cstdio>
#include <ctime>

namespace rdmascope::cli {
namespace {

using nlohmann::json;

Result<json> GetMember(httplib::Client& cli, const std::string& url, const std::string& path, const char* member) {
  auto res = cli.Get(path.c_str());
  if (!res)
    return Result<json>::Error("collector " + url + " unreachable (" + httplib::to_string(res.error()) +
                               "): is rdmascope-collector running and listening there? (see --collector)");
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
  std::time_t t = static_cast<std::time_t>(ms.get<int64_t>() / 1000);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

Result<json> FetchCollectorList(const std::string& url, const std::string& path, const char* member) {
  httplib::Client cli(url);
  if (!cli.is_valid()) return Result<json>::Error("bad collector URL \"" + url + "\": expected http://HOST:PORT");
  cli.set_connection_timeout(2, 0);
  cli.set_read_timeout(5, 0);
  return GetMember(cli, url, path, member);
}

Result<CollectorView> FetchCollectorView(const std::string& url, int worst_pairs) {
  httplib::Client cli(url);
  if (!cli.is_valid())
    return Result<CollectorView>::Error("bad collector URL \"" + url + "\": expected http://HOST:PORT");
  cli.set_connection_timeout(2, 0);
  cli.set_read_timeout(5, 0);
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
    auto r = GetMember(cli, url, p.path, p.member);
    if (!r.ok()) return r.status();
    *p.out = r.value();
  }
  return v;
}

}  // namespace rdmascope::cli
