// POST /api/v1/reports: parse, validate, store in one transaction.
#include <chrono>

#include "collector/http/api_server.h"
#include "collector/rules/clock_skew.h"
#include "collector/ingest/report_decode.h"
#include "collector/http/report_roles.h"
#include "collector/http/request_guard.h"

namespace rdmascope::collector {

using nlohmann::json;

// A report is at most ~8 levels deep; anything much deeper is hostile.
constexpr int kMaxReportNesting = 32;

void ApiServer::PostReport(const httplib::Request& req, httplib::Response& res) {
  auto t0 = std::chrono::steady_clock::now();
  if (req.body.size() > options_.max_body_bytes) {  // a body the Content-Length check could not see
    metrics_.Count(ReportOutcome::kTooLarge);
    SendError(res, 413, "report too large", {{"max_body_bytes", options_.max_body_bytes}});
    return;
  }
  if (JsonNestingExceeds(req.body, kMaxReportNesting)) {
    metrics_.Count(ReportOutcome::kInvalid);
    SendError(res, 400, "invalid JSON",
              {{"field", ""}, {"problem", "nested deeper than " + std::to_string(kMaxReportNesting) + " levels"}});
    options_.log("report rejected: JSON nested deeper than " + std::to_string(kMaxReportNesting) + " from " +
                 req.remote_addr);
    return;
  }
  DecodedReport decoded = DecodeReport(req.body);
  if (decoded.problem == DecodedReport::Problem::kSyntax) {
    metrics_.Count(ReportOutcome::kInvalid);
    SendError(res, 400, "invalid JSON", {{"field", ""}, {"problem", decoded.error.problem}});
    options_.log("report rejected: invalid JSON from " + req.remote_addr);
    return;
  }
  json& report = decoded.report;
  if (decoded.problem == DecodedReport::Problem::kInvalid) {
    const ValidationError& bad = decoded.error;
    metrics_.Count(ReportOutcome::kInvalid);
    SendError(res, 400, "invalid report", {{"field", bad.field}, {"problem", bad.problem}});
    const auto named = report.find("node");
    std::string node = named != report.end() && named->is_string() ? named->get<std::string>() : "?";
    options_.log("report rejected from " + req.remote_addr + " (node " + node.substr(0, 128) +
                 "): " + (bad.field.empty() ? std::string("document") : bad.field) + " " + bad.problem);
    return;
  }
  const std::string node = report["node"].get<std::string>();
  if (options_.auth) {  // token roles (report_roles.h); nothing of a refused report is stored
    const auto grant = TokenGrantOf(req.get_header_value("Authorization"), options_.tokens);
    const auto refusal = grant ? CheckReportRoles(report, *grant, req.remote_addr)
                               : std::optional<RoleRefusal>(RoleRefusal{403, "token not valid", "no such token"});
    if (refusal) {
      metrics_.Count(ReportOutcome::kUnauthorized);
      SendError(res, refusal->status, refusal->error, {{"node", node}, {"problem", refusal->detail}});
      options_.log("report refused (" + refusal->error + "): node " + node.substr(0, 128) + ", token of " +
                   (grant ? grant->node : std::string("?")) + ", from " + req.remote_addr);
      return;
    }
  }
  if (const size_t named = DistinctTargets(decoded.probes); named > options_.max_destinations_per_node) {
    metrics_.Count(ReportOutcome::kInvalid);
    SendError(res, 422, "too many probe destinations",
              {{"field", "/probes"},
               {"problem", "the report names " + std::to_string(named) + " probe destinations; a node may name at most " +
                               std::to_string(options_.max_destinations_per_node) +
                               " (--max-destinations-per-node on the collector)"}});
    options_.log("report rejected from node " + node.substr(0, 128) + ": " + std::to_string(named) +
                 " probe destinations, over --max-destinations-per-node");
    return;
  }
  const int64_t now = Now();
  const auto skew = MeasureClockSkew(report, req.get_header_value("Date"), now, options_.clock_skew_tolerance_ms);
  if (skew && (*skew > options_.clock_skew_refuse_ms || *skew < -options_.clock_skew_refuse_ms)) {
    metrics_.Count(ReportOutcome::kInvalid);
    SendError(res, 400, "clock skew",
              {{"field", "generated_at_ms"},
               {"problem", "the node's clock is " + std::to_string(*skew / 1000) +
                               " s off the collector's, beyond what is accepted (" +
                               std::to_string(options_.clock_skew_refuse_ms / 1000) +
                               " s); check NTP/chrony on the node"}});
    options_.log("report rejected from node " + node + ": clock off by " + std::to_string(*skew / 1000) + " s");
    return;
  }
  // Whatever the Date header says, nothing is stored ahead of the collector's clock.
  const int64_t shift =
      StoreShiftMs(skew, NewestBodyTimeMs(report, decoded.probes), now, options_.clock_skew_tolerance_ms);
  const std::optional<int64_t> stored_skew = shift != 0 ? std::optional<int64_t>(shift) : std::nullopt;
  if (stored_skew) {
    ShiftReportTimes(report, shift);
    ShiftProbeTimes(decoded.probes, shift);
    options_.log("report from node " + node + ": " + (skew ? "agent clock" : "report times") + " off by " +
                 std::to_string(shift / 1000) + " s; stored at the collector's time");
  }
  // The probes and their snapshot rows are made here, in parallel, not on the writer.
  const auto report_id = std::make_shared<const std::string>(report["report_id"].get<std::string>());
  std::vector<std::shared_ptr<const ProbeRow>> rows;
  rows.reserve(decoded.probes.size());
  for (const ProbeInput& p : decoded.probes)
    rows.push_back(std::make_shared<const ProbeRow>(ProbeRowFromInput(node, p, report_id)));
  auto stored = committer_->Submit(report, now, stored_skew, &decoded.probes, &rows);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string& id = *report_id;
  storage_health_.Note(stored.ok() ? Status::Ok() : stored.status());
  if (!stored.ok()) {
    metrics_.Count(ReportOutcome::kError);
    const StorageFault fault = ClassifyStorageFault(stored.status().message());
    if (fault != StorageFault::kNone) {
      // To the agent: the class and what to do, no path and no SQLite text (the log has both).
      SendError(res, 503, fault == StorageFault::kFull ? "collector storage full" : "collector storage failing",
                StorageFaultAdvice(fault, ""));
      res.set_header("Retry-After", "30");
    } else {
      SendError(res, 500, "store failed", "the report was not stored; the collector's log has the cause");
    }
    options_.log("report " + id + " not stored: " + stored.status().message() +
                 (fault == StorageFault::kNone ? "" : "; " + StorageFaultAdvice(fault, store_.db.path())));
    return;
  }
  metrics_.ObserveIngestSeconds(seconds);
  if (stored.value().duplicate) {
    metrics_.Count(ReportOutcome::kDuplicate);
    SendJson(res, {{"duplicate", true}, {"report_id", id}});
    return;
  }
  metrics_.Count(ReportOutcome::kStored);
  SendJson(res, {{"stored", true}, {"report_id", id}});
}

}  // namespace rdmascope::collector
