#include "probes/rail_device.h"

namespace rdmascope::probes {

Result<std::shared_ptr<RailDevice>> OpenRailDevice(const std::string& device, int port,
                                                   std::optional<int> gid_index) {
  auto d = std::make_shared<RailDevice>();
  auto ctx = OpenDevice(device);
  if (!ctx.ok()) return ctx.status();
  d->ctx = std::move(ctx).value();
  auto local = DescribePort(d->ctx.get(), device, port, gid_index);
  if (!local.ok()) return local.status();
  d->local = *local;
  auto pd = AllocPd(d->ctx.get());
  if (!pd.ok()) return pd.status();
  d->pd = std::move(pd).value();
  return d;
}

Result<std::shared_ptr<RailDevice>> RailDeviceSlot::Acquire() {
  std::lock_guard<std::mutex> lock(mu_);
  if (current_) return current_;
  auto d = OpenRailDevice(device_, port_, gid_index_);
  if (!d.ok()) return d.status();
  current_ = *d;
  return current_;
}

void RailDeviceSlot::Invalidate(const std::shared_ptr<RailDevice>& d) {
  std::lock_guard<std::mutex> lock(mu_);
  if (current_ == d) current_.reset();
}

}  // namespace rdmascope::probes
