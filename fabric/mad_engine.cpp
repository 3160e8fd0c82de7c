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

}  // namespace

MadEngine::MadEngine(MadTransport& transport, EngineOptions options)
    : transport_(transport), options_(options) {
  options_.window = std::max(1, options_.window);
  options_.timeout_ms = std::max(1, options_.timeout_ms);
  options_.retries = std::max(0, options_.retries);
  in_flight_tids_.reserve(static_cast<size_t>(options_.window));
  in_flight_.reserve(static_cast<size_t>(options_.window));
}

void MadEngine::Submit(const OutgoingMad& mad, std::string what, MadCallback done) {
  pending_.push_back(Request{mad, std::move(what), std::move(done), 0});
}

Status MadEngine::SendOne(Request req) {
  uint32_t tid = g_next_tid.fetch_add(1);
  if (tid == 0) tid = g_next_tid.fetch_add(1);
  SetTid(req.mad.mad, tid);
  ++req.attempts;
  Status s = transport_.Send(req.mad, options_.timeout_ms);
  if (!s.ok()) return Status::Error(req.what + ": " + s.message());
  ++stats_.mads_sent;
  Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(options_.timeout_ms);
  deadlines_.emplace_back(deadline, tid);
  in_flight_tids_.push_back(tid);
  in_flight_.push_back(InFlight{std::move(req), deadline});
  stats_.max_in_flight = std::max(stats_.max_in_flight, static_cast<int>(in_flight_.size()));
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
  return req;
}

void MadEngine::AttemptFailed(Request req, const char* why) {
  ++stats_.mads_timed_out;
  if (req.attempts <= options_.retries) {
    pending_.push_front(std::move(req));  // retries go first: they hold up a caller already
    return;
  }
  ++stats_.mads_failed;
  MadAnswer a;
  a.error = req.what + ": " + why + " after " + std::to_string(req.attempts) +
            (req.attempts == 1 ? " try" : " tries") + " of " + std::to_string(options_.timeout_ms) + " ms";
  req.done(a);
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
  while (!pending_.empty() || !in_flight_.empty()) {
    // Refill in bursts, once half the window has come back: the peer (and
    // under a simulator, its process) wakes once per burst, not once per MAD.
    const bool refill = static_cast<int>(in_flight_.size()) <= options_.window / 2;
    while (refill && !pending_.empty() && static_cast<int>(in_flight_.size()) < options_.window) {
      Request req = std::move(pending_.front());
      pending_.pop_front();
      Status s = SendOne(std::move(req));
      if (!s.ok()) return s;
    }
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
        if (in.status != 0) {
          AttemptFailed(std::move(req), in.status == ETIMEDOUT ? "timed out" : std::strerror(in.status));
        } else {
          ++stats_.mads_answered;
          MadAnswer a;
          a.ok = true;
          a.mad = &in.mad;
          req.done(a);
        }
      }
    }
    Expire(Clock::now());
  }
  deadlines_.clear();
  return Status::Ok();
}

}  // namespace rdmascope::fabric
