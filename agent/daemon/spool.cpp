#include "agent/daemon/spool.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/daemon/report_losses.h"
#include "common/synced_file.h"

namespace rdmascope::agent {
namespace {

constexpr char kPrefix[] = "report-";
constexpr char kSuffix[] = ".json";
constexpr char kTempPrefix[] = ".report-";
constexpr size_t kSeqDigits = 20;
constexpr uint64_t kMaxReadBytes = 1ull << 31;

std::string Errno() { return std::strerror(errno); }

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // Closes now; false (errno set) when close fails.
  bool Close() {
    int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
  }

 private:
  int fd_;
};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Status SyncDir(const std::string& dir) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return Status::Error("spool: open directory " + dir + ": " + Errno());
  if (::fsync(fd.get()) != 0) return Status::Error("spool: fsync directory " + dir + ": " + Errno());
  return Status::Ok();
}

Result<std::string> ReadWhole(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return Status::Error("open: " + Errno());
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Error("read: " + Errno());
    }
    if (n == 0) break;
    out.append(buf, size_t(n));
    if (out.size() > kMaxReadBytes) return Status::Error("larger than any report");
  }
  return out;
}

}  // namespace

std::string SpoolFileName(uint64_t seq) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%020" PRIu64 "%s", kPrefix, seq, kSuffix);
  return buf;
}

std::optional<uint64_t> SpoolFileSeq(const std::string& name) {
  const size_t p = sizeof(kPrefix) - 1;
  const size_t s = sizeof(kSuffix) - 1;
  if (name.size() != p + kSeqDigits + s || name.compare(0, p, kPrefix) != 0 ||
      name.compare(p + kSeqDigits, s, kSuffix) != 0) {
    return std::nullopt;
  }
  uint64_t seq = 0;
  for (size_t i = p; i < p + kSeqDigits; ++i) {
    char c = name[i];
    if (c < '0' || c > '9') return std::nullopt;
    uint64_t next = seq * 10 + uint64_t(c - '0');
    if (next / 10 != seq) return std::nullopt;  // overflow
    seq = next;
  }
  return seq;
}

Spool::Spool(std::string dir, uint64_t max_bytes, LogFn log)
    : dir_(std::move(dir)), max_bytes_(max_bytes), log_(OrStderr(std::move(log))) {}

Result<std::unique_ptr<Spool>> Spool::Open(const std::string& dir, uint64_t max_bytes, LogFn log) {
  if (dir.empty()) return Status::Error("spool: no directory given");
  if (max_bytes == 0) return Status::Error("spool: size cap must be above 0 bytes");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::Error("spool: create directory " + dir + ": " + ec.message());
  std::unique_ptr<Spool> spool(new Spool(dir, max_bytes, std::move(log)));
  Status s = spool->Scan();
  if (!s.ok()) return s;
  spool->EnforceCap();
  return spool;
}

std::unique_ptr<Spool::LockGuard> Spool::Lock() {
  if (lock_depth_++ > 0) return std::make_unique<LockGuard>(this);
  const std::string path = PathOf(".lock");
  lock_fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd_ < 0) {
    log_("spool: open " + path + ": " + Errno() + " (working without the lock)");
    return std::make_unique<LockGuard>(this);
  }
  while (::flock(lock_fd_, LOCK_EX) != 0 && errno == EINTR) {
  }
  // Another process may have added or removed reports: take the directory as it is now.
  entries_.clear();
  bytes_ = 0;
  LogFn saved = log_;
  log_ = [](const std::string&) {};
  Status s = Scan();
  log_ = saved;
  if (!s.ok()) log_(s.message());
  return std::make_unique<LockGuard>(this);
}

void Spool::Unlock() {
  if (--lock_depth_ > 0) return;
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
  lock_fd_ = -1;
}

Status Spool::Scan() {
  DIR* d = ::opendir(dir_.c_str());
  if (!d) return Status::Error("spool: list directory " + dir_ + ": " + Errno());
  std::vector<Entry> found;
  std::vector<std::string> temps;
  errno = 0;
  while (struct dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.rfind(kTempPrefix, 0) == 0) {
      temps.push_back(name);
      continue;
    }
    auto seq = SpoolFileSeq(name);
    if (!seq) continue;
    struct stat st;
    if (::stat(PathOf(name).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    found.push_back({*seq, name, uint64_t(st.st_size)});
  }
  int read_errno = errno;
  ::closedir(d);
  if (read_errno != 0) return Status::Error("spool: read directory " + dir_ + ": " + std::strerror(read_errno));
  for (const std::string& t : temps) {
    if (::unlink(PathOf(t).c_str()) == 0) log_("spool: deleted stale temp file " + PathOf(t));
  }
  std::sort(found.begin(), found.end(), [](const Entry& a, const Entry& b) { return a.seq < b.seq; });
  for (Entry& e : found) {
    bytes_ += e.bytes;
    next_seq_ = std::max(next_seq_, e.seq + 1);
    entries_.push_back(std::move(e));
  }
  if (!entries_.empty()) {
    log_("spool: " + std::to_string(entries_.size()) + " undelivered report(s), " + std::to_string(bytes_) +
         " bytes, in " + dir_);
  }
  return Status::Ok();
}

int Spool::WriteEntry(const std::string& temp, const std::string& path, const std::string& body,
                      std::string* error) {
  int err = write_file_ ? write_file_(temp, body) : WriteSyncedFile(temp, body);
  if (err != 0) {
    *error = "spool: write " + temp + ": " + std::strerror(err);
  } else if (::rename(temp.c_str(), path.c_str()) != 0) {
    err = errno;
    *error = "spool: rename " + temp + " to " + path + ": " + std::strerror(err);
  }
  if (err != 0) ::unlink(temp.c_str());
  return err;
}

Status Spool::Put(const std::string& body) {
  if (body.size() > max_bytes_) {
    ++dropped_;
    Dropped(kLossTooLarge, NowMs());
    return Status::Error("spool: report of " + std::to_string(body.size()) + " bytes exceeds the spool cap of " +
                         std::to_string(max_bytes_) + " bytes; dropped (dropped so far: " +
                         std::to_string(dropped_) + ")");
  }
  const uint64_t seq = next_seq_;
  const std::string name = SpoolFileName(seq);
  const std::string temp = PathOf(std::string(kTempPrefix) + name.substr(sizeof(kPrefix) - 1) + ".tmp");
  const std::string path = PathOf(name);
  std::string error;
  int err = WriteEntry(temp, path, body, &error);
  // A full file system: the oldest reports make room for the newest, as under the cap.
  while ((err == ENOSPC || err == EDQUOT) &&
         DropOldest(kLossDiskFull, "the file system is full (" + std::string(std::strerror(err)) + ")")) {
    err = WriteEntry(temp, path, body, &error);
  }
  if (err != 0) {
    Dropped(err == ENOSPC || err == EDQUOT ? kLossDiskFull : kLossWriteError, NowMs());
    return Status::Error(error);
  }
  next_seq_ = seq + 1;
  entries_.push_back({seq, name, body.size()});
  bytes_ += body.size();
  Status synced = SyncDir(dir_);  // the file is in place: a failed directory sync is logged, not an error
  if (!synced.ok()) log_(synced.message() + " (the report is spooled but may not survive a power loss)");
  EnforceCap();
  return Status::Ok();
}

std::optional<Spool::Entry> Spool::Oldest() const {
  if (entries_.empty()) return std::nullopt;
  return entries_.front();
}

void Spool::PopFront(const Entry& e) {
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& x) { return x.seq == e.seq; });
  if (it == entries_.end()) return;
  bytes_ -= std::min(bytes_, it->bytes);
  entries_.erase(it);
}

void Spool::EnforceCap() {
  while (bytes_ > max_bytes_ &&
         DropOldest(kLossSpoolCap, "over the cap of " + std::to_string(max_bytes_) + " bytes")) {
  }
}

bool Spool::DropOldest(const char* reason, const std::string& why) {
  if (entries_.empty()) return false;
  Entry oldest = entries_.front();
  PopFront(oldest);
  ++dropped_;
  const std::string path = PathOf(oldest.name);
  struct stat st;
  const int64_t made_at_ms = ::stat(path.c_str(), &st) == 0
                                 ? int64_t(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000
                                 : NowMs();
  std::string how = "deleted";
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) how = "could not delete (" + Errno() + ")";
  log_("spool: " + why + ": " + how + " the oldest report " + path + " (dropped so far: " +
       std::to_string(dropped_) + ")");
  Dropped(reason, made_at_ms);
  return true;
}

void Spool::Dropped(const char* reason, int64_t made_at_ms) {
  if (on_drop_) on_drop_(reason, made_at_ms);
}

void Spool::Corrupt(const Entry& e, const std::string& why) {
  PopFront(e);
  const std::string path = PathOf(e.name);
  std::string how;
  if (::rename(path.c_str(), PathOf(kCorruptName).c_str()) == 0) {
    how = "moved to " + PathOf(kCorruptName);
  } else if (::unlink(path.c_str()) == 0 || errno == ENOENT) {
    how = "deleted";
  } else {
    how = "left in place, could not delete (" + Errno() + ")";
  }
  log_("spool: " + path + " is not a usable report (" + why + "); " + how);
}

Result<Spool::Loaded> Spool::Load(const Entry& entry) {
  const std::string path = PathOf(entry.name);
  auto text = ReadWhole(path);
  if (!text.ok()) {
    std::string why = text.status().message();
    Corrupt(entry, why);
    return Status::Error("spool: " + path + ": " + why);
  }
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    std::string why = j.is_discarded() ? "not JSON" : "JSON but not an object";
    Corrupt(entry, why);
    return Status::Error("spool: " + path + ": " + why);
  }
  Loaded out;
  auto id = j.find("report_id");
  if (id != j.end() && id->is_string()) out.report_id = id->get<std::string>();
  out.body = std::move(text).value();
  return out;
}

Status Spool::Remove(const Entry& entry) {
  PopFront(entry);
  const std::string path = PathOf(entry.name);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return Status::Error("spool: delete " + path + ": " + Errno());
  }
  return Status::Ok();
}

}  // namespace rdmascope::agent
