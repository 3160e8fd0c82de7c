#include "collector/http/api_params.h"

#include <cctype>

#include "collector/http/api_server.h"
#include "collector/store/history_reader.h"

namespace rdmascope::collector {

bool BadParam(httplib::Response& res, const std::string& param, const std::string& problem) {
  SendError(res, 400, "invalid query", {{"param", param}, {"problem", problem}});
  return false;
}

bool IntParam(const httplib::Request& req, httplib::Response& res, const char* name, int64_t min, int64_t max,
              int64_t* out) {
  if (!req.has_param(name)) return true;
  std::string v = req.get_param_value(name);
  bool ok = !v.empty() && v.size() <= 18;
  for (size_t i = 0; i < v.size(); ++i) ok = ok && ((v[i] >= '0' && v[i] <= '9') || (i == 0 && v[i] == '-' && v.size() > 1));
  if (!ok) return BadParam(res, name, "expected an integer");
  int64_t n = std::stoll(v);
  if (n < min || n > max) return BadParam(res, name, "expected " + std::to_string(min) + " to " + std::to_string(max));
  *out = n;
  return true;
}

bool NameParam(const httplib::Request& req, httplib::Response& res, const char* name, std::optional<std::string>* out) {
  if (!req.has_param(name)) return true;
  std::string v = req.get_param_value(name);
  if (v.empty() || v.size() > 128) return BadParam(res, name, "expected 1 to 128 characters");
  for (char c : v)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
      return BadParam(res, name, "contains a character outside [A-Za-z0-9._-]");
  *out = v;
  return true;
}

bool TextParam(const httplib::Request& req, httplib::Response& res, const char* name, size_t max_len,
               std::optional<std::string>* out) {
  if (!req.has_param(name)) return true;
  std::string v = req.get_param_value(name);
  if (v.empty() || v.size() > max_len) return BadParam(res, name, "expected 1 to " + std::to_string(max_len) + " characters");
  for (char c : v)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return BadParam(res, name, "contains a control character");
  *out = v;
  return true;
}

void SendStoreFailure(httplib::Response& res, const Status& failure, const std::string& what, const ApiLog& log) {
  // The deadline's own text names the setting and what to narrow, nothing of the database.
  if (failure.message().rfind(kHistoryDeadlineError, 0) == 0)
    return SendError(res, 503, "query too long", failure.message());
  log("reading " + what + " failed: " + failure.message());
  SendError(res, 500, "store query failed",
            "the collector could not read " + what + "; its log has the cause");
}

void ReplyStore(httplib::Response& res, const Result<nlohmann::json>& r, const std::string& what, const ApiLog& log) {
  if (r.ok()) return SendJson(res, r.value());
  SendStoreFailure(res, r.status(), what, log);
}

}  // namespace rdmascope::collector
