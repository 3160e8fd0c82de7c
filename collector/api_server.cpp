#include "collector/api_server.h"

#include "collector/api_auth.h"
#include "collector/bounded_task_queue.h"
#include "collector/request_guard.h"

#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

namespace rdmascope::collector {

using nlohmann::json;

namespace {
// Connections the kernel queues for accept (capped by net.core.somaxconn).
constexpr int kListenBacklog = 1024;
}  // namespace

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

ApiServer::ApiServer(Store& store, ApiOptions options)
    : store_(store),
      committer_(std::make_unique<GroupCommitter>(store)),
      options_(std::move(options)),
      server_(options_.tls_cert.empty()
                  ? std::make_unique<httplib::Server>()
                  : std::make_unique<httplib::SSLServer>(options_.tls_cert.c_str(), options_.tls_key.c_str())) {
  if (!options_.now_ms)
    options_.now_ms = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  if (!options_.log) options_.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  const size_t workers = options_.http_workers, queued = options_.http_max_queued;
  server_->new_task_queue = [workers, queued] { return new BoundedTaskQueue(workers, queued); };
  server_->set_read_timeout(options_.http_timeout_s, 0);
  server_->set_write_timeout(options_.http_timeout_s, 0);
  // One request per connection. The HTTP library decides keep-alive from the
  // request alone: after a refusal that left a body unread, it would parse the
  // body as the next request line, and it buffers a line without bound. A
  // report every few seconds per node does not need keep-alive.
  server_->set_keep_alive_max_count(1);
  server_->set_socket_options([this](socket_t sock) {
    httplib::default_socket_options(sock);
    listen_fd_ = sock;
  });
  Routes();
}

ApiServer::~ApiServer() { Stop(); }

int64_t ApiServer::Now() const { return options_.now_ms(); }

Result<int> ApiServer::Bind(const std::string& host, int port) {
  if (!server_->is_valid())
    return Result<int>::Error("cannot load the TLS certificate " + options_.tls_cert + " with the key " +
                              options_.tls_key +
                              ": check that both are readable PEM files and that the key belongs to the certificate");
  int bound = port == 0 ? server_->bind_to_any_port(host) : (server_->bind_to_port(host, port) ? port : -1);
  if (bound <= 0)
    return Result<int>::Error("cannot listen on " + host + ":" + std::to_string(port) +
                              " (address in use, or not an address of this host?)");
  // Every report is a connection of its own (keep-alive is off), so a fleet
  // connects in bursts: with the library's backlog of 5 the kernel dropped
  // handshakes, which cost the client a 1 s SYN retransmission or a reset
  // connection (no answer at all). listen() again only resizes the queue.
  if (::listen(listen_fd_.load(), kListenBacklog) != 0)
    options_.log("warning: cannot raise the listen backlog to " + std::to_string(kListenBacklog) + ": " +
                 std::strerror(errno) + "; bursts of connections may be refused");
  return bound;
}

bool ApiServer::Listen() { return server_->listen_after_bind(); }

void ApiServer::Stop() {
  if (server_) server_->stop();
}

bool ApiServer::WaitUntilReady(int timeout_ms) const {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!server_->is_running()) {
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
  if (BoundedTaskQueue::Overloaded()) {
    if (report_route) metrics_.Count(ReportOutcome::kOverloaded);
    SendError(res, 503, "collector overloaded",
              std::to_string(options_.http_max_queued) + " connections already wait for a worker; retry later");
    res.set_header("Retry-After", "1");
    res.set_header("Connection", "close");
    return httplib::Server::HandlerResponse::Handled;
  }
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
