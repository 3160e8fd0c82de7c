#include "agent/node/verbs_info.h"

#include <infiniband/verbs.h>

#include <cstring>

#include "common/ib_encoding.h"
#include "probes/verbs_resources.h"

namespace rdmascope {
namespace {

// The verbs MTU enum is the IBA MTU code that common/ib_encoding.h spells out.
static_assert(IBV_MTU_256 == 1 && IBV_MTU_4096 == 5, "ibv_mtu is the IBA MTU code");

std::string VerbError(const char* verb, const std::string& device, int err) {
  return std::string(verb) + "(" + device + "): " + std::strerror(err) + " (errno " + std::to_string(err) + ")";
}

class LibibverbsInfoSource : public VerbsInfoSource {
 public:
  std::vector<std::string> ListDevices() override { return probes::ListDeviceNames(); }

  Result<VerbsDeviceInfo> Query(const std::string& device) override {
    using Failure = probes::DeviceOpening::Failure;
    probes::DeviceOpening opened = probes::OpenDeviceNamed(device);
    switch (opened.failure) {
      case Failure::kNone:
        return QueryOpen(opened.context.get(), device);  // the context is closed on return
      case Failure::kListFailed:
        return Result<VerbsDeviceInfo>::Error(VerbError("ibv_get_device_list", device, opened.err));
      case Failure::kNoSuchDevice:
        return Result<VerbsDeviceInfo>::Error("ibv_get_device_list: no device named " + device);
      case Failure::kOpenFailed:
        break;
    }
    return Result<VerbsDeviceInfo>::Error(VerbError("ibv_open_device", device, opened.err));
  }

 private:
  static Result<VerbsDeviceInfo> QueryOpen(ibv_context* ctx, const std::string& device) {
    ibv_device_attr_ex attr;
    std::memset(&attr, 0, sizeof attr);
    int rc = ibv_query_device_ex(ctx, nullptr, &attr);
    if (rc != 0) return Result<VerbsDeviceInfo>::Error(VerbError("ibv_query_device_ex", device, rc));
    VerbsDeviceInfo info;
    const ibv_device_attr& a = attr.orig_attr;
    info.caps.fw_ver = a.fw_ver;
    info.caps.vendor_id = a.vendor_id;
    info.caps.vendor_part_id = a.vendor_part_id;
    info.caps.hw_ver = a.hw_ver;
    info.caps.phys_port_cnt = a.phys_port_cnt;
    info.caps.max_qp = a.max_qp;
    info.caps.max_qp_wr = a.max_qp_wr;
    info.caps.max_cq = a.max_cq;
    info.caps.max_cqe = a.max_cqe;
    info.caps.max_mr = a.max_mr;
    info.caps.max_mr_size = a.max_mr_size;
    info.caps.max_pd = a.max_pd;
    info.caps.max_sge = a.max_sge;
    info.caps.max_ah = a.max_ah;
    info.caps.completion_timestamps = attr.completion_timestamp_mask != 0;
    info.caps.hca_core_clock_khz = attr.hca_core_clock;
    for (int p = 1; p <= a.phys_port_cnt; ++p) {
      ibv_port_attr pa;
      std::memset(&pa, 0, sizeof pa);
      rc = ibv_query_port(ctx, static_cast<uint8_t>(p), &pa);
      if (rc != 0) return Result<VerbsDeviceInfo>::Error(VerbError("ibv_query_port", device + " port " + std::to_string(p), rc));
      info.ports.push_back({p, ib::MtuBytes(pa.active_mtu), ib::MtuBytes(pa.max_mtu)});
    }
    return info;
  }
};

}  // namespace

std::unique_ptr<VerbsInfoSource> MakeLibibverbsInfoSource() { return std::make_unique<LibibverbsInfoSource>(); }

}  // namespace rdmascope
