// An in-process collector on a loopback ephemeral port with a fresh database
// of the test binary's backend (tests/collector/store_backend.h: a file in a
// temporary directory, or a real PostgreSQL server), for API tests.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "collector/http/api_server.h"
#include "collector/store/storage.h"
#include "tests/collector/store_backend.h"
#include "tests/support/scratch_dir.h"

namespace rdmascope::collector::testing {

constexpr char kTestToken[] = "test-token-0123456789";

class TestCollector {
 public:
  explicit TestCollector(ApiOptions options = {}) {
    StoreOptions so;
    so.synchronous_full = false;
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    auto s = db_.Open(so, now_ms);
    if (!s.ok()) {
      ADD_FAILURE() << s.status().message();
      return;
    }
    store_ = std::move(s).value();
    if (options.tokens.empty()) options.tokens = {kTestToken};
    if (!options.log) options.log = [](const std::string&) {};
    server_ = std::make_unique<ApiServer>(*store_, options);
    auto port = server_->Bind("127.0.0.1", 0);
    if (!port.ok()) {
      ADD_FAILURE() << port.status().message();
      return;
    }
    port_ = port.value();
    thread_ = std::thread([this] { server_->Listen(); });
    if (!server_->WaitUntilReady(5000)) ADD_FAILURE() << "server did not start within 5 s";
  }
  ~TestCollector() {
    if (server_) server_->Stop();
    if (thread_.joinable()) thread_.join();
    server_.reset();
    store_.reset();
  }

  int port() const { return port_; }
  Storage& store() { return *store_; }
  const std::string& dir() const { return dir_; }
  std::string sqlite_file() const { return db_.sqlite_file(); }  // the SQLite build's database file
  int64_t Rows(const std::string& table) {
    auto n = store_->db.CountRows(table);
    EXPECT_TRUE(n.ok()) << n.status().message();
    return n.ok() ? n.value() : -1;
  }

 private:
  testsupport::ScratchDir scratch_{"collector_api_test"};  // destroyed after the store
  const std::string dir_ = scratch_.path();
  TestStoreDatabase db_{"collector_api_test"};  // destroyed after the store
  std::unique_ptr<Storage> store_;
  std::unique_ptr<ApiServer> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace rdmascope::collector::testing
