// Helpers of the hostile-input tests (collector_hostile_input_test and its
// hostile_*_test.cpp parts): the clock, a child's resident memory, rows in
// the child's database read without disturbing it, one printed row per case.
#pragma once

#include <sqlite3.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

namespace rdmascope::collector::testing {

inline int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// VmRSS of pid in kB, or -1.
inline long RssKb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

// The first column of the first row of `sql` on a read-only connection to
// db_path, as an integer (NULL: 0); -1 when it cannot be read.
inline int64_t QueryInt(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  int64_t n = -1;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return n;
}

inline int64_t CountRows(const std::string& db_path, const std::string& table) {
  return QueryInt(db_path, "SELECT COUNT(*) FROM " + table);
}

// One line per case: input, status, RSS before -> after, alive, anything else.
inline void PrintCase(const std::string& input, const std::string& status, long rss_before_kb, long rss_after_kb,
                      bool alive, const std::string& extra = "") {
  std::printf("%-48s %-30s %8ld kB -> %8ld kB  alive=%s  %s\n", input.c_str(), status.c_str(), rss_before_kb,
              rss_after_kb, alive ? "yes" : "no", extra.c_str());
  std::fflush(stdout);
}

}  // namespace rdmascope::collector::testing
