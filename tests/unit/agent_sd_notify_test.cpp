// sd_notify: datagrams arrive on a unix socket bound in a temp dir or in the
// abstract namespace; no-op without $NOTIFY_SOCKET; the watchdog interval.
#include "common/sd_notify.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "agent_test_util.h"
#include "tests/support/notify_listener.h"

namespace rdmascope::agent {
namespace {

using testing::TempDir;

using test_support::EnvGuard;
using Listener = test_support::NotifyListener;

TEST(SdNotify, PathSocketReceivesState) {
  TempDir dir;
  std::string path = dir.path() + "/notify.sock";
  Listener l(path);
  ASSERT_TRUE(l.ok());
  ASSERT_TRUE(SdNotifyTo(path, "READY=1").ok());
  EXPECT_EQ(l.Receive(), "READY=1");
}

TEST(SdNotify, AbstractSocketFromEnvironment) {
  EnvGuard g("NOTIFY_SOCKET");
  std::string name = "@rdmascope-notify-test-" + std::to_string(getpid());
  Listener l(name);
  ASSERT_TRUE(l.ok());
  setenv("NOTIFY_SOCKET", name.c_str(), 1);
  ASSERT_TRUE(SdNotify("READY=1\nSTATUS=ok").ok());
  EXPECT_EQ(l.Receive(), "READY=1\nSTATUS=ok");
  ASSERT_TRUE(SdNotify("STOPPING=1").ok());
  EXPECT_EQ(l.Receive(), "STOPPING=1");
}

TEST(SdNotify, NoSocketIsANoOp) {
  EnvGuard g("NOTIFY_SOCKET");
  unsetenv("NOTIFY_SOCKET");
  EXPECT_TRUE(SdNotify("READY=1").ok());
  setenv("NOTIFY_SOCKET", "", 1);
  EXPECT_TRUE(SdNotify("READY=1").ok());
}

TEST(SdNotify, MissingSocketIsAnErrorNamingIt) {
  TempDir dir;
  Status s = SdNotifyTo(dir.path() + "/absent.sock", "READY=1");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir.path() + "/absent.sock"), std::string::npos) << s.message();
  EXPECT_FALSE(SdNotifyTo("relative.sock", "READY=1").ok());
}

TEST(SdNotify, WatchdogInterval) {
  EnvGuard g1("WATCHDOG_USEC");
  EnvGuard g2("WATCHDOG_PID");
  unsetenv("WATCHDOG_USEC");
  unsetenv("WATCHDOG_PID");
  EXPECT_FALSE(WatchdogPingInterval());
  setenv("WATCHDOG_USEC", "30000000", 1);
  EXPECT_EQ(WatchdogPingInterval(), std::chrono::microseconds(15000000));
  setenv("WATCHDOG_PID", std::to_string(getpid()).c_str(), 1);
  EXPECT_EQ(WatchdogPingInterval(), std::chrono::microseconds(15000000));
  setenv("WATCHDOG_PID", std::to_string(getpid() + 1).c_str(), 1);
  EXPECT_FALSE(WatchdogPingInterval());  // meant for another process
  unsetenv("WATCHDOG_PID");
  setenv("WATCHDOG_USEC", "soon", 1);
  EXPECT_FALSE(WatchdogPingInterval());
}

}  // namespace
}  // namespace rdmascope::agent
