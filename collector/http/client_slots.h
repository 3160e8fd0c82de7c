// Connection slots of the HTTP front: a total and a share per client address.
//
// Contract: Acquire(ip) takes one slot for a connection from `ip` and says
// kTaken, or takes none and says why: kFull (max_total connections are open)
// or kClientFull (max_per_client of them come from `ip`). Every kTaken is
// matched by exactly one Release(ip) when that connection is closed, by
// whichever thread closes it. Thread-safe; memory is one entry per address
// that holds a connection now.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>

namespace rdmascope::collector {

class ClientSlots {
 public:
  enum class Outcome { kTaken, kFull, kClientFull };

  ClientSlots(size_t max_total, size_t max_per_client) : max_total_(max_total), max_per_client_(max_per_client) {}

  Outcome Acquire(const std::string& ip);
  void Release(const std::string& ip);
  size_t total() const;

 private:
  const size_t max_total_, max_per_client_;
  mutable std::mutex mu_;
  size_t total_ = 0;
  std::unordered_map<std::string, size_t> per_client_;
};

}  // namespace rdmascope::collector
