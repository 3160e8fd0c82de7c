// RAII owners of verbs objects: device context, PD, MR (with its buffer), AH, QP.
//
// Contract: each owner frees its object exactly once, in its destructor, and
// is move-only. Factories return Result<T> whose error names the verb and
// errno. Owners must be destroyed in reverse dependency order (QP and AH and
// MR before PD, PD and CQ before the context); holders declare members in
// dependency order so the default destruction order is right.
#pragma once

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace rdmascope::probes {

struct ContextDeleter { void operator()(ibv_context* c) const { if (c) ibv_close_device(c); } };
struct PdDeleter { void operator()(ibv_pd* p) const { if (p) ibv_dealloc_pd(p); } };
struct MrDeleter { void operator()(ibv_mr* m) const { if (m) ibv_dereg_mr(m); } };
struct AhDeleter { void operator()(ibv_ah* a) const { if (a) ibv_destroy_ah(a); } };
struct QpDeleter { void operator()(ibv_qp* q) const { if (q) ibv_destroy_qp(q); } };

using ContextPtr = std::unique_ptr<ibv_context, ContextDeleter>;
using PdPtr = std::unique_ptr<ibv_pd, PdDeleter>;
using AhPtr = std::unique_ptr<ibv_ah, AhDeleter>;
using QpPtr = std::unique_ptr<ibv_qp, QpDeleter>;

// Opens the device called `name` ("rxe0"). Error if absent or ibv_open_device fails.
Result<ContextPtr> OpenDevice(const std::string& name);

// What opening the device called `name` came to, for callers that word their
// own errors: the context, or the step that failed and its errno (never 0:
// ENODEV when listing fails without one, EIO when opening does).
struct DeviceOpening {
  enum class Failure { kNone, kListFailed, kNoSuchDevice, kOpenFailed };
  ContextPtr context;  // set when failure == kNone
  Failure failure = Failure::kNone;
  int err = 0;         // kListFailed, kOpenFailed: errno of the failed verb
};
DeviceOpening OpenDeviceNamed(const std::string& name);

// Names of all RDMA devices libibverbs sees (empty when there are none).
std::vector<std::string> ListDeviceNames();

Result<PdPtr> AllocPd(ibv_context* ctx);

// A registered buffer; owns both the memory and the registration.
class Buffer {
 public:
  static Result<Buffer> Register(ibv_pd* pd, size_t size, int access);
  // Registered so that peers address it at iova_base + (page offset), not at
  // its virtual address: handing that address out leaks no heap pointer.
  static Result<Buffer> RegisterAtIova(ibv_pd* pd, size_t size, int access, uint64_t iova_base);
  Buffer() = default;
  Buffer(Buffer&&) = default;
  Buffer& operator=(Buffer&&) = default;

  uint8_t* data() { return mem_.get(); }
  size_t size() const { return size_; }
  uint32_t lkey() const { return mr_->lkey; }
  uint32_t rkey() const { return mr_->rkey; }
  uint64_t addr() const { return reinterpret_cast<uint64_t>(mem_.get()); }
  // The address a peer uses in RDMA operations on this buffer.
  uint64_t remote_addr() const { return remote_addr_; }

 private:
  static Result<Buffer> Make(ibv_pd* pd, size_t size, int access, const uint64_t* iova_base);
  std::unique_ptr<uint8_t[]> mem_;
  size_t size_ = 0;
  uint64_t remote_addr_ = 0;
  std::unique_ptr<ibv_mr, MrDeleter> mr_;  // declared after mem_: deregistered first
};

Result<AhPtr> CreateAh(ibv_pd* pd, ibv_ah_attr* attr);

// Posts one receive of slot `slot` of `buf` (slots of `slot_bytes` each,
// wr_id = slot) on `qp`; the error names ibv_post_recv and `who`.
Status PostRecvSlot(ibv_qp* qp, const Buffer& buf, uint32_t slot, size_t slot_bytes, const std::string& who = "");

// Creates a QP with send and receive completions on `send_cq` / `recv_cq`.
// A send completes only when posted with IBV_SEND_SIGNALED or when it fails
// (not sq_sig_all): callers signal every Nth send (send_signal.h).
Result<QpPtr> CreateQp(ibv_pd* pd, ibv_cq* send_cq, ibv_cq* recv_cq, ibv_qp_type type,
                       uint32_t max_send_wr, uint32_t max_recv_wr);

}  // namespace rdmascope::probes
