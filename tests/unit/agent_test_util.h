// Test helpers for the agent daemon tests: a temporary directory and an
// in-process collector on 127.0.0.1 that records what it receives.
#pragma once

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace rdmascope::agent::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with its contents on destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string templ = std::string(base && *base ? base : "/tmp") + "/rdmascope-agent-test-XXXXXX";
    path_ = ::mkdtemp(&templ[0]) ? templ : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Lines logged by the code under test.
class LogCapture {
 public:
  std::function<void(const std::string&)> Fn() {
    return [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      lines_.push_back(line);
      cv_.notify_all();
    };
  }
  // True once a line containing `text` was logged, false at the deadline.
  bool WaitFor(const std::string& text, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] {
      for (const auto& l : lines_)
        if (l.find(text) != std::string::npos) return true;
      return false;
    });
  }
  bool Contains(const std::string& text) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& l : lines_)
      if (l.find(text) != std::string::npos) return true;
    return false;
  }
  std::string All() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::string out;
    for (const auto& l : lines_) out += l + "\n";
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> lines_;
};

// A TCP port on 127.0.0.1 with no server: bound (so no other socket gets it)
// but not listening, so connections to it are refused. A FakeCollector may
// bind the same port while the holder lives (the server socket sets
// SO_REUSEPORT or SO_REUSEADDR; the holder sets both).
class RefusingPort {
 public:
  RefusingPort() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
      port_ = ntohs(a.sin_port);
    }
  }
  ~RefusingPort() {
    if (fd_ >= 0) ::close(fd_);
  }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = -1;
};

// POST /api/v1/reports answered with a settable status and body; records the
// report_id of every request it answered 2xx to ("accepted"), and of all
// requests ("seen"), with the Authorization header of the last one.
class FakeCollector {
 public:
  // port 0: an ephemeral port.
  explicit FakeCollector(int port = 0) {
    server_.Post("/api/v1/reports", [this](const httplib::Request& req, httplib::Response& res) {
      nlohmann::json j = nlohmann::json::parse(req.body, nullptr, false);
      std::string id = j.is_object() && j.contains("report_id") ? j["report_id"].get<std::string>() : "?";
      std::lock_guard<std::mutex> lock(mu_);
      seen_.push_back(id);
      bodies_.push_back(j);
      auth_ = req.get_header_value("Authorization");
      res.status = status_;
      res.set_content(body_, "application/json");
      if (status_ >= 200 && status_ < 300) {
        accepted_.push_back(id);
        accepted_at_.push_back(std::chrono::steady_clock::now());
      }
      cv_.notify_all();
    });
    if (port == 0) {
      port_ = server_.bind_to_any_port("127.0.0.1");
    } else {
      port_ = server_.bind_to_port("127.0.0.1", port) ? port : -1;
    }
    // The socket listens once bound; connections queue until the accept loop runs.
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() is a no-op until the accept loop runs: wait for it (bounded).
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (port_ > 0 && !server_.is_running() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
  }
  ~FakeCollector() { Stop(); }
  void Stop() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  void Respond(int status, std::string body = "{}") {
    std::lock_guard<std::mutex> lock(mu_);
    status_ = status;
    body_ = std::move(body);
  }
  // When each accepted request arrived, in the order of accepted().
  std::vector<std::chrono::steady_clock::time_point> accepted_at() const {
    std::lock_guard<std::mutex> lock(mu_);
    return accepted_at_;
  }
  std::vector<std::string> accepted() const {
    std::lock_guard<std::mutex> lock(mu_);
    return accepted_;
  }
  std::vector<std::string> seen() const {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }
  std::vector<nlohmann::json> bodies() const {
    std::lock_guard<std::mutex> lock(mu_);
    return bodies_;
  }
  std::string last_auth() const {
    std::lock_guard<std::mutex> lock(mu_);
    return auth_;
  }
  // True once at least n requests were accepted, false at the deadline.
  bool WaitAccepted(size_t n, std::chrono::milliseconds timeout) {
    return WaitUntil([n](const std::vector<std::string>& accepted) { return accepted.size() >= n; }, timeout);
  }
  // True once pred(accepted ids) holds, false at the deadline.
  bool WaitUntil(const std::function<bool(const std::vector<std::string>&)>& pred,
                 std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return pred(accepted_); });
  }

 private:
  httplib::Server server_;
  int port_ = -1;
  std::thread thread_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int status_ = 200;
  std::string body_ = "{}";
  std::vector<std::string> accepted_;
  std::vector<std::chrono::steady_clock::time_point> accepted_at_;
  std::vector<std::string> seen_;
  std::vector<nlohmann::json> bodies_;
  std::string auth_;
};

}  // namespace rdmascope::agent::testing
