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
  RailDevice* raw = d.get();
  auto reader = ContextEventReader::Start(d->ctx.get(), device, [raw](const ContextEvent& e) { raw->Keep(e); });
  if (reader.ok()) d->reader = std::move(reader).value();
  return d;
}

void RailDevice::Keep(const ContextEvent& e) {
  if (e.last) dead_.store(true);
  if (!e.failure || (e.on != ContextEvent::On::kQp && e.on != ContextEvent::On::kCq)) return;
  std::lock_guard<std::mutex> lock(failures_mu_);
  if (failures_.size() >= kMaxFailureEvents) failures_.erase(failures_.begin());
  failures_.push_back(e);
}

std::optional<ContextEvent> RailDevice::TakeFailure(uint32_t qpn, const ibv_cq* cq, uint64_t since_seq) {
  std::lock_guard<std::mutex> lock(failures_mu_);
  std::optional<ContextEvent> found;
  for (auto it = failures_.begin(); it != failures_.end();) {
    const bool names = (it->on == ContextEvent::On::kQp && it->qpn == qpn) || (it->on == ContextEvent::On::kCq && it->cq == cq);
    if (!names || (it->seq >= since_seq && found)) {
      ++it;
      continue;
    }
    if (it->seq >= since_seq) found = *it;
    it = failures_.erase(it);  // taken, or of an earlier object
  }
  return found;
}

Result<std::shared_ptr<RailDevice>> RailDeviceSlot::Acquire() {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t now = NowNs();
  if (current_ && current_->dead()) current_.reset();  // DEVICE_FATAL or removed: open it afresh
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

void RailDeviceSlot::Recheck(const std::shared_ptr<RailDevice>& d) {
  std::lock_guard<std::mutex> lock(mu_);
  if (current_ == d) checked_ns_ = 0;
}

}  // namespace rdmascope::probes
