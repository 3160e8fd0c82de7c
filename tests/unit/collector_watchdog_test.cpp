// ServiceWatchdog: READY=1 once the server is ready, WATCHDOG=1 only while the
// health check passes, STOPPING=1 on Stop(); nothing without $NOTIFY_SOCKET.
#include "collector/service/service_watchdog.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "tests/support/notify_listener.h"
#include "tests/support/scratch_dir.h"

namespace rdmascope::collector {
namespace {

using test_support::EnvGuard;
using test_support::NotifyListener;

class WatchdogTest : public ::testing::Test {
 protected:
  testsupport::ScratchDir scratch_{"collector_watchdog_test"};
  void SetUp() override {
    dir_ = scratch_.path();
    socket_ = dir_ + "/notify";
    setenv("NOTIFY_SOCKET", socket_.c_str(), 1);
    setenv("WATCHDOG_USEC", "100000", 1);  // a ping every 50 ms
    unsetenv("WATCHDOG_PID");
  }

  EnvGuard socket_env_{"NOTIFY_SOCKET"}, usec_env_{"WATCHDOG_USEC"}, pid_env_{"WATCHDOG_PID"};
  std::string dir_, socket_;
  std::vector<std::string> logged_;
  std::function<void(const std::string&)> log_ = [this](const std::string& l) { logged_.push_back(l); };
};

TEST_F(WatchdogTest, ReadyThenPingsWhileHealthyThenStopping) {
  NotifyListener l(socket_);
  ASSERT_TRUE(l.ok());
  std::atomic<bool> ready{false};
  ServiceWatchdog w([&] { return ready.load(); }, [] { return Status::Ok(); }, log_);
  w.Start();
  ready = true;
  EXPECT_EQ(l.Receive(), "READY=1");
  EXPECT_EQ(l.Receive(), "WATCHDOG=1");
  EXPECT_EQ(l.Receive(), "WATCHDOG=1");
  w.Stop();
  std::string last;
  for (std::string m = l.Receive(); !m.empty() && m != "STOPPING=1"; m = l.Receive()) last = m;
  EXPECT_TRUE(last.empty() || last == "WATCHDOG=1") << last;
  EXPECT_TRUE(logged_.empty());
}

TEST_F(WatchdogTest, FailingHealthCheckWithholdsPingsAndLogsOnce) {
  NotifyListener l(socket_);
  ASSERT_TRUE(l.ok());
  std::atomic<int> checks{0};
  ServiceWatchdog w([] { return true; },
                    [&] {
                      ++checks;
                      return Status::Error("GET /healthz: HTTP 503 database unavailable");
                    },
                    log_);
  w.Start();
  EXPECT_EQ(l.Receive(), "READY=1");
  // Several failed checks pass while no WATCHDOG=1 arrives.
  while (checks < 4) {
    ASSERT_NE(l.Receive(), "WATCHDOG=1");
  }
  w.Stop();
  ASSERT_EQ(logged_.size(), 1u);
  EXPECT_NE(logged_[0].find("withholding watchdog pings: GET /healthz: HTTP 503"), std::string::npos) << logged_[0];
}

TEST_F(WatchdogTest, NothingWithoutNotifySocket) {
  unsetenv("NOTIFY_SOCKET");
  int checks = 0;
  ServiceWatchdog w([] { return true; }, [&] { ++checks; return Status::Ok(); }, log_);
  w.Start();
  w.Stop();
  EXPECT_EQ(checks, 0);
  EXPECT_TRUE(logged_.empty());
}

}  // namespace
}  // namespace rdmascope::collector
