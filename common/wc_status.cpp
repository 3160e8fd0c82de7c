// The work-completion status table and its lookups.
//
// Contract: entries are ordered by number with no gaps (entry i has number i),
// verbs_text is byte-for-byte what ibv_wc_status_str() returns, and lookups by
// name match whole names only (never a prefix or substring).

#include "common/wc_status.h"

#include <cctype>

#include "common/text.h"

namespace rdmascope {
namespace {

// Port counters live in /sys/class/infiniband/DEV/ports/N/counters/ and
// driver counters in .../ports/N/hw_counters/; the hw_counters names vary by
// driver, so every check that names one says where to look.
std::vector<WcStatusInfo> BuildTable() {
  return {
      {0, "IBV_WC_SUCCESS", "SUCCESS", "success",
       "The work request completed successfully; every field of the work "
       "completion is valid.",
       {},
       {}},

      {1, "IBV_WC_LOC_LEN_ERR", "LOC_LEN_ERR", "local length error",
       "A local length check failed: on the receive side the incoming message "
       "did not fit the posted receive buffer; on the send side the message is "
       "longer than the QP or port allows.",
       {"receive buffer (sum of the receive WR's SGE lengths) smaller than the "
        "message the peer sent; the sender usually sees REM_INV_REQ_ERR",
        "send length greater than the port's max_msg_sz, or on a UD QP greater "
        "than the path MTU",
        "UD receive buffer without the extra 40 bytes the GRH is written into",
        "scatter/gather list built wrong (num_sge or an SGE length miscomputed)"},
       {"compare the sender's message size with the receiver's posted SGE "
        "lengths (add 40 bytes for UD); wc.byte_len is not valid on error",
        "`ibv_devinfo -v`: max_msg_sz, and active_mtu of the port for UD",
        "hw_counters/resp_local_length_error on the receiver and "
        "hw_counters/req_remote_invalid_request on the sender (where the driver "
        "exposes them)"}},

      {2, "IBV_WC_LOC_QP_OP_ERR", "LOC_QP_OP_ERR", "local QP operation error",
       "An internal consistency error was detected on the local QP while "
       "processing the work request: the request as posted cannot be executed "
       "on this QP.",
       {"inline data (IBV_SEND_INLINE) longer than the QP's max_inline_data",
        "opcode not valid for the QP type (e.g. RDMA READ or atomic on a UC or "
        "UD QP, RDMA WRITE on UD)",
        "more SGEs than max_send_sge / max_recv_sge the QP was created with",
        "invalid address handle or other malformed work request fields"},
       {"ibv_query_qp: qp_type, cap.max_inline_data, cap.max_send_sge, "
        "cap.max_recv_sge, and compare with the failing work request",
        "`ibv_devinfo -v`: max_sge, max_qp_wr, atomic_cap",
        "log wc.vendor_err (device-specific syndrome) with the status",
        "hw_counters/req_cqe_error and resp_cqe_error (where exposed)"}},

      {3, "IBV_WC_LOC_EEC_OP_ERR", "LOC_EEC_OP_ERR",
       "local EE context operation error",
       "An internal consistency error in the local End-to-End Context while "
       "processing the work request. Reliable Datagram (RD) transport only.",
       {"RD transport is not implemented by current Linux RDMA devices; seeing "
        "this usually means the completion was misread (wrong array element, "
        "reading wc entries beyond the count ibv_poll_cq returned)",
        "provider library or firmware bug"},
       {"check the application reads only the first N entries returned by "
        "ibv_poll_cq",
        "log wc.vendor_err; `ibv_devinfo`: fw_ver; compare driver and "
        "provider library versions",
        "`dmesg` for driver messages around the time of the error"}},

      {4, "IBV_WC_LOC_PROT_ERR", "LOC_PROT_ERR", "local protection error",
       "A local scatter/gather entry refers to memory the work request may "
       "not access: the lkey, address or length does not match a valid memory "
       "region with the needed rights.",
       {"wrong lkey (from another MR, uninitialised, or an rkey used as lkey)",
        "MR deregistered, or its buffer freed or reallocated, before the work "
        "request completed",
        "address/length outside the registered region (wrong offset, "
        "off-by-one length)",
        "MR registered in a different protection domain than the QP",
        "buffer the device writes (receive, RDMA READ destination) registered "
        "without IBV_ACCESS_LOCAL_WRITE"},
       {"log sge.addr, sge.length, sge.lkey and compare with mr->addr, "
        "mr->length, mr->lkey of the intended MR",
        "`rdma resource show mr` and `rdma resource show pd` (lkey, length, "
        "PD of each MR; details need root)",
        "access flags passed to ibv_reg_mr (IBV_ACCESS_LOCAL_WRITE for "
        "receive and READ-target buffers)",
        "MR lifetime: no ibv_dereg_mr / free while work requests using it "
        "are outstanding",
        "hw_counters/req_cqe_error and resp_cqe_error (where exposed)"}},

      {5, "IBV_WC_WR_FLUSH_ERR", "WR_FLUSH_ERR", "Work Request Flushed Error",
       "The work request was not executed because the QP was in the error "
       "state; every outstanding and later-posted work request on that QP is "
       "flushed with this status. It is a consequence, not a cause.",
       {"an earlier work request on this QP failed: the first completion with "
        "a status other than SUCCESS and WR_FLUSH_ERR is the real cause",
        "the QP was moved to ERROR on purpose (disconnect, teardown, "
        "ibv_modify_qp to IBV_QPS_ERR) - normal at shutdown",
        "asynchronous QP error (IBV_EVENT_QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR), "
        "e.g. a bad incoming request on the responder side, or a CQ overrun",
        "the peer failed first and tore down the connection",
        "device fatal error or port going down moved all QPs to error"},
       {"find the first non-flush error completion on this QP and on the "
        "peer's QP, and diagnose that status",
        "async events from ibv_get_async_event: QP_FATAL, QP_REQ_ERR, "
        "QP_ACCESS_ERR, CQ_ERR, PORT_ERR, DEVICE_FATAL",
        "`rdma resource show qp` for the QP state",
        "hw_counters/req_cqe_flush_error and resp_cqe_flush_error versus "
        "req_cqe_error and resp_cqe_error (where exposed)",
        "the peer's logs and connection events (disconnect before the flush)"}},

      {6, "IBV_WC_MW_BIND_ERR", "MW_BIND_ERR",
       "memory management operation error",
       "A memory management operation failed: binding a memory window, or a "
       "related operation such as a local invalidate or fast registration.",
       {"the MR the window is bound to lacks IBV_ACCESS_MW_BIND",
        "bind range outside the MR, or requested rights exceed the MR's (e.g. "
        "remote write on an MR without local write)",
        "memory window, MR and QP in different protection domains, or a type 2 "
        "window bound again without being invalidated first",
        "local invalidate of an rkey that is not valid or may not be "
        "invalidated"},
       {"ibv_reg_mr access flags include IBV_ACCESS_MW_BIND; bind addr/length "
        "lie within the MR; bind access flags are a subset of the MR's",
        "`ibv_devinfo -v`: max_mw and device_cap_flags (MEM_WINDOW, "
        "MEM_WINDOW_TYPE_2A/2B)",
        "`rdma resource show mr` and `rdma resource show pd`: same PD for "
        "window, MR and QP"}},

      {7, "IBV_WC_BAD_RESP_ERR", "BAD_RESP_ERR", "bad response error",
       "The responder returned an unexpected transport-layer opcode or "
       "response that does not fit the outstanding request.",
       {"interoperability or firmware problem between the two adapters "
        "(different vendors or firmware generations)",
        "stale responses for a QP number reused after a connection was torn "
        "down without draining",
        "wrong remote QPN or PSN exchanged at connection setup, so a different "
        "QP context answers"},
       {"`ibv_devinfo` on both ends: fw_ver; driver and provider versions",
        "log wc.vendor_err",
        "ibv_query_qp on both sides: dest_qp_num, rq_psn of one equals sq_psn "
        "of the other",
        "hw_counters/out_of_sequence, packet_seq_err (where exposed); "
        "counters/port_rcv_errors, symbol_error"}},

      {8, "IBV_WC_LOC_ACCESS_ERR", "LOC_ACCESS_ERR", "local access error",
       "A protection error on a local buffer while serving an incoming request "
       "from the remote node, reported on the local receive queue (e.g. an "
       "RDMA WRITE with immediate whose target failed the local check).",
       {"the local MR the peer writes into lacks IBV_ACCESS_REMOTE_WRITE, or "
        "the rkey/address/length the peer uses do not match it",
        "the local MR was deregistered or its memory freed while the peer "
        "still writes into it",
        "receive buffer registered without IBV_ACCESS_LOCAL_WRITE (some "
        "devices report this here rather than LOC_PROT_ERR)"},
       {"access flags of the local MR (REMOTE_WRITE, LOCAL_WRITE)",
        "rkey, address and length given to the peer versus mr->rkey, "
        "mr->addr, mr->length",
        "`rdma resource show mr`",
        "hw_counters/resp_remote_access_errors and resp_cqe_error (where "
        "exposed)"}},

      {9, "IBV_WC_REM_INV_REQ_ERR", "REM_INV_REQ_ERR",
       "remote invalid request error",
       "The responder rejected the request as invalid (NAK invalid request): "
       "the message does not fit its receive buffer, or the remote QP does not "
       "support or allow the operation.",
       {"SEND larger than the receive buffer the peer posted (the peer sees "
        "LOC_LEN_ERR)",
        "send/receive mismatch: the peer's receive WRs are not sized or posted "
        "for the messages this side sends",
        "opcode not allowed by the remote QP: qp_access_flags lacks "
        "IBV_ACCESS_REMOTE_READ/WRITE/ATOMIC, or max_dest_rd_atomic is 0 for "
        "READ/atomic",
        "atomic on an address not 8-byte aligned, or on a device without "
        "atomic support",
        "message length above the remote port's max_msg_sz"},
       {"compare the message length with the peer's posted receive SGE lengths",
        "ibv_query_qp on the peer: qp_access_flags and max_dest_rd_atomic set "
        "in the RTR transition; max_rd_atomic on this side",
        "`ibv_devinfo -v` on the peer: atomic_cap, max_msg_sz",
        "hw_counters/req_remote_invalid_request here and "
        "resp_local_length_error on the peer (where exposed)"}},

      {10, "IBV_WC_REM_ACCESS_ERR", "REM_ACCESS_ERR", "remote access error",
       "The responder rejected an RDMA READ, WRITE or atomic with a "
       "protection error: the rkey is invalid, the remote MR lacks the access "
       "right, or the address range is outside it.",
       {"bad rkey: stale (MR re-registered), truncated or byte-swapped when "
        "exchanged, or from another MR",
        "remote MR registered without IBV_ACCESS_REMOTE_READ / REMOTE_WRITE / "
        "REMOTE_ATOMIC as the operation needs",
        "remote_addr/length outside the remote MR (wrong offset, MR smaller "
        "than expected; offsets only with IBV_ACCESS_ZERO_BASED)",
        "remote MR deregistered, or in a different PD than the remote QP"},
       {"log remote_addr, rkey and length; compare with the peer's mr->addr, "
        "mr->length, mr->rkey",
        "access flags the peer passed to ibv_reg_mr",
        "byte order of exchanged addresses and keys (htobe64/be64toh, "
        "htobe32/be32toh on both sides)",
        "`rdma resource show mr` on the peer",
        "hw_counters/req_remote_access_errors here and "
        "resp_remote_access_errors on the peer (where exposed)"}},

      {11, "IBV_WC_REM_OP_ERR", "REM_OP_ERR", "remote operation error",
       "The responder could not complete the request for a reason other than "
       "protection or an invalid request (NAK remote operational error), "
       "usually a failure on its own receive side.",
       {"the peer's receive WR failed locally (bad lkey, deregistered buffer: "
        "it sees LOC_PROT_ERR or LOC_QP_OP_ERR)",
        "the peer QP or its SRQ went into error while handling the request",
        "responder-side device or firmware error"},
       {"first error completion on the peer's receive CQ",
        "the peer's async events: QP_FATAL, SRQ_ERR",
        "hw_counters/resp_cqe_error on the peer (where exposed); log "
        "wc.vendor_err",
        "`dmesg` on the peer"}},

      {12, "IBV_WC_RETRY_EXC_ERR", "RETRY_EXC_ERR",
       "transport retry counter exceeded",
       "The sender retransmitted retry_cnt times without an ACK or NAK from "
       "the responder within the local ACK timeout; the QP is now in error. "
       "The packets, or the replies, are not getting through.",
       {"peer QP gone: destroyed, process died, or QP already in error",
        "wrong addressing in RTR: destination LID/GID or QPN, or wrong GID "
        "index (RoCE v1 versus v2, wrong VLAN or IP)",
        "path MTU larger than the path or peer supports, so large packets are "
        "dropped",
        "lossy RoCE fabric: no PFC on the traffic priority, drops under "
        "congestion",
        "link down or flapping, or no route between the subnets (RoCE v2)",
        "ACK timeout too short for the fabric (small QP timeout value)"},
       {"is the peer alive and its QP in RTS: `rdma resource show qp` on the "
        "peer (find the QPN)",
        "ibv_query_qp on both sides: dest_qp_num, ah_attr.dlid, "
        "ah_attr.grh.dgid and sgid_index, path_mtu, timeout (4.096 us * "
        "2^timeout; 0 = infinite), retry_cnt (max 7)",
        "GID table: /sys/class/infiniband/DEV/ports/N/gids/IDX, "
        "gid_attrs/types/IDX and gid_attrs/ndevs/IDX; both sides use the same "
        "RoCE version",
        "`ibv_devinfo -v`: port state and active_mtu on both ends; `ip link` "
        "MTU of the RoCE netdev; switch MTU",
        "hw_counters/local_ack_timeout_err, packet_seq_err, out_of_sequence, "
        "implied_nak_seq_err (where exposed)",
        "counters/link_downed, link_error_recovery, symbol_error, "
        "port_rcv_errors, port_xmit_discards",
        "RoCE: PFC enabled on the priority used (`ethtool -S IFACE | grep -i "
        "pause`, DCB config), ECN counters hw_counters/np_cnp_sent, "
        "rp_cnp_handled, np_ecn_marked_roce_packets",
        "RoCE reachability: `ping` the peer's IP over the RDMA netdev, "
        "`ip route`, `ip neigh`"}},

      {13, "IBV_WC_RNR_RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR",
       "RNR retry counter exceeded",
       "The responder answered Receiver Not Ready (no receive WR posted) more "
       "times than rnr_retry allows; the QP is now in error.",
       {"peer not posting receives fast enough, or its receive queue / SRQ ran "
        "empty",
        "peer has not posted any receive yet when the first SEND arrives "
        "(race at connection setup)",
        "rnr_retry on the sender too small (7 means retry forever)",
        "min_rnr_timer on the responder too small, so retries are used up "
        "quickly",
        "peer process stalled (CPU starved, blocked, paused) or posting "
        "receives to a different QP/SRQ"},
       {"hw_counters/rnr_nak_retry_err here and out_of_buffer on the peer "
        "(where exposed)",
        "ibv_query_qp: rnr_retry on the sender (set in RTS); min_rnr_timer on "
        "the responder (set in RTR; 1 = 0.01 ms ... 31 = 491.52 ms, 0 = "
        "655.36 ms)",
        "receive queue depth on the peer (cap.max_recv_wr, SRQ max_wr) and "
        "IBV_EVENT_SRQ_LIMIT_REACHED",
        "`rdma resource show qp` on the peer; CPU load of the peer process"}},

      {14, "IBV_WC_LOC_RDD_VIOL_ERR", "LOC_RDD_VIOL_ERR",
       "local RDD violation error",
       "The RDD (Reliable Datagram Domain) of the local QP does not match "
       "that of the End-to-End Context. Reliable Datagram transport only.",
       {"RD transport is not implemented by current Linux RDMA devices; seeing "
        "this usually means the completion was misread",
        "provider library or firmware bug"},
       {"check the application reads only the first N entries returned by "
        "ibv_poll_cq",
        "log wc.vendor_err; `ibv_devinfo`: fw_ver",
        "`dmesg` for driver messages"}},

      {15, "IBV_WC_REM_INV_RD_REQ_ERR", "REM_INV_RD_REQ_ERR",
       "remote invalid RD request",
       "The responder detected an invalid incoming Reliable Datagram message "
       "(e.g. Q_Key or RDD violation). Some datagram-based providers also "
       "report it when the destination QP number does not exist.",
       {"destination QP number wrong or the remote QP destroyed (datagram "
        "providers)",
        "Q_Key mismatch between sender and remote QP",
        "RD transport use, which current Linux RDMA devices do not implement"},
       {"remote QPN and Q_Key used in the work request / address handle "
        "versus the peer's ibv_query_qp",
        "`rdma resource show qp` on the peer (does the QPN exist?)",
        "log wc.vendor_err"}},

      {16, "IBV_WC_REM_ABORT_ERR", "REM_ABORT_ERR", "aborted error",
       "The operation was aborted by the remote side (e.g. for QPs attached "
       "to an SRQ the responder aborted it) before it completed.",
       {"the responder's QP or SRQ went into error while the message was being "
        "received",
        "the responder was torn down (process exit, QP destroyed) mid-message",
        "responder-side device or firmware error"},
       {"first error completion on the peer's receive CQ",
        "the peer's async events: QP_FATAL, SRQ_ERR",
        "log wc.vendor_err; `dmesg` on both nodes"}},

      {17, "IBV_WC_INV_EECN_ERR", "INV_EECN_ERR", "invalid EE context number",
       "An invalid End-to-End Context number was detected. Reliable Datagram "
       "transport only.",
       {"RD transport is not implemented by current Linux RDMA devices; seeing "
        "this usually means the completion was misread",
        "provider library or firmware bug"},
       {"check the application reads only the first N entries returned by "
        "ibv_poll_cq",
        "log wc.vendor_err; `ibv_devinfo`: fw_ver",
        "`dmesg` for driver messages"}},

      {18, "IBV_WC_INV_EEC_STATE_ERR", "INV_EEC_STATE_ERR",
       "invalid EE context state",
       "An operation was attempted on an End-to-End Context in a state that "
       "does not allow it. Reliable Datagram transport only.",
       {"RD transport is not implemented by current Linux RDMA devices; seeing "
        "this usually means the completion was misread",
        "provider library or firmware bug"},
       {"check the application reads only the first N entries returned by "
        "ibv_poll_cq",
        "log wc.vendor_err; `ibv_devinfo`: fw_ver",
        "`dmesg` for driver messages"}},

      {19, "IBV_WC_FATAL_ERR", "FATAL_ERR", "fatal error",
       "The device or driver hit a fatal (catastrophic) error; work requests "
       "are completed with this status and the device is unusable until it "
       "is reset.",
       {"device catastrophic error: firmware assert, PCIe error, overheating",
        "device reset or removal (driver reload, hot unplug, VF reset)",
        "CQ overrun or internal device error on some providers"},
       {"`dmesg` / `journalctl -k`: driver health, firmware, catastrophic or "
        "fatal error messages, PCIe AER reports",
        "async event IBV_EVENT_DEVICE_FATAL",
        "`ibv_devinfo`: is the device still present, fw_ver; `rdma dev`, "
        "`rdma link`",
        "`lspci -vvv` for the adapter: AER error status",
        "after recovery, applications must reopen the device"}},

      {20, "IBV_WC_RESP_TIMEOUT_ERR", "RESP_TIMEOUT_ERR",
       "response timeout error",
       "No response arrived from the remote side in time: the destination "
       "is unreachable or unresponsive. Reported by transports without an "
       "RC-style retry counter (e.g. datagram-based reliable transports) and "
       "by the kernel's management datagram layer.",
       {"peer unreachable: node down, port down, or path broken",
        "wrong destination in the address handle (GID/LID) or wrong remote QPN",
        "peer process or QP gone",
        "congestion or drops on the path"},
       {"address handle: destination GID/LID, and the remote QPN and Q_Key "
        "versus the peer's values",
        "`rdma resource show qp` on the peer",
        "`ibv_devinfo`: port state on both ends; `ip link`; `ping` the peer "
        "over the RDMA netdev",
        "counters/port_xmit_discards, port_rcv_errors, link_downed"}},

      {21, "IBV_WC_GENERAL_ERR", "GENERAL_ERR", "general error",
       "An error the provider could not map to a more specific status; the "
       "device-specific detail is only in wc.vendor_err.",
       {"device-specific error syndrome without a standard status",
        "driver or firmware problem"},
       {"log wc.vendor_err and look it up for the device",
        "`dmesg` for driver messages at that time",
        "`ibv_devinfo`: fw_ver; driver and provider library versions",
        "hw_counters/req_cqe_error and resp_cqe_error (where exposed)"}},

      {22, "IBV_WC_TM_ERR", "TM_ERR", "TM error",
       "A tag-matching list operation on a tag-matching SRQ failed (e.g. "
       "IBV_WR_TAG_DEL of a tag that an incoming message already consumed).",
       {"tag removed while an incoming message matched it (race between "
        "IBV_WR_TAG_DEL and the wire)",
        "stale or wrong tag handle passed to IBV_WR_TAG_DEL",
        "unexpected-message count out of sync (IBV_WC_TM_SYNC_REQ not "
        "answered with IBV_WR_TAG_SYNC)",
        "more tags or outstanding list operations than the device supports"},
       {"handle the IBV_WC_TM_SYNC_REQ flag and pass unexpected_cnt with "
        "IBV_OPS_TM_SYNC",
        "tag handles come from the IBV_WR_TAG_ADD completion",
        "ibv_query_device_ex tm_caps: max_num_tags, max_ops"}},

      {23, "IBV_WC_TM_RNDV_INCOMPLETE", "TM_RNDV_INCOMPLETE",
       "TM software rendezvous",
       "A rendezvous request matched a tagged buffer but the device did not "
       "complete the transfer; the TMH and RVH headers were written into the "
       "tagged buffer and software must finish the rendezvous.",
       {"tagged receive buffer smaller than the rendezvous payload",
        "application without a software rendezvous path for this status"},
       {"posted tagged buffer sizes versus the sender's message sizes",
        "the application reads the RVH and completes the transfer itself "
        "(RDMA READ, then FIN message)",
        "ibv_query_device_ex tm_caps: max_rndv_hdr_size"}},
  };
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() &&
         EqualsNoCase(s.substr(0, prefix.size()), prefix);
}

bool EndsWithNoCase(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         EqualsNoCase(s.substr(s.size() - suffix.size()), suffix);
}

// True if `name` (already without the IBV_WC_ prefix) names `short_name`,
// with or without its _ERR suffix.
bool MatchesShortName(std::string_view name, std::string_view short_name) {
  if (EqualsNoCase(name, short_name)) return true;
  constexpr std::string_view kErr = "_ERR";
  return EndsWithNoCase(short_name, kErr) &&
         EqualsNoCase(name, short_name.substr(0, short_name.size() - kErr.size()));
}

}  // namespace

const std::vector<WcStatusInfo>& WcStatusTable() {
  static const std::vector<WcStatusInfo> table = BuildTable();
  return table;
}

const WcStatusInfo* FindWcStatus(int number) {
  const auto& table = WcStatusTable();
  if (number < 0 || static_cast<size_t>(number) >= table.size()) return nullptr;
  return &table[static_cast<size_t>(number)];
}

const WcStatusInfo* FindWcStatus(std::string_view name_or_number) {
  std::string_view s = Trim(name_or_number);
  if (s.empty()) return nullptr;

  bool all_digits = true;
  for (char c : s) all_digits = all_digits && std::isdigit(static_cast<unsigned char>(c));
  if (all_digits) {
    if (s.size() > 9) return nullptr;  // far beyond the table; avoids overflow
    int n = 0;
    for (char c : s) n = n * 10 + (c - '0');
    return FindWcStatus(n);
  }

  constexpr std::string_view kPrefix = "IBV_WC_";
  std::string_view bare = StartsWithNoCase(s, kPrefix) ? s.substr(kPrefix.size()) : s;
  for (const auto& e : WcStatusTable()) {
    if (MatchesShortName(bare, e.short_name) || EqualsNoCase(s, e.verbs_text))
      return &e;
  }
  return nullptr;
}

}  // namespace rdmascope
