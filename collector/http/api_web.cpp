// The dashboard's files: from --web-dir when given (development: edits show
// without a rebuild), else the copy embedded at build time (embed_web.cmake).
//
// Contract: GET / is index.html; GET /PATH is the embedded file PATH with its
// content type; any other path is a 404 with the API's error body. Files go
// out uncompressed (http_body.h): the HTTP library's brotli at quality 11 is
// far slower than sending them as they are, and a charset does not stop it.
#include <string>

#include "collector/http/api_server.h"
#include "collector/http/http_body.h"
#include "collector/http/web_embedded.h"

namespace rdmascope::collector {

void ApiServer::WebRoutes() {
  httplib::Server& s = *server_;
  if (!options_.web_dir.empty()) {
    s.set_file_extension_and_mimetype_mapping("html", "text/html; charset=utf-8");
    s.set_file_extension_and_mimetype_mapping("js", "text/javascript; charset=utf-8");
    s.set_file_extension_and_mimetype_mapping("mjs", "text/javascript; charset=utf-8");
    s.set_file_extension_and_mimetype_mapping("css", "text/css; charset=utf-8");
    s.set_file_extension_and_mimetype_mapping("json", "application/json; charset=utf-8");
    s.set_file_extension_and_mimetype_mapping("svg", "image/svg+xml; charset=utf-8");
    s.set_mount_point("/", options_.web_dir);
    s.set_file_request_handler([](const httplib::Request&, httplib::Response& res) {
      std::string type = res.get_header_value("Content-Type");
      SetUncompressed(res, std::move(res.body), type);
    });
    return;
  }
  // Registered last: the API's routes match first.
  s.Get(R"(/.*)", [](const httplib::Request& req, httplib::Response& res) {
    const std::string path = req.path == "/" ? "/index.html" : req.path;
    for (const auto& f : kEmbeddedWebFiles) {
      if (path == f.path) {
        SetUncompressed(res, std::string(f.body), f.content_type);
        return;
      }
    }
    res.status = 404;  // the error handler writes the body
  });
}

}  // namespace rdmascope::collector
