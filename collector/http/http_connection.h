// One accepted client connection, as the front hands it to a worker: its
// socket, its TLS session when the listener speaks HTTPS, the bytes the front
// has already read (the whole request head, perhaps the start of the body) and
// the peer's address.
//
// Contract: a Connection owns its socket and TLS session; the destructor
// closes both (shutdown first, so the peer sees the end of the answer). Its
// Stream (ConnectionStream) gives the HTTP library the buffered bytes first,
// then reads the socket; every read and write waits at most its own timeout,
// and reads stop for good at the connection's deadline (a client that
// trickles a body cannot hold a worker past it).
#pragma once

#include <httplib.h>
#include <openssl/ssl.h>

#include <chrono>
#include <cstddef>
#include <string>

namespace rdmascope::collector {

struct Connection {
  Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  int fd = -1;
  SSL* ssl = nullptr;      // null: plain HTTP
  std::string buffered;    // read by the front, not yet given to the library
  std::string peer_ip;     // the client's address, without the port
  int peer_port = 0;
};

class ConnectionStream : public httplib::Stream {
 public:
  // timeout: for each read or write; deadline: after it every read fails.
  ConnectionStream(Connection& conn, std::chrono::milliseconds timeout,
                   std::chrono::steady_clock::time_point deadline);

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return conn_.fd; }

 private:
  // Waits until the socket is ready for `events` (POLLIN/POLLOUT) within the
  // per-call timeout (and, for reads, the deadline). False on time-out or error.
  bool Wait(short events, bool reading) const;

  Connection& conn_;
  size_t offset_ = 0;  // into conn_.buffered
  std::chrono::milliseconds timeout_;
  std::chrono::steady_clock::time_point deadline_;
};

}  // namespace rdmascope::collector
