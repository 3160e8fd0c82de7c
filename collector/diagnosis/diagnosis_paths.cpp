// Path classification and evidence for the diagnosis (see diagnosis.h).
#include "collector/diagnosis/diagnosis_paths.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <unordered_map>

#include "collector/diagnosis/direct_mapped.h"

namespace rdmascope::collector::diagnosis {
namespace {

using nlohmann::json;

double LossOf(const PathSummary& p) {
  if (p.sent <= 0) return p.received > 0 ? 0 : 1;
  return std::clamp(static_cast<double>(p.sent - p.received) / static_cast<double>(p.sent), 0.0, 1.0);
}

bool Any(const PathSummary& p, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    auto it = p.errors_by_status.find(n);
    if (it != p.errors_by_status.end() && it->second > 0) return true;
  }
  return false;
}

int Rank(PathKind k) { return static_cast<int>(k); }

// The median of v by selection over all of it (v is reordered).
double MedianBySelection(std::vector<double>& v) {
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2) return *mid;
  return (*mid + *std::max_element(v.begin(), mid)) / 2;
}

}  // namespace

double Median(std::vector<double> v) { return MedianInPlace(v); }

double MedianInPlace(std::vector<double>& v) {
  if (v.empty()) return 0;
  constexpr size_t kSample = 1024, kSmall = 16 * kSample;
  const size_t n = v.size();
  if (n < kSmall) return MedianBySelection(v);
  // A pass over the fleet's paths takes medians of ~100,000 values each:
  // bracket the middle between two values of an evenly spaced sample (4
  // standard deviations of the sample median's rank either side), then
  // select among the values within the bracket only. Exact: whenever the
  // bracket misses the middle it selects over all of v.
  std::vector<double> sample(kSample);
  for (size_t i = 0; i < kSample; ++i) sample[i] = v[i * (n / kSample)];
  std::sort(sample.begin(), sample.end());
  const double lo = sample[kSample / 2 - 64], hi = sample[kSample / 2 + 64];
  // Without a branch per value: the values come in no order, so one would
  // be mispredicted half the time. Each value is written to `within` and
  // kept there only when it lies in the bracket.
  std::unique_ptr<double[]> within(new double[n]);
  size_t below = 0, kept = 0;
  double max_below = -HUGE_VAL;
  for (double x : v) {
    const bool under = x < lo;
    below += under;
    max_below = std::max(max_below, under ? x : -HUGE_VAL);
    within[kept] = x;
    kept += !under & (x <= hi);
  }
  const size_t k = n / 2;  // the middle's rank; with an even n, also k - 1
  if (k < below || k >= below + kept) return MedianBySelection(v);
  double* mid = within.get() + (k - below);
  std::nth_element(within.get(), mid, within.get() + kept);
  if (n % 2) return *mid;
  const double before = k == below ? max_below : *std::max_element(within.get(), mid);
  return (*mid + before) / 2;
}

bool Measured(const PathSummary& p) {
  if (p.not_run) return false;
  if (p.sent > 0) return true;
  for (const auto& [k, n] : p.errors_by_status)
    if (n > 0) return true;
  return false;
}

std::string RailTransport(const Input& in, const PathSummary& p) {
  return in.names[p.rail] + "|" + in.names[p.transport];
}

const char* KindName(PathKind k) {
  switch (k) {
    case PathKind::kGood: return "good";
    case PathKind::kHostBusy: return "host_busy";
    case PathKind::kLatency: return "latency";
    case PathKind::kLoss: return "loss";
    case PathKind::kUnreachable: return "unreachable";
    case PathKind::kRnr: return "rnr";
    case PathKind::kAccess: return "access";
  }
  return "unknown";
}

namespace {

// Numbers (rail, transport) pairs in order of first appearance: a fleet has
// a few dozen at most, so a scan of the keys seen beats hashing per path.
class RailTransportNumbers {
 public:
  explicit RailTransportNumbers(RailTransports* out) : out_(out) {}
  uint32_t Of(const Input& in, const PathSummary& p) {
    const uint64_t key = static_cast<uint64_t>(p.rail) << 32 | p.transport;
    // Paths alternate transports: one slot is not enough.
    return cache_.Get(key, p.rail * 7 + p.transport, [&](uint64_t k) {
      const auto id = static_cast<uint32_t>(std::find(known_.begin(), known_.end(), k) - known_.begin());
      if (id == known_.size()) known_.push_back(k), out_->names.push_back(RailTransport(in, p));
      return id;
    });
  }

 private:
  RailTransports* out_;
  std::vector<uint64_t> known_;  // rail id << 32 | transport id, by number
  DirectMapped<uint64_t, uint32_t> cache_{64};
};

std::vector<LatencyLimit> LimitsOf(const Input& in, const RailTransports& rt, std::vector<LatencySamples>& by,
                                   const Options& o) {
  by.resize(rt.names.size());
  auto limit = [&](double ref, double floor) { return ref > 0 ? std::max(ref * o.latency_factor, ref + floor) : 0; };
  std::vector<LatencyLimit> out(rt.names.size());
  for (size_t k = 0; k < by.size(); ++k) {
    LatencySamples& s = by[k];
    LatencyLimit& l = out[k];
    l.network_median_us = MedianInPlace(s.network);
    double ref = l.network_median_us;
    auto base = in.network_baseline_us.find(rt.names[k]);
    if (base != in.network_baseline_us.end() && base->second > 0 && (ref <= 0 || base->second < ref))
      ref = base->second;
    l.network_p50_us = limit(ref, o.latency_floor_us);
    l.rtt_p50_us = limit(MedianInPlace(s.p50), o.rtt_floor_us);
    l.rtt_min_us = limit(MedianInPlace(s.min), o.rtt_floor_us);
  }
  return out;
}

}  // namespace

void LatencySamples::Add(const PathSummary& p) {
  if (p.not_run) return;
  // Network time on clean paths only: retransmissions on lossy RC paths
  // lengthen it, and loss is judged on its own.
  if (p.network_p50_us && p.lost == 0 && p.received >= p.sent && p.errors_by_status.empty())
    network.push_back(*p.network_p50_us);
  if (p.rtt_p50_us) p50.push_back(*p.rtt_p50_us);
  if (p.rtt_min_us) min.push_back(*p.rtt_min_us);
}

RailTransports NumberRailTransports(const Input& in) {
  RailTransports out;
  out.id.reserve(in.paths.size());
  RailTransportNumbers number(&out);
  for (const PathSummary& p : in.paths) out.id.push_back(number.Of(in, p));
  return out;
}

std::vector<LatencyLimit> LatencyLimits(const Input& in, const RailTransports& rt, const Options& o) {
  std::vector<LatencySamples> by(rt.names.size());
  for (size_t i = 0; i < in.paths.size(); ++i) by[rt.id[i]].Add(in.paths[i]);
  return LimitsOf(in, rt, by, o);
}

std::vector<LatencyLimit> NumberAndLimit(const Input& in, const Options& o, RailTransports* rt) {
  // The paths are numbered first, then each (rail, transport)'s samples
  // reserved to its count of paths: no vector grows by copies, on a
  // fleet's first pass either.
  rt->id.clear(), rt->names.clear();  // the caller's memory is kept
  RoomForPaths(rt->id, in.paths.size());
  RailTransportNumbers number(rt);
  std::vector<size_t> paths_of;  // per id
  for (const PathSummary& p : in.paths) {
    const uint32_t id = number.Of(in, p);
    rt->id.push_back(id);
    if (id >= paths_of.size()) paths_of.resize(id + 1);
    ++paths_of[id];
  }
  std::vector<LatencySamples>& by = rt->samples;
  by.resize(paths_of.size());
  for (size_t k = 0; k < by.size(); ++k) {
    by[k].Clear();
    RoomForPaths(by[k].network, paths_of[k]), RoomForPaths(by[k].p50, paths_of[k]), RoomForPaths(by[k].min, paths_of[k]);
  }
  for (size_t i = 0; i < in.paths.size(); ++i) by[rt->id[i]].Add(in.paths[i]);
  return LimitsOf(in, *rt, by, o);
}

std::map<std::string, LatencyLimit> LatencyLimits(const Input& in, const Options& o) {
  const RailTransports rt = NumberRailTransports(in);
  const std::vector<LatencyLimit> limits = LatencyLimits(in, rt, o);
  std::map<std::string, LatencyLimit> out;
  for (size_t k = 0; k < limits.size(); ++k) out[rt.names[k]] = limits[k];
  return out;
}

PathKind Classify(const PathSummary& p, const LatencyLimit* limit, const Options& o) {
  if (p.not_run) return PathKind::kGood;
  int64_t errors = 0;
  for (const auto& [name, n] : p.errors_by_status) errors += n;
  if (p.sent <= 0 && errors == 0) return PathKind::kGood;  // measured nothing
  if (!p.errors_by_status.empty()) {
    if (Any(p, {"REM_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_OP_ERR", "REM_INV_RD_REQ_ERR"})) return PathKind::kAccess;
    if (Any(p, {"RNR_RETRY_EXC_ERR"})) return PathKind::kRnr;
  }
  if (p.received <= 0) return PathKind::kUnreachable;
  double loss = LossOf(p);
  if (p.sent > 0) loss = std::max(loss, static_cast<double>(errors) / static_cast<double>(p.sent));
  if (loss >= o.bad_loss_ratio) return PathKind::kLoss;
  if (!limit) return PathKind::kGood;
  const LatencyLimit& l = *limit;
  const bool rtt_slow = (p.rtt_p50_us && l.rtt_p50_us > 0 && *p.rtt_p50_us >= l.rtt_p50_us) ||
                        (p.rtt_min_us && l.rtt_min_us > 0 && *p.rtt_min_us >= l.rtt_min_us);
  if (p.network_p50_us && l.network_p50_us > 0) {
    if (*p.network_p50_us >= l.network_p50_us) return PathKind::kLatency;
    return rtt_slow ? PathKind::kHostBusy : PathKind::kGood;
  }
  return rtt_slow ? PathKind::kLatency : PathKind::kGood;
}

void AddPathEvidence(const Fleet& f, const std::vector<size_t>& bad, json evidence, const Options& o, Verdict* v) {
  const auto& paths = f.input->paths;
  std::map<std::string, int64_t> statuses;
  std::vector<double> loss, p50, mins, network;
  for (size_t i : bad) {
    const PathSummary& p = paths[i];
    for (const auto& [name, n] : p.errors_by_status)
      if (n > 0) statuses[name] += n;
    loss.push_back(LossOf(p));
    if (p.rtt_p50_us) p50.push_back(*p.rtt_p50_us);
    if (p.rtt_min_us) mins.push_back(*p.rtt_min_us);
    if (p.network_p50_us) network.push_back(*p.network_p50_us);
    if (v->paths.size() < o.max_paths_cited)
      v->paths.push_back({{"src", f.Name(p.src)}, {"dst", f.Name(p.dst)}, {"rail", f.Name(p.rail)},
                          {"transport", f.Name(p.transport)},
                          {"kind", KindName(f.kind[i])}});
  }
  evidence["what"] = "paths";
  evidence["bad"] = bad.size();
  if (!statuses.empty()) evidence["wc_status"] = statuses;
  evidence["median_loss_ratio"] = std::round(Median(loss) * 1000) / 1000;
  const LatencyLimit* limit = bad.empty() ? nullptr : &f.limit[f.rail_transport.id[bad.front()]];
  const bool has_limit = limit != nullptr;
  if (!p50.empty()) {
    evidence["median_p50_us"] = std::round(Median(p50));
    if (has_limit && limit->rtt_p50_us > 0) evidence["latency_limit_us"] = std::round(limit->rtt_p50_us);
  }
  if (!mins.empty()) {
    evidence["median_min_us"] = std::round(Median(mins));
    if (has_limit && limit->rtt_min_us > 0) evidence["min_limit_us"] = std::round(limit->rtt_min_us);
  }
  if (!network.empty()) {
    evidence["median_network_us"] = std::round(Median(network) * 10) / 10;
    if (has_limit && limit->network_p50_us > 0)
      evidence["network_limit_us"] = std::round(limit->network_p50_us * 10) / 10;
  }
  v->evidence.push_back(std::move(evidence));
}

void AddCounterEvidence(const Fleet& f, const std::string& node, const std::string& device, Verdict* v) {
  for (const PortFacts& p : f.input->ports) {
    if (p.node != node || (!device.empty() && p.device != device)) continue;
    for (const CounterDelta& c : p.moved)
      v->evidence.push_back({{"what", "counter"}, {"node", p.node}, {"device", p.device}, {"port", p.port},
                             {"counter", c.name}, {"delta", c.delta}});
    for (const CounterDelta& c : p.switch_moved)
      v->evidence.push_back({{"what", "switch_port"}, {"switch_guid", p.switch_guid},
                             {"switch", p.switch_description}, {"port", p.switch_port},
                             {"cabled_to", p.node + "/" + p.device + "/" + std::to_string(p.port)},
                             {"counter", c.name}, {"delta", c.delta}});
  }
}

void AddElementCounterEvidence(const FabricElement& e, Verdict* v) {
  for (const CounterDelta& c : e.moved)
    v->evidence.push_back({{"what", "fabric_counter"}, {"element", e.subject}, {"description", e.description},
                           {"counter", c.name}, {"delta", c.delta}});
  if (e.down) v->evidence.push_back({{"what", "fabric_down"}, {"element", e.subject}, {"description", e.description}});
}

PathKind DominantKind(const Fleet& f, const std::vector<size_t>& paths) {
  std::map<PathKind, size_t> n;
  for (size_t i : paths) ++n[f.kind[i]];
  PathKind best = PathKind::kGood;
  size_t most = 0;
  for (const auto& [k, c] : n)
    if (c > most || (c == most && Rank(k) > Rank(best))) best = k, most = c;
  return best;
}

void Finish(const Fleet& f, const std::vector<size_t>& bad, const Options& o, Verdict* v) {
  if (v->kind.empty()) v->kind = KindName(DominantKind(f, bad));
  std::vector<double> loss;
  for (size_t i : bad) {
    const PathSummary& p = f.input->paths[i];
    if (v->first_bad_ms == 0 || p.interval_start_ms < v->first_bad_ms) v->first_bad_ms = p.interval_start_ms;
    loss.push_back(LossOf(p));
  }
  const std::string& k = v->kind;
  bool critical = k == "unreachable" || k == "port_down" || k == "rnr" || k == "access" ||
                  (k == "loss" && Median(loss) >= o.critical_loss_ratio);
  v->severity = critical ? "critical" : "warning";
  v->confidence = std::round(std::clamp(v->confidence, 0.0, 1.0) * 100) / 100;
}

}  // namespace rdmascope::collector::diagnosis
