#include "collector/http/http_body.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <memory>

#include "common/text.h"

namespace rdmascope::collector {
namespace {

// q=0 (or 0.0, 0.00, 0.000) among the parameters after the coding.
bool RefusedByQ(std::string_view params) {
  while (!params.empty()) {
    size_t semi = params.find(';');
    std::string_view p = Trim(params.substr(0, semi), kBlanks);
    params = semi == std::string_view::npos ? std::string_view() : params.substr(semi + 1);
    if (p.size() < 2 || std::tolower(static_cast<unsigned char>(p[0])) != 'q' || p[1] != '=') continue;
    std::string_view v = Trim(p.substr(2), kBlanks);
    bool zero = !v.empty() && v[0] == '0';
    for (size_t i = 1; zero && i < v.size(); ++i) zero = (i == 1 && v[i] == '.') || (i > 1 && v[i] == '0');
    return zero;
  }
  return false;
}

}  // namespace

void SetUncompressed(httplib::Response& res, std::string body, const std::string& content_type) {
  if (body.empty()) return res.set_content(std::string(), content_type);  // nothing to compress either way
  auto shared = std::make_shared<const std::string>(std::move(body));
  res.set_content_provider(shared->size(), content_type,
                           [shared](size_t offset, size_t length, httplib::DataSink& sink) {
                             if (offset > shared->size()) return false;
                             length = std::min(length, shared->size() - offset);
                             return sink.write(shared->data() + offset, length);
                           });
}

void SetGzipOrPlain(const httplib::Request& req, httplib::Response& res, std::string body,
                    const std::string& content_type) {
  res.set_header("Vary", "Accept-Encoding");
  if (!body.empty() && AcceptsGzip(req.get_header_value("Accept-Encoding"))) {
    if (auto gz = GzipFast(body)) {
      res.set_header("Content-Encoding", "gzip");
      return SetUncompressed(res, std::move(*gz), content_type);
    }
  }
  SetUncompressed(res, std::move(body), content_type);
}

bool AcceptsGzip(std::string_view accept_encoding) {
  while (!accept_encoding.empty()) {
    size_t comma = accept_encoding.find(',');
    std::string_view item = accept_encoding.substr(0, comma);
    accept_encoding = comma == std::string_view::npos ? std::string_view() : accept_encoding.substr(comma + 1);
    size_t semi = item.find(';');
    std::string_view coding = Trim(item.substr(0, semi), kBlanks);
    if (!EqualsNoCase(coding, "gzip") && !EqualsNoCase(coding, "x-gzip")) continue;
    return semi == std::string_view::npos || !RefusedByQ(item.substr(semi + 1));
  }
  return false;
}

std::optional<std::string> GzipFast(std::string_view text) {
  if (text.size() > UINT_MAX / 2) return std::nullopt;  // one deflate call takes at most a uInt
  z_stream z{};
  // 16 + MAX_WBITS: a gzip header and trailer around the deflate stream.
  if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) return std::nullopt;
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return std::nullopt;
  return out;
}

}  // namespace rdmascope::collector
