#include "probes/context_events.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace rdmascope::probes {

std::string AsyncEventName(ibv_event_type t) {
  switch (t) {
    case IBV_EVENT_CQ_ERR: return "CQ_ERR";
    case IBV_EVENT_QP_FATAL: return "QP_FATAL";
    case IBV_EVENT_QP_REQ_ERR: return "QP_REQ_ERR";
    case IBV_EVENT_QP_ACCESS_ERR: return "QP_ACCESS_ERR";
    case IBV_EVENT_COMM_EST: return "COMM_EST";
    case IBV_EVENT_SQ_DRAINED: return "SQ_DRAINED";
    case IBV_EVENT_PATH_MIG: return "PATH_MIG";
    case IBV_EVENT_PATH_MIG_ERR: return "PATH_MIG_ERR";
    case IBV_EVENT_DEVICE_FATAL: return "DEVICE_FATAL";
    case IBV_EVENT_PORT_ACTIVE: return "PORT_ACTIVE";
    case IBV_EVENT_PORT_ERR: return "PORT_ERR";
    case IBV_EVENT_LID_CHANGE: return "LID_CHANGE";
    case IBV_EVENT_PKEY_CHANGE: return "PKEY_CHANGE";
    case IBV_EVENT_SM_CHANGE: return "SM_CHANGE";
    case IBV_EVENT_SRQ_ERR: return "SRQ_ERR";
    case IBV_EVENT_SRQ_LIMIT_REACHED: return "SRQ_LIMIT_REACHED";
    case IBV_EVENT_QP_LAST_WQE_REACHED: return "QP_LAST_WQE_REACHED";
    case IBV_EVENT_CLIENT_REREGISTER: return "CLIENT_REREGISTER";
    case IBV_EVENT_GID_CHANGE: return "GID_CHANGE";
    case IBV_EVENT_WQ_FATAL: return "WQ_FATAL";
  }
  return "EVENT_" + std::to_string(int(t));
}

bool IsPortEvent(ibv_event_type t) {
  return t == IBV_EVENT_PORT_ACTIVE || t == IBV_EVENT_PORT_ERR || t == IBV_EVENT_GID_CHANGE ||
         t == IBV_EVENT_LID_CHANGE || t == IBV_EVENT_PKEY_CHANGE || t == IBV_EVENT_SM_CHANGE ||
         t == IBV_EVENT_CLIENT_REREGISTER;
}

ContextEvent DescribeAsyncEvent(const ibv_async_event& ev) {
  ContextEvent e;
  e.type = AsyncEventName(ev.event_type);
  switch (ev.event_type) {
    case IBV_EVENT_QP_FATAL:
    case IBV_EVENT_QP_REQ_ERR:
    case IBV_EVENT_QP_ACCESS_ERR:
    case IBV_EVENT_PATH_MIG_ERR:
      e.failure = true;
      [[fallthrough]];
    case IBV_EVENT_COMM_EST:
    case IBV_EVENT_SQ_DRAINED:
    case IBV_EVENT_PATH_MIG:
    case IBV_EVENT_QP_LAST_WQE_REACHED:
      e.on = ContextEvent::On::kQp;
      e.qpn = ev.element.qp ? ev.element.qp->qp_num : 0;
      break;
    case IBV_EVENT_CQ_ERR:
      e.on = ContextEvent::On::kCq;
      e.cq = ev.element.cq;
      e.failure = true;
      break;
    case IBV_EVENT_SRQ_ERR:
    case IBV_EVENT_SRQ_LIMIT_REACHED:
      e.on = ContextEvent::On::kSrq;
      e.failure = ev.event_type == IBV_EVENT_SRQ_ERR;
      break;
    case IBV_EVENT_DEVICE_FATAL:
      e.failure = true;
      e.last = true;
      break;
    default:
      if (IsPortEvent(ev.event_type)) {
        e.on = ContextEvent::On::kPort;
        e.port = ev.element.port_num;
      }
      break;
  }
  return e;
}

Result<std::unique_ptr<ContextEventReader>> ContextEventReader::Start(ibv_context* ctx, const std::string& name,
                                                                      Callback on_event) {
  const int flags = fcntl(ctx->async_fd, F_GETFL);
  if (flags < 0 || fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK) < 0)
    return Status::Error("fcntl O_NONBLOCK on the async event fd of " + name + ": " + std::strerror(errno));
  std::unique_ptr<ContextEventReader> r(new ContextEventReader());
  r->wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (r->wake_fd_ < 0) return Status::Error("eventfd for the async event reader of " + name + ": " + std::strerror(errno));
  r->ctx_ = ctx;
  r->on_event_ = std::move(on_event);
  try {
    r->thread_ = std::thread([raw = r.get()] { raw->Loop(); });
  } catch (const std::system_error& e) {
    return Status::Error("the async event reader thread of " + name + " cannot start: " + e.what());
  }
  return r;
}

ContextEventReader::~ContextEventReader() {
  Stop();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void ContextEventReader::Stop() {
  stop_.store(true);
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t w = ::write(wake_fd_, &one, sizeof one);
  }
  if (thread_.joinable()) thread_.join();
}

void ContextEventReader::Loop() {
  while (!stop_.load()) {
    pollfd fds[2] = {{ctx_->async_fd, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    const int pr = ::poll(fds, 2, -1);
    if (pr < 0 && errno == EINTR) continue;
    if (stop_.load()) return;
    bool gone = pr < 0 || (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL));
    ibv_async_event ev{};
    if (!gone && (fds[0].revents & POLLIN) && ibv_get_async_event(ctx_, &ev) != 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      gone = true;
    }
    if (gone) {
      ContextEvent removed;
      removed.type = "REMOVED";
      removed.failure = true;
      removed.last = true;
      removed.seq = seq_.fetch_add(1) + 1;
      on_event_(removed);
      return;
    }
    if (!(fds[0].revents & POLLIN)) continue;
    ContextEvent e = DescribeAsyncEvent(ev);
    e.seq = seq_.fetch_add(1) + 1;  // before the ack: an object destroyed after it is newer
    ibv_ack_async_event(&ev);
    on_event_(e);
    if (e.last) return;
  }
}

}  // namespace rdmascope::probes
