// rdmactl explain STATUS: the WC status table for people.
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "common/wc_status.h"
#include <nlohmann/json.hpp>

namespace rdmascope::cli {
namespace {

constexpr char kHelp[] =
    "usage: rdmactl [--json] explain STATUS\n"
    "       rdmactl [--json] explain --all\n"
    "\n"
    "Explains a work-completion status (enum ibv_wc_status): its number, name, the verbs text,\n"
    "what it means, likely causes and what to check. STATUS is a number (12), a short name\n"
    "(RETRY_EXC, RETRY_EXC_ERR) or the enum name (IBV_WC_RETRY_EXC_ERR), any case.\n"
    "Exit 0 when known, 2 when not.\n";

nlohmann::json ToJson(const WcStatusInfo& w) {
  nlohmann::json causes = nlohmann::json::array(), checks = nlohmann::json::array();
  for (auto c : w.causes) causes.push_back(std::string(c));
  for (auto c : w.checks) checks.push_back(std::string(c));
  return {{"number", w.number},         {"name", std::string(w.short_name)},
          {"enum", std::string(w.enum_name)}, {"verbs_text", std::string(w.verbs_text)},
          {"meaning", std::string(w.meaning)}, {"causes", causes}, {"checks", checks}};
}

void PrintText(const WcStatusInfo& w) {
  std::printf("%d %.*s (%.*s)\n", w.number, static_cast<int>(w.short_name.size()), w.short_name.data(),
              static_cast<int>(w.enum_name.size()), w.enum_name.data());
  std::printf("  verbs text: %.*s\n", static_cast<int>(w.verbs_text.size()), w.verbs_text.data());
  std::printf("  meaning:    %.*s\n", static_cast<int>(w.meaning.size()), w.meaning.data());
  if (!w.causes.empty()) std::printf("  likely causes:\n");
  for (auto c : w.causes) std::printf("    - %.*s\n", static_cast<int>(c.size()), c.data());
  if (!w.checks.empty()) std::printf("  what to check:\n");
  for (auto c : w.checks) std::printf("    - %.*s\n", static_cast<int>(c.size()), c.data());
}

}  // namespace

int RunExplain(const GlobalOptions& g, const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (args.size() != 1) {
    std::fprintf(stderr, "rdmactl explain: expected one STATUS (e.g. 12 or RETRY_EXC)\n\n%s", kHelp);
    return 2;
  }
  if (args[0] == "--all") {
    nlohmann::json all = nlohmann::json::array();
    for (const WcStatusInfo& w : WcStatusTable()) {
      if (g.json) all.push_back(ToJson(w));
      else { PrintText(w); std::printf("\n"); }
    }
    if (g.json) std::printf("%s\n", all.dump(2).c_str());
    return 0;
  }
  const WcStatusInfo* w = FindWcStatus(args[0]);
  if (w == nullptr) {
    std::fprintf(stderr,
                 "rdmactl explain: unknown work-completion status \"%s\"; valid: 0-%zu or a name such as "
                 "RETRY_EXC_ERR (rdmactl explain --all lists them)\n",
                 args[0].c_str(), WcStatusTable().size() - 1);
    return 2;
  }
  if (g.json)
    std::printf("%s\n", ToJson(*w).dump(2).c_str());
  else
    PrintText(*w);
  return 0;
}

}  // namespace rdmascope::cli
