#include "collector/store/probe_row_sql.h"

namespace rdmascope::collector {

const char kProbeRowColumns[] =
    "src, dst, transport, local_device, local_port, remote_host, interval_start, interval_end, sent, received, lost, "
    "loss_ratio, rtt_count, rtt_min, rtt_avg, rtt_p50, rtt_p90, rtt_p99, rtt_p999, rtt_max, network_p50, "
    "network_p99, responder_p50, responder_p99, read_p50, read_p99, error_count, errors_by_status, report_id, rail, "
    "remote_device, remote_port, not_run";

}  // namespace rdmascope::collector
