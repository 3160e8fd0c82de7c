#include "probes/verbs_resources.h"

#include <cerrno>

#include "probes/verbs_error.h"

namespace rdmascope::probes {

namespace {
int ErrnoOr(int fallback) { return errno != 0 ? errno : fallback; }
}  // namespace

std::vector<std::string> ListDeviceNames() {
  std::vector<std::string> names;
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  if (list == nullptr) return names;
  for (int i = 0; i < n; ++i) names.emplace_back(ibv_get_device_name(list[i]));
  ibv_free_device_list(list);
  return names;
}

DeviceOpening OpenDeviceNamed(const std::string& name) {
  using Failure = DeviceOpening::Failure;
  DeviceOpening out;
  int n = 0;
  errno = 0;
  ibv_device** list = ibv_get_device_list(&n);
  if (list == nullptr) {
    out.failure = Failure::kListFailed;
    out.err = ErrnoOr(ENODEV);
    return out;
  }
  out.failure = Failure::kNoSuchDevice;
  for (int i = 0; i < n; ++i) {
    if (name != ibv_get_device_name(list[i])) continue;
    errno = 0;
    out.context.reset(ibv_open_device(list[i]));
    out.failure = out.context ? Failure::kNone : Failure::kOpenFailed;
    if (!out.context) out.err = ErrnoOr(EIO);
    break;
  }
  ibv_free_device_list(list);
  return out;
}

Result<ContextPtr> OpenDevice(const std::string& name) {
  DeviceOpening o = OpenDeviceNamed(name);
  switch (o.failure) {
    case DeviceOpening::Failure::kNone:
      return std::move(o.context);
    case DeviceOpening::Failure::kListFailed:
      return ErrnoStatus("ibv_get_device_list", o.err,
                         o.err == ENOSYS ? "no RDMA support in this kernel: is ib_uverbs loaded?" : "");
    case DeviceOpening::Failure::kNoSuchDevice:
      return Status::Error("no RDMA device named '" + name + "' (see: rdma link show, ibv_devices)");
    case DeviceOpening::Failure::kOpenFailed:
      break;
  }
  return ErrnoStatus("ibv_open_device", o.err, name);
}

Result<PdPtr> AllocPd(ibv_context* ctx) {
  errno = 0;
  ibv_pd* pd = ibv_alloc_pd(ctx);
  if (pd == nullptr) return ErrnoStatus("ibv_alloc_pd", ErrnoOr(ENOMEM));
  return PdPtr(pd);
}

Result<Buffer> Buffer::Register(ibv_pd* pd, size_t size, int access) {
  return Make(pd, size, access, nullptr);
}

Result<Buffer> Buffer::RegisterAtIova(ibv_pd* pd, size_t size, int access, uint64_t iova_base) {
  return Make(pd, size, access, &iova_base);
}

Result<Buffer> Buffer::Make(ibv_pd* pd, size_t size, int access, const uint64_t* iova_base) {
  Buffer b;
  b.mem_.reset(new (std::nothrow) uint8_t[size]());
  if (!b.mem_) return ErrnoStatus("new (buffer)", ENOMEM);
  b.size_ = size;
  errno = 0;
  ibv_mr* mr = nullptr;
  if (iova_base == nullptr) {
    b.remote_addr_ = b.addr();
    mr = ibv_reg_mr(pd, b.mem_.get(), size, access);
    if (mr == nullptr) return ErrnoStatus("ibv_reg_mr", ErrnoOr(ENOMEM));
  } else {
    // Same offset within the page as the memory (some devices require it);
    // the page offset tells nothing about the process's address layout.
    b.remote_addr_ = *iova_base + (b.addr() & 0xfff);
    mr = ibv_reg_mr_iova(pd, b.mem_.get(), size, b.remote_addr_, access);
    if (mr == nullptr) return ErrnoStatus("ibv_reg_mr_iova", ErrnoOr(ENOMEM));
  }
  b.mr_.reset(mr);
  return b;
}

Status PostRecvSlot(ibv_qp* qp, const Buffer& buf, uint32_t slot, size_t slot_bytes, const std::string& who) {
  ibv_sge sge{buf.addr() + uint64_t(slot) * slot_bytes, uint32_t(slot_bytes), buf.lkey()};
  ibv_recv_wr wr{};
  wr.wr_id = slot;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  int rc = ibv_post_recv(qp, &wr, &bad);
  return rc ? ErrnoStatus("ibv_post_recv", rc, who) : Status::Ok();
}

Result<AhPtr> CreateAh(ibv_pd* pd, ibv_ah_attr* attr) {
  errno = 0;
  ibv_ah* ah = ibv_create_ah(pd, attr);
  if (ah == nullptr) return ErrnoStatus("ibv_create_ah", ErrnoOr(EINVAL));
  return AhPtr(ah);
}

Result<QpPtr> CreateQp(ibv_pd* pd, ibv_cq* send_cq, ibv_cq* recv_cq, ibv_qp_type type,
                       uint32_t max_send_wr, uint32_t max_recv_wr) {
  ibv_qp_init_attr attr{};
  attr.send_cq = send_cq;
  attr.recv_cq = recv_cq;
  attr.qp_type = type;
  attr.cap.max_send_wr = max_send_wr;
  attr.cap.max_recv_wr = max_recv_wr;
  attr.cap.max_send_sge = 1;
  attr.cap.max_recv_sge = 1;
  attr.sq_sig_all = 0;  // only sends posted with IBV_SEND_SIGNALED (and failed ones) complete
  errno = 0;
  ibv_qp* qp = ibv_create_qp(pd, &attr);
  if (qp == nullptr) return ErrnoStatus("ibv_create_qp", ErrnoOr(ENOMEM));
  return QpPtr(qp);
}

}  // namespace rdmascope::probes
