// PinglistClient: asks the collector which peers this node should probe.
//
// Contract: Fetch() GETs <collector>/api/v1/pinglist?node=NAME with the
// bearer token (the token file is read on every call, so a rotated token needs
// no restart) and connect/read timeouts of a few seconds. It returns the
// targets of a well-formed version-1 pinglist (schemas/pinglist.schema.json);
// anything else is an error naming the URL and what was wrong. It never throws.
// With several collectors (a comma-separated list), Fetch asks the one that
// answered last first, then the others in the list's order, and returns the
// first well-formed pinglist; when none gives one, the error names each
// collector's failure.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "agent/client/collector_url.h"
#include "common/status.h"
#include "probes/probe_scheduler.h"

namespace rdmascope::agent {

class PinglistClient {
 public:
  // Fails on a bad collector URL (or list, ParseCollectorUrls).
  static Result<PinglistClient> Create(const std::string& collector_url, const std::string& token_file,
                                       const std::string& node_name, const std::string& ca_file = "");

  // rail non-empty: only peers that have a rail of that name (&rail=NAME).
  Result<std::vector<probes::ProbeTarget>> Fetch(const std::string& rail = "") const;

 private:
  PinglistClient(std::vector<client::CollectorUrl> urls, std::string token_file, std::string node, std::string ca_file)
      : urls_(std::move(urls)), token_file_(std::move(token_file)), node_(std::move(node)), ca_file_(std::move(ca_file)) {}
  // One GET from collector url.
  Result<std::vector<probes::ProbeTarget>> FetchFrom(const client::CollectorUrl& url, const std::string& rail) const;

  std::vector<client::CollectorUrl> urls_;
  // The collector that answered last, shared by the copies (the rails'
  // threads fetch at once).
  std::shared_ptr<std::atomic<size_t>> current_ = std::make_shared<std::atomic<size_t>>(0);
  std::string token_file_;
  std::string node_;
  std::string ca_file_;  // https: see MakeCollectorClient
};

// The targets of a pinglist document; an error names the bad field.
Result<std::vector<probes::ProbeTarget>> ParsePinglist(const std::string& body);

}  // namespace rdmascope::agent
