#include "common/synced_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rdmascope {

int WriteSyncedFile(const std::string& path, const std::string& body) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return errno;
  size_t done = 0;
  int err = 0;
  while (done < body.size()) {
    const ssize_t n = ::write(fd, body.data() + done, body.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    done += size_t(n);
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  return err;
}

Status ReplaceFileAtomically(const std::string& path, const std::string& body) {
  const std::string temp = path + ".tmp";
  if (int err = WriteSyncedFile(temp, body); err != 0) {
    ::unlink(temp.c_str());
    return Status::Error("write " + temp + ": " + std::strerror(err));
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    return Status::Error("rename " + temp + " to " + path + ": " + std::strerror(err));
  }
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);  // the rename is durable once the directory is; the file is in place either way
    ::close(dfd);
  }
  return Status::Ok();
}

}  // namespace rdmascope
