// QP state transitions for UD and RC probe QPs (RESET -> INIT -> RTR -> RTS).
//
// Contract: each function performs the ibv_modify_qp calls for its step and
// returns an error naming ibv_modify_qp, the target state and the errno.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>

#include "common/status.h"
#include "probes/probe_path.h"

namespace rdmascope::probes {

// Where the remote end of a QP is and how to reach it.
struct RemoteEndpoint {
  uint32_t qpn = 0;
  uint32_t psn = 0;
  uint16_t lid = 0;
  ibv_gid gid{};
  bool global = false;  // RoCE (or routed IB): address by GID with a GRH
  int mtu_bytes = 1024;
};

// RC retry settings. Defaults detect a dead peer in well under a second:
// local ACK timeout 4.096 us * 2^12 = 16.8 ms, 1 + 6 tries -> ~120 ms;
// RNR: 3 retries with 0.64 ms min_rnr_timer (encoded 12).
// retry_cnt 7 is allowed, but Soft-RoCE (rdma_rxe) treats it as "retry
// forever" and then never reports RETRY_EXC_ERR: the default stays at 6.
struct RcTuning {
  int timeout = 12;        // 0..31, 4.096 us * 2^timeout
  int retry_cnt = 6;       // 0..7
  int rnr_retry = 3;       // 0..6 (7 means infinite and is refused by validation)
  int min_rnr_timer = 12;  // 0..31 encoded (12 = 0.64 ms)
};

// Validates ranges; error names the field.
Status ValidateTuning(const RcTuning& t);

// Address handle attributes for `remote` from local port/GID index, asking
// for `cls`: ah.sl = cls.sl always; with a GRH (RoCE, routed IB) also
// grh.traffic_class = cls.traffic_class.
ibv_ah_attr MakeAhAttr(const RemoteEndpoint& remote, int port, int sgid_index, const ProbeClass& cls = {});

Status UdToRts(ibv_qp* qp, int port, uint32_t qkey, uint32_t sq_psn);
// A solicited UD SEND of one buffer (probe or echo); *sge must outlive the post.
ibv_send_wr UdSendWr(uint64_t wr_id, ibv_sge* sge, bool signal, ibv_ah* ah, uint32_t qpn, uint32_t qkey);
Status RcToInit(ibv_qp* qp, int port, int access_flags);
// The attributes and mask RcToRtr hands to ibv_modify_qp (the path is
// MakeAhAttr(remote, port, sgid_index, cls)).
struct QpTransition {
  ibv_qp_attr attr{};
  int mask = 0;
};
QpTransition RcRtrAttr(int port, int sgid_index, const RemoteEndpoint& remote, const RcTuning& tuning,
                       const ProbeClass& cls = {});
Status RcToRtr(ibv_qp* qp, int port, int sgid_index, const RemoteEndpoint& remote,
               const RcTuning& tuning, const ProbeClass& cls = {});
Status RcToRts(ibv_qp* qp, uint32_t sq_psn, const RcTuning& tuning);

}  // namespace rdmascope::probes
