// What one collector's commit tells the others (the payload of its
// pg_notify on kPgCommitChannel, pg_locks.h): enough for a follower to read
// back exactly the rows the commit wrote, and nothing it holds already.
//
// Contract:
//  - Text: the writer's instance id, "F" when the commit changed the fabric
//    ("-" else), then one word per report the commit stored:
//    NODE/REPORT_ID/MIN_END, MIN_END being the earliest interval_end of the
//    report's probe rows ("-" when it wrote none). Node names and report ids
//    hold no space and no '/' (report_validate.cpp), so words split cleanly.
//  - A word without '/' is a bare node name (what collectors before report
//    words sent): the node is refreshed and its rows are found by time.
//  - Encode splits the words over as many payloads as needed, each at most
//    kPgNotifyMaxBytes; Decode never fails: a word it cannot read is taken as
//    a bare node name (and one naming no node is skipped).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rdmascope::collector {

// One report a commit stored.
struct CommittedReport {
  std::string node, report_id;
  std::optional<int64_t> min_end;  // of its probe rows; none when it wrote none
};

struct CommitAnnouncement {
  std::string writer;  // the writing collector's instance id
  bool fabric = false;
  std::vector<CommittedReport> reports;
  std::set<std::string> bare_nodes;  // announced without their reports
};

std::vector<std::string> EncodeCommitAnnouncement(const std::string& writer, bool fabric,
                                                  const std::vector<CommittedReport>& reports, size_t max_bytes);
CommitAnnouncement DecodeCommitAnnouncement(const std::string& payload);

}  // namespace rdmascope::collector
