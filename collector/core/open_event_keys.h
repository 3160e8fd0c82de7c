#pragma once
// Which events may be open, so that an ingest runs a closing statement only
// where there is something to close: most probe summaries and counters are
// clean, and closing by (node, peer, transport) walks every event the node
// ever had.
//
// Contract: while valid(), a key (or a wc_error node|peer|transport) that is
// absent here has no open event in the database. The set may also hold keys
// whose event has closed since, or was opened by a transaction that rolled
// back: that only costs one statement. Keys are added as events open and
// removed only by Replace() with what the database holds after a commit.
// Not valid (at start, or after a failed load): everything may be open.
#include <optional>
#include <string>
#include <unordered_set>

namespace rdmascope::collector {

class OpenEventKeys {
 public:
  // Replaces the contents; the set is valid from now on.
  void Replace(std::unordered_set<std::string> keys, std::unordered_set<std::string> wc_paths) {
    keys_ = std::move(keys);
    wc_paths_ = std::move(wc_paths);
    valid_ = true;
  }
  void Invalidate() { valid_ = false; }
  bool valid() const { return valid_; }

  // After an event was opened or touched.
  void Add(const std::string& key, const std::string& kind, const std::string& node,
           const std::optional<std::string>& peer, const std::optional<std::string>& transport) {
    keys_.insert(key);
    if (kind == "wc_error") wc_paths_.insert(WcPath(node, peer.value_or(""), transport.value_or("")));
  }

  bool MayBeOpen(const std::string& key) const { return !valid_ || keys_.count(key) > 0; }
  // A wc_error event from node toward peer over transport may be open.
  bool MayHaveWcError(const std::string& node, const std::string& peer, const std::string& transport) const {
    return !valid_ || wc_paths_.count(WcPath(node, peer, transport)) > 0;
  }

  static std::string WcPath(const std::string& node, const std::string& peer, const std::string& transport) {
    return node + '\n' + peer + '\n' + transport;  // names hold no newline (report validation)
  }

 private:
  std::unordered_set<std::string> keys_, wc_paths_;
  bool valid_ = false;
};

}  // namespace rdmascope::collector
