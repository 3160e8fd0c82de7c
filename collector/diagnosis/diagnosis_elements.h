// Diagnosis internals: the elements paths are blamed on, numbered, and how
// the open bad paths fall on them in one round of the vote (rule 4 of
// diagnosis.h). Integer ids and flat arrays: a pass at 2,000 nodes x 8 rails
// tallies about a million paths per round.
//
// Contract: ElementIndex is built once per Diagnose() from the input; it
// lists, per measured path, the elements the path touches (each once, a
// host or NIC with the role it plays: source or destination). Tally() counts
// every measured path on each element, over all transports and over each of
// "ud" and "rc" alone; a path is bad when `open` holds it, and a host_busy
// path is bad only on hosts and NICs; probes sent and lost are summed too.
#pragma once

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "collector/diagnosis/diagnosis.h"
#include "collector/diagnosis/diagnosis_paths.h"

namespace rdmascope::collector::diagnosis {

enum class Scope { kHost, kNic, kLink, kSwitch, kGroupLink, kGroup, kFleet };

const char* ScopeName(Scope s);

struct Element {
  Scope scope = Scope::kHost;
  std::string subject;
  std::string node, device;      // host / NIC
  int32_t home_group = -1;       // host / NIC: the element of its group (standing out is measured against it)
  const FabricElement* fabric = nullptr;
  bool counters_rose = false;    // a fabric element whose physical error counters rose
};

// The per-round counts of one element over one transport selection: paths,
// and probes sent and lost on them (a path's loss counts only while it is
// open: explained loss blames nothing else).
struct Count {
  int32_t total = 0, bad = 0, src_total = 0, src_bad = 0, dst_total = 0, dst_bad = 0;
  int64_t sent = 0, lost = 0, src_sent = 0, src_lost = 0, dst_sent = 0, dst_lost = 0;
};

constexpr size_t kTransportSets = 3;  // all, "ud", "rc"
const char* TransportSetName(size_t k);  // "", "ud", "rc"

class ElementIndex {
 public:
  ElementIndex(const Fleet& f, const std::vector<bool>& measured);

  const std::vector<Element>& elements() const { return elements_; }
  // The id of an element, or -1 when no path touches it.
  int64_t Find(Scope scope, const std::string& subject) const;
  size_t groups() const { return groups_; }  // distinct non-empty groups
  // The elements path i touches; a host or NIC entry has kDstRole set when
  // the element is the path's destination.
  static constexpr uint32_t kDstRole = 1u << 31;
  const uint32_t* begin(size_t i) const { return touches_.data() + offset_[i]; }
  const uint32_t* end(size_t i) const { return touches_.data() + offset_[i + 1]; }
  // The peer's group of a path blamed on a host / NIC at role dst (or src).
  const std::string& PeerGroup(size_t path, bool element_is_dst) const {
    return element_is_dst ? src_group_[path] : dst_group_[path];
  }

 private:
  uint32_t Id(Scope scope, const std::string& subject);
  void Touch(uint32_t id, std::vector<uint32_t>* out);

  std::vector<Element> elements_;
  std::unordered_map<std::string, uint32_t> ids_;  // scope-prefixed subject -> id
  std::vector<uint32_t> touches_;
  std::vector<size_t> offset_;
  std::vector<std::string> src_group_, dst_group_;  // per path
  size_t groups_ = 0;
};

struct Round {
  std::array<std::vector<Count>, kTransportSets> count;  // [transport set][element]
  std::array<Count, kTransportSets> all;                 // every measured path (total, bad, sent, lost)
  std::vector<std::vector<uint32_t>> bad;                // element -> its open bad paths (every transport)
};

// lost[i]: probes path i lost (sent less received, or its error completions).
Round Tally(const Fleet& f, const ElementIndex& index, const std::vector<bool>& measured,
            const std::vector<bool>& open, const std::vector<int64_t>& lost);

}  // namespace rdmascope::collector::diagnosis
