// Many MADs in flight over one MadTransport: a window, per-MAD timeouts and
// retries, answers matched by transaction id.
//
// Contract: Submit() queues a request (also from inside a callback); Run()
// sends up to `window` at once, refills the window in bursts whenever half of
// it has come back (the far end wakes once per burst, not once per answer),
// and returns when every request has finished —
// each one's callback is called exactly once, with the answer or with an error
// naming the MAD ("NodeInfo via DR 0,1,3: no answer after 3 tries"). An attempt
// that gets no answer within timeout_ms (or that the transport reports as timed
// out) is sent again with a fresh transaction id, up to `retries` more times;
// late answers to an abandoned attempt are dropped. Run() fails only when the
// transport itself fails.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <vector>
#include <functional>
#include <string>

#include "fabric/fabric_model.h"
#include "fabric/mad_transport.h"

namespace rdmascope::fabric {

struct EngineOptions {
  int window = 64;       // MADs in flight at most
  int timeout_ms = 100;  // per attempt
  int retries = 2;       // extra attempts after the first
};

struct MadAnswer {
  bool ok = false;
  std::string error;     // when !ok: what failed
  const MadBytes* mad = nullptr;  // when ok: the answer (valid during the callback)
};

using MadCallback = std::function<void(const MadAnswer&)>;

class MadEngine {
 public:
  MadEngine(MadTransport& transport, EngineOptions options);

  // what: names the MAD in errors, e.g. "PortInfo port 3 via DR 0,1".
  void Submit(const OutgoingMad& mad, std::string what, MadCallback done);
  Status Run();
  const SweepStats& stats() const { return stats_; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Request {
    OutgoingMad mad;
    std::string what;
    MadCallback done;
    int attempts = 0;
  };
  struct InFlight {
    Request req;
    Clock::time_point deadline;
  };

  Status SendOne(Request req);
  // Index of the MAD in flight with transaction id `tid`, or -1.
  int FindInFlight(uint32_t tid) const;
  // Removes in-flight entry i (the last one moves into its place).
  Request TakeInFlight(int i);
  void Expire(Clock::time_point now);
  void AttemptFailed(Request req, const char* why);

  MadTransport& transport_;
  EngineOptions options_;
  std::deque<Request> pending_;
  // MADs in flight, at most `window`, unordered: in_flight_tids_[i] is the
  // transaction id (low 32 bits) of in_flight_[i]. A scan of a few dozen
  // integers finds an answer's entry without a node allocation per MAD.
  std::vector<uint32_t> in_flight_tids_;
  std::vector<InFlight> in_flight_;
  std::deque<std::pair<Clock::time_point, uint32_t>> deadlines_;  // send order = deadline order
  SweepStats stats_;
};

}  // namespace rdmascope::fabric
