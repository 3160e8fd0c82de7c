// Helpers shared by the control-port tests: a device-less responder on
// loopback and connections from a chosen loopback source address.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "probes/line_socket.h"
#include "probes/responder.h"

namespace rdmascope::probes {

// A responder without devices whose control port listens on 127.0.0.1 only.
inline std::unique_ptr<Responder> LoopbackResponder(const std::string& secret = "", bool strict = true) {
  ResponderOptions o;
  o.control_port = 0;
  o.control_bind = {"127.0.0.1"};
  o.control_secret = secret;
  o.control_strict = strict;
  auto r = Responder::StartIdle(o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : nullptr;
}

// A blocking connection to 127.0.0.1:port from `source` (another loopback
// address stands for another host); an invalid fd when it fails.
inline UniqueFd ConnectFrom(const std::string& source, int port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  ::inet_pton(AF_INET, source.c_str(), &a.sin_addr);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return UniqueFd();
  a.sin_port = htons(uint16_t(port));
  ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return UniqueFd();
  return fd;
}

}  // namespace rdmascope::probes
