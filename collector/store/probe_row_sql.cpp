#include "collector/store/probe_row_sql.h"

#include <limits>

namespace rdmascope::collector {

namespace {
constexpr double kNullReal = std::numeric_limits<double>::quiet_NaN();  // a REAL column that is NULL
}  // namespace

const char kProbeRowColumns[] =
    "src, dst, transport, local_device, local_port, remote_host, interval_start, interval_end, sent, received, lost, "
    "loss_ratio, rtt_count, rtt_min, rtt_avg, rtt_p50, rtt_p90, rtt_p99, rtt_p999, rtt_max, network_p50, "
    "network_p99, responder_p50, responder_p99, read_p50, read_p99, error_count, errors_by_status, report_id, rail, "
    "remote_device, remote_port, not_run";

ProbeRow ProbeRowFromStmt(const Stmt& s, const std::shared_ptr<const std::string>& report_id_hint) {
  ProbeRow r;
  auto text = [&s](int c) -> const std::string* {
    if (s.IsNull(c)) return nullptr;
    return Intern(s.Text(c));
  };
  auto integer = [&s](int c) { return s.IsNull(c) ? ProbeRow::kNullInt : s.Int(c); };
  auto real = [&s](int c) { return s.IsNull(c) ? kNullReal : s.Real(c); };
  r.src = text(0), r.dst = text(1), r.transport = text(2), r.local_device = text(3);
  r.local_port = integer(4), r.remote_host = text(5), r.interval_start = s.Int(6), r.interval_end = s.Int(7);
  r.sent = s.Int(8), r.received = s.Int(9), r.lost = s.Int(10), r.loss_ratio = real(11), r.rtt_count = integer(12);
  double* reals[] = {&r.rtt_min,     &r.rtt_avg,     &r.rtt_p50,       &r.rtt_p90,       &r.rtt_p99,
                     &r.rtt_p999,    &r.rtt_max,     &r.network_p50,   &r.network_p99,   &r.responder_p50,
                     &r.responder_p99, &r.read_p50, &r.read_p99};
  for (int i = 0; i < 13; ++i) *reals[i] = real(13 + i);
  r.error_count = s.Int(26);
  r.errors_by_status = s.Text(27);
  std::string id = s.Text(28);
  r.report_id = (report_id_hint && *report_id_hint == id) ? report_id_hint : std::make_shared<const std::string>(id);
  r.rail = text(29), r.remote_device = text(30), r.remote_port = integer(31), r.not_run = text(32);
  return r;
}

}  // namespace rdmascope::collector
