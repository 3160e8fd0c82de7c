// The work-completion status table: every value of enum ibv_wc_status in
// rdma-core 44 with what it means to an operator.
//
// Contract: the table is plain data (no verbs dependency) and is complete: a
// unit test compiles against <infiniband/verbs.h> and checks that every enum
// value of the installed header has exactly one entry with the same number and
// the same ibv_wc_status_str() text.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdmascope {

struct WcStatusInfo {
  int number;                        // the enum value, e.g. 12
  std::string_view enum_name;        // "IBV_WC_RETRY_EXC_ERR"
  std::string_view short_name;       // "RETRY_EXC_ERR"
  std::string_view verbs_text;       // ibv_wc_status_str(): "transport retry counter exceeded"
  std::string_view meaning;          // one or two sentences: what happened
  std::vector<std::string_view> causes;  // likely causes, most likely first
  std::vector<std::string_view> checks;  // what to check, concrete (commands, counters, settings)
};

// Every entry, ordered by number.
const std::vector<WcStatusInfo>& WcStatusTable();

// Looks up by number.
const WcStatusInfo* FindWcStatus(int number);

// Looks up by a name a user types: "12", "RETRY_EXC", "RETRY_EXC_ERR",
// "IBV_WC_RETRY_EXC_ERR", any letter case; also the verbs text. nullptr if unknown.
const WcStatusInfo* FindWcStatus(std::string_view name_or_number);

}  // namespace rdmascope
