// Bookkeeping of the responder's RC sessions, apart from verbs: which
// sessions exist, which prober owns each, when each last saw probe traffic,
// and which must go (idle, replaced, evicted). The caller owns the QPs and
// destroys the ones this table names.
//
// Contract (not thread-safe; the caller serialises):
// - Admit(key, now) makes room for one new session: a live session with the
//   same non-empty `key` (the prober's session id) is replaced (named in
//   `replaced`); otherwise, when `cap` sessions exist, the one idle longest
//   is evicted if it has been idle at least `evict_min_idle_ns`, else the
//   admission is refused with an error naming the cap and the youngest idle
//   time that would have been evictable. An empty key is never replaced.
// - Touch(id, now) records probe traffic; unknown ids are ignored.
// - Expire(now) removes and returns the sessions idle for `idle_ns` or more
//   (idle since their last Touch, or since admission when never touched).
// - Remove(id) forgets a session (its QP failed or the caller destroyed it).
// Ids are never reused, so a stale completion can be told from a new session.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"

namespace rdmascope::probes {

struct RcSessionLimits {
  size_t cap = 4096;                        // sessions at once, per served device
  uint64_t idle_ns = 60000000000ull;        // no probe for this long: the session ends
  uint64_t evict_min_idle_ns = 15000000000ull;  // at the cap, only a session idle this long gives way
};

struct RcAdmission {
  uint64_t id = 0;                 // the new session's id
  std::vector<uint64_t> replaced;  // the same prober's previous session
  std::vector<uint64_t> evicted;   // the oldest-idle session, when the table was full
};

class RcSessionTable {
 public:
  explicit RcSessionTable(RcSessionLimits limits) : limits_(limits) {}

  Result<RcAdmission> Admit(const std::string& key, uint64_t now_ns);
  void Touch(uint64_t id, uint64_t now_ns);
  std::vector<uint64_t> Expire(uint64_t now_ns);
  void Remove(uint64_t id);

  size_t size() const { return entries_.size(); }
  bool Contains(uint64_t id) const { return entries_.count(id) != 0; }
  const RcSessionLimits& limits() const { return limits_; }

 private:
  struct Entry {
    std::string key;
    uint64_t last_active_ns = 0;
  };
  RcSessionLimits limits_;
  uint64_t next_id_ = 1;
  std::map<uint64_t, Entry> entries_;
  std::unordered_map<std::string, uint64_t> by_key_;  // non-empty keys only
};

}  // namespace rdmascope::probes
