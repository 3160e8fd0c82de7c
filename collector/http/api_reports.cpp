// POST /api/v1/reports: parse, validate, store in one transaction.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collector/http/api_server.h"
#include "collector/rules/clock_skew.h"
#include "collector/ingest/report_decode.h"
#include "collector/http/report_roles.h"
#include "collector/http/request_guard.h"

namespace rdmascope::collector {

using nlohmann::json;

// A report is at most ~8 levels deep; anything much deeper is hostile.
constexpr int kMaxReportNesting = 32;

namespace {

// Why a report is answered without being stored: the answer, the outcome
// counted, and the log line (empty: nothing is logged).
struct ReportRefusal {
  ReportOutcome outcome;
  int status;
  std::string error;
  json detail;
  std::string log;
};

// A body over max_body_bytes (one the Content-Length check could not see),
// or JSON nested deeper than kMaxReportNesting.
std::optional<ReportRefusal> RefuseRawBody(const httplib::Request& req, size_t max_body_bytes) {
  if (req.body.size() > max_body_bytes)
    return ReportRefusal{ReportOutcome::kTooLarge, 413, "report too large", {{"max_body_bytes", max_body_bytes}}, ""};
  if (!JsonNestingExceeds(req.body, kMaxReportNesting)) return std::nullopt;
  const std::string levels = std::to_string(kMaxReportNesting) + " levels";
  return ReportRefusal{ReportOutcome::kInvalid, 400, "invalid JSON",
                       {{"field", ""}, {"problem", "nested deeper than " + levels}},
                       "report rejected: JSON nested deeper than " + levels + " from " + req.remote_addr};
}

// A body that is not JSON, or a document that breaks the report schema
// (the log names the node when the document does).
std::optional<ReportRefusal> RefuseUndecoded(const DecodedReport& decoded, const std::string& from) {
  if (decoded.problem == DecodedReport::Problem::kSyntax)
    return ReportRefusal{ReportOutcome::kInvalid, 400, "invalid JSON",
                         {{"field", ""}, {"problem", decoded.error.problem}},
                         "report rejected: invalid JSON from " + from};
  if (decoded.problem != DecodedReport::Problem::kInvalid) return std::nullopt;
  const ValidationError& bad = decoded.error;
  const auto named = decoded.report.find("node");
  const std::string node = named != decoded.report.end() && named->is_string() ? named->get<std::string>() : "?";
  return ReportRefusal{ReportOutcome::kInvalid, 400, "invalid report", {{"field", bad.field}, {"problem", bad.problem}},
                       "report rejected from " + from + " (node " + node.substr(0, 128) + "): " +
                           (bad.field.empty() ? std::string("document") : bad.field) + " " + bad.problem};
}

// With auth on, a report its bearer token may not say all of (token roles,
// report_roles.h), or one with no valid token.
std::optional<ReportRefusal> RefuseByTokenRoles(const httplib::Request& req, const json& report,
                                                const std::string& node, const ApiOptions& options) {
  if (!options.auth) return std::nullopt;
  const auto grant = TokenGrantOf(req.get_header_value("Authorization"), options.tokens);
  const auto refusal = grant ? CheckReportRoles(report, *grant, req.remote_addr)
                             : std::optional<RoleRefusal>(RoleRefusal{403, "token not valid", "no such token"});
  if (!refusal) return std::nullopt;
  return ReportRefusal{ReportOutcome::kUnauthorized, refusal->status, refusal->error,
                       {{"node", node}, {"problem", refusal->detail}},
                       "report refused (" + refusal->error + "): node " + node.substr(0, 128) + ", token of " +
                           (grant ? grant->node : std::string("?")) + ", from " + req.remote_addr};
}

// A report naming more distinct probe destinations than a node may (422).
std::optional<ReportRefusal> RefuseTooManyDestinations(const std::vector<ProbeInput>& probes, const std::string& node,
                                                       size_t max_destinations) {
  const size_t named = DistinctTargets(probes);
  if (named <= max_destinations) return std::nullopt;
  return ReportRefusal{ReportOutcome::kInvalid, 422, "too many probe destinations",
                       {{"field", "/probes"},
                        {"problem", "the report names " + std::to_string(named) +
                                        " probe destinations; a node may name at most " +
                                        std::to_string(max_destinations) +
                                        " (--max-destinations-per-node on the collector)"}},
                       "report rejected from node " + node.substr(0, 128) + ": " + std::to_string(named) +
                           " probe destinations, over --max-destinations-per-node"};
}

// A node clock measured off the collector's by more than refuse_ms either way.
std::optional<ReportRefusal> RefuseClockSkew(std::optional<int64_t> skew, const std::string& node, int64_t refuse_ms) {
  if (!skew || (*skew <= refuse_ms && *skew >= -refuse_ms)) return std::nullopt;
  return ReportRefusal{ReportOutcome::kInvalid, 400, "clock skew",
                       {{"field", "generated_at_ms"},
                        {"problem", "the node's clock is " + std::to_string(*skew / 1000) +
                                        " s off the collector's, beyond what is accepted (" +
                                        std::to_string(refuse_ms / 1000) + " s); check NTP/chrony on the node"}},
                       "report rejected from node " + node + ": clock off by " + std::to_string(*skew / 1000) + " s"};
}

// The probes' snapshot rows, made on the HTTP worker, in parallel, not on the writer.
std::vector<std::shared_ptr<const ProbeRow>> SnapshotRowsOf(const std::string& node,
                                                            const std::vector<ProbeInput>& probes,
                                                            const std::shared_ptr<const std::string>& report_id) {
  std::vector<std::shared_ptr<const ProbeRow>> rows;
  rows.reserve(probes.size());
  for (const ProbeInput& p : probes)
    rows.push_back(std::make_shared<const ProbeRow>(ProbeRowFromInput(node, p, report_id)));
  return rows;
}

// Answers a report the store failed to keep: 503 naming the storage fault
// and what to do (no path, no SQLite text) with Retry-After, else 500.
// Returns the log line, which has both.
std::string AnswerStoreFailure(httplib::Response& res, const std::string& report_id, const Status& failed,
                               const std::string& db_path) {
  const StorageFault fault = ClassifyStorageFault(failed.message());
  if (fault != StorageFault::kNone) {
    SendError(res, 503, fault == StorageFault::kFull ? "collector storage full" : "collector storage failing",
              StorageFaultAdvice(fault, ""));
    res.set_header("Retry-After", "30");
  } else {
    SendError(res, 500, "store failed", "the report was not stored; the collector's log has the cause");
  }
  return "report " + report_id + " not stored: " + failed.message() +
         (fault == StorageFault::kNone ? "" : "; " + StorageFaultAdvice(fault, db_path));
}

}  // namespace

// Whatever the Date header says, nothing is stored ahead of the collector's
// clock: moves the report's times by the shift StoreShiftMs gives and logs
// it. Returns the shift when there was one.
std::optional<int64_t> ApiServer::ShiftTimesAhead(json& report, std::vector<ProbeInput>& probes,
                                                  std::optional<int64_t> skew, int64_t now,
                                                  const std::string& node) const {
  const int64_t shift = StoreShiftMs(skew, NewestBodyTimeMs(report, probes), now, options_.clock_skew_tolerance_ms);
  if (shift == 0) return std::nullopt;
  ShiftReportTimes(report, shift);
  ShiftProbeTimes(probes, shift);
  options_.log("report from node " + node + ": " + (skew ? "agent clock" : "report times") + " off by " +
               std::to_string(shift / 1000) + " s; stored at the collector's time");
  return shift;
}

void ApiServer::PostReport(const httplib::Request& req, httplib::Response& res) {
  auto t0 = std::chrono::steady_clock::now();
  auto refuse = [&](const ReportRefusal& r) {
    metrics_.Count(r.outcome);
    SendError(res, r.status, r.error, r.detail);
    if (!r.log.empty()) options_.log(r.log);
  };
  if (auto r = RefuseRawBody(req, options_.max_body_bytes)) return refuse(*r);
  DecodedReport decoded = DecodeReport(req.body);
  if (auto r = RefuseUndecoded(decoded, req.remote_addr)) return refuse(*r);
  json& report = decoded.report;
  const std::string node = report["node"].get<std::string>();
  if (auto r = RefuseByTokenRoles(req, report, node, options_)) return refuse(*r);
  if (auto r = RefuseTooManyDestinations(decoded.probes, node, options_.max_destinations_per_node)) return refuse(*r);
  const int64_t now = Now();
  const auto skew = MeasureClockSkew(report, req.get_header_value("Date"), now, options_.clock_skew_tolerance_ms);
  if (auto r = RefuseClockSkew(skew, node, options_.clock_skew_refuse_ms)) return refuse(*r);
  const std::optional<int64_t> stored_skew = ShiftTimesAhead(report, decoded.probes, skew, now, node);
  const auto report_id = std::make_shared<const std::string>(report["report_id"].get<std::string>());
  auto rows = SnapshotRowsOf(node, decoded.probes, report_id);
  auto stored = committer_->Submit(report, now, stored_skew, &decoded.probes, &rows);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  storage_health_.Note(stored.ok() ? Status::Ok() : stored.status());
  if (!stored.ok()) {
    metrics_.Count(ReportOutcome::kError);
    options_.log(AnswerStoreFailure(res, *report_id, stored.status(), store_.db.path()));
    return;
  }
  metrics_.ObserveIngestSeconds(seconds);
  if (stored.value().duplicate) {
    metrics_.Count(ReportOutcome::kDuplicate);
    SendJson(res, {{"duplicate", true}, {"report_id", *report_id}});
    return;
  }
  metrics_.Count(ReportOutcome::kStored);
  SendJson(res, {{"stored", true}, {"report_id", *report_id}});
}

}  // namespace rdmascope::collector
