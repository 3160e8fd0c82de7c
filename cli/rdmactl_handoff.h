// How the front `rdmactl` hands a command to rdmactl-full.
//
// The front links only what `fabric` needs (libibumad, libibmad): a subnet
// sweep is a short process, and loading the verbs, TLS and HTTP libraries
// (OpenSSL sets itself up at load) added ~11 ms to every run (measured
// under the simulator: rdmactl --version 19.9 ms against 30.8 ms). Every other
// command runs in rdmactl-full, the same CLI linked with everything, started
// with the front's own argv.
#pragma once

#include <string>
#include <vector>

namespace rdmascope::cli {

// Where rdmactl-full may be, in order: beside the running executable
// (`self_exe`, e.g. a build tree's bin/), then in `libexec_dir` (installed).
std::vector<std::string> FullBinaryCandidates(const std::string& self_exe, const std::string& libexec_dir);

// Executes the first candidate that exists with `argv`. Returns only when
// none could be executed: the message names each path tried and why.
std::string ExecFull(char** argv);

}  // namespace rdmascope::cli
