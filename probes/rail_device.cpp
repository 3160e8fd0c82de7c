#include "probes/rail_device.h"

#include <cstring>

#include "probes/probe_clock.h"

namespace rdmascope::probes {

Result<std::shared_ptr<RailDevice>> OpenRailDevice(const std::string& device, int port,
                                                   std::optional<int> gid_index,
                                                   const std::optional<Ipv4Subnet>& gid_subnet) {
  auto d = std::make_shared<RailDevice>();
  auto ctx = OpenDevice(device);
  if (!ctx.ok()) return ctx.status();
  d->ctx = std::move(ctx).value();
  auto local = DescribePort(d->ctx.get(), device, port, gid_index, gid_subnet);
  if (!local.ok()) return local.status();
  d->local = *local;
  auto pd = AllocPd(d->ctx.get());
  if (!pd.ok()) return pd.status();
  d->pd = std::move(pd).value();
  return d;
}

Result<std::shared_ptr<RailDevice>> RailDeviceSlot::Acquire() {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t now = NowNs();
  if (current_) {
    if (now - checked_ns_ < 1000000000ull) return current_;
    checked_ns_ = now;
    auto again = DescribePort(current_->ctx.get(), device_, port_, gid_index_, gid_subnet_);
    if (again.ok() && again->gid_index == current_->local.gid_index &&
        std::memcmp(again->gid.raw, current_->local.gid.raw, sizeof(again->gid.raw)) == 0)
      return current_;
    current_.reset();  // the port's address changed, or it is not usable: open it afresh
  }
  auto d = OpenRailDevice(device_, port_, gid_index_, gid_subnet_);
  if (!d.ok()) return d.status();
  current_ = *d;
  checked_ns_ = now;
  return current_;
}

void RailDeviceSlot::Invalidate(const std::shared_ptr<RailDevice>& d) {
  std::lock_guard<std::mutex> lock(mu_);
  if (current_ == d) current_.reset();
}

}  // namespace rdmascope::probes
