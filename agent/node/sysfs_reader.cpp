#include "agent/node/sysfs_reader.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace rdmascope {
namespace {

// sysfs attributes are at most a page; anything longer is not an attribute.
constexpr size_t kMaxAttrBytes = 64 * 1024;

std::string Errno(int err) { return std::string(std::strerror(err)) + " (errno " + std::to_string(err) + ")"; }

}  // namespace

SysfsReader::SysfsReader(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string SysfsReader::FullPath(const std::string& rel) const {
  return rel.empty() ? root_ : root_ + "/" + rel;
}

Result<std::optional<std::string>> SysfsReader::ReadAttr(const std::string& rel) const {
  const std::string path = FullPath(rel);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    struct stat st;
    if (err == ENOENT && ::lstat(path.c_str(), &st) != 0) return std::optional<std::string>();
    if (err == ENOENT) return Status::Error(path + ": dangling symbolic link");
    return Status::Error(path + ": open failed: " + Errno(err));
  }
  std::string data;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return Status::Error(path + ": read failed: " + Errno(err));
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (data.size() > kMaxAttrBytes) {
      ::close(fd);
      return Status::Error(path + ": longer than " + std::to_string(kMaxAttrBytes) + " bytes, not an attribute");
    }
  }
  ::close(fd);
  while (!data.empty() && (data.back() == '\n' || data.back() == ' ' || data.back() == '\t' || data.back() == '\0'))
    data.pop_back();
  return std::optional<std::string>(std::move(data));
}

Result<std::vector<std::string>> SysfsReader::ListDir(const std::string& rel) const {
  const std::string path = FullPath(rel);
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) {
    int err = errno;
    if (err == ENOENT) return std::vector<std::string>();
    return Status::Error(path + ": cannot list directory: " + Errno(err));
  }
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(dir)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    names.emplace_back(e->d_name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

bool SysfsReader::IsDir(const std::string& rel) const {
  struct stat st;
  return ::stat(FullPath(rel).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::optional<std::string> SysfsReader::ReadLink(const std::string& rel) const {
  char buf[4096];
  ssize_t n = ::readlink(FullPath(rel).c_str(), buf, sizeof buf - 1);
  if (n < 0) return std::nullopt;
  return std::string(buf, static_cast<size_t>(n));
}

std::optional<uint64_t> SysfsReader::Inode(const std::string& rel) const {
  struct stat st;
  if (::stat(FullPath(rel).c_str(), &st) != 0) return std::nullopt;
  return static_cast<uint64_t>(st.st_ino);
}

}  // namespace rdmascope
