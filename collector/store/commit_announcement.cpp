// The commit announcement's text (contract in commit_announcement.h).
#include "collector/store/commit_announcement.h"

#include <charconv>
#include <sstream>

namespace rdmascope::collector {

std::vector<std::string> EncodeCommitAnnouncement(const std::string& writer, bool fabric,
                                                  const std::vector<CommittedReport>& reports, size_t max_bytes) {
  const std::string head = writer + (fabric ? " F" : " -");
  std::vector<std::string> out;
  std::string payload = head;
  for (const CommittedReport& r : reports) {
    std::string word = r.node + "/" + r.report_id + "/" + (r.min_end ? std::to_string(*r.min_end) : "-");
    if (payload.size() > head.size() && payload.size() + 1 + word.size() > max_bytes) {
      out.push_back(std::move(payload));
      payload = head;
    }
    payload += " " + word;
  }
  if (payload.size() > head.size()) out.push_back(std::move(payload));
  return out;
}

CommitAnnouncement DecodeCommitAnnouncement(const std::string& payload) {
  CommitAnnouncement a;
  std::istringstream words(payload);
  std::string flag, word;
  words >> a.writer >> flag;
  a.fabric = flag == "F";
  while (words >> word) {
    const size_t first = word.find('/'), last = word.rfind('/');
    if (first == 0) continue;  // no node named: nothing to refresh
    if (first == std::string::npos || first == last) {
      a.bare_nodes.insert(word.substr(0, first));
      continue;
    }
    CommittedReport r{word.substr(0, first), word.substr(first + 1, last - first - 1), std::nullopt};
    const std::string end = word.substr(last + 1);
    int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(end.data(), end.data() + end.size(), v);
    if (end != "-" && (ec != std::errc() || ptr != end.data() + end.size() || r.report_id.empty())) {
      a.bare_nodes.insert(r.node);  // unreadable: the node is refreshed by time
      continue;
    }
    if (end != "-") r.min_end = v;
    a.reports.push_back(std::move(r));
  }
  return a;
}

}  // namespace rdmascope::collector
