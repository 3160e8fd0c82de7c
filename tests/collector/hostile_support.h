// Shared by the hostile-input cases (collector_hostile_input_test): the
// collector's resident memory, rows in its database, one printed row per case.
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

// Rows of `table` in the database at db_path (read-only), or -1.
inline int64_t CountRows(const std::string& db_path, const std::string& table) {
  sqlite3* db = nullptr;
  int64_t n = -1;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, ("SELECT COUNT(*) FROM " + table).c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return n;
}

// One line per case: input, status, RSS before -> after, alive, anything else.
inline void PrintCase(const std::string& input, const std::string& status, long rss_before_kb, long rss_after_kb,
                      bool alive, const std::string& extra = "") {
  std::printf("%-48s %-30s %8ld kB -> %8ld kB  alive=%s  %s\n", input.c_str(), status.c_str(), rss_before_kb,
              rss_after_kb, alive ? "yes" : "no", extra.c_str());
  std::fflush(stdout);
}

}  // namespace rdmascope::collector::testing
