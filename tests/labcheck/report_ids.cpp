#include "tests/labcheck/report_ids.h"

#include <cstdlib>
#include <map>
#include <set>

namespace rdmascope::labcheck {

bool ParseReportId(const std::string& id, ReportIdParts* out) {
  // From the right: seq, random part, generated_at_ms; the node is the rest.
  size_t p3 = id.rfind('-');
  if (p3 == std::string::npos || p3 == 0) return false;
  size_t p2 = id.rfind('-', p3 - 1);
  if (p2 == std::string::npos || p2 == 0) return false;
  size_t p1 = id.rfind('-', p2 - 1);
  if (p1 == std::string::npos || p1 == 0) return false;
  const std::string seq = id.substr(p3 + 1), rnd = id.substr(p2 + 1, p3 - p2 - 1), ms = id.substr(p1 + 1, p2 - p1 - 1);
  if (seq.empty() || rnd.size() != 8 || ms.empty()) return false;
  for (char c : seq + ms)
    if (c < '0' || c > '9') return false;
  if (seq.size() > 15) return false;
  out->process = id.substr(0, p1) + "/" + rnd;
  out->seq = std::stoll(seq);
  return out->seq > 0;
}

ExactlyOnceResult CheckExactlyOnce(const std::vector<std::string>& stored, const std::vector<std::string>& last_ids) {
  ExactlyOnceResult r;
  std::map<std::string, std::multiset<long long>> by_process;
  for (const auto& id : stored) {
    ReportIdParts parts;
    if (ParseReportId(id, &parts)) by_process[parts.process].insert(parts.seq);
  }
  for (const auto& arg : last_ids) {
    const size_t eq = arg.find('=');
    const std::string last = arg.substr(0, eq);
    const long long known_lost = eq == std::string::npos ? 0 : std::atoll(arg.c_str() + eq + 1);
    ReportIdParts parts;
    if (!ParseReportId(last, &parts)) {
      r.ok = false;
      r.lines.push_back("BAD last report id '" + last + "'");
      continue;
    }
    const auto& seqs = by_process[parts.process];
    const long long want = parts.seq - 1;
    long long missing = 0, repeated = 0, beyond = 0;
    for (long long s = 1; s <= want; ++s) {
      size_t n = seqs.count(s);
      if (n == 0) ++missing;
      if (n > 1) repeated += static_cast<long long>(n) - 1;
    }
    for (long long s : seqs)
      if (s > want) ++beyond;
    const bool ok = missing == known_lost && repeated == 0 && beyond == 0;
    r.ok = r.ok && ok;
    r.lines.push_back(std::string(ok ? "OK " : "FAIL ") + parts.process + ": " + std::to_string(seqs.size()) +
                      " stored, want seq 1.." + std::to_string(want) + " once each; missing " +
                      std::to_string(missing) + " (known lost " + std::to_string(known_lost) + "), repeated " + std::to_string(repeated) + ", beyond the last " +
                      std::to_string(beyond));
  }
  return r;
}

}  // namespace rdmascope::labcheck
