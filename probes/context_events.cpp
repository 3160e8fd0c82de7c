#include "probes/context_events.h"

#include <fcntl.h>
#include <poll.h>

#include <cerrno>
#include <cstring>

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

namespace {

// What the callback needs of `ev`, copied while the event is not yet acknowledged.
ContextEvent Copy(const ibv_async_event& ev) {
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

}  // namespace

Result<std::unique_ptr<ContextEventReader>> ContextEventReader::Start(ibv_context* ctx, const std::string& name,
                                                                      Callback on_event) {
  const int flags = fcntl(ctx->async_fd, F_GETFL);
  if (flags < 0 || fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK) < 0)
    return Status::Error("fcntl O_NONBLOCK on the async event fd of " + name + ": " + std::strerror(errno));
  std::unique_ptr<ContextEventReader> r(new ContextEventReader());
  r->ctx_ = ctx;
  r->on_event_ = std::move(on_event);
  r->thread_ = std::thread([raw = r.get()] { raw->Loop(); });
  return r;
}

ContextEventReader::~ContextEventReader() { Stop(); }

void ContextEventReader::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void ContextEventReader::Loop() {
  while (!stop_.load()) {
    pollfd p{ctx_->async_fd, POLLIN, 0};
    const int pr = ::poll(&p, 1, 100);
    if (pr < 0 && errno == EINTR) continue;
    bool gone = pr < 0 || (pr > 0 && (p.revents & (POLLERR | POLLHUP | POLLNVAL)));
    ibv_async_event ev{};
    if (!gone && pr > 0 && ibv_get_async_event(ctx_, &ev) != 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      gone = true;
    }
    if (gone) {
      ContextEvent removed;
      removed.type = "REMOVED";
      removed.failure = true;
      removed.last = true;
      on_event_(removed);
      return;
    }
    if (pr == 0) continue;
    const ContextEvent e = Copy(ev);
    ibv_ack_async_event(&ev);
    on_event_(e);
    if (e.last) return;
  }
}

}  // namespace rdmascope::probes
