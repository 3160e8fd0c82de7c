// Diagnosis internals: the elements paths are blamed on, numbered, and how
// the open bad paths fall on them in one round of the vote (rule 4 of
// diagnosis.h). Integer ids and flat arrays: a pass at 2,000 nodes x 8 rails
// tallies about a million paths, so nothing here builds a string per path.
//
// Contract: ElementIndex is built once per Diagnose() from the input; it
// numbers every host a path names (measured or not), finds for each
// measured path the elements it touches (each once, a host or NIC with the
// role it plays: source or destination): its own list, then the fabric
// elements of its route — a router's list (PathSummary::routed) is read
// where it is, never copied — and, in the same sweep, counts every measured
// path on each element (paths and probes sent, over all transports and over
// each of "ud" and "rc" alone: the tallies' base). It keeps the lists only
// of the paths `keep` holds (the open ones: no round looks at another), for
// Touches(). Ids follow the order of first touch, so a pass over the same
// input numbers alike. Tallies starts each round from that base and adds
// only its open paths (a subset of the kept ones): a path is bad when `open`
// holds it, and a host_busy path is bad only on hosts and NICs; probes lost
// are summed over the open ones.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "collector/diagnosis/diagnosis.h"
#include "collector/diagnosis/diagnosis_paths.h"
#include "collector/diagnosis/direct_mapped.h"

namespace rdmascope::collector::diagnosis {

enum class Scope { kHost, kNic, kLink, kSwitch, kGroupLink, kGroup, kFleet };

const char* ScopeName(Scope s);

struct Element {
  Scope scope = Scope::kHost;
  std::string own_subject;       // every element but a fabric one (whose name is its FabricElement's)
  std::string node, device;      // host / NIC
  int32_t home_group = -1;       // host / NIC: the element of its group (standing out is measured against it)
  const FabricElement* fabric = nullptr;
  bool counters_rose = false;    // a fabric element whose physical error counters rose
  const std::string& subject() const { return fabric ? fabric->subject : own_subject; }
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
size_t TransportSetOf(const std::string& transport);  // 1 "ud", 2 "rc", else 0

struct VoteScratch;

class ElementIndex {
 public:
  // The per-path lists are kept in `buffers`, the base counts in its
  // VoteScratch (overwritten; see PassBuffers); keep: the paths whose lists
  // Touches() gives (each also measured).
  ElementIndex(const Fleet& f, const std::vector<bool>& measured, const std::vector<bool>& keep, PassBuffers& buffers);

  const std::vector<Element>& elements() const { return elements_; }
  // The id of an element, or -1 when no path touches it.
  int64_t Find(Scope scope, const std::string& subject) const;
  size_t groups() const { return groups_; }  // distinct non-empty groups
  // Calls f(entry, routed) for each element a kept path i touches; a host
  // or NIC entry has kDstRole set when the element is the path's
  // destination; routed: a fabric element of the router's list (never a
  // host or NIC). A path not kept touches nothing here.
  static constexpr uint32_t kDstRole = 1u << 31;
  template <typename F>
  void Touches(size_t i, F f) const {
    for (size_t k = offset_[i]; k < offset_[i + 1]; ++k) f(touches_[k], false);
    if (const std::vector<uint32_t>* route = routes_[i])
      for (uint32_t c : *route)
        if (c < fabric_count_) f(kFabricBase + c, true);
  }
  // The host elements of path i's ends (every path, measured or not).
  uint32_t SrcHost(size_t path) const { return src_host_[path]; }
  uint32_t DstHost(size_t path) const { return dst_host_[path]; }
  // The peer's group element of a measured path blamed on a host / NIC at
  // role dst (or src); -1: no group.
  int32_t PeerGroup(size_t path, bool element_is_dst) const {
    return element_is_dst ? src_group_[path] : dst_group_[path];
  }
  // Every measured path: paths and probes sent per transport set.
  const std::array<Count, kTransportSets>& all() const { return all_; }

 private:
  // Paths and probes sent, in all (0) and per transport set: one measured
  // path's, or a run's summed.
  struct PathCounts {
    int32_t total[kTransportSets] = {};
    int64_t sent[kTransportSets] = {};
    void Add(size_t own, int64_t sent_by_path) {
      ++total[0], sent[0] += sent_by_path;
      if (own != 0) ++total[own], sent[own] += sent_by_path;
    }
  };
  uint32_t Add(Scope scope, std::string subject);
  // Adds c to element id's base counts, and to its role's (dst, else src)
  // when it is an endpoint (a host or NIC).
  void AddCounts(uint32_t id, const PathCounts& c, bool endpoint, bool dst);
  uint32_t Host(const Names& names, uint32_t node);
  uint32_t Nic(const Names& names, uint32_t host, uint32_t device);
  int32_t Group(const std::string& name);
  uint32_t GroupLink(int32_t a, int32_t b);

  std::vector<Element>& elements_;  // in the caller's VoteScratch (its memory reused)
  std::unordered_map<std::string, uint32_t> hosts_, groups_by_name_;
  // "link|s" / "switch|s" -> id: made by the first Find of a fabric element,
  // not by every pass (a fleet's fabric has tens of thousands).
  mutable std::unordered_map<std::string, uint32_t> fabric_;
  mutable bool fabric_indexed_ = false;
  std::vector<std::vector<std::pair<std::string, uint32_t>>> nics_;            // per host element: device -> id
  std::vector<int64_t> host_of_name_;                                          // Input::names id -> host (-1)
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> nic_ids_;            // per host element: device name id -> id
  std::unordered_map<uint64_t, uint32_t> group_links_;                         // (lower, higher group id)
  DirectMapped<std::pair<uint32_t, uint32_t>, uint32_t> nic_cache_{1};  // (host, device name id) -> id, before nic_ids_
  static constexpr uint32_t kFabricBase = 1;  // Input::elements[c] is element kFabricBase + c (after the fleet)
  uint32_t fabric_count_ = 0;
  // Per path, in the caller's PassBuffers.
  std::vector<const std::vector<uint32_t>*>& routes_;  // a router's list, read in place (null: none)
  std::vector<uint32_t>& touches_;
  std::vector<size_t>& offset_;
  std::vector<uint32_t>&src_host_, &dst_host_;
  std::vector<int32_t>&src_group_, &dst_group_;
  VoteScratch& scratch_;  // the base counts (Tallies reads them)
  std::array<Count, kTransportSets> all_{};
  size_t groups_ = 0;
};

struct Round {
  // [element][transport set]: a path's sets of one element lie side by side.
  std::vector<std::array<Count, kTransportSets>> count;
  std::array<Count, kTransportSets> all;                 // every measured path (total, bad, sent, lost)
  std::vector<std::vector<uint32_t>> bad;                // element -> its open bad paths (every transport)
};

// The paths and probes sent on every element, counted once per Diagnose();
// RoundOf() adds a round's open paths to them.
class Tallies {
 public:
  // What every measured path adds to an element, per transport set: one
  // cache line, so that a million paths' adds stay within the cache.
  struct alignas(64) Base {
    int64_t sent[kTransportSets] = {};
    int32_t total[kTransportSets] = {};
  };
  // And to a host or NIC, by the role it plays on the path.
  struct Ends {
    int32_t src_total[kTransportSets] = {}, dst_total[kTransportSets] = {};
    int64_t src_sent[kTransportSets] = {}, dst_sent[kTransportSets] = {};
  };
  // The base is the index's (in `scratch`).
  Tallies(const Fleet& f, const ElementIndex& index, const std::vector<bool>& measured, VoteScratch& scratch);
  // Fills *r (its memory reused); lost[i]: probes path i lost (sent less
  // received, or its error completions).
  void RoundOf(const std::vector<bool>& open, const std::vector<int64_t>& lost, Round* r) const;

 private:
  const Fleet& f_;
  const ElementIndex& index_;
  const std::vector<bool>& measured_;
  const std::vector<Base>& base_;     // per element
  const std::vector<Ends>& ends_;     // per element (hosts and NICs only filled)
};

// The vote's arrays, kept in PassBuffers::vote from pass to pass so that
// their memory is reused, not mapped and zeroed anew (about 55 MB at 2,000
// nodes x 8 rails). Whatever they hold is overwritten by the next pass.
struct VoteScratch {
  std::vector<PathKind> kind;
  std::vector<uint8_t> transport_set;
  RailTransports rail_transport;  // its names too: the next pass sizes its samples by them
  std::vector<int64_t> lost;
  std::vector<Tallies::Base> base;  // per element, in step with ElementIndex's numbering
  std::vector<Tallies::Ends> ends;
  Round round;
  std::vector<Element> elements;  // ElementIndex's
  // The responder rule's per (host, transport set) counts and failed paths.
  std::vector<int64_t> responder_total;
  std::vector<std::vector<size_t>> responder_bad;
};

}  // namespace rdmascope::collector::diagnosis
