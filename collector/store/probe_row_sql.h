// Probe rows as the store reads them back from probe_summaries.
//
// Contract: ProbeRowFrom reads the current row of a statement whose SELECT
// list starts with kProbeRowColumns (the columns of the probes query without
// their API aliases, in this order) into the read model's row, interning its
// names; what ProbeRowFromInput (readmodel) makes from the input that row was
// stored from. S is either backend's statement (Stmt, PgStmt): the same row
// from either.
#pragma once

#include <limits>
#include <memory>
#include <string>

#include "collector/readmodel/read_snapshot.h"
#include "collector/store/store_db.h"

namespace rdmascope::collector {

extern const char kProbeRowColumns[];

template <class S>
ProbeRow ProbeRowFrom(const S& s, const std::shared_ptr<const std::string>& report_id_hint) {
  constexpr double kNullReal = std::numeric_limits<double>::quiet_NaN();  // a REAL column that is NULL
  ProbeRow r;
  auto text = [&s](int c) -> const std::string* {
    if (s.IsNull(c)) return nullptr;
    return Intern(s.TextView(c));
  };
  auto integer = [&s](int c) { return s.IsNull(c) ? ProbeRow::kNullInt : s.Int(c); };
  auto real = [&s](int c) { return s.IsNull(c) ? kNullReal : s.Real(c); };
  r.src = text(0), r.dst = text(1), r.transport = text(2), r.local_device = text(3);
  r.local_port = integer(4), r.remote_host = text(5), r.interval_start = s.Int(6), r.interval_end = s.Int(7);
  r.sent = s.Int(8), r.received = s.Int(9), r.lost = s.Int(10), r.loss_ratio = real(11), r.rtt_count = integer(12);
  double* reals[] = {&r.rtt_min,       &r.rtt_avg,  &r.rtt_p50,    &r.rtt_p90,     &r.rtt_p99,
                     &r.rtt_p999,      &r.rtt_max,  &r.network_p50, &r.network_p99, &r.responder_p50,
                     &r.responder_p99, &r.read_p50, &r.read_p99};
  for (int i = 0; i < 13; ++i) *reals[i] = real(13 + i);
  r.error_count = s.Int(26);
  r.errors_by_status = std::string(s.TextView(27));
  const std::string_view id = s.TextView(28);
  r.report_id = (report_id_hint && *report_id_hint == id) ? report_id_hint : std::make_shared<const std::string>(id);
  r.rail = text(29), r.remote_device = text(30), r.remote_port = integer(31), r.not_run = text(32);
  return r;
}

inline ProbeRow ProbeRowFromStmt(const SqlStmt& s, const std::shared_ptr<const std::string>& report_id_hint) {
  return ProbeRowFrom(s, report_id_hint);
}

}  // namespace rdmascope::collector
