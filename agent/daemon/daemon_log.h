// Log sink of the agent daemon and its reporter and spool.
//
// Contract: a LogFn receives one complete line without a trailing newline.
// It must not throw. The default writes "rdmascope-agent: <line>\n" to stderr
// (systemd puts stderr in the journal).
#pragma once

#include <functional>
#include <string>

namespace rdmascope::agent {

using LogFn = std::function<void(const std::string& line)>;

// Writes to stderr; serialised, so several threads may log at once.
void StderrLog(const std::string& line);

// `log` itself when set, else StderrLog.
LogFn OrStderr(LogFn log);

}  // namespace rdmascope::agent
