// lab_fleet_probe: many probers against one responder, from one process, for
// the lab's fleet-scale test (tests/lab/probes/fleet_scale.sh).
//
// Contract: opens --rc RC probers (each its own RC session, kept open to the
// end) and runs --ud UD probers, --count probes each, on --threads threads;
// then probes every RC session once more (round 2: the sessions must have
// outlived their setup connections, so round 2 needs no reconnect). With
// --hold-file it then creates that file and waits (at most 120 s) until it is
// removed, keeping every RC session open while the caller measures the
// responder. Prints one line per figure ("rc: ..." / "ud: ..."), and exits 0
// only when no probe was refused (a CONNECT error) or lost.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "probes/probe_clock.h"
#include "probes/prober.h"
#include "probes/rc_prober.h"
#include "probes/control_auth.h"

namespace p = rdmascope::probes;

namespace {

struct Tally {
  std::mutex mu;
  uint64_t runs = 0, sent = 0, received = 0, refused = 0, other_errors = 0, reconnects = 0;
  std::vector<std::string> first_errors;

  void Add(const rdmascope::Result<p::ProbeRun>& r) {
    std::lock_guard<std::mutex> lock(mu);
    ++runs;
    if (!r.ok()) {
      ++refused;
      if (first_errors.size() < 5) first_errors.push_back(r.status().message());
      return;
    }
    sent += r->samples.size();
    for (const auto& s : r->samples) received += s.received ? 1 : 0;
    reconnects += r->reconnects;
    for (const auto& e : r->errors) {
      if (e.status == p::kConnectStatus) ++refused;
      else ++other_errors;
      if (first_errors.size() < 5) first_errors.push_back(e.Key() + ": " + e.explanation);
    }
  }
  // Nothing refused, lost or failed (and something sent, unless nothing was asked).
  bool Clean() const { return runs == 0 || (refused == 0 && other_errors == 0 && received == sent && sent > 0); }
  void Print(const char* what, double secs) {
    std::printf("%s: %llu sessions, %llu probes sent, %llu answered, %llu lost, %llu refused, %llu other errors, "
                "%llu reconnects, %.1f s\n",
                what, (unsigned long long)runs, (unsigned long long)sent, (unsigned long long)received,
                (unsigned long long)(sent - received), (unsigned long long)refused,
                (unsigned long long)other_errors, (unsigned long long)reconnects, secs);
    for (const auto& e : first_errors) std::printf("  %s error: %s\n", what, e.c_str());
  }
};

// Runs fn(i) for i in [0, n) on `threads` threads.
template <typename Fn>
void ForEach(int n, int threads, Fn fn) {
  std::atomic<int> next{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&] {
      for (int i = next++; i < n; i = next++) fn(i);
    });
  }
  for (auto& t : ts) t.join();
}

}  // namespace

int main(int argc, char** argv) {
  p::ProberOptions base;
  base.count = 5;
  base.interval_ms = 0;
  base.timeout_ms = 2000;
  base.spin_ns = 0;  // hundreds of probers on two vCPUs: sleep, never spin
  int rc_n = 200, ud_n = 200, threads = 4;
  std::string hold_file;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", k.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (k == "--device") base.device = val();
    else if (k == "--host") base.host = val();
    else if (k == "--port") base.control_port = std::atoi(val().c_str());
    else if (k == "--rc") rc_n = std::atoi(val().c_str());
    else if (k == "--ud") ud_n = std::atoi(val().c_str());
    else if (k == "--count") base.count = std::strtoull(val().c_str(), nullptr, 10);
    else if (k == "--threads") threads = std::max(1, std::atoi(val().c_str()));
    else if (k == "--hold-file") hold_file = val();
    else if (k == "--secret-file") {
      auto s = p::ReadSecretFile(val());
      if (!s.ok()) {
        std::fprintf(stderr, "%s\n", s.status().message().c_str());
        return 2;
      }
      base.control_secret = *s;
    } else {
      std::fprintf(stderr,
                   "usage: lab_fleet_probe --device DEV --host IP [--port P] [--rc N] [--ud N] [--count C]\n"
                   "                       [--threads T] [--hold-file PATH] [--secret-file FILE]\n");
      return 2;
    }
  }
  if (base.device.empty() || base.host.empty()) {
    std::fprintf(stderr, "lab_fleet_probe: --device and --host are required\n");
    return 2;
  }

  // Round 1: RC sessions are set up (and kept) while the UD probers run beside them.
  std::vector<std::unique_ptr<p::RcProber>> rc(static_cast<size_t>(rc_n));
  Tally rc1, ud, rc2;
  const uint64_t t0 = p::NowNs();
  // Interleaved: RC and UD setups reach the responder together.
  ForEach(rc_n + ud_n, threads, [&](int i) {
    const int pairs = std::min(rc_n, ud_n);
    int rc_i = -1, ud_i = -1;
    if (i < 2 * pairs) (i % 2 == 0 ? rc_i : ud_i) = i / 2;
    else if (rc_n > ud_n) rc_i = i - pairs;
    else ud_i = i - pairs;
    if (rc_i >= 0) {
      auto opened = p::RcProber::Open(base);
      if (!opened.ok()) {
        rc1.Add(opened.status());
        return;
      }
      rc[size_t(rc_i)] = std::move(opened).value();
      rc1.Add(rc[size_t(rc_i)]->Run(base, /*fail_if_unreachable=*/false));
    } else {
      ud.Add(p::RunUdProbe(base));
    }
  });
  const double round1_s = double(p::NowNs() - t0) / 1e9;
  rc1.Print("rc round 1", round1_s);
  ud.Print("ud", round1_s);

  // Round 2: every RC session again, on the QPs set up in round 1.
  const uint64_t t1 = p::NowNs();
  ForEach(rc_n, threads, [&](int i) {
    if (rc[size_t(i)]) rc2.Add(rc[size_t(i)]->Run(base, false));
  });
  rc2.Print("rc round 2", double(p::NowNs() - t1) / 1e9);
  std::fflush(stdout);

  if (!hold_file.empty()) {
    { std::ofstream(hold_file) << "ready\n"; }
    const uint64_t until = p::NowNs() + 120000000000ull;
    while (::access(hold_file.c_str(), F_OK) == 0 && p::NowNs() < until) ::usleep(50000);
  }
  rc.clear();
  const bool ok = rc1.Clean() && ud.Clean() && rc2.Clean() && rc2.reconnects == 0;
  std::printf("lab_fleet_probe: %s\n", ok ? "clean" : "NOT clean");
  return ok ? 0 : 1;
}
