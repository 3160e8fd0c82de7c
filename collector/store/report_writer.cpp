// ReportWriter::Ingest: one report, one transaction.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>

#include "collector/core/json_get.h"
#include "collector/core/probe_input.h"
#include "common/counter_rules.h"
#include "collector/store/commit_announcement.h"
#include "collector/store/storage_fault.h"
#include "collector/store/pg_locks.h"
#include "collector/store/report_writer.h"
#include "collector/store/saturating_sql.h"
#include "collector/rules/error_counters.h"
#include "collector/store/store_status_macros.h"

namespace rdmascope::collector {

// One probe_summaries row; IngestProbe binds every parameter.
constexpr char kProbeInsertSql[] =
    "INSERT INTO probe_summaries(report_id, src, dst, transport, local_device, local_port, "
    "remote_host, interval_start, interval_end, sent, received, lost, loss_ratio, rtt_count, rtt_min, "
    "rtt_avg, rtt_p50, rtt_p90, rtt_p99, rtt_p999, rtt_max, network_p50, network_p99, responder_p50, "
    "responder_p99, read_p50, read_p99, error_count, errors_by_status, rail, remote_device, remote_port, "
    "not_run) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
    "?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33)";
using nlohmann::json;

Result<IngestResult> ReportWriter::Ingest(const json& report, int64_t received_at_ms, std::optional<int64_t> clock_skew_ms) {
  std::vector<std::shared_ptr<const NodeState>> replaced;  // freed after the lock is released
  std::lock_guard<std::mutex> lock(mu_);
  pending_rows_.clear();
  rollups_.BeginTransaction();
  Transaction tx(db_);
  if (Status s = tx.Begin(); !s.ok()) return s;
  if (Status s = rollups_.JoinWriterTransaction(); !s.ok()) return s;
  closed_events_ = false;
  fabric_change_ = FabricChange();
  IngestResult out;
  if (Status s = IngestLocked(report, received_at_ms, nullptr, nullptr, &out); !s.ok()) return s;  // tx rolls back
  if (out.duplicate) return out;                                                  // nothing written; rolls back
  if (Status s = IngestClockSkew(report["node"].get<std::string>(), clock_skew_ms, received_at_ms); !s.ok()) return s;
  if (Status s = StoreBulkRows(); !s.ok()) return s;
  if (Status s = AnnounceCommit({{report["node"].get<std::string>(), report["report_id"].get<std::string>(), {}}});
      !s.ok())
    return s;
  if (Status s = Fault("commit"); !s.ok()) return s;
  if (Status s = tx.Commit(); !s.ok()) return s;
  rollups_.OweCommittedLateSummaries();
  if (closed_events_) LoadOpenEventKeys();
  loader_.RefreshSnapshot({report["node"].get<std::string>()}, std::move(pending_rows_), fabric_change_);
  pending_rows_.clear();
  replaced = read_.TakeReplacedStates();
  return out;
}

Status ReportWriter::IngestLocked(const json& r, int64_t received_at, const std::vector<ProbeInput>* probes,
                           const std::vector<std::shared_ptr<const ProbeRow>>* rows, IngestResult* out) {
  RETURN_IF_ERROR(Fault("report"));
  const std::string id = r["report_id"].get<std::string>();
  ingest_report_id_ = std::make_shared<const std::string>(id);
  ingest_boot_id_ = OptText(r, "boot_id").value_or("");
  ingest_interval_ms_ = static_cast<int64_t>(OptReal(r, "interval_s").value_or(0) * 1000);
  {
    // received_seq: the arrival order. SQLite has one writer, so the next
    // number is MAX + 1; PostgreSQL's collectors share the column's sequence
    // (its default, schemas/postgres/0003).
    ASSIGN_STMT(ins, Q(db_.postgres()
                           ? "INSERT INTO reports(id, node, received_at, generated_at, agent_version, interval_s, "
                             "boot_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(id) DO NOTHING"
                           : "INSERT INTO reports(id, node, received_at, generated_at, agent_version, interval_s, boot_id, "
                             "received_seq) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
                             "(SELECT COALESCE(MAX(received_seq), 0) + 1 FROM reports)) ON CONFLICT(id) DO NOTHING"));
    ins.Bind(1, id).Bind(2, r["node"].get<std::string>()).Bind(3, received_at);
    ins.Bind(4, *OptInt(r, "generated_at_ms")).Bind(5, OptText(r, "agent_version")).Bind(6, OptReal(r, "interval_s"));
    ins.Bind(7, OptText(r, "boot_id"));
    RETURN_IF_ERROR(ins.Run());
    if (db_.Changes() == 0) {
      out->duplicate = true;
      return Status::Ok();
    }
  }
  RETURN_IF_ERROR(IngestNode(r, received_at));
  RETURN_IF_ERROR(IngestInventory(r, received_at));
  RETURN_IF_ERROR(IngestFabric(r, received_at));
  RETURN_IF_ERROR(IngestResponderEvents(r, received_at));
  RETURN_IF_ERROR(IngestReportLosses(r, received_at));
  const std::string node = r["node"].get<std::string>();
  std::vector<ProbeInput> extracted;
  if (!probes) {
    extracted = ExtractProbes(r);
    probes = &extracted;
  }
  std::set<std::string> failing;
  for (const ProbeInput& p : *probes)
    if (p.has_errors) failing.insert(p.target + "|" + p.transport);
  if (rows && rows->size() != probes->size()) return Status::Error("probe rows do not match the report's probes");
  ASSIGN_STMT(insert, Q(kProbeInsertSql));
  for (size_t i = 0; i < probes->size(); ++i) {
    RETURN_IF_ERROR(IngestProbe(node, (*probes)[i], received_at, id, failing, insert, rows ? (*rows)[i] : nullptr));
    ++out->probe_summaries;
  }
  return Status::Ok();
}

void ReportWriter::IngestBatch(std::vector<BatchItem>& items, SnapshotUpdate* deferred) {
  // States no caller took since the last batch: freed after the lock.
  std::vector<std::shared_ptr<const NodeState>> untaken;
  std::lock_guard<std::mutex> lock(mu_);
  untaken = read_.TakeReplacedStates();
  auto fail_all = [&](const Status& s) {
    for (BatchItem& it : items) it.status = s;
  };
  pending_rows_.clear();
  rollups_.BeginTransaction();
  Transaction tx(db_);
  if (Status s = tx.Begin(); !s.ok()) return fail_all(s);
  if (Status s = rollups_.JoinWriterTransaction(); !s.ok()) return fail_all(s);
  closed_events_ = false;
  fabric_change_ = FabricChange();  // a report the batch rolls back may leave it set: one refresh more
  for (BatchItem& it : items) {
    const size_t rows_before = pending_rows_.size(), owed_before = rollups_.PendingOwed();
    if (Status s = db_.Exec("SAVEPOINT report"); !s.ok()) {
      it.status = s;
      continue;
    }
    it.out = IngestResult{};
    Status s = IngestLocked(*it.report, it.received_at_ms, it.probes, it.probes ? it.rows : nullptr, &it.out);
    if (s.ok() && !it.out.duplicate)
      s = IngestClockSkew((*it.report)["node"].get<std::string>(), it.clock_skew_ms, it.received_at_ms);
    if (!s.ok()) {
      // A storage fault (disk full, I/O, damage) may already have rolled the
      // whole transaction back: then nothing of the batch is stored, and no
      // later savepoint may start a transaction of its own.
      if (ClassifyStorageFault(s.message()) != StorageFault::kNone || !db_.InTransaction())
        return fail_all(s);
      (void)db_.Exec("ROLLBACK TO report");
      (void)db_.Exec("RELEASE report");
      pending_rows_.resize(rows_before);
      rollups_.RollBackOwed(owed_before);
      it.status = s;
      continue;
    }
    if (Status r = db_.Exec("RELEASE report"); !r.ok()) return fail_all(r);  // tx rolls back
    it.status = Status::Ok();
  }
  if (Status s = StoreBulkRows(); !s.ok()) return fail_all(s);
  std::set<std::string> nodes;
  std::vector<CommittedReport> stored;
  for (const BatchItem& it : items)
    if (it.status.ok() && !it.out.duplicate) {
      nodes.insert((*it.report)["node"].get<std::string>());
      stored.push_back({(*it.report)["node"].get<std::string>(), (*it.report)["report_id"].get<std::string>(), {}});
    }
  if (Status s = AnnounceCommit(std::move(stored)); !s.ok()) return fail_all(s);
  if (Status s = Fault("commit"); !s.ok()) return fail_all(s);
  if (Status s = tx.Commit(); !s.ok()) return fail_all(s);
  rollups_.OweCommittedLateSummaries();
  if (closed_events_) LoadOpenEventKeys();
  loader_.RefreshSnapshot(nodes, std::move(pending_rows_), fabric_change_, deferred);
  pending_rows_.clear();
}

Status ReportWriter::AnnounceCommit(std::vector<CommittedReport> reports) {
  if (!db_.postgres() || reports.empty()) return Status::Ok();
  std::map<std::string_view, int64_t> min_end;  // by report id, of the rows written
  for (const auto& row : pending_rows_) {
    auto [it, fresh] = min_end.emplace(*row->report_id, row->interval_end);
    if (!fresh) it->second = std::min(it->second, row->interval_end);
  }
  for (CommittedReport& r : reports)
    if (auto it = min_end.find(r.report_id); it != min_end.end()) r.min_end = it->second;
  for (const std::string& payload :
       EncodeCommitAnnouncement(w_.instance_id(), fabric_change_.any(), reports, kPgNotifyMaxBytes)) {
    ASSIGN_STMT(notify, Q("SELECT pg_notify(?1, ?2)"));
    notify.Bind(1, std::string_view(kPgCommitChannel)).Bind(2, payload);
    auto row = notify.Step();
    notify.Reset();
    if (!row.ok()) return Status::Error("announcing the commit to the other collectors: " + row.status().message());
  }
  return Status::Ok();
}

Status ReportWriter::StoreBulkRows() {
  ProbeRowBulk* bulk = w_.probe_bulk();
  if (!bulk || pending_rows_.empty()) return Status::Ok();
  if (Status s = bulk->Store(db_, pending_rows_); !s.ok())
    return Status::Error("storing the batch's probe summaries: " + s.message());
  return Status::Ok();
}

Status ReportWriter::IngestClockSkew(const std::string& node, std::optional<int64_t> skew_ms, int64_t received_at) {
  const std::string key = "clock_skew|" + node;
  if (!skew_ms) return CloseEventByKey(key, received_at);
  const double s = static_cast<double>(*skew_ms) / 1000.0;
  char detail[200];
  std::snprintf(detail, sizeof detail,
                "agent clock %.0f s %s the collector's; its report times were stored at receive time "
                "(check NTP/chrony on the node)",
                s < 0 ? -s : s, s < 0 ? "behind" : "ahead of");
  return OpenOrTouchEvent("clock_skew", key, node, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                          "skewed", detail, 1, received_at);
}

Status ReportWriter::IngestNode(const json& r, int64_t received_at) {
  RETURN_IF_ERROR(Fault("node"));
  const json* labels = Field(r, "labels");
  ASSIGN_STMT(up,
              Q("INSERT INTO nodes(name, labels, agent_version, first_seen_at, last_report_at, last_generated_at, "
                "last_report_id, interval_s) VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6, ?7) "
                "ON CONFLICT(name) DO UPDATE SET last_report_at = GREATEST(nodes.last_report_at, excluded.last_report_at), "
                "labels = CASE WHEN excluded.last_generated_at >= nodes.last_generated_at THEN excluded.labels ELSE nodes.labels END, "
                "agent_version = CASE WHEN excluded.last_generated_at >= nodes.last_generated_at "
                "  THEN excluded.agent_version ELSE nodes.agent_version END, "
                "interval_s = CASE WHEN excluded.last_generated_at >= nodes.last_generated_at "
                "  THEN excluded.interval_s ELSE nodes.interval_s END, "
                "last_report_id = CASE WHEN excluded.last_generated_at >= nodes.last_generated_at "
                "  THEN excluded.last_report_id ELSE nodes.last_report_id END, "
                "last_generated_at = GREATEST(nodes.last_generated_at, excluded.last_generated_at)"));
  up.Bind(1, r["node"].get<std::string>()).Bind(2, labels ? labels->dump() : std::string("{}"));
  up.Bind(3, OptText(r, "agent_version")).Bind(4, received_at).Bind(5, *OptInt(r, "generated_at_ms"));
  up.Bind(6, r["report_id"].get<std::string>()).Bind(7, OptReal(r, "interval_s"));
  return up.Run();
}

Status ReportWriter::IngestInventory(const json& r, int64_t /*received_at*/) {
  const json* inv = Field(r, "inventory");
  if (!inv) return Status::Ok();
  const json* devices = Field(*inv, "devices");
  if (!devices) return Status::Ok();
  const std::string node = r["node"].get<std::string>();
  const std::string id = r["report_id"].get<std::string>();
  const int64_t at = *OptInt(r, "generated_at_ms");
  PortBatch batch;
  bool read = false;  // batch holds the stored ports and counters
  for (const json& dev : *devices) {
    RETURN_IF_ERROR(JudgePcie(node, dev, at));
    ingest_instance_ = OptText(dev, "instance").value_or("");
    const json* ports = Field(dev, "ports");
    if (!ports || ports->empty()) continue;
    if (!read) RETURN_IF_ERROR(ReadPortBatch(node, &batch));
    read = true;
    for (const json& port : *ports) RETURN_IF_ERROR(IngestPort(node, dev, port, at, &batch));
  }
  return read ? WritePortBatch(node, at, id, batch) : Status::Ok();
}

// A PCIe link trained below its maximum speed or width opens pcie_degraded
// (closed once it trains at full speed and width again).
Status ReportWriter::JudgePcie(const std::string& node, const json& dev, int64_t at) {
  const json* pcie = Field(dev, "pcie");
  if (!pcie || !dev.contains("name") || !dev["name"].is_string()) return Status::Ok();
  const std::string device = dev["name"].get<std::string>();
  auto speed = OptReal(*pcie, "speed_gts"), max_speed = OptReal(*pcie, "max_speed_gts");
  auto width = OptInt(*pcie, "width"), max_width = OptInt(*pcie, "max_width");
  std::string detail;
  if (speed && max_speed && *speed < *max_speed) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "PCIe link at %g GT/s of %g", *speed, *max_speed);
    detail = buf;
  }
  if (width && max_width && *width < *max_width)
    detail += (detail.empty() ? "PCIe link " : ", ") + std::string("x") + std::to_string(*width) + " of x" +
              std::to_string(*max_width);
  const std::string key = "pcie_degraded|" + node + "|" + device;
  if (detail.empty()) return CloseEventByKey(key, at);
  return OpenOrTouchEvent("pcie_degraded", key, node, std::nullopt, std::nullopt, device, std::nullopt, "degraded",
                          detail, 1, at);
}

Status ReportWriter::IngestProbe(const std::string& node, const ProbeInput& p, int64_t received_at,
                          const std::string& report_id, const std::set<std::string>& failing, SqlStmt& ins,
                          std::shared_ptr<const ProbeRow> row) {
  RETURN_IF_ERROR(Fault("probe"));
  const std::string& dst = p.target;
  const std::string& transport = p.transport;
  const int64_t start = p.interval_start;
  const int64_t end = p.interval_end;
  {
    // With the engine's bulk store the row goes with the others before the
    // commit (StoreBulkRows). Every string bound here outlives ins.Run()
    // below, so none is copied.
    if (!w_.probe_bulk()) {
      ins.BindUncopied(1, report_id).BindUncopied(2, node).BindUncopied(3, dst).BindUncopied(4, transport);
      ins.BindUncopied(5, p.local_device).Bind(6, p.local_port);
      ins.BindUncopied(7, p.remote_host).Bind(8, start).Bind(9, end);
      ins.Bind(10, p.sent).Bind(11, p.received).Bind(12, p.lost);
      ins.Bind(13, p.loss_ratio).Bind(14, p.rtt_count);
      ins.Bind(15, p.rtt_min).Bind(16, p.rtt_avg).Bind(17, p.rtt_p50).Bind(18, p.rtt_p90);
      ins.Bind(19, p.rtt_p99).Bind(20, p.rtt_p999).Bind(21, p.rtt_max);
      ins.Bind(22, p.network_p50).Bind(23, p.network_p99).Bind(24, p.responder_p50).Bind(25, p.responder_p99);
      ins.Bind(26, p.read_p50).Bind(27, p.read_p99).Bind(28, p.error_count);
      ins.BindUncopied(29, p.errors_by_status_json);
      ins.BindUncopied(30, p.rail).BindUncopied(31, p.remote_device);
      ins.Bind(32, p.remote_port).BindUncopied(33, p.not_run);
      RETURN_IF_ERROR(ins.Run());
    }
    pending_rows_.push_back(row ? std::move(row)
                                : std::make_shared<const ProbeRow>(ProbeRowFromInput(node, p, ingest_report_id_)));
  }
  // Rollups are built per closed slice (rollups.cpp); a summary for a
  // slice already rolled is added to them here.
  if (end < rollups_.RollupThroughMsLocked()) RETURN_IF_ERROR(rollups_.AddLateSummaryToRollups(node, p));
  for (const WcErrorInput& e : p.errors) {
    RETURN_IF_ERROR(Fault("wc_error"));
    ASSIGN_STMT(ins, Q("INSERT INTO wc_errors(report_id, src, dst, transport, status, status_name, vendor_err, opcode, "
                       "wall_ms, after_ms, explanation, received_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
                       "?11, ?12)"));
    ins.Bind(1, report_id).Bind(2, node).Bind(3, dst).Bind(4, transport).Bind(5, e.status);
    ins.Bind(6, e.status_name).Bind(7, e.vendor_err).Bind(8, e.opcode);
    ins.Bind(9, e.wall_ms).Bind(10, e.after_ms).Bind(11, e.explanation);
    ins.Bind(12, received_at);
    RETURN_IF_ERROR(ins.Run());
  }
  for (const auto& [name, n] : p.error_counts) {
    if (n == 0) continue;
    {
      // A node's running total is capped (saturating_sql.h): an addition
      // past int64 would fail every later report of the node on PostgreSQL.
      ASSIGN_STMT(up, Q("INSERT INTO wc_error_totals(node, status, count) VALUES (?1, ?2, ?3) "
                        "ON CONFLICT(node, status) DO UPDATE SET " SAT_MERGE("wc_error_totals", "count")));
      up.Bind(1, node).Bind(2, name).Bind(3, Capped(n));
      RETURN_IF_ERROR(up.Run());
    }
    const std::string key = "wc_error|" + node + "|" + dst + "|" + transport + "|" + name;
    std::string detail = std::to_string(n) + " failed completion(s) to " + dst + " over " + transport;
    auto explanation = p.first_explanation.find(name);
    if (explanation != p.first_explanation.end() && !explanation->second.empty()) detail += ": " + explanation->second;
    RETURN_IF_ERROR(OpenOrTouchEvent("wc_error", key, node, dst, transport, std::nullopt, std::nullopt, name, detail,
                                     n, start));
  }
  if (p.error_count == 0 && p.received > 0 && !failing.count(dst + "|" + transport))
    RETURN_IF_ERROR(CloseWcEvents(node, dst, transport, end));
  return Status::Ok();
}

}  // namespace rdmascope::collector
