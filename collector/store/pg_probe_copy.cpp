// AppendProbeRow and CopyProbeRows (contract in pg_probe_copy.h).
#include "collector/store/pg_probe_copy.h"

#include <cmath>
#include <string>

#include "collector/store/probe_row_sql.h"

namespace rdmascope::collector {
namespace {

void Text(const std::string* v, CopyRows* rows) {
  if (v) rows->Field(std::string_view(*v));
  else rows->Null();
}
void Integer(int64_t v, CopyRows* rows) {
  if (v == ProbeRow::kNullInt) rows->Null();
  else rows->Field(v);
}
void Real(double v, CopyRows* rows) {
  if (std::isnan(v)) rows->Null();
  else rows->Field(v);
}

}  // namespace

void AppendProbeRow(const ProbeRow& r, CopyRows* rows) {
  Text(r.src, rows), Text(r.dst, rows), Text(r.transport, rows), Text(r.local_device, rows);
  Integer(r.local_port, rows), Text(r.remote_host, rows);
  rows->Field(r.interval_start).Field(r.interval_end).Field(r.sent).Field(r.received).Field(r.lost);
  Real(r.loss_ratio, rows), Integer(r.rtt_count, rows);
  for (double v : {r.rtt_min, r.rtt_avg, r.rtt_p50, r.rtt_p90, r.rtt_p99, r.rtt_p999, r.rtt_max, r.network_p50,
                   r.network_p99, r.responder_p50, r.responder_p99, r.read_p50, r.read_p99})
    Real(v, rows);
  rows->Field(r.error_count).Field(std::string_view(r.errors_by_status));
  rows->Field(r.report_id ? std::string_view(*r.report_id) : std::string_view());
  Text(r.rail, rows), Text(r.remote_device, rows), Integer(r.remote_port, rows), Text(r.not_run, rows);
  rows->EndRow();
}

const std::string& ProbeCopySql() {
  static const std::string kCopy = std::string("COPY probe_summaries (") + kProbeRowColumns + ") FROM STDIN";
  return kCopy;
}

Result<int64_t> CopyProbeRows(PgDb& db, const CopyRows& rows) { return db.CopyIn(ProbeCopySql(), rows); }

}  // namespace rdmascope::collector
