#include "agent/node/async_events.h"

#include <fcntl.h>
#include <infiniband/verbs.h>
#include <poll.h>

#include <cerrno>
#include <cstring>

#include "probes/verbs_resources.h"

namespace rdmascope::agent {
namespace {

std::string TypeName(ibv_event_type t) {
  const char* s = ibv_event_type_str(t);
  std::string n = s ? s : ("event " + std::to_string(int(t)));
  // ibv_event_type_str spells e.g. "port active", "port error": map the ones we act on.
  switch (t) {
    case IBV_EVENT_PORT_ACTIVE: return "PORT_ACTIVE";
    case IBV_EVENT_PORT_ERR: return "PORT_ERR";
    case IBV_EVENT_GID_CHANGE: return "GID_CHANGE";
    case IBV_EVENT_LID_CHANGE: return "LID_CHANGE";
    case IBV_EVENT_DEVICE_FATAL: return "DEVICE_FATAL";
    case IBV_EVENT_PKEY_CHANGE: return "PKEY_CHANGE";
    case IBV_EVENT_SM_CHANGE: return "SM_CHANGE";
    case IBV_EVENT_CLIENT_REREGISTER: return "CLIENT_REREGISTER";
    default: return n;
  }
}

bool IsPortEvent(ibv_event_type t) {
  return t == IBV_EVENT_PORT_ACTIVE || t == IBV_EVENT_PORT_ERR || t == IBV_EVENT_GID_CHANGE ||
         t == IBV_EVENT_LID_CHANGE || t == IBV_EVENT_PKEY_CHANGE || t == IBV_EVENT_SM_CHANGE ||
         t == IBV_EVENT_CLIENT_REREGISTER;
}

}  // namespace

Result<std::unique_ptr<AsyncEventWatcher>> AsyncEventWatcher::Start(const std::string& device, Callback on_event) {
  probes::DeviceOpening opened = probes::OpenDeviceNamed(device);
  if (opened.failure == probes::DeviceOpening::Failure::kListFailed)
    return Status::Error("ibv_get_device_list: " + std::string(std::strerror(opened.err)));
  if (!opened.context) return Status::Error("ibv_open_device " + device + ": not found or cannot be opened");
  const int async_fd = opened.context->async_fd;
  int flags = fcntl(async_fd, F_GETFL);
  if (flags < 0 || fcntl(async_fd, F_SETFL, flags | O_NONBLOCK) < 0)
    return Status::Error("fcntl O_NONBLOCK on the async fd of " + device + ": " + std::strerror(errno));
  std::unique_ptr<AsyncEventWatcher> w(new AsyncEventWatcher());
  w->device_ = device;
  w->on_event_ = std::move(on_event);
  w->ctx_ = opened.context.release();  // closed by the thread
  w->thread_ = std::thread([raw = w.get()] { raw->Loop(); });
  return w;
}

AsyncEventWatcher::~AsyncEventWatcher() { Stop(); }

void AsyncEventWatcher::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void AsyncEventWatcher::Loop() {
  auto* ctx = static_cast<ibv_context*>(ctx_);
  std::string end_reason;
  while (!stop_.load() && end_reason.empty()) {
    pollfd p{ctx->async_fd, POLLIN, 0};
    int pr = ::poll(&p, 1, 200);
    if (pr < 0) {
      if (errno == EINTR) continue;
      end_reason = "REMOVED";
      break;
    }
    if (pr == 0) continue;
    if (p.revents & (POLLERR | POLLHUP | POLLNVAL)) {
      end_reason = "REMOVED";
      break;
    }
    ibv_async_event ev{};
    if (ibv_get_async_event(ctx, &ev) != 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      end_reason = "REMOVED";
      break;
    }
    AsyncEvent e;
    e.device = device_;
    e.type = TypeName(ev.event_type);
    if (IsPortEvent(ev.event_type)) e.port = ev.element.port_num;
    const bool fatal = ev.event_type == IBV_EVENT_DEVICE_FATAL;
    ibv_ack_async_event(&ev);
    if (fatal) {
      end_reason = e.type;
      break;
    }
    on_event_(e);
  }
  ibv_close_device(ctx);  // first: a removal waits for every open context
  ctx_ = nullptr;
  done_.store(true);
  if (!end_reason.empty()) on_event_(AsyncEvent{device_, end_reason, 0, true});
}

}  // namespace rdmascope::agent
