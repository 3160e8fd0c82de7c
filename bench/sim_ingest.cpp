#include "bench/sim_ingest.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "bench/bench_server.h"
#include "collector/ingest/report_decode.h"
#include "collector/readmodel/pinglist.h"
#include "collector/readmodel/read_snapshot.h"

namespace rdmascope::bench {

using collector::DecodedReport;
using nlohmann::json;

namespace {

std::vector<std::string> TargetNames(const json& pinglist) {
  std::vector<std::string> out;
  if (!pinglist.contains("targets")) return out;
  for (const json& t : pinglist["targets"])
    if (t.contains("node") && t["node"].is_string()) out.push_back(t["node"].get<std::string>());
  return out;
}

class InProcessIngest : public SimIngest {
 public:
  explicit InProcessIngest(SimClock now) : now_(std::move(now)) {}
  Status Open(int64_t query_deadline_ms) {
    if (Status s = OpenStore(query_deadline_ms); !s.ok()) return s;
    committer_ = std::make_unique<collector::GroupCommitter>(*store_);
    return Status::Ok();
  }
  ~InProcessIngest() override { committer_.reset(); }

  Status Post(const std::string& body, int) override {
    DecodedReport decoded = collector::DecodeReport(body);
    if (decoded.problem != DecodedReport::Problem::kNone)
      return Status::Error("ingest: report refused: " + (decoded.error.field.empty() ? std::string("document") : decoded.error.field) +
                           " " + decoded.error.problem);
    const std::string node = decoded.report["node"].get<std::string>();
    const auto report_id = std::make_shared<const std::string>(decoded.report["report_id"].get<std::string>());
    std::vector<std::shared_ptr<const collector::ProbeRow>> rows;
    rows.reserve(decoded.probes.size());
    for (const collector::ProbeInput& p : decoded.probes)
      rows.push_back(std::make_shared<const collector::ProbeRow>(collector::ProbeRowFromInput(node, p, report_id)));
    auto stored = committer_->Submit(decoded.report, now_(), std::nullopt, &decoded.probes, &rows);
    if (!stored.ok()) return Status::Error("ingest: storing the report of " + node + ": " + stored.status().message());
    return Status::Ok();
  }

  Status BeginPinglists() override {
    auto nodes = store_->read.NodeInfos();
    if (!nodes.ok()) return Status::Error("pinglist: reading the node list: " + nodes.status().message());
    nodes_ = std::move(nodes.value());
    link_targets_ = store_->read.snapshot().CoverageTargetsNow();  // the last diagnosis pass's
    return Status::Ok();
  }

  Result<std::vector<std::string>> Pinglist(const std::string& node, const std::string& rail, int) override {
    return TargetNames(
        collector::BuildPinglist(node, nodes_, now_(), collector::PinglistOptions(), rail, link_targets_.get()));
  }

 private:
  SimClock now_;
  std::unique_ptr<collector::GroupCommitter> committer_;
  std::vector<collector::NodeInfo> nodes_;  // the node list of this round's pinglists
  std::shared_ptr<const collector::CoverageTargets> link_targets_;  // and their link coverage targets
};

class HttpIngest : public SimIngest {
 public:
  HttpIngest(SimClock now, int threads) : now_(std::move(now)), clients_(static_cast<size_t>(threads)) {}
  Status Open(int64_t query_deadline_ms) {
    if (Status s = OpenStore(query_deadline_ms); !s.ok()) return s;
    collector::ApiOptions o;
    o.auth = false;
    o.now_ms = now_;
    o.max_body_bytes = 64u << 20;  // a plane's sweep of 2,000 hosts is several MB
    o.log = [](const std::string& line) { std::fprintf(stderr, "collector: %s\n", line.c_str()); };
    server_ = std::make_unique<collector::ApiServer>(*store_, o);
    port_ = collector::bench::ServeInBackground(*server_, &thread_);
    if (port_ < 0) return Status::Error("http: the in-process collector did not serve on loopback");
    for (auto& c : clients_) {
      c = std::make_unique<httplib::Client>("127.0.0.1", port_);
      c->set_keep_alive(true);
      c->set_read_timeout(60, 0);
      c->set_write_timeout(60, 0);
    }
    return Status::Ok();
  }
  ~HttpIngest() override {
    clients_.clear();
    if (server_) {
      server_->Stop();
      if (thread_.joinable()) thread_.join();
      server_.reset();
    }
  }

  Status Post(const std::string& body, int slot) override {
    auto res = clients_[slot]->Post("/api/v1/reports", body, "application/json");
    if (!res) return Status::Error("http: POST /api/v1/reports: " + httplib::to_string(res.error()));
    if (res->status != 200)
      return Status::Error("http: POST /api/v1/reports answered " + std::to_string(res->status) + ": " + res->body.substr(0, 300));
    return Status::Ok();
  }

  Result<std::vector<std::string>> Pinglist(const std::string& node, const std::string& rail, int slot) override {
    auto res = clients_[slot]->Get("/api/v1/pinglist?node=" + node + "&rail=" + rail);
    if (!res) return Result<std::vector<std::string>>::Error("http: GET /api/v1/pinglist: " + httplib::to_string(res.error()));
    if (res->status != 200)
      return Result<std::vector<std::string>>::Error("http: GET /api/v1/pinglist answered " + std::to_string(res->status));
    json j = json::parse(res->body, nullptr, false);
    if (j.is_discarded()) return Result<std::vector<std::string>>::Error("http: GET /api/v1/pinglist: not JSON");
    return TargetNames(j);
  }

 private:
  SimClock now_;
  std::vector<std::unique_ptr<httplib::Client>> clients_;
  std::unique_ptr<collector::ApiServer> server_;
  std::thread thread_;
  int port_ = -1;
};

}  // namespace

SimIngest::~SimIngest() {
  store_.reset();
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

Status SimIngest::OpenStore(int64_t query_deadline_ms) {
  char tmpl[] = "/tmp/fleet_fault_sim.XXXXXX";
  if (!mkdtemp(tmpl)) return Status::Error("mkdtemp /tmp/fleet_fault_sim.XXXXXX failed: check /tmp is writable");
  dir_ = tmpl;
  collector::StoreOptions so;
  so.path = dir_ + "/collector.db";
  if (query_deadline_ms > 0) so.query_deadline_ms = query_deadline_ms;
  auto st = collector::Storage::Open(so);
  if (!st.ok()) return Status::Error("opening the store in " + dir_ + ": " + st.status().message());
  store_ = std::move(st.value());
  return Status::Ok();
}

Result<std::unique_ptr<SimIngest>> MakeInProcessIngest(SimClock now, int64_t query_deadline_ms) {
  auto in = std::make_unique<InProcessIngest>(std::move(now));
  if (Status s = in->Open(query_deadline_ms); !s.ok()) return Result<std::unique_ptr<SimIngest>>::Error(s.message());
  return std::unique_ptr<SimIngest>(std::move(in));
}

Result<std::unique_ptr<SimIngest>> MakeHttpIngest(SimClock now, int threads, int64_t query_deadline_ms) {
  auto in = std::make_unique<HttpIngest>(std::move(now), threads);
  if (Status s = in->Open(query_deadline_ms); !s.ok()) return Result<std::unique_ptr<SimIngest>>::Error(s.message());
  return std::unique_ptr<SimIngest>(std::move(in));
}

}  // namespace rdmascope::bench
