#include "common/counter_names.h"

#include <algorithm>
#include <iterator>

namespace rdmascope {

namespace {

// The sysfs counters/ files (ports/N/counters), as the agent reports them.
constexpr std::string_view kPortCounters[] = {
    "VL15_dropped",
    "excessive_buffer_overrun_errors",
    "link_downed",
    "link_error_recovery",
    "local_link_integrity_errors",
    "multicast_rcv_packets",
    "multicast_xmit_packets",
    "port_rcv_constraint_errors",
    "port_rcv_data",
    "port_rcv_data_bytes",
    "port_rcv_errors",
    "port_rcv_packets",
    "port_rcv_remote_physical_errors",
    "port_rcv_switch_relay_errors",
    "port_xmit_constraint_errors",
    "port_xmit_data",
    "port_xmit_data_bytes",
    "port_xmit_discards",
    "port_xmit_packets",
    "port_xmit_wait",
    "symbol_error",
    "unicast_rcv_packets",
    "unicast_xmit_packets",
    "port_rcv_data_64",
    "port_xmit_data_64",
    "port_rcv_packets_64",
    "port_xmit_packets_64",
};

// mlx5, mlx4, rxe, bnxt_re, irdma, efa, hns: the counters operators alert on
// and the traffic counters beside them.
constexpr std::string_view kHwCounters[] = {
    "ack_deferred",
    "bad_resp_err",
    "completer_retry_err",
    "cq_overflow",
    "duplicate_request",
    "implied_nak_seq_err",
    "lifespan",
    "link_downed",
    "local_ack_timeout_err",
    "local_protection_err",
    "local_qp_op_err",
    "np_cnp_sent",
    "np_ecn_marked_roce_packets",
    "out_of_buffer",
    "out_of_seq_request",
    "out_of_sequence",
    "packet_seq_err",
    "rcvd_pkts",
    "rcvd_rnr_err",
    "rcvd_seq_err",
    "rdma_recvs",
    "rdma_sends",
    "recv_bytes",
    "recv_pkts",
    "recv_wrs",
    "rem_access_err",
    "rem_inv_req_err",
    "rem_op_err",
    "req_cqe_error",
    "req_cqe_flush_error",
    "req_remote_access_errors",
    "req_remote_invalid_request",
    "res_exceed_max",
    "resp_cqe_error",
    "resp_cqe_flush_error",
    "resp_local_length_error",
    "resp_remote_access_errors",
    "retry_exceeded_err",
    "retry_rnr_exceeded_err",
    "rnr_nak_retry_err",
    "roce_adp_retrans",
    "roce_adp_retrans_to",
    "roce_slow_restart",
    "roce_slow_restart_cnps",
    "roce_slow_restart_trans",
    "rp_cnp_handled",
    "rp_cnp_ignored",
    "rx_atomic_requests",
    "rx_bytes",
    "rx_dct_connect",
    "rx_drops",
    "rx_icrc_encapsulated",
    "rx_pkts",
    "rx_read_requests",
    "rx_roce_discards",
    "rx_roce_errors",
    "rx_roce_good_bytes",
    "rx_roce_good_pkts",
    "rx_write_requests",
    "send_bytes",
    "send_err",
    "send_pkts",
    "send_rnr_err",
    "send_wrs",
    "sent_pkts",
    "seq_err_naks_rcvd",
    "tx_bytes",
    "tx_pkts",
    "tx_roce_discards",
    "tx_roce_errors",
    "unrecoverable_err",
};

template <typename List>
bool Listed(const List& list, std::string_view name) {
  return std::find(std::begin(list), std::end(list), name) != std::end(list);
}

}  // namespace

bool IsKnownCounterName(std::string_view kind, std::string_view name) {
  if (kind == "counters") return Listed(kPortCounters, name);
  if (kind == "hw_counters") return Listed(kHwCounters, name);
  return false;
}

}  // namespace rdmascope
