#include "agent/node/async_events.h"

#include <infiniband/verbs.h>

#include <cstring>

#include "probes/context_events.h"
#include "probes/verbs_resources.h"

namespace rdmascope::agent {

Result<std::unique_ptr<AsyncEventWatcher>> AsyncEventWatcher::Start(const std::string& device, Callback on_event) {
  probes::DeviceOpening opened = probes::OpenDeviceNamed(device);
  if (opened.failure == probes::DeviceOpening::Failure::kListFailed)
    return Status::Error("ibv_get_device_list: " + std::string(std::strerror(opened.err)));
  if (!opened.context) return Status::Error("ibv_open_device " + device + ": not found or cannot be opened");
  std::unique_ptr<AsyncEventWatcher> w(new AsyncEventWatcher());
  w->device_ = device;
  w->on_event_ = std::move(on_event);
  ibv_context* ctx = opened.context.release();
  w->ctx_ = ctx;  // before the reader starts: its last event closes it
  AsyncEventWatcher* raw = w.get();
  auto reader = probes::ContextEventReader::Start(ctx, device, [raw](const probes::ContextEvent& e) { raw->OnEvent(e); });
  if (!reader.ok()) return reader.status();  // the destructor (Stop) closes the context
  w->reader_ = std::move(reader).value();
  return w;
}

AsyncEventWatcher::~AsyncEventWatcher() { Stop(); }

void AsyncEventWatcher::Stop() {
  if (reader_) reader_->Stop();
  if (ctx_) {
    ibv_close_device(static_cast<ibv_context*>(ctx_));
    ctx_ = nullptr;
    done_.store(true);
  }
}

void AsyncEventWatcher::OnEvent(const probes::ContextEvent& e) {
  if (!e.last) {
    on_event_(AsyncEvent{device_, e.type, e.port, false});
    return;
  }
  ibv_close_device(static_cast<ibv_context*>(ctx_));  // first: a removal waits for every open context
  ctx_ = nullptr;
  done_.store(true);
  on_event_(AsyncEvent{device_, e.type, 0, true});
}

}  // namespace rdmascope::agent
