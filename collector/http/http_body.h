// Response bodies the collector compresses itself, or not at all.
//
// Contract: cpp-httplib 0.11.4 as Debian builds it (zlib and brotli on)
// compresses a body set with Response::set_content when its content type
// starts with "text/" (a charset parameter does not stop it) or is exactly
// one of a few types (application/json without parameters, image/svg+xml,
// ...) and the client's Accept-Encoding mentions "br" (brotli at quality 11,
// the slowest) or "gzip" (level 6) — any client, before any authorization of
// ours. It never compresses a body handed over as a content provider of
// known length. So:
//  - SetUncompressed sends `body` as is, whatever the client accepts.
//  - SetGzipOrPlain (/metrics) sends it gzip-compressed at level 1 (the
//    fastest: a few ms per MB) when the request's Accept-Encoding takes gzip
//    (a q of 0 refuses it), else as is; never brotli. Either way with
//    Vary: Accept-Encoding. A compression failure sends the text as is.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <httplib.h>

namespace rdmascope::collector {

void SetUncompressed(httplib::Response& res, std::string body, const std::string& content_type);
void SetGzipOrPlain(const httplib::Request& req, httplib::Response& res, std::string body,
                    const std::string& content_type);

// Whether an Accept-Encoding value takes gzip (token "gzip" or "x-gzip",
// any case, with no q=0).
bool AcceptsGzip(std::string_view accept_encoding);
// `text` as one gzip member at level 1; nullopt when zlib fails.
std::optional<std::string> GzipFast(std::string_view text);

}  // namespace rdmascope::collector
