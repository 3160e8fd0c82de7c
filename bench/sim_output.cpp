#include "bench/sim_output.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace rdmascope::bench {

using nlohmann::json;

namespace {

json Nullable(int v) { return v < 0 ? json(nullptr) : json(v); }

json StepsJson(const collector::PassStepCpu& st) {
  auto ms = [](double v) { return std::round(v * 10) / 10; };
  return {{"load", ms(st.load)},         {"topology", ms(st.topology)}, {"resolve", ms(st.resolve)},
          {"plan", ms(st.plan)},         {"coverage", ms(st.coverage)}, {"vote", ms(st.vote)},
          {"apply", ms(st.apply)}};
}

// The mean cost of the rounds after the warm-up's first two (pinglists empty, then fetched).
IntervalCost MeanCost(const RunResult& r) {
  IntervalCost m;
  size_t n = 0;
  for (size_t i = std::min<size_t>(2, r.costs.size() ? r.costs.size() - 1 : 0); i < r.costs.size(); ++i, ++n) {
    const IntervalCost& c = r.costs[i];
    m.build_cpu_s += c.build_cpu_s;
    m.decode_cpu_s += c.decode_cpu_s;
    m.writer_cpu_s += c.writer_cpu_s;
    m.ingest_wall_s += c.ingest_wall_s;
    m.diagnosis_cpu_s += c.diagnosis_cpu_s;
    m.diagnosis_wall_s += c.diagnosis_wall_s;
    m.reports += c.reports;
    m.probes += c.probes;
    m.bytes += c.bytes;
  }
  if (n == 0) return m;
  const double d = static_cast<double>(n);
  m.build_cpu_s /= d, m.decode_cpu_s /= d, m.writer_cpu_s /= d, m.ingest_wall_s /= d;
  m.diagnosis_cpu_s /= d, m.diagnosis_wall_s /= d;
  m.reports /= n, m.probes /= n, m.bytes /= n;
  return m;
}

}  // namespace

json RunJson(const RunResult& r) {
  json faults = json::array();
  for (const FaultScore& f : r.faults) {
    json verdicts = json::array();
    for (const SeenVerdict& v : f.verdicts)
      verdicts.push_back({{"scope", v.scope}, {"subject", v.subject}, {"kind", v.kind}, {"confidence", v.confidence},
                          {"candidates", v.candidates}});
    json row = {{"fault", f.fault.text},
                {"expected",
                 {{"scope", f.fault.expected.scope}, {"subject", f.fault.expected.subject}, {"kind", f.fault.expected.kind}}},
                {"verdicts", std::move(verdicts)},
                {"correct", f.correct},
                {"intervals_to_verdict", Nullable(f.intervals_to_verdict)},
                {"intervals_to_close", Nullable(f.intervals_to_close)}};
    if (!f.fault.expected.candidate.empty()) row["expected"]["candidate"] = f.fault.expected.candidate;
    if (!f.miss.empty()) row["miss"] = f.miss;
    faults.push_back(std::move(row));
  }
  json clean = json::array();
  for (const SeenVerdict& v : r.clean_verdicts)
    clean.push_back({{"scope", v.scope}, {"subject", v.subject}, {"kind", v.kind}, {"confidence", v.confidence}});
  const IntervalCost m = MeanCost(r);
  return {{"faults", std::move(faults)},
          {"clean_false_verdicts", r.clean_false_verdicts},
          {"clean_verdicts", std::move(clean)},
          {"clean_minutes", r.clean_minutes},
          {"precision", r.precision},
          {"recall", r.recall},
          {"verdicts_per_fault", r.verdicts_per_fault},
          {"max_verdicts_per_fault", r.max_verdicts_per_fault},
          {"diagnosis_cpu_ms_per_pass", r.diagnosis_cpu_ms_per_pass},
          {"diagnosis_cpu_ms_max", r.diagnosis_cpu_ms_max},
          {"diagnosis_cpu_ms_max_by_step", StepsJson(r.most_costly_pass)},
          {"diagnosis_passes", r.passes},
          {"diagnosis_failed_passes", r.failed_passes},
          {"diagnosis_first_error", r.first_pass_error},
          {"hosts", r.hosts},
          {"rails", r.rails},
          {"intervals", r.intervals},
          {"interval_cost",
           {{"reports", m.reports},
            {"probes", m.probes},
            {"bytes", m.bytes},
            {"round_wall_s", m.ingest_wall_s},
            {"agents_cpu_s", m.build_cpu_s},
            {"decode_cpu_s", m.decode_cpu_s},
            {"writer_cpu_s", m.writer_cpu_s},
            {"diagnosis_cpu_s", m.diagnosis_cpu_s},
            {"diagnosis_wall_s", m.diagnosis_wall_s}}}};
}

void PrintTable(const RunResult& r, std::FILE* out) {
  std::fprintf(out, "%-44s %-58s %-8s %-7s %-8s %-6s\n", "fault", "expected verdict", "verdicts", "correct", "to_verd",
               "to_close");
  for (const FaultScore& f : r.faults) {
    std::fprintf(out, "%-44s %-58s %-8zu %-7s %-8s %-6s\n", f.fault.text.c_str(), f.fault.expected.Key().c_str(),
                 f.verdicts.size(), f.correct ? "yes" : "NO",
                 f.intervals_to_verdict < 0 ? "-" : std::to_string(f.intervals_to_verdict).c_str(),
                 f.intervals_to_close < 0 ? "-" : std::to_string(f.intervals_to_close).c_str());
    if (!f.fault.expected.candidate.empty())
      std::fprintf(out, "    expected among its candidates: %s\n", f.fault.expected.candidate.c_str());
    for (const SeenVerdict& v : f.verdicts) {
      std::string candidates;
      for (const std::string& c : v.candidates) candidates += (candidates.empty() ? "" : ", ") + c;
      std::fprintf(out, "    produced: %s (confidence %.2f)%s%s%s\n", v.Key().c_str(), v.confidence,
                   candidates.empty() ? "" : " candidates: ", candidates.c_str(), "");
    }
    if (!f.miss.empty()) std::fprintf(out, "    missed: %s\n", f.miss.c_str());
  }
  const IntervalCost m = MeanCost(r);
  std::fprintf(out, "\nfleet: %zu hosts x %d rails, %d intervals simulated\n", r.hosts, r.rails, r.intervals);
  std::fprintf(out, "precision %.2f  recall %.2f  verdicts per fault %.2f (most %d)\n", r.precision, r.recall,
               r.verdicts_per_fault, r.max_verdicts_per_fault);
  std::fprintf(out, "false verdicts in %.1f clean minutes: %d\n", r.clean_minutes, r.clean_false_verdicts);
  for (const SeenVerdict& v : r.clean_verdicts) std::fprintf(out, "    clean-time verdict: %s\n", v.Key().c_str());
  std::fprintf(out, "diagnosis CPU per pass: %.1f ms (most %.1f ms, %d passes)\n", r.diagnosis_cpu_ms_per_pass,
               r.diagnosis_cpu_ms_max, r.passes);
  const collector::PassStepCpu& st = r.most_costly_pass;
  std::fprintf(out,
               "the most costly pass, ms CPU by step: load %.0f, topology %.0f, resolve %.0f, plan %.0f, coverage %.0f, "
               "vote %.0f, apply %.0f\n",
               st.load, st.topology, st.resolve, st.plan, st.coverage, st.vote, st.apply);
  if (r.failed_passes)
    std::fprintf(out, "diagnosis passes failed: %d of %d (first: %s)\n", r.failed_passes, r.passes,
                 r.first_pass_error.c_str());
  std::fprintf(out,
               "one interval: %zu reports, %zu probe entries, %.1f MB; round %.2f s wall; CPU: agents %.2f s, "
               "decode %.2f s, writer %.2f s, diagnosis %.3f s (2 passes, %.3f s wall)\n",
               m.reports, m.probes, static_cast<double>(m.bytes) / 1e6, m.ingest_wall_s, m.build_cpu_s, m.decode_cpu_s,
               m.writer_cpu_s, m.diagnosis_cpu_s, m.diagnosis_wall_s);
  // Targets.
  auto target = [&](bool met, const char* what, const std::string& why) {
    std::fprintf(out, "target %-52s %s%s\n", what, met ? "met" : "MISSED", met ? "" : (": " + why).c_str());
  };
  if (!r.faults.empty()) {
    int correct = 0;
    for (const FaultScore& f : r.faults) correct += f.correct;
    const double share = static_cast<double>(correct) / static_cast<double>(r.faults.size());
    target(share >= 0.95, ">= 95% named exactly within 2 intervals",
           std::to_string(correct) + " of " + std::to_string(r.faults.size()) + " faults");
    char buf[128];
    std::snprintf(buf, sizeof buf, "%.2f verdicts per fault, most %d", r.verdicts_per_fault, r.max_verdicts_per_fault);
    target(r.verdicts_per_fault <= 1.2 && r.max_verdicts_per_fault <= 3, "<= 1.2 verdicts per fault, never > 3", buf);
  }
  if (r.clean_minutes > 0)
    target(r.clean_false_verdicts == 0, "0 verdicts in clean time",
           std::to_string(r.clean_false_verdicts) + " verdicts opened without a fault");
  char cpu[96];
  std::snprintf(cpu, sizeof cpu, "%.0f ms CPU at most in one pass", r.diagnosis_cpu_ms_max);
  target(r.diagnosis_cpu_ms_max <= 1000 && r.failed_passes == 0, "diagnosis pass <= 1 s CPU",
         r.failed_passes ? std::to_string(r.failed_passes) + " passes failed: " + r.first_pass_error : std::string(cpu));
}

}  // namespace rdmascope::bench
