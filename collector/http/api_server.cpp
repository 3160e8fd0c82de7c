#include "collector/http/api_server.h"

#include "collector/http/api_auth.h"
#include "collector/http/request_guard.h"

#include <chrono>
#include <cstdio>
#include <thread>

namespace rdmascope::collector {

using nlohmann::json;

void SendError(httplib::Response& res, int status, const std::string& error, const json& detail) {
  res.status = status;
  // Replace invalid UTF-8 (echoed from a bad request) rather than throw.
  res.set_content(json{{"error", error}, {"detail", detail}}.dump(-1, ' ', false, json::error_handler_t::replace),
                  "application/json; charset=utf-8");
}

// With the charset parameter the HTTP library does not compress the body: its
// brotli runs at the slowest quality, far slower than sending large answers as is.
void SendJson(httplib::Response& res, const json& body) {
  res.status = 200;
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json; charset=utf-8");
}

void ApiServer::RoutingServer::Serve(httplib::Stream& stream) {
  bool closed = true;
  process_request(stream, /*close_connection=*/true, closed, nullptr);
}

ApiServer::ApiServer(Storage& store, ApiOptions options)
    : store_(store),
      committer_(std::make_unique<GroupCommitter>(store)),
      options_(std::move(options)),
      pinglists_(options_.pinglist, options_.pinglist_refresh_ms),
      server_(std::make_unique<RoutingServer>()) {
  if (!options_.now_ms)
    options_.now_ms = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  if (!options_.log) options_.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  if (!options_.tls_cert.empty()) tls_ = TlsContext::Load(options_.tls_cert, options_.tls_key);
  FrontOptions f;
  f.head = options_.http_head;
  f.head_timeout = std::chrono::milliseconds(options_.http_head_timeout_ms);
  f.max_connections = options_.http_max_connections;
  f.max_per_client = options_.http_max_per_client;
  f.workers = options_.http_workers;
  f.max_queued = options_.http_max_queued;
  if (tls_.ok()) f.tls = tls_.value();
  const auto timeout = std::chrono::seconds(options_.http_timeout_s);
  front_ = std::make_unique<HttpFront>(
      std::move(f),
      [this, timeout](Connection& conn) {
        // The body, after the head the front read, must arrive within one timeout.
        ConnectionStream stream(conn, timeout, std::chrono::steady_clock::now() + timeout);
        try {
          server_->Serve(stream);
        } catch (const std::exception& e) {
          options_.log(std::string("HTTP request from ") + conn.peer_ip + " failed: " + e.what());
        }
      },
      [this](std::string_view method, std::string_view path) {
        if (method == "POST" && path == "/api/v1/reports") metrics_.Count(ReportOutcome::kOverloaded);
      },
      options_.log);
  Routes();
}

ApiServer::~ApiServer() {
  Stop();
  front_.reset();  // joins the workers before the routes they use go away
}

int64_t ApiServer::Now() const { return options_.now_ms(); }

Result<int> ApiServer::Bind(const std::string& host, int port) {
  if (!tls_.ok()) return tls_.status();
  return front_->Listen(host, port);
}

bool ApiServer::Listen() {
  server_->SetServing(true);
  const bool ok = front_->Run();  // returns once in-flight requests are answered
  server_->SetServing(false);
  return ok;
}

void ApiServer::Stop() {
  if (front_) front_->Stop();
}

bool ApiServer::WaitUntilReady(int timeout_ms) const {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!front_->running()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

httplib::Server::HandlerResponse ApiServer::PreRoute(const httplib::Request& req, httplib::Response& res) {
  // Every route: refuse bodies, encodings and ranges before the library reads a byte of a body.
  auto header = [&req](const std::string& name) -> std::optional<std::string> {
    if (!req.has_header(name.c_str())) return std::nullopt;
    return req.get_header_value(name.c_str());
  };
  const bool report_route = req.method == "POST" && req.path == "/api/v1/reports";
  if (auto refusal = GuardRequest(req.method, req.path, header, options_.max_body_bytes)) {
    if (report_route)
      metrics_.Count(refusal->status == 413 ? ReportOutcome::kTooLarge : ReportOutcome::kInvalid);
    SendError(res, refusal->status, refusal->error, refusal->detail);
    res.set_header("Connection", "close");  // an unread body must not be parsed as the next request
    options_.log("request refused (" + std::to_string(refusal->status) + " " + refusal->error + "): " + req.method +
                 " " + req.path.substr(0, 256) + " from " + req.remote_addr);
    return httplib::Server::HandlerResponse::Handled;
  }
  if (!report_route) {
    if (options_.read_tokens.empty() || req.path == "/healthz") return httplib::Server::HandlerResponse::Unhandled;
    const std::string authorization = req.get_header_value("Authorization");
    if (ReadAuthorized(authorization, options_.read_tokens) ||
        (req.path == "/api/v1/pinglist" && BearerMatches(authorization, options_.tokens)))
      return httplib::Server::HandlerResponse::Unhandled;
    SendError(res, 401, "unauthorized",
              "reading needs a token from the collector's --read-token-file: Authorization: Bearer <token>, "
              "or a browser login with any user name and the token as password");
    res.set_header("WWW-Authenticate", "Basic realm=\"rdmascope\", charset=\"UTF-8\"");
    return httplib::Server::HandlerResponse::Handled;
  }
  if (options_.auth && !BearerMatches(req.get_header_value("Authorization"), options_.tokens)) {
    metrics_.Count(ReportOutcome::kUnauthorized);
    SendError(res, 401, "unauthorized",
              "send Authorization: Bearer <token> with a token from the collector's --token-file");
    res.set_header("WWW-Authenticate", "Bearer");
    res.set_header("Connection", "close");
    options_.log("report rejected: unauthorized from " + req.remote_addr);
    return httplib::Server::HandlerResponse::Handled;
  }
  return httplib::Server::HandlerResponse::Unhandled;
}

}  // namespace rdmascope::collector
