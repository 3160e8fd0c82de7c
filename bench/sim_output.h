// The fleet fault simulator's output: the table of faults with totals and
// targets, or the JSON document of --json.
//
// Contract: PrintTable prints one row per fault (fault, expected verdict,
// verdicts produced and how many, correct, intervals to verdict and to
// close), then precision, recall, verdicts per fault, clean false verdicts,
// diagnosis CPU per pass (and, of the most costly pass, its CPU by step:
// collector::PassStepCpu) and the round's cost, then each target as met or
// missed with the reason. RunJson is {"faults":[{"fault","expected":{scope,
// subject,kind},"verdicts":[{scope,subject,kind,confidence}],"correct",
// "intervals_to_verdict","intervals_to_close"}],"clean_false_verdicts",
// "precision","recall","verdicts_per_fault","diagnosis_cpu_ms_per_pass",
// "diagnosis_cpu_ms_max","diagnosis_cpu_ms_max_by_step":{load,topology,
// resolve,plan,coverage,vote,apply},...}
// with -1 / null where a value does not exist.
#pragma once

#include <cstdio>

#include <nlohmann/json.hpp>

#include "bench/sim_run.h"

namespace rdmascope::bench {

nlohmann::json RunJson(const RunResult& r);
void PrintTable(const RunResult& r, std::FILE* out);

}  // namespace rdmascope::bench
