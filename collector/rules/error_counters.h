// Which counters count errors: the ones the diagnosis cites as evidence and
// the store indexes when they rise (counters_latest.error).
//
// Contract: a pure function of the name. True for every counter of the
// threshold table (thresholds.h), and for any name that, lowercased, contains
// one of the words errors are named by (err, retr, timeout, drop, discard,
// seq, nak, rnr, dup, out_of, resend, downed, symbol); false for traffic and
// everything else.
#pragma once

#include <string>

namespace rdmascope::collector {

bool IsErrorCounter(const std::string& name);

}  // namespace rdmascope::collector
