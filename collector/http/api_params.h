// Query parameters and store answers of the API's GET handlers.
//
// Contract:
//  - IntParam / NameParam / TextParam leave *out unchanged when the parameter is absent;
//    a bad value answers 400 {"error":"invalid query","detail":{"param",
//    "problem"}} and returns false.
//  - ReplyStore answers a store result: 200 with its JSON; a read stopped at
//    its deadline 503 "query too long" (what to narrow); any other failure
//    500 naming in product terms what could not be read. SQL, exception
//    text and file paths go to the log only, never to the client.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "common/status.h"

namespace rdmascope::collector {

using ApiLog = std::function<void(const std::string&)>;

bool IntParam(const httplib::Request& req, httplib::Response& res, const char* name, int64_t min, int64_t max,
              int64_t* out);
bool NameParam(const httplib::Request& req, httplib::Response& res, const char* name, std::optional<std::string>* out);
// Free text (a filter): 1 to max_len bytes without control characters.
bool TextParam(const httplib::Request& req, httplib::Response& res, const char* name, size_t max_len,
               std::optional<std::string>* out);
// 400 naming the parameter; returns false.
bool BadParam(httplib::Response& res, const std::string& param, const std::string& problem);

// `what`: what was being read, e.g. "the node list".
void SendStoreFailure(httplib::Response& res, const Status& failure, const std::string& what, const ApiLog& log);
void ReplyStore(httplib::Response& res, const Result<nlohmann::json>& r, const std::string& what, const ApiLog& log);

}  // namespace rdmascope::collector
