// The service manager's readiness protocol: state lines sent as one datagram
// to the unix socket named in $NOTIFY_SOCKET ("@name" = abstract namespace).
//
// Contract: SdNotify is a no-op returning ok when $NOTIFY_SOCKET is unset or
// empty; otherwise it sends `state` (e.g. "READY=1", "WATCHDOG=1",
// "STOPPING=1", several separated by '\n') and returns an error naming the
// socket when that fails. It never blocks for long (non-blocking send).
// WatchdogPingInterval is half of $WATCHDOG_USEC when that is set and
// $WATCHDOG_PID is unset or this process's pid; nullopt otherwise.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "common/status.h"

namespace rdmascope {

Status SdNotify(const std::string& state);
Status SdNotifyTo(const std::string& socket_name, const std::string& state);

std::optional<std::chrono::microseconds> WatchdogPingInterval();

}  // namespace rdmascope
