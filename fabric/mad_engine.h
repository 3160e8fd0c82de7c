// Many MADs in flight over one MadTransport: windows, per-MAD timeouts and
// retries, answers matched by transaction id.
//
// Contract: Submit() queues a request (also from inside a callback); Run()
// returns when every request has finished — each one's callback is called
// exactly once, with the answer or with an error naming the MAD ("NodeInfo
// via DR 0,1,3: no answer after 3 tries of 100 ms"). Run() fails only when
// the transport itself fails.
//  - Windows. Directed-route SMPs and GMPs (PMA, SA) each have their own window
//    (`window` in flight at most per class: SMPs travel on VL15, which has
//    no flow control, and must not queue behind counters). Within a class,
//    one target — the node at the end of a directed route, or a LID — has at
//    most `per_target` in flight, so a deep window is spread over many
//    switches and never aimed at one. Targets take turns (round robin). A
//    class is refilled in bursts, once half its window has come back (the
//    far end wakes once per burst, not once per answer).
//  - Timeouts. An attempt that gets no answer within timeout_ms (or that the
//    transport reports as timed out) is sent again with a fresh transaction
//    id, up to `retries` more times, ahead of its target's other requests;
//    late answers to an abandoned attempt are dropped. Each such attempt
//    halves its target's window (back-off, down to 1); each answer from the
//    target widens it by one again, up to per_target.
//  - A target that let one request fail after every retry is silent: its
//    requests still queued fail at once ("not sent: ... gave no answer"),
//    not one timeout chain after another.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fabric/fabric_model.h"
#include "fabric/mad_transport.h"

namespace rdmascope::fabric {

struct EngineOptions {
  int window = 64;       // MADs in flight at most, per class (SMPs; PMA queries)
  int timeout_ms = 100;  // per attempt
  int retries = 2;       // extra attempts after the first
  int per_target = 4;    // MADs in flight at most toward one node (directed route) or LID
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

  // The target a MAD is counted against: its directed route (hop count and
  // initial path), its destination LID (PMA), or the subnet manager (SA).
  static uint64_t TargetOf(const OutgoingMad& mad);

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr int kClasses = 2;  // 0 directed SMPs, 1 PMA
  struct Request {
    OutgoingMad mad;
    std::string what;
    MadCallback done;
    uint64_t target = 0;
    int attempts = 0;
  };
  struct InFlight {
    Request req;
    Clock::time_point deadline;
  };
  struct Target {
    int cls = 0;
    int in_flight = 0;
    int window = 1;
    bool ready = false;   // in ready_[cls]
    bool silent = false;  // a request gave up after every retry
    std::deque<Request> queue;
  };

  static int ClassOf(const OutgoingMad& mad) { return mad.cls == MadClass::kDirectedSmp ? 0 : 1; }
  Target& TargetFor(uint64_t key, int cls);
  // Puts t in its class's turn when it has a request and room.
  void MakeReady(uint64_t key, Target& t);
  // Sends from the targets whose turn it is, while the class has room.
  Status Fill(int cls);
  Status SendOne(Request req);
  // Index of the MAD in flight with transaction id `tid`, or -1.
  int FindInFlight(uint32_t tid) const;
  // Removes in-flight entry i (the last one moves into its place) and
  // releases its place in its target's and class's windows.
  Request TakeInFlight(int i);
  void Expire(Clock::time_point now);
  void AttemptFailed(Request req, const char* why);
  void GiveUp(Request req, const std::string& error);
  // Fails every request t still queues, unsent (t is silent); why: the
  // failure that made it so, when known.
  void FailQueued(Target& t, const std::string& why);

  MadTransport& transport_;
  EngineOptions options_;
  std::unordered_map<uint64_t, Target> targets_;
  std::deque<uint64_t> ready_[kClasses];  // targets with a request queued and room, in turn
  int class_in_flight_[kClasses] = {};
  size_t queued_ = 0;  // requests waiting in every target's queue
  // MADs in flight, unordered: in_flight_tids_[i] is the transaction id (low
  // 32 bits) of in_flight_[i]. A scan of a few dozen integers finds an
  // answer's entry without a node allocation per MAD.
  std::vector<uint32_t> in_flight_tids_;
  std::vector<InFlight> in_flight_;
  std::deque<std::pair<Clock::time_point, uint32_t>> deadlines_;  // send order = deadline order
  SweepStats stats_;
};

}  // namespace rdmascope::fabric
