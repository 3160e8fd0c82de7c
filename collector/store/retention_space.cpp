// Retention::DatabaseSpace and Retention::ReleaseFreePages: the file's free pages,
// and handing those beyond a reserve back to the file system.
#include <algorithm>

#include "collector/store/retention.h"

namespace rdmascope::collector {

namespace {

constexpr int64_t kAutoVacuumIncremental = 2;  // PRAGMA auto_vacuum: 0 none, 1 full, 2 incremental

// The caller holds the store lock.
Result<Retention::Space> ReadSpace(Db& db) {
  Retention::Space s;
  for (auto [pragma, out] : {std::pair{"page_size", &s.page_size}, std::pair{"page_count", &s.pages},
                             std::pair{"freelist_count", &s.free_pages}}) {
    auto v = db.QueryInt(std::string("PRAGMA ") + pragma);
    if (!v.ok()) return v.status();
    *out = v.value();
  }
  auto mode = db.QueryInt("PRAGMA auto_vacuum");
  if (!mode.ok()) return mode.status();
  s.releasable = mode.value() == kAutoVacuumIncremental;
  return s;
}

}  // namespace

Result<Retention::Space> Retention::DatabaseSpace() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!w_.sqlite()) return Space{};  // PostgreSQL: the server's own (dropped days go back to it)
  return ReadSpace(w_.db());
}

Result<int64_t> Retention::ReleaseFreePages(int64_t max_pages) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!w_.sqlite()) return int64_t{0};
  auto before = ReadSpace(w_.db());
  if (!before.ok()) return before.status();
  const Space& s = before.value();
  const int64_t excess = s.free_pages - s.pages / kFreePageReserveDivisor;
  if (!s.releasable || excess <= 0 || max_pages <= 0) return int64_t{0};
  // Exec steps the pragma to its end: it releases one page per step.
  if (Status st = w_.db().Exec("PRAGMA incremental_vacuum(" + std::to_string(std::min(excess, max_pages)) + ")"); !st.ok())
    return st;
  auto after = w_.db().QueryInt("PRAGMA freelist_count");
  if (!after.ok()) return after.status();
  return s.free_pages - after.value();
}

}  // namespace rdmascope::collector
