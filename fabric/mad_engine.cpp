#include "fabric/mad_engine.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

namespace rdmascope::fabric {
namespace {

// The transaction id sits in bytes 8..15 of the common MAD header, big endian.
// The kernel owns the upper 32 bits; we match on the lower 32.
void SetTid(MadBytes& mad, uint32_t tid) {
  for (int i = 8; i < 12; ++i) mad[i] = 0;
  mad[12] = static_cast<uint8_t>(tid >> 24);
  mad[13] = static_cast<uint8_t>(tid >> 16);
  mad[14] = static_cast<uint8_t>(tid >> 8);
  mad[15] = static_cast<uint8_t>(tid);
}

// Transaction ids are unique across every engine of the process, so a late
// answer from an earlier sweep on the same port is never matched to a new MAD.
std::atomic<uint32_t> g_next_tid{1};

uint32_t GetTid(const MadBytes& mad) {
  return (uint32_t{mad[12]} << 24) | (uint32_t{mad[13]} << 16) | (uint32_t{mad[14]} << 8) | mad[15];
}

// Directed-route SMP layout (IBA 14.2.1.2): hop count in byte 7, the
// initial path (one byte per hop, index 0 unused) from byte 128.
constexpr size_t kHopCount = 7, kInitialPath = 128, kPathBytes = 64;

}  // namespace

uint64_t MadEngine::TargetOf(const OutgoingMad& mad) {
  if (mad.cls == MadClass::kSubnAdm) return 3ull << 62;  // the subnet manager
  if (mad.cls != MadClass::kDirectedSmp) return 1ull << 63 | mad.dlid;
  const size_t hops = std::min<size_t>(mad.mad[kHopCount], kPathBytes - 1);
  uint64_t h = 0xcbf29ce484222325ull ^ hops;  // FNV-1a over the hops taken
  for (size_t i = 1; i <= hops; ++i) h = (h ^ mad.mad[kInitialPath + i]) * 0x100000001b3ull;
  return h & ~(1ull << 63);
}

MadEngine::MadEngine(MadTransport& transport, EngineOptions options)
    : transport_(transport), options_(options) {
  options_.window = std::max(1, options_.window);
  options_.timeout_ms = std::max(1, options_.timeout_ms);
  options_.retries = std::max(0, options_.retries);
  options_.per_target = std::max(1, options_.per_target);
  in_flight_tids_.reserve(static_cast<size_t>(kClasses * options_.window));
  in_flight_.reserve(static_cast<size_t>(kClasses * options_.window));
}

MadEngine::Target& MadEngine::TargetFor(uint64_t key, int cls) {
  auto [it, fresh] = targets_.try_emplace(key);
  if (fresh) it->second.cls = cls, it->second.window = options_.per_target;
  return it->second;
}

void MadEngine::MakeReady(uint64_t key, Target& t) {
  if (t.ready || t.queue.empty() || (t.in_flight >= t.window && !t.silent)) return;
  t.ready = true;
  ready_[t.cls].push_back(key);
}

void MadEngine::Submit(const OutgoingMad& mad, std::string what, MadCallback done) {
  const uint64_t key = TargetOf(mad);
  Target& t = TargetFor(key, ClassOf(mad));
  t.queue.push_back(Request{mad, std::move(what), std::move(done), key, 0});
  ++queued_;
  MakeReady(key, t);
}

Status MadEngine::SendOne(Request req) {
  uint32_t tid = g_next_tid.fetch_add(1);
  if (tid == 0) tid = g_next_tid.fetch_add(1);
  SetTid(req.mad.mad, tid);
  ++req.attempts;
  Status s = transport_.Send(req.mad, options_.timeout_ms);
  if (!s.ok()) return Status::Error(req.what + ": " + s.message());
  ++stats_.mads_sent;
  Target& t = targets_[req.target];
  ++t.in_flight, ++class_in_flight_[t.cls];
  Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(options_.timeout_ms);
  deadlines_.emplace_back(deadline, tid);
  in_flight_tids_.push_back(tid);
  in_flight_.push_back(InFlight{std::move(req), deadline});
  stats_.max_in_flight = std::max(stats_.max_in_flight, static_cast<int>(in_flight_.size()));
  stats_.max_in_flight_per_target = std::max(stats_.max_in_flight_per_target, t.in_flight);
  return Status::Ok();
}

Status MadEngine::Fill(int cls) {
  if (class_in_flight_[cls] > options_.window / 2) return Status::Ok();  // bursts: wait for half to come back
  std::deque<uint64_t>& turn = ready_[cls];
  while (!turn.empty() && class_in_flight_[cls] < options_.window) {
    const uint64_t key = turn.front();
    turn.pop_front();
    Target& t = targets_[key];
    t.ready = false;
    if (t.silent) {  // queued after its target went silent: fails unsent
      FailQueued(t, "");
      continue;
    }
    if (t.queue.empty() || t.in_flight >= t.window) continue;
    Request req = std::move(t.queue.front());
    t.queue.pop_front();
    --queued_;
    if (Status s = SendOne(std::move(req)); !s.ok()) return s;
    MakeReady(key, targets_[key]);  // to the back of the turn: targets alternate
  }
  return Status::Ok();
}

int MadEngine::FindInFlight(uint32_t tid) const {
  for (size_t i = 0; i < in_flight_tids_.size(); ++i)
    if (in_flight_tids_[i] == tid) return static_cast<int>(i);
  return -1;
}

MadEngine::Request MadEngine::TakeInFlight(int i) {
  Request req = std::move(in_flight_[i].req);
  if (static_cast<size_t>(i) + 1 != in_flight_.size()) {
    in_flight_[i] = std::move(in_flight_.back());
    in_flight_tids_[i] = in_flight_tids_.back();
  }
  in_flight_.pop_back();
  in_flight_tids_.pop_back();
  Target& t = targets_[req.target];
  --t.in_flight, --class_in_flight_[t.cls];
  return req;
}

void MadEngine::GiveUp(Request req, const std::string& error) {
  ++stats_.mads_failed;
  MadAnswer a;
  a.error = error;
  req.done(a);
}

void MadEngine::AttemptFailed(Request req, const char* why) {
  ++stats_.mads_timed_out;
  const uint64_t key = req.target;
  Target& t = targets_[key];
  if (t.window > 1) t.window /= 2, ++stats_.backoffs;
  if (req.attempts <= options_.retries && !t.silent) {
    t.queue.push_front(std::move(req));  // retries go first: they hold up a caller already
    ++queued_;
    MakeReady(key, t);
    return;
  }
  const std::string error = req.what + ": " + why + " after " + std::to_string(req.attempts) +
                            (req.attempts == 1 ? " try" : " tries") + " of " +
                            std::to_string(options_.timeout_ms) + " ms";
  t.silent = true;
  GiveUp(std::move(req), error);
  FailQueued(targets_[key], error);
}

void MadEngine::FailQueued(Target& t, const std::string& why) {
  std::deque<Request> rest = std::move(t.queue);  // callbacks may queue more to this target: the next Fill fails those
  t.queue.clear();
  queued_ -= rest.size();
  for (Request& r : rest) {
    ++stats_.mads_not_sent;
    // The message first: the request is moved into the call.
    std::string error = r.what + ": not sent: an earlier MAD to the same node gave no answer" +
                        (why.empty() ? std::string() : " (" + why + ")");
    GiveUp(std::move(r), error);
  }
}

void MadEngine::Expire(Clock::time_point now) {
  while (!deadlines_.empty() && deadlines_.front().first <= now) {
    uint32_t tid = deadlines_.front().second;
    deadlines_.pop_front();
    const int i = FindInFlight(tid);
    if (i < 0) continue;  // answered already
    AttemptFailed(TakeInFlight(i), "no answer");
  }
}

Status MadEngine::Run() {
  while (queued_ > 0 || !in_flight_.empty()) {
    for (int cls = 0; cls < kClasses; ++cls)
      if (Status s = Fill(cls); !s.ok()) return s;
    if (queued_ == 0 && in_flight_.empty()) break;
    Clock::time_point now = Clock::now();
    int wait_ms = 0;
    if (!deadlines_.empty()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadlines_.front().first - now).count();
      wait_ms = static_cast<int>(std::clamp<int64_t>(left + 1, 0, options_.timeout_ms));
    }
    IncomingMad in;
    Result<bool> got = transport_.Receive(&in, wait_ms);
    if (!got.ok()) return got.status();
    if (got.value()) {
      const int i = FindInFlight(GetTid(in.mad));
      if (i >= 0) {
        Request req = TakeInFlight(i);
        const uint64_t key = req.target;
        if (in.status != 0) {
          AttemptFailed(std::move(req), in.status == ETIMEDOUT ? "timed out" : std::strerror(in.status));
        } else {
          ++stats_.mads_answered;
          Target& t = targets_[key];
          if (t.window < options_.per_target) ++t.window;
          MadAnswer a;
          a.ok = true;
          a.mad = &in.mad;
          req.done(a);
        }
        MakeReady(key, targets_[key]);
      }
    }
    Expire(Clock::now());
  }
  deadlines_.clear();
  return Status::Ok();
}

}  // namespace rdmascope::fabric
