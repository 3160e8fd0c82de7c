// The read snapshot's data: compact probe rows, interning, publishing.
#include "collector/readmodel/read_snapshot.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>

namespace rdmascope::collector {

using nlohmann::json;

namespace {
constexpr double kNullReal = std::numeric_limits<double>::quiet_NaN();
}  // namespace

ProbeRowFields::ProbeRowFields()
    : loss_ratio(kNullReal), rtt_min(kNullReal), rtt_avg(kNullReal), rtt_p50(kNullReal), rtt_p90(kNullReal),
      rtt_p99(kNullReal), rtt_p999(kNullReal), rtt_max(kNullReal), network_p50(kNullReal), network_p99(kNullReal),
      responder_p50(kNullReal), responder_p99(kNullReal), read_p50(kNullReal), read_p99(kNullReal) {}

// The interned text fields of a row.
constexpr const std::string* ProbeRowFields::*kTextFields[] = {
    &ProbeRowFields::src,  &ProbeRowFields::dst,         &ProbeRowFields::transport,     &ProbeRowFields::local_device,
    &ProbeRowFields::rail, &ProbeRowFields::remote_host, &ProbeRowFields::remote_device, &ProbeRowFields::not_run};

void ProbeRow::Hold() const {
  for (auto field : kTextFields) HoldInterned(this->*field);
}

void ProbeRow::Release() {
  for (auto field : kTextFields) {
    ReleaseInterned(this->*field);
    this->*field = nullptr;
  }
}

// The fields are copied memberwise (ProbeRowFields); a copy takes its own
// holds, a move takes the source's.
ProbeRow::ProbeRow(const ProbeRow& o) : ProbeRowFields(o) { Hold(); }

ProbeRow::ProbeRow(ProbeRow&& o) noexcept : ProbeRow() { *this = std::move(o); }

ProbeRow& ProbeRow::operator=(const ProbeRow& o) {
  if (this == &o) return *this;
  o.Hold();
  Release();
  ProbeRowFields::operator=(o);
  return *this;
}

ProbeRow& ProbeRow::operator=(ProbeRow&& o) noexcept {
  if (this == &o) return *this;
  Release();
  ProbeRowFields::operator=(std::move(o));
  for (auto field : kTextFields) o.*field = nullptr;  // the holds moved with the pointers
  return *this;
}

ProbeRow::~ProbeRow() { Release(); }

namespace {
// An interned string and its holds. Holds are counted without the pool's
// mutex; a string reaches 0 only when nothing holds it, and only Intern
// (under the mutex) can hold it again, so SweepInterned may free it then.
struct InternedString : std::string {
  explicit InternedString(std::string_view s) : std::string(s) {}
  mutable std::atomic<int64_t> holds{0};
};

struct InternPool {
  std::mutex mu;
  // Keyed by a view of the owned string, so a lookup of a known one allocates nothing.
  std::unordered_map<std::string_view, std::unique_ptr<const InternedString>> strings;
};

InternPool& Pool() {
  static InternPool* pool = new InternPool;  // never destroyed: rows may outlive static destruction
  return *pool;
}
}  // namespace

const std::string* Intern(std::string_view s) {
  InternPool& pool = Pool();
  std::lock_guard<std::mutex> lock(pool.mu);
  auto it = pool.strings.find(s);
  if (it == pool.strings.end()) {
    auto owned = std::make_unique<const InternedString>(s);
    it = pool.strings.emplace(std::string_view(*owned), std::move(owned)).first;
  }
  it->second->holds.fetch_add(1, std::memory_order_relaxed);
  return it->second.get();
}

void HoldInterned(const std::string* s) {
  if (s) static_cast<const InternedString*>(s)->holds.fetch_add(1, std::memory_order_relaxed);
}

void ReleaseInterned(const std::string* s) {
  if (s) static_cast<const InternedString*>(s)->holds.fetch_sub(1, std::memory_order_acq_rel);
}

size_t SweepInterned() {
  InternPool& pool = Pool();
  std::lock_guard<std::mutex> lock(pool.mu);
  size_t freed = 0;
  for (auto it = pool.strings.begin(); it != pool.strings.end();) {
    if (it->second->holds.load(std::memory_order_acquire) == 0) {
      it = pool.strings.erase(it);
      ++freed;
    } else {
      ++it;
    }
  }
  return freed;
}

size_t InternedCount() {
  InternPool& pool = Pool();
  std::lock_guard<std::mutex> lock(pool.mu);
  return pool.strings.size();
}

ProbeRow ProbeRowFromInput(const std::string& src, const ProbeInput& p,
                           const std::shared_ptr<const std::string>& report_id) {
  ProbeRow r;
  auto text = [](const std::optional<std::string>& v) { return v ? Intern(*v) : nullptr; };
  auto integer = [](const std::optional<int64_t>& v) { return v ? *v : ProbeRow::kNullInt; };
  auto real = [](const std::optional<double>& v) { return v ? *v : kNullReal; };
  r.src = Intern(src), r.dst = Intern(p.target), r.transport = Intern(p.transport);
  r.local_device = text(p.local_device), r.local_port = integer(p.local_port), r.remote_host = text(p.remote_host);
  r.interval_start = p.interval_start, r.interval_end = p.interval_end;
  r.sent = p.sent, r.received = p.received, r.lost = p.lost, r.loss_ratio = real(p.loss_ratio);
  r.rtt_count = integer(p.rtt_count);
  r.rtt_min = real(p.rtt_min), r.rtt_avg = real(p.rtt_avg), r.rtt_p50 = real(p.rtt_p50), r.rtt_p90 = real(p.rtt_p90);
  r.rtt_p99 = real(p.rtt_p99), r.rtt_p999 = real(p.rtt_p999), r.rtt_max = real(p.rtt_max);
  r.network_p50 = real(p.network_p50), r.network_p99 = real(p.network_p99);
  r.responder_p50 = real(p.responder_p50), r.responder_p99 = real(p.responder_p99);
  r.read_p50 = real(p.read_p50), r.read_p99 = real(p.read_p99);
  r.error_count = p.error_count, r.errors_by_status = p.errors_by_status_json, r.report_id = report_id;
  r.rail = text(p.rail), r.remote_device = text(p.remote_device), r.remote_port = integer(p.remote_port);
  r.not_run = text(p.not_run);
  return r;
}

json ProbeRowJson(const ProbeRow& r) {
  auto text = [](const std::string* p) { return p ? json(*p) : json(nullptr); };
  auto integer = [](int64_t v) { return v == ProbeRow::kNullInt ? json(nullptr) : json(v); };
  auto real = [](double v) { return std::isnan(v) ? json(nullptr) : json(v); };
  json by_status = json::parse(r.errors_by_status, nullptr, /*allow_exceptions=*/false);
  return json{{"src", text(r.src)},
              {"dst", text(r.dst)},
              {"transport", text(r.transport)},
              {"local_device", text(r.local_device)},
              {"local_port", integer(r.local_port)},
              {"remote_host", text(r.remote_host)},
              {"interval_start_ms", r.interval_start},
              {"interval_end_ms", r.interval_end},
              {"sent", r.sent},
              {"received", r.received},
              {"lost", r.lost},
              {"loss_ratio", real(r.loss_ratio)},
              {"rtt_count", integer(r.rtt_count)},
              {"rtt_min_us", real(r.rtt_min)},
              {"rtt_avg_us", real(r.rtt_avg)},
              {"rtt_p50_us", real(r.rtt_p50)},
              {"rtt_p90_us", real(r.rtt_p90)},
              {"rtt_p99_us", real(r.rtt_p99)},
              {"rtt_p999_us", real(r.rtt_p999)},
              {"rtt_max_us", real(r.rtt_max)},
              {"network_p50_us", real(r.network_p50)},
              {"network_p99_us", real(r.network_p99)},
              {"responder_p50_us", real(r.responder_p50)},
              {"responder_p99_us", real(r.responder_p99)},
              {"read_p50_us", real(r.read_p50)},
              {"read_p99_us", real(r.read_p99)},
              {"error_count", r.error_count},
              {"errors_by_status", std::move(by_status)},
              {"report_id", r.report_id ? json(*r.report_id) : json(nullptr)},
              {"rail", text(r.rail)},
              {"remote_device", text(r.remote_device)},
              {"remote_port", integer(r.remote_port)},
              {"not_run", text(r.not_run)}};
}

size_t HashInterned(const std::string* a, const std::string* b, const std::string* c) {
  std::hash<const void*> h;
  return h(a) * 31 * 31 + h(b) * 31 + h(c);
}

size_t PairKeyHash::operator()(const PairKey& k) const { return HashInterned(k.dst, k.rail, k.transport); }

void NodeState::Apply(std::shared_ptr<const ProbeRow> row) {
  PairEntry& e = pairs[PairKey{row->dst, row->rail, row->transport}];
  if (!row->not_run && (!e.newest_run || row->interval_end >= e.newest_run->interval_end)) e.newest_run = row;
  if (!e.newest || row->interval_end >= e.newest->interval_end) e.newest = std::move(row);
}

void NodeState::MergeOlder(const std::unordered_map<PairKey, PairEntry, PairKeyHash>& older) {
  for (const auto& [key, o] : older) {
    auto [it, added] = pairs.try_emplace(key, o);
    if (added) continue;
    PairEntry& e = it->second;  // rows applied since: a tie goes to them
    if (o.newest_run && (!e.newest_run || o.newest_run->interval_end > e.newest_run->interval_end))
      e.newest_run = o.newest_run;
    if (o.newest && (!e.newest || o.newest->interval_end > e.newest->interval_end)) e.newest = o.newest;
  }
}

size_t NodeState::KeepNewestDestinations(size_t max_destinations) {
  if (pairs.size() <= max_destinations) return 0;  // fewer pairs than the cap: fewer destinations
  std::unordered_map<const std::string*, int64_t> newest;  // destination -> newest interval_end
  for (const auto& [key, e] : pairs) {
    auto [it, added] = newest.try_emplace(key.dst, e.newest->interval_end);
    if (!added) it->second = std::max(it->second, e.newest->interval_end);
  }
  if (newest.size() <= max_destinations) return 0;
  std::vector<std::pair<int64_t, const std::string*>> order;
  order.reserve(newest.size());
  for (const auto& [dst, end] : newest) order.emplace_back(end, dst);
  auto later = [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : *a.second < *b.second; };
  std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(max_destinations), order.end(), later);
  std::unordered_map<const std::string*, bool> keep;
  for (size_t i = 0; i < order.size(); ++i) keep.emplace(order[i].second, i < max_destinations);
  for (auto it = pairs.begin(); it != pairs.end();) it = keep[it->first.dst] ? std::next(it) : pairs.erase(it);
  return order.size() - max_destinations;
}

ReadSnapshot::View ReadSnapshot::Take() const {
  std::lock_guard<std::mutex> lock(mu_);
  View v;
  v.nodes.reserve(nodes_.size());
  for (const auto& [name, n] : nodes_) v.nodes.push_back(n);
  v.events_open = events_open_;
  v.fabric = fabric_;
  v.diagnoses_open = diagnoses_open_;
  v.coverage = coverage_;
  v.coverage_targets = coverage_targets_;
  return v;
}

std::shared_ptr<const NodeState> ReadSnapshot::Node(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : it->second;
}

void NodeState::SummariseRailPorts() {
  std::map<std::string, std::pair<int64_t, const ProbeRow*>> newest;  // rail -> newest row naming its port
  for (const auto& [key, entry] : pairs) {
    const ProbeRow* r = entry.newest.get();
    if (!key.rail || !r || !r->local_device || r->local_port == ProbeRow::kNullInt) continue;
    auto& slot = newest[*key.rail];
    if (!slot.second || r->interval_end > slot.first) slot = {r->interval_end, r};
  }
  rail_ports.clear();
  for (const auto& [rail, row] : newest)
    rail_ports[rail] = *row.second->local_device + "/" + std::to_string(row.second->local_port);
}

void NodeState::SummariseNewestRows() {
  newest_rows.clear();
  newest_rows.reserve(pairs.size());
  newest_end = 0;
  for (const auto& [key, entry] : pairs)
    if (entry.newest) {
      newest_rows.push_back(entry.newest.get());
      newest_end = std::max(newest_end, entry.newest->interval_end);
    }
  auto key = [](const ProbeRow* r) {
    return std::make_tuple(reinterpret_cast<uintptr_t>(r->rail), reinterpret_cast<uintptr_t>(r->dst),
                           reinterpret_cast<uintptr_t>(r->transport));
  };
  std::sort(newest_rows.begin(), newest_rows.end(),
            [&](const ProbeRow* a, const ProbeRow* b) { return key(a) < key(b); });
}

void ReadSnapshot::PutNode(std::shared_ptr<NodeState> node) {
  node->SummariseNewestRows();
  node->SummariseForMetrics(kMetricsHorizonMs);
  node->SummariseForMatrix();
  node->SummariseRailPorts();
  PortRowSets rows;
  rows.ports = {&node->ports};
  rows.counters = {&node->counters};
  node->port_text = RenderPortFamilies(rows);
  node->port_list = BuildPortList(node->ports);
  std::lock_guard<std::mutex> lock(mu_);
  const std::string name = node->name;
  nodes_[name] = std::move(node);
}

std::shared_ptr<const NodeState> ReadSnapshot::RemoveNode(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = nodes_.find(name);
  if (it == nodes_.end()) return nullptr;
  std::shared_ptr<const NodeState> out = std::move(it->second);
  nodes_.erase(it);
  return out;
}

void ReadSnapshot::SetEventsOpen(json rows) {
  auto p = std::make_shared<const json>(std::move(rows));
  std::lock_guard<std::mutex> lock(mu_);
  events_open_ = std::move(p);
}

void ReadSnapshot::SetDiagnosesOpen(json rows) {
  auto p = std::make_shared<const json>(std::move(rows));
  std::lock_guard<std::mutex> lock(mu_);
  diagnoses_open_ = std::move(p);
}

void ReadSnapshot::SetCoverage(json coverage) {
  auto p = std::make_shared<const json>(std::move(coverage));
  std::lock_guard<std::mutex> lock(mu_);
  coverage_ = std::move(p);
}

void ReadSnapshot::SetCoverageTargets(CoverageTargets targets) {
  auto p = std::make_shared<const CoverageTargets>(std::move(targets));
  std::lock_guard<std::mutex> lock(mu_);
  coverage_targets_ = std::move(p);
}

std::shared_ptr<const CoverageTargets> ReadSnapshot::CoverageTargetsNow() const {
  std::lock_guard<std::mutex> lock(mu_);
  return coverage_targets_;
}

void ReadSnapshot::SetFabric(json parts) {
  auto p = std::make_shared<const json>(std::move(parts));
  std::lock_guard<std::mutex> lock(mu_);
  fabric_ = std::move(p);
}

void ReadSnapshot::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  nodes_.clear();
}

}  // namespace rdmascope::collector
