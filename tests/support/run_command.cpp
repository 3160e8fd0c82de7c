#include "tests/support/run_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace rdmascope::testsupport {
namespace {

void CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

CommandResult RunCommand(const std::vector<std::string>& argv, int timeout_ms, const std::string& stdin_text) {
  CommandResult r;
  if (argv.empty()) {
    r.err = "RunCommand: empty argv";
    return r;
  }
  int out_pipe[2], err_pipe[2], in_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0 || ::pipe2(in_pipe, O_CLOEXEC) != 0) {
    r.err = std::string("pipe2: ") + std::strerror(errno);
    return r;
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    r.err = std::string("fork: ") + std::strerror(errno);
    return r;
  }
  if (pid == 0) {
    ::dup2(in_pipe[0], 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::string msg = "exec " + argv[0] + ": " + std::strerror(errno) + "\n";
    (void)!::write(2, msg.data(), msg.size());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ::close(in_pipe[0]);
  int fds[3] = {out_pipe[0], err_pipe[0], in_pipe[1]};
  size_t in_off = 0;
  if (stdin_text.empty()) CloseFd(fds[2]);
  else ::fcntl(fds[2], F_SETFL, O_NONBLOCK);
  ::signal(SIGPIPE, SIG_IGN);

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (fds[0] >= 0 || fds[1] >= 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd p[3];
    int n = 0;
    int which[3];
    for (int i = 0; i < 3; ++i) {
      if (fds[i] < 0) continue;
      p[n] = {fds[i], static_cast<short>(i == 2 ? POLLOUT : POLLIN), 0};
      which[n++] = i;
    }
    int rc = ::poll(p, n, static_cast<int>(left.count()));
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) break;
    for (int k = 0; k < n; ++k) {
      if (p[k].revents == 0) continue;
      int i = which[k];
      if (i == 2) {
        ssize_t w = ::write(fds[2], stdin_text.data() + in_off, stdin_text.size() - in_off);
        if (w > 0) in_off += static_cast<size_t>(w);
        if (w < 0 || in_off == stdin_text.size()) CloseFd(fds[2]);
        continue;
      }
      char buf[8192];
      ssize_t got = ::read(fds[i], buf, sizeof buf);
      if (got > 0) (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(got));
      else if (got == 0 || errno != EINTR) CloseFd(fds[i]);
    }
  }
  for (int& fd : fds) CloseFd(fd);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

CommandResult RunShell(const std::string& command_line, int timeout_ms) {
  return RunCommand({"/bin/sh", "-c", command_line}, timeout_ms);
}

}  // namespace rdmascope::testsupport
