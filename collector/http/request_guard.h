// What the collector refuses before the HTTP library reads a request body.
//
// Contract: GuardRequest looks only at the request line and headers, so it
// runs before any body byte is read (cpp-httplib reads bodies before routing,
// so this is the one place that can keep them out). Only POST
// /api/v1/reports takes a body, and only with a Content-Length within
// max_body_bytes and no Content-Encoding. Everywhere else:
//  - Transfer-Encoding (chunked or any) -> 411 on the report route, 400 elsewhere;
//  - Content-Encoding other than identity -> 415 (a gzip bomb is never inflated);
//  - a body-carrying method (POST/PUT/PATCH/DELETE) without Content-Length
//    -> 411 (the library would read such a body to EOF);
//  - a Content-Length above 0 on any other route -> 400;
//  - a Range header -> 416 (answers are small JSON; parts would be buffered copies).
// nullopt: the request may proceed to authentication and routing.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace rdmascope::collector {

struct Refusal {
  int status;
  std::string error;   // short, stable: "length required"
  std::string detail;  // what to do instead
};

// header(name) returns the header's value, nullopt when absent.
using HeaderLookup = std::function<std::optional<std::string>(const std::string& name)>;

std::optional<Refusal> GuardRequest(const std::string& method, const std::string& path, const HeaderLookup& header,
                                    size_t max_body_bytes);

// True when `text` nests arrays/objects deeper than max_depth (strings are
// skipped, so brackets inside them do not count). Linear, no recursion: run it
// before parsing, whose result would be dumped recursively later.
bool JsonNestingExceeds(const std::string& text, int max_depth);

}  // namespace rdmascope::collector
