// CPU time of one named thread of this process, for the benchmarks that run
// the collector in-process and report what its writer thread costs.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace rdmascope::collector::bench {

// CPU seconds (user + system) the thread of this process named thread_name
// has used so far, from /proc/self/task/*/stat; -1 when no thread has that name.
inline double ThreadCpuSeconds(const char* thread_name) {
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (name != thread_name) continue;
    std::ifstream stat(task.path() / "stat");
    std::string line;
    std::getline(stat, line);
    std::istringstream rest(line.substr(line.rfind(')') + 2));  // fields from 3 (state) on
    std::string field;
    long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i) {
      if (i == 14) utime = std::stoll(field);
      if (i == 15) stime = std::stoll(field);
    }
    return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  return -1;
}

}  // namespace rdmascope::collector::bench
