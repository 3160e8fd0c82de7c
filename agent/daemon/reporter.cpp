#include "agent/daemon/reporter.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "agent/client/collector_client.h"
#include "agent/client/token_file.h"
#include "common/http_date.h"
#include "common/text.h"

namespace rdmascope::agent {
namespace {

constexpr size_t kMaxDetailChars = 300;

void SetTimeout(std::chrono::milliseconds d, void (httplib::Client::*set)(time_t, time_t), httplib::Client* c) {
  (c->*set)(time_t(d.count() / 1000), time_t((d.count() % 1000) * 1000));
}

// The collector's error text from an error body {"error": "...", "detail": ...}.
std::string ErrorText(const std::string& body) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  std::string out;
  if (j.is_object()) {
    auto e = j.find("error");
    if (e != j.end()) out = e->is_string() ? e->get<std::string>() : e->dump();
    auto d = j.find("detail");
    if (d != j.end() && !d->is_null()) {
      out += (out.empty() ? "" : ": ") +
             (d->is_string() ? d->get<std::string>() : d->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
  }
  if (out.empty()) out = std::string(Trim(body));
  if (out.size() > kMaxDetailChars) out = out.substr(0, kMaxDetailChars) + "...";
  return out;
}

PostOutcome Classify(int status, const std::string& body) {
  PostOutcome o;
  o.http_status = status;
  if (status >= 200 && status < 300) {
    o.delivery = Delivery::kDelivered;
    return o;
  }
  o.detail = ErrorText(body);
  const bool client_error = status >= 400 && status < 500;
  const bool retryable_4xx = status == 401 || status == 403 || status == 408 || status == 429;
  o.delivery = client_error && !retryable_4xx ? Delivery::kRejected : Delivery::kRetry;
  return o;
}

}  // namespace

Reporter::Reporter(ReporterOptions options, Spool* spool, LogFn log)
    : options_(std::move(options)), spool_(spool), log_(OrStderr(std::move(log))) {}

Reporter::~Reporter() = default;

Result<std::unique_ptr<Reporter>> Reporter::Create(const ReporterOptions& options, Spool* spool, LogFn log) {
  if (!spool) return Status::Error("reporter: no spool");
  auto urls = client::ParseCollectorUrls(options.collector);
  if (!urls.ok()) return urls.status();
  std::unique_ptr<Reporter> r(new Reporter(options, spool, std::move(log)));
  Status s = r->LoadToken();
  if (!s.ok()) return s;
  for (const client::CollectorUrl& url : urls.value()) {
    Endpoint e{url, client::MakeCollectorClient(url.scheme_host_port, options.ca_file)};
    SetTimeout(options.connect_timeout, &httplib::Client::set_connection_timeout, e.client.get());
    SetTimeout(options.io_timeout, &httplib::Client::set_read_timeout, e.client.get());
    SetTimeout(options.io_timeout, &httplib::Client::set_write_timeout, e.client.get());
    e.client->set_keep_alive(false);
    r->endpoints_.push_back(std::move(e));
  }
  return r;
}

Status Reporter::LoadToken() {
  if (options_.token_file.empty()) return Status::Ok();
  auto token = client::ReadTokenFile(options_.token_file);
  if (!token.ok()) return token.status();
  token_ = *token;
  return Status::Ok();
}

PostOutcome Reporter::Post(const std::string& body) {
  if (reload_token_) {
    Status s = LoadToken();
    if (!s.ok()) log_("reporter: keeping the previous token: " + s.message());
    reload_token_ = false;
  }
  PostOutcome o;
  std::string why;  // why the collectors before the one that answered could not take the report
  for (size_t tried = 0; tried < endpoints_.size(); ++tried) {
    const size_t i = (current_ + tried) % endpoints_.size();
    o = PostTo(i, body);
    // No answer or 5xx: this collector cannot take reports now; another may.
    const bool unavailable = o.http_status == 0 || o.http_status >= 500;
    if (!unavailable) {
      if (i != current_)
        log_("reporter: sending to collector " + endpoints_[i].url.scheme_host_port + " now: " + why);
      current_ = i;
      return o;
    }
    why += (why.empty() ? "" : "; ") + endpoints_[i].url.scheme_host_port + " " +
           (o.http_status ? "answered HTTP " + std::to_string(o.http_status) + (o.detail.empty() ? "" : ": " + o.detail)
                          : o.detail);
  }
  return o;
}

std::string Reporter::Collectors() const {
  std::string out;
  for (const Endpoint& e : endpoints_) out += (out.empty() ? "" : " and ") + e.url.scheme_host_port;
  return out;
}

PostOutcome Reporter::PostTo(size_t i, const std::string& body) {
  Endpoint& e = endpoints_[i];
  httplib::Headers headers;
  if (!token_.empty()) headers.emplace("Authorization", "Bearer " + token_);
  // The send time, so the collector can tell a skewed clock from a replayed spooled report.
  headers.emplace("Date", HttpDateNow());
  auto res = e.client->Post((e.url.path_prefix + kReportsPath).c_str(), headers, body, "application/json");
  if (!res) {
    PostOutcome o;
    o.delivery = Delivery::kRetry;
    o.detail = client::DescribeHttpError(res.error(), options_.ca_file);
    return o;
  }
  PostOutcome o = Classify(res->status, res->body);
  if (o.http_status == 401 || o.http_status == 403) reload_token_ = true;
  return o;
}

void Reporter::NoteOutcome(const std::string& report_id, const PostOutcome& o) {
  const std::string id = report_id.empty() ? "(no report_id)" : report_id;
  switch (o.delivery) {
    case Delivery::kDelivered:
      if (!last_failure_.empty())
        log_("reporter: collector " + endpoints_[current_].url.scheme_host_port + " reachable again");
      last_failure_.clear();
      return;
    case Delivery::kRejected:
      log_("reporter: collector rejected report " + id + " (HTTP " + std::to_string(o.http_status) +
           "): " + o.detail + "; dropped");
      return;
    case Delivery::kRetry: {
      std::string cause;
      if (o.http_status == 401 || o.http_status == 403) {
        cause = "token rejected (HTTP " + std::to_string(o.http_status) + ")" +
                (options_.token_file.empty() ? std::string("; no token_file is configured")
                                             : "; check token_file " + options_.token_file) +
                (o.detail.empty() ? "" : ": " + o.detail);
      } else if (o.http_status != 0) {
        cause = "HTTP " + std::to_string(o.http_status) + (o.detail.empty() ? "" : ": " + o.detail);
      } else {
        cause = o.detail;
      }
      if (cause != last_failure_) {
        log_("reporter: cannot deliver to " + Collectors() + ": " + cause +
             "; reports are kept in the spool " + spool_->dir());
      }
      last_failure_ = cause;
      return;
    }
  }
}

PostOutcome Reporter::Submit(const std::string& report_id, const std::string& body,
                             std::chrono::steady_clock::time_point drain_deadline, const std::atomic<bool>* stop) {
  auto lock = spool_->Lock();
  // Backlog first, oldest first: the collector then sees every node's reports
  // in the order they were made, and no delta spans the outage.
  last_drain_ = PostOutcome{};
  if (spool_->count() > 0) Drain(drain_deadline, stop);
  if (spool_->count() > 0) {
    // The collector's answer to the oldest report is this one's outcome too.
    PostOutcome queued = last_drain_.delivery == Delivery::kRetry ? last_drain_ : PostOutcome{};
    queued.delivery = Delivery::kRetry;
    queued.detail += (queued.detail.empty() ? "" : "; ") + std::string("queued behind ") +
                     std::to_string(spool_->count()) + " older spooled report(s)";
    SpoolFresh(report_id, body);
    return queued;
  }
  PostOutcome o = Post(body);
  NoteOutcome(report_id, o);
  switch (o.delivery) {
    case Delivery::kDelivered:
      ++stats_.delivered;
      break;
    case Delivery::kRejected:
      ++stats_.rejected;
      break;
    case Delivery::kRetry:
      SpoolFresh(report_id, body);
      break;
  }
  return o;
}

void Reporter::SpoolFresh(const std::string& report_id, const std::string& body) {
  Status s = spool_->Put(body);
  if (s.ok()) {
    ++stats_.spooled;
  } else {
    ++stats_.lost;
    log_("reporter: report " + report_id + " lost: " + s.message());
  }
}

size_t Reporter::Drain(std::chrono::steady_clock::time_point deadline, const std::atomic<bool>* stop) {
  auto lock = spool_->Lock();
  size_t taken = 0;
  for (size_t n = 0; n < options_.max_replay_per_cycle; ++n) {
    if (stop && stop->load()) break;
    if (std::chrono::steady_clock::now() >= deadline) break;
    auto entry = spool_->Oldest();
    if (!entry) break;
    auto loaded = spool_->Load(*entry);
    if (!loaded.ok()) continue;  // the spool has removed and logged it
    PostOutcome o = Post(loaded->body);
    NoteOutcome(loaded->report_id, o);
    last_drain_ = o;
    if (o.delivery == Delivery::kRetry) break;
    if (o.delivery == Delivery::kDelivered) {
      ++stats_.replayed;
    } else {
      ++stats_.rejected;
    }
    ++taken;
    Status s = spool_->Remove(*entry);
    if (!s.ok()) log_("reporter: " + s.message());
  }
  return taken;
}

}  // namespace rdmascope::agent
