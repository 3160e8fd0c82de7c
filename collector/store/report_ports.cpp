// ReportWriter's ports and counters (contract in report_writer.h, PortBatch):
// the node's stored ports and counters read once per report, each port and
// counter judged (port state, counter rules, their events), the new rows
// written after the last port, a few rows per statement: on PostgreSQL
// every statement is a round trip to the server, and a node of 8 rails
// reports 8 ports of dozens of counters each.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "collector/core/json_get.h"
#include "collector/rules/error_counters.h"
#include "collector/store/report_writer.h"
#include "collector/store/store_status_macros.h"
#include "common/counter_rules.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;

constexpr int64_t kPortActive = 4;
// A counter delta spanning more than this many report intervals (reports lost
// to an outage) is not judged against per-report thresholds.
constexpr int64_t kMaxDeltaIntervals = 5;

// An identity "" (unknown: a boot id or device instance) is stored as NULL.
std::optional<std::string> NullIfEmpty(const std::string& id) {
  return id.empty() ? std::nullopt : std::optional<std::string>(id);
}

// Rows per statement, largest first: rows go in chunks of these sizes, so a
// handful of statement texts (prepared once each) serve every report.
constexpr size_t kChunks[] = {64, 32, 16, 8, 4, 2, 1};
constexpr size_t kChunkSizes = sizeof kChunks / sizeof kChunks[0];

// One multi-row INSERT: `head` (up to VALUES), `rows` groups of `columns`
// parameters numbered in row order, then `tail` (ON CONFLICT ...).
std::string MultiRowSql(const char* head, int columns, size_t rows, const char* tail) {
  std::string sql = head;
  for (size_t r = 0; r < rows; ++r) {
    sql += r ? ", (" : " (";
    for (int c = 1; c <= columns; ++c)
      sql += (c > 1 ? ", ?" : "?") + std::to_string(r * static_cast<size_t>(columns) + static_cast<size_t>(c));
    sql += ")";
  }
  return sql + tail;
}

// The statement texts of one multi-row INSERT, one per chunk size.
struct MultiRow {
  MultiRow(const char* head, int columns, const char* tail) : columns(columns) {
    for (size_t i = 0; i < kChunkSizes; ++i) sql[i] = MultiRowSql(head, columns, kChunks[i], tail);
  }
  int columns;
  std::string sql[kChunkSizes];
};

const MultiRow& PortUpsert() {
  static const MultiRow m(
      "INSERT INTO ports(node, device, port, state, state_name, phys_state, phys_state_name, lid, sm_lid, "
      "link_layer, active_mtu, rate_gbps, rate_text, gids, fw, node_guid, updated_at) VALUES",
      17,
      " ON CONFLICT(node, device, port) DO UPDATE SET state = excluded.state, "
      "state_name = excluded.state_name, phys_state = excluded.phys_state, "
      "phys_state_name = excluded.phys_state_name, lid = excluded.lid, sm_lid = excluded.sm_lid, "
      "link_layer = excluded.link_layer, active_mtu = excluded.active_mtu, rate_gbps = excluded.rate_gbps, "
      "rate_text = excluded.rate_text, gids = excluded.gids, fw = excluded.fw, "
      "node_guid = excluded.node_guid, updated_at = excluded.updated_at");
  return m;
}

// The delta is kept with the value it leads to: the diagnosis reads the
// error counters that rose from the index on delta > 0 AND error = 1
// (0011_counter_deltas.sql, 0013_counter_error_rises.sql).
const MultiRow& CounterUpsert() {
  static const MultiRow m(
      "INSERT INTO counters_latest(node, device, port, kind, name, value, sampled_at, boot_id, delta, delta_from, "
      "error, instance) VALUES",
      12,
      " ON CONFLICT(node, device, port, kind, name) DO UPDATE SET "
      "value = excluded.value, sampled_at = excluded.sampled_at, boot_id = excluded.boot_id, "
      "delta = excluded.delta, delta_from = excluded.delta_from, error = excluded.error, "
      "instance = excluded.instance "
      "WHERE excluded.sampled_at >= counters_latest.sampled_at");
  return m;
}

const MultiRow& SampleInsert() {
  static const MultiRow m(
      "INSERT INTO counter_port_samples(report_id, node, device, port, sampled_at, counters, instance) VALUES", 7, "");
  return m;
}

}  // namespace

// Runs m over `count` rows in chunks; bind(stmt, row, first parameter) binds one row.
template <typename BindRow>
static Status RunInChunks(WriterDb& w, const MultiRow& m, size_t count, const BindRow& bind) {
  for (size_t done = 0; done < count;) {
    size_t i = 0;
    while (kChunks[i] > count - done) ++i;
    auto q = w.Q(m.sql[i].c_str());
    if (!q.ok()) return q.status();
    for (size_t r = 0; r < kChunks[i]; ++r) bind(*q.value(), done + r, static_cast<int>(r) * m.columns + 1);
    RETURN_IF_ERROR(q.value()->Run());
    done += kChunks[i];
  }
  return Status::Ok();
}

Status ReportWriter::ReadPortBatch(const std::string& node, PortBatch* b) {
  {
    ASSIGN_STMT(q, Q("SELECT device, port, updated_at FROM ports WHERE node = ?1"));
    q.Bind(1, node);
    for (;;) {
      auto row = q.Step();
      if (!row.ok()) return row.status();
      if (!row.value()) break;
      b->updated_at[{q.Text(0), q.Int(1)}] = q.Int(2);
    }
    q.Reset();
  }
  ASSIGN_STMT(q, Q("SELECT device, port, kind, name, value, sampled_at, boot_id, instance FROM counters_latest "
                   "WHERE node = ?1"));
  q.Bind(1, node);
  for (;;) {
    auto row = q.Step();
    if (!row.ok()) return row.status();
    if (!row.value()) break;
    auto v = q.OptInt(4);
    b->stored[{q.Text(0), q.Int(1), q.Text(2), q.Text(3)}] =
        CounterReading{v ? std::optional<uint64_t>(static_cast<uint64_t>(*v)) : std::nullopt,
                       q.OptText(6).value_or(""), q.Int(5), q.OptText(7).value_or("")};
  }
  q.Reset();
  return Status::Ok();
}

Status ReportWriter::IngestPort(const std::string& node, const json& dev, const json& port, int64_t at,
                                PortBatch* b) {
  RETURN_IF_ERROR(Fault("port"));
  const std::string device = dev["name"].get<std::string>();
  const int64_t number = *OptInt(port, "port");
  // Only a report at least as new as what is stored replaces the port and moves its events.
  auto stored = b->updated_at.find({device, number});
  const bool newer = stored == b->updated_at.end() || at >= stored->second;
  const json* state = Field(port, "state");
  const json* phys = Field(port, "phys_state");
  if (newer) {
    b->ports[{device, number}] = PortRow{&dev, &port};
    if (state) {
      const std::string key = "port_state|" + node + "|" + device + "|" + std::to_string(number);
      int64_t s = *OptInt(*state, "number");
      if (s == kPortActive) {
        RETURN_IF_ERROR(CloseEventByKey(key, at));
      } else {
        std::string name = OptText(*state, "name").value_or(std::to_string(s));
        std::string detail = "port state " + name + ", physical state " +
                             (phys ? OptText(*phys, "name").value_or("unknown") : std::string("unknown"));
        RETURN_IF_ERROR(OpenOrTouchEvent("port_state", key, node, std::nullopt, std::nullopt, device, number, name,
                                         detail, 1, at));
      }
    }
  }
  json sample = json::object();
  for (const char* kind : {"counters", "hw_counters"})
    if (const json* c = Field(port, kind))
      RETURN_IF_ERROR(IngestCounters(node, device, number, kind, *c, at, newer, b, &sample[kind]));
  if (!sample.empty()) b->samples.push_back(SampleRow{device, number, sample.dump(), ingest_instance_});
  return Status::Ok();
}

Status ReportWriter::IngestCounters(const std::string& node, const std::string& device, int64_t port, const char* kind,
                                    const json& map, int64_t at, bool newer, PortBatch* b, json* sample) {
  RETURN_IF_ERROR(Fault("counters"));
  *sample = json::object();
  for (const auto& [name, value] : map.items()) {
    std::optional<int64_t> v;
    if (value.is_number()) v = SaturatedInt64Of(NlohmannView(value));
    (*sample)[name] = v ? json(*v) : json(nullptr);
    if (!newer) continue;
    CounterKey key{device, port, kind, name};
    // The previous reading: the stored one, when older than this report.
    std::optional<CounterReading> previous;
    auto it = b->stored.find(key);
    if (it != b->stored.end() && it->second.at_ms < at) previous = it->second;
    std::optional<int64_t> delta, delta_from;
    RETURN_IF_ERROR(JudgeCounter(node, device, port, kind, name, v, at, previous, &delta, &delta_from));
    b->counters[std::move(key)] = CounterRow{kind, v, delta, delta_from, IsErrorCounter(name), ingest_instance_};
  }
  return Status::Ok();
}

Status ReportWriter::WritePortBatch(const std::string& node, int64_t at, const std::string& report_id,
                                    const PortBatch& b) {
  std::vector<const std::pair<const PortKey, PortRow>*> ports;
  for (const auto& p : b.ports) ports.push_back(&p);
  RETURN_IF_ERROR(RunInChunks(w_, PortUpsert(), ports.size(), [&](SqlStmt& up, size_t i, int n) {
    const std::string& device = ports[i]->first.first;
    const json& dev = *ports[i]->second.dev;
    const json& port = *ports[i]->second.port;
    const json* state = Field(port, "state");
    const json* phys = Field(port, "phys_state");
    const json* rate = Field(port, "rate");
    const json* gids = Field(port, "gids");
    up.Bind(n, node).Bind(n + 1, device).Bind(n + 2, ports[i]->first.second);
    up.Bind(n + 3, state ? OptInt(*state, "number") : std::nullopt);
    up.Bind(n + 4, state ? OptText(*state, "name") : std::nullopt);
    up.Bind(n + 5, phys ? OptInt(*phys, "number") : std::nullopt);
    up.Bind(n + 6, phys ? OptText(*phys, "name") : std::nullopt);
    up.Bind(n + 7, OptInt(port, "lid")).Bind(n + 8, OptInt(port, "sm_lid")).Bind(n + 9, OptText(port, "link_layer"));
    up.Bind(n + 10, OptInt(port, "active_mtu"));
    up.Bind(n + 11, rate ? OptReal(*rate, "gbps") : std::nullopt);
    up.Bind(n + 12, rate ? OptText(*rate, "text") : std::nullopt);
    up.Bind(n + 13, gids ? gids->dump() : std::string("[]"));
    up.Bind(n + 14, OptText(dev, "fw_ver")).Bind(n + 15, OptText(dev, "node_guid")).Bind(n + 16, at);
  }));
  std::vector<const std::pair<const CounterKey, CounterRow>*> counters;
  for (const auto& c : b.counters) counters.push_back(&c);
  const std::optional<std::string> boot_id = NullIfEmpty(ingest_boot_id_);
  RETURN_IF_ERROR(RunInChunks(w_, CounterUpsert(), counters.size(), [&](SqlStmt& up, size_t i, int n) {
    const auto& [device, port, kind, name] = counters[i]->first;
    const CounterRow& c = counters[i]->second;
    up.Bind(n, node).Bind(n + 1, device).Bind(n + 2, port).Bind(n + 3, kind).Bind(n + 4, name);
    up.Bind(n + 5, c.value).Bind(n + 6, at).Bind(n + 7, boot_id);
    up.Bind(n + 8, c.delta).Bind(n + 9, c.delta_from).Bind(n + 10, static_cast<int64_t>(c.error ? 1 : 0));
    up.Bind(n + 11, NullIfEmpty(c.instance));
  }));
  return RunInChunks(w_, SampleInsert(), b.samples.size(), [&](SqlStmt& ins, size_t i, int n) {
    const SampleRow& s = b.samples[i];
    ins.Bind(n, report_id).Bind(n + 1, node).Bind(n + 2, s.device).Bind(n + 3, s.port).Bind(n + 4, at);
    ins.Bind(n + 5, s.counters).Bind(n + 6, NullIfEmpty(s.instance));
  });
}

// Compares one counter with its previous reading through the counter rules:
// a saturated counter opens a counter_saturated event (closed once it is
// cleared), a delta past its threshold opens counter_threshold, a congestion
// counter rising faster than its rate threshold opens port_congested (both
// closed by a reading under the threshold). Deltas that
// span a reset-free gap of more than kMaxDeltaIntervals are not judged (but
// are given back, with the previous reading's time, to be kept).
Status ReportWriter::JudgeCounter(const std::string& node, const std::string& device, int64_t port, const char* kind,
                                  const std::string& name, std::optional<int64_t> v, int64_t at,
                                  const std::optional<CounterReading>& previous, std::optional<int64_t>* delta,
                                  std::optional<int64_t>* delta_from) {
  *delta = std::nullopt;
  *delta_from = std::nullopt;
  const std::string where = node + "|" + device + "|" + std::to_string(port) + "|" + name;
  CounterReading current{v ? std::optional<uint64_t>(static_cast<uint64_t>(*v)) : std::nullopt, ingest_boot_id_, at,
                         ingest_instance_};
  CounterDelta d = ComputeCounterDelta(kind, name, previous, current);
  if (d.delta && previous) {
    *delta = static_cast<int64_t>(std::min<uint64_t>(*d.delta, static_cast<uint64_t>(INT64_MAX)));
    *delta_from = previous->at_ms;
  }
  if (d.kind == DeltaKind::kAbsent) return Status::Ok();
  const std::string sat_key = "counter_saturated|" + where;
  if (d.saturated) {
    RETURN_IF_ERROR(OpenOrTouchEvent("counter_saturated", sat_key, node, std::nullopt, std::nullopt, device, port, name,
                                     name + " saturated at " + std::to_string(*v) +
                                         " — clear it to see new errors (perfquery -x -R or a counter reset)",
                                     1, at));
  } else {
    RETURN_IF_ERROR(CloseEventByKey(sat_key, at));
  }
  if (!d.delta || !previous) return Status::Ok();
  if (ingest_interval_ms_ > 0 && d.kind != DeltaKind::kReset && at - previous->at_ms > kMaxDeltaIntervals * ingest_interval_ms_)
    return Status::Ok();
  if (auto rate = options_.congestion.find(name); rate != options_.congestion.end()) {
    // A counter_threshold opened when this counter was judged as an error
    // (before an upgrade) is closed: nothing would close it any more.
    RETURN_IF_ERROR(CloseEventByKey("counter_threshold|" + where, at));
    return JudgeCongestion(where, node, device, port, name, d, at - previous->at_ms, rate->second, at);
  }
  auto threshold = options_.thresholds.find(name);
  if (threshold == options_.thresholds.end()) return Status::Ok();
  const std::string key = "counter_threshold|" + where;
  if (*d.delta >= threshold->second) {
    std::string detail = name + " rose by " + std::to_string(*d.delta) + " since the previous report (threshold " +
                         std::to_string(threshold->second) + (d.kind == DeltaKind::kDelta ? "" : std::string(", ") + DeltaKindName(d.kind)) + ")";
    return OpenOrTouchEvent("counter_threshold", key, node, std::nullopt, std::nullopt, device, port, name, detail, 1, at);
  }
  return CloseEventByKey(key, at);
}

// A congestion counter's rate over the span since the previous reading
// against its threshold (per second). A reset's delta spans an unknown time
// and a span of 0 gives no rate: neither is judged.
Status ReportWriter::JudgeCongestion(const std::string& where, const std::string& node, const std::string& device,
                                     int64_t port, const std::string& name, const CounterDelta& d, int64_t span_ms,
                                     uint64_t per_second, int64_t at) {
  if (d.kind == DeltaKind::kReset || span_ms <= 0) return Status::Ok();
  const std::string key = "port_congested|" + where;
  const double rate = static_cast<double>(*d.delta) * 1000.0 / static_cast<double>(span_ms);
  if (rate < static_cast<double>(per_second)) return CloseEventByKey(key, at);
  char detail[256];
  std::snprintf(detail, sizeof detail,
                "%s rose %.0f/s over the last %.1f s (threshold %llu/s): the port waits to send — congestion "
                "downstream, not an error of this port",
                name.c_str(), rate, static_cast<double>(span_ms) / 1000.0, static_cast<unsigned long long>(per_second));
  return OpenOrTouchEvent("port_congested", key, node, std::nullopt, std::nullopt, device, port, name, detail, 1, at);
}

}  // namespace rdmascope::collector
