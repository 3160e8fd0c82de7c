#include "probes/qp_setup.h"

#include <algorithm>

#include "probes/local_port.h"
#include "probes/verbs_error.h"

namespace rdmascope::probes {

Status ValidateTuning(const RcTuning& t) {
  if (t.timeout < 0 || t.timeout > 31) return Status::Error("rc timeout must be 0..31");
  if (t.retry_cnt < 0 || t.retry_cnt > 7) return Status::Error("rc retry_cnt must be 0..7");
  if (t.rnr_retry < 0 || t.rnr_retry > 6) return Status::Error("rc rnr_retry must be 0..6 (7 = infinite, refused)");
  if (t.min_rnr_timer < 0 || t.min_rnr_timer > 31) return Status::Error("rc min_rnr_timer must be 0..31");
  return Status::Ok();
}

ibv_ah_attr MakeAhAttr(const RemoteEndpoint& remote, int port, int sgid_index, const ProbeClass& cls) {
  ibv_ah_attr ah{};
  ah.dlid = remote.lid;
  ah.sl = uint8_t(cls.sl);
  ah.src_path_bits = 0;
  ah.port_num = uint8_t(port);
  if (remote.global) {
    ah.is_global = 1;
    ah.grh.dgid = remote.gid;
    ah.grh.sgid_index = uint8_t(sgid_index);
    ah.grh.hop_limit = 64;
    ah.grh.traffic_class = uint8_t(cls.traffic_class);
  }
  return ah;
}

Status UdToRts(ibv_qp* qp, int port, uint32_t qkey, uint32_t sq_psn) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = 0;
  a.port_num = uint8_t(port);
  a.qkey = qkey;
  int rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
  if (rc != 0) return ErrnoStatus("ibv_modify_qp(UD INIT)", rc);
  a = {};
  a.qp_state = IBV_QPS_RTR;
  rc = ibv_modify_qp(qp, &a, IBV_QP_STATE);
  if (rc != 0) return ErrnoStatus("ibv_modify_qp(UD RTR)", rc);
  a = {};
  a.qp_state = IBV_QPS_RTS;
  a.sq_psn = sq_psn & 0xffffff;
  rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
  if (rc != 0) return ErrnoStatus("ibv_modify_qp(UD RTS)", rc);
  return Status::Ok();
}

Status RcToInit(ibv_qp* qp, int port, int access_flags) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = 0;
  a.port_num = uint8_t(port);
  a.qp_access_flags = unsigned(access_flags);
  int rc = ibv_modify_qp(qp, &a,
                         IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
  if (rc != 0) return ErrnoStatus("ibv_modify_qp(RC INIT)", rc);
  return Status::Ok();
}

QpTransition RcRtrAttr(int port, int sgid_index, const RemoteEndpoint& remote, const RcTuning& tuning,
                       const ProbeClass& cls) {
  QpTransition t;
  ibv_qp_attr& a = t.attr;
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = MtuFromBytes(remote.mtu_bytes);
  a.dest_qp_num = remote.qpn;
  a.rq_psn = remote.psn & 0xffffff;
  a.max_dest_rd_atomic = 1;
  a.min_rnr_timer = uint8_t(tuning.min_rnr_timer);
  a.ah_attr = MakeAhAttr(remote, port, sgid_index, cls);
  t.mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
           IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
  return t;
}

Status RcToRtr(ibv_qp* qp, int port, int sgid_index, const RemoteEndpoint& remote,
               const RcTuning& tuning, const ProbeClass& cls) {
  QpTransition t = RcRtrAttr(port, sgid_index, remote, tuning, cls);
  int rc = ibv_modify_qp(qp, &t.attr, t.mask);
  if (rc != 0) return ErrnoStatus("ibv_modify_qp(RC RTR)", rc);
  return Status::Ok();
}

Status RcToRts(ibv_qp* qp, uint32_t sq_psn, const RcTuning& tuning) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RTS;
  a.timeout = uint8_t(tuning.timeout);
  a.retry_cnt = uint8_t(tuning.retry_cnt);
  a.rnr_retry = uint8_t(tuning.rnr_retry);
  a.sq_psn = sq_psn & 0xffffff;
  a.max_rd_atomic = 1;
  int rc = ibv_modify_qp(qp, &a,
                         IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                             IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
  if (rc != 0) return ErrnoStatus("ibv_modify_qp(RC RTS)", rc);
  return Status::Ok();
}

ibv_send_wr UdSendWr(uint64_t wr_id, ibv_sge* sge, bool signal, ibv_ah* ah, uint32_t qpn, uint32_t qkey) {
  ibv_send_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SOLICITED | (signal ? IBV_SEND_SIGNALED : 0);
  wr.wr.ud.ah = ah;
  wr.wr.ud.remote_qpn = qpn;
  wr.wr.ud.remote_qkey = qkey;
  return wr;
}

}  // namespace rdmascope::probes
