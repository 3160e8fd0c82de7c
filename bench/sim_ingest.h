// The fleet fault simulator's way into the collector: reports and pinglists
// through the collector's own ingest, on the simulated clock.
//
// Contract:
//  - InProcessIngest: a real Storage (SQLite in a mkdtemp directory, removed
//    at destruction) and the ingest path the HTTP handler takes
//    (DecodeReport, the probes' snapshot rows, GroupCommitter::Submit with
//    the simulated receive time); pinglists from BuildPinglist over the read
//    model's nodes, as GET /api/v1/pinglist answers. Post is thread-safe
//    (the group committer batches concurrent posts).
//  - HttpIngest: the same Storage served by an ApiServer on a loopback
//    ephemeral port (auth off, its clock the simulated one); reports are
//    POSTed and pinglists fetched over HTTP, one keep-alive client per
//    calling thread slot.
//  - Both: Post fails naming the node and the collector's answer; the
//    diagnosis reads store().
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "collector/http/api_server.h"
#include "collector/ingest/group_commit.h"
#include "collector/store/storage.h"
#include "common/status.h"

namespace rdmascope::bench {

class SimIngest {
 public:
  virtual ~SimIngest();  // closes the store, then removes its directory
  // slot: the calling worker's index (0..threads-1).
  virtual Status Post(const std::string& body, int slot) = 0;
  // Before a round's pinglists: the in-process ingest reads the node list
  // once here (the HTTP collector reads it per request, as it does).
  virtual Status BeginPinglists() { return Status::Ok(); }
  // Target node names of `node`'s pinglist on `rail`.
  virtual Result<std::vector<std::string>> Pinglist(const std::string& node, const std::string& rail, int slot) = 0;
  collector::Storage& store() { return *store_; }
  const std::string& dir() const { return dir_; }

 protected:
  Status OpenStore(int64_t query_deadline_ms);
  std::string dir_;
  std::unique_ptr<collector::Storage> store_;
};

// The simulated clock shared by the sim and the collector objects.
using SimClock = std::function<int64_t()>;

// query_deadline_ms: the store's deadline on every read (the diagnosis's too); 0: the store's default.
Result<std::unique_ptr<SimIngest>> MakeInProcessIngest(SimClock now, int64_t query_deadline_ms = 0);
Result<std::unique_ptr<SimIngest>> MakeHttpIngest(SimClock now, int threads, int64_t query_deadline_ms = 0);

}  // namespace rdmascope::bench
