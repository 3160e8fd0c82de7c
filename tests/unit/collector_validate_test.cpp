// Report validation: a good report passes; each kind of violation is named by
// its JSON pointer.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "collector/ingest/report_decode.h"
#include "collector/ingest/report_validate.h"
#include "tests/support/test_reports.h"
#include "tests/support/required_tool.h"
#include "tests/support/run_command.h"

namespace rdmascope::collector {
namespace {

using nlohmann::json;
using testing::MakeProbe;
using testing::MakeReport;

// ValidateReport on the document, checked to give what the report decoder
// (simdjson, as the API parses a report) gives on its text: the same field
// and problem, or both nothing.
std::optional<ValidationError> ValidateBoth(const json& r, const ReportLimits& limits = {}) {
  auto dom = ValidateReport(r, limits);
  const DecodedReport decoded = DecodeReport(r.dump(), limits);
  if (dom) {
    EXPECT_EQ(decoded.problem, DecodedReport::Problem::kInvalid) << r.dump();
    EXPECT_EQ(decoded.error.field, dom->field) << r.dump();
    EXPECT_EQ(decoded.error.problem, dom->problem) << r.dump();
  } else {
    EXPECT_EQ(decoded.problem, DecodedReport::Problem::kNone)
        << decoded.error.field << ": " << decoded.error.problem << " in " << r.dump();
  }
  return dom;
}

json Good() {
  json r = MakeReport("node-a-1700000000000-000042", "node-a", 1700000000000);
  r["probes"].push_back(MakeProbe("node-b", 1700000000000, 2));
  r["inventory"]["devices"][0]["instance"] = "0002:c903:0001:2345@4711";
  return r;
}

ValidationError Bad(const json& r) {
  auto e = ValidateBoth(r);
  EXPECT_TRUE(e.has_value()) << r.dump();
  return e.value_or(ValidationError{"<none>", ""});
}

TEST(CollectorValidate, GoodReportPasses) {
  auto e = ValidateBoth(Good());
  EXPECT_FALSE(e.has_value()) << e->field << ": " << e->problem;
}

TEST(CollectorValidate, MinimalReportPasses) {
  json r = {{"schema_version", 1}, {"report_id", "a:1"}, {"node", "a"}, {"generated_at_ms", 0}};
  EXPECT_FALSE(ValidateBoth(r).has_value());
}

TEST(CollectorValidate, UnknownPropertiesAreIgnored) {
  json r = Good();
  r["future_field"] = {{"x", 1}};
  r["probes"][0]["summary"]["network_rtt_us"] = nullptr;
  EXPECT_FALSE(ValidateBoth(r).has_value());
}

TEST(CollectorValidate, NotAnObject) { EXPECT_EQ(Bad(json::array()).field, ""); }

TEST(CollectorValidate, WrongSchemaVersion) {
  json r = Good();
  r["schema_version"] = 2;
  EXPECT_EQ(Bad(r).field, "/schema_version");
}

TEST(CollectorValidate, MissingRequiredField) {
  json r = Good();
  r.erase("node");
  ValidationError e = Bad(r);
  EXPECT_EQ(e.field, "/node");
  EXPECT_EQ(e.problem, "is required");
}

TEST(CollectorValidate, ReportIdCharsetAndLength) {
  json r = Good();
  r["report_id"] = "bad id";
  EXPECT_EQ(Bad(r).field, "/report_id");
  r["report_id"] = std::string(129, 'a');
  EXPECT_EQ(Bad(r).field, "/report_id");
  r["report_id"] = "";
  EXPECT_EQ(Bad(r).field, "/report_id");
  r["report_id"] = std::string(128, 'a');
  EXPECT_FALSE(ValidateBoth(r).has_value());
}

TEST(CollectorValidate, NodeRejectsColon) {
  json r = Good();
  r["node"] = "node:a";
  EXPECT_EQ(Bad(r).field, "/node");
}

TEST(CollectorValidate, NegativeSentNamedByPointer) {
  json r = Good();
  r["probes"][0]["summary"]["sent"] = -1;
  ValidationError e = Bad(r);
  EXPECT_EQ(e.field, "/probes/0/summary/sent");
  EXPECT_EQ(e.problem, "expected a non-negative integer");
}

TEST(CollectorValidate, FractionalCountRejected) {
  json r = Good();
  r["probes"][0]["summary"]["received"] = 1.5;
  EXPECT_EQ(Bad(r).field, "/probes/0/summary/received");
}

TEST(CollectorValidate, NegativeLatencyRejected) {
  json r = Good();
  r["probes"][0]["summary"]["rtt_us"]["p99"] = -3.0;
  EXPECT_EQ(Bad(r).field, "/probes/0/summary/rtt_us/p99");
}

TEST(CollectorValidate, LossRatioAboveOne) {
  json r = Good();
  r["probes"][0]["summary"]["loss_ratio"] = 1.5;
  EXPECT_EQ(Bad(r).field, "/probes/0/summary/loss_ratio");
}

TEST(CollectorValidate, NullLatencyAllowed) {
  json r = Good();
  r["probes"][0]["summary"]["rtt_us"]["p999"] = nullptr;
  r["probes"][0]["summary"]["rtt_us"] = nullptr;
  EXPECT_FALSE(ValidateBoth(r).has_value());
}

TEST(CollectorValidate, TransportEnum) {
  json r = Good();
  r["probes"][0]["transport"] = "tcp";
  EXPECT_EQ(Bad(r).field, "/probes/0/transport");
}

TEST(CollectorValidate, IntervalEndBeforeStart) {
  json r = Good();
  r["probes"][0]["interval_end_ms"] = 1;
  EXPECT_EQ(Bad(r).field, "/probes/0/interval_end_ms");
}

TEST(CollectorValidate, CounterValueTypeAndName) {
  json r = Good();
  r["inventory"]["devices"][0]["ports"][0]["counters"]["symbol_error"] = "12";
  EXPECT_EQ(Bad(r).field, "/inventory/devices/0/ports/0/counters/symbol_error");
  r = Good();
  r["inventory"]["devices"][0]["ports"][0]["counters"]["a/b"] = 1;
  EXPECT_EQ(Bad(r).field, "/inventory/devices/0/ports/0/counters/a~1b");
}

TEST(CollectorValidate, CounterAboveInt64Rejected) {
  json r = Good();
  r["inventory"]["devices"][0]["ports"][0]["counters"]["port_xmit_data_bytes"] = 18446744073709551615ull;
  EXPECT_EQ(Bad(r).field, "/inventory/devices/0/ports/0/counters/port_xmit_data_bytes");
}

TEST(CollectorValidate, ArraySizesBounded) {
  json r = Good();
  ReportLimits limits;
  limits.max_probes = 2;
  r["probes"] = json::array();
  for (int i = 0; i < 3; ++i) r["probes"].push_back(MakeProbe("node-b", 1700000000000));
  auto e = ValidateBoth(r, limits);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->field, "/probes");
}

TEST(CollectorValidate, LabelsMustBeStrings) {
  json r = Good();
  r["labels"]["rack"] = 3;
  EXPECT_EQ(Bad(r).field, "/labels/rack");
  r = Good();
  r["labels"]["control_port"] = "99999";
  EXPECT_EQ(Bad(r).field, "/labels/control_port");
  r["labels"]["control_port"] = "18610";
  r["labels"]["control_host"] = "10.0.0.2";
  EXPECT_FALSE(ValidateBoth(r).has_value());
}

TEST(CollectorValidate, ErrorStatusRange) {
  json r = Good();
  r["probes"][0]["errors"][0]["status"] = -3;
  EXPECT_EQ(Bad(r).field, "/probes/0/errors/0/status");
  r["probes"][0]["errors"][0]["status"] = -1;
  EXPECT_FALSE(ValidateBoth(r).has_value());
}

TEST(CollectorValidate, ErrorQpnsAndTimeSincePost) {
  json r = Good();
  ASSERT_EQ(r["probes"][0]["errors"][0]["local_qpn"], 17);  // the fixture carries them
  r["probes"][0]["errors"][0]["local_qpn"] = 0x1000000;     // QPNs are 24 bits
  EXPECT_EQ(Bad(r).field, "/probes/0/errors/0/local_qpn");
  r = Good();
  r["probes"][0]["errors"][0]["remote_qpn"] = "18";
  EXPECT_EQ(Bad(r).field, "/probes/0/errors/0/remote_qpn");
  r = Good();
  r["probes"][0]["errors"][0]["since_post_us"] = -1.0;
  EXPECT_EQ(Bad(r).field, "/probes/0/errors/0/since_post_us");
  r = Good();
  for (const char* k : {"local_qpn", "remote_qpn", "since_post_us"}) r["probes"][0]["errors"][0][k] = nullptr;
  EXPECT_FALSE(ValidateBoth(r).has_value());  // a CONNECT error has none of them
}

// A device's instance identity: an optional, printable string of at most 64 bytes.
TEST(CollectorValidate, DeviceInstanceIsABoundedPrintableString) {
  json r = Good();
  r["inventory"]["devices"][0]["instance"] = nullptr;
  EXPECT_FALSE(ValidateBoth(r).has_value()) << "unknown";
  r["inventory"]["devices"][0].erase("instance");
  EXPECT_FALSE(ValidateBoth(r).has_value()) << "an older agent sends none";
  r["inventory"]["devices"][0]["instance"] = std::string(64, 'x');
  EXPECT_FALSE(ValidateBoth(r).has_value()) << "64 bytes";
  for (const json& bad : {json(std::string(65, 'x')), json("a\nb"), json(4711)}) {
    r["inventory"]["devices"][0]["instance"] = bad;
    EXPECT_EQ(Bad(r).field, "/inventory/devices/0/instance") << bad.dump();
  }
}

TEST(CollectorValidate, ResponderEventsAreBoundedAndTyped) {
  json r = Good();
  json e = {{"device", "rxe0"}, {"port", 1}, {"qpn", 17}, {"status", "LOC_PROT_ERR"},
            {"detail", "UD responder rxe0/1 QPN 17: a send failed; QP moved ERR -> RESET -> RTS"},
            {"recovered", true}, {"at_ms", 1764566400000}};
  r["responder_events"] = json::array({e});
  EXPECT_FALSE(ValidateBoth(r).has_value()) << "one event";
  r["responder_events"] = nullptr;
  EXPECT_FALSE(ValidateBoth(r).has_value()) << "null";
  const std::vector<std::pair<std::string, json>> bad = {
      {"recovered", json(1)}, {"qpn", json(1 << 24)}, {"port", json(256)}, {"status", json("")},
      {"device", json("rxe 0")}, {"at_ms", json(-1)}, {"detail", json(std::string(1025, 'x'))}};
  for (const auto& [field, value] : bad) {
    json b = e;
    b[field] = value;
    r["responder_events"] = json::array({b});
    EXPECT_EQ(Bad(r).field, "/responder_events/0/" + field) << value.dump();
  }
  for (const char* required : {"device", "port", "qpn", "status", "recovered", "at_ms"}) {
    json b = e;
    b.erase(required);
    r["responder_events"] = json::array({b});
    EXPECT_EQ(Bad(r).field, std::string("/responder_events/0/") + required);
  }
  r["responder_events"] = json::array();
  for (int i = 0; i < 257; ++i) r["responder_events"].push_back(e);
  EXPECT_EQ(Bad(r).field, "/responder_events");
}

TEST(CollectorValidate, ReportLossesAreBoundedAndTyped) {
  json r = Good();
  json e = {{"id", 1764566400000}, {"reason", "disk_full"}, {"first_ms", 1764566400000},
            {"last_ms", 1764566460000}, {"count", 16}, {"ended", false}};
  r["report_losses"] = json::array({e});
  EXPECT_FALSE(ValidateBoth(r).has_value()) << "one episode";
  r["report_losses"] = nullptr;
  EXPECT_FALSE(ValidateBoth(r).has_value()) << "null";
  const std::vector<std::pair<std::string, json>> bad = {
      {"ended", json(1)},        {"count", json(0)},          {"reason", json("disk full")},
      {"reason", json("")},      {"first_ms", json(-1)},      {"last_ms", json(1764566399999)},
      {"id", json("x")},         {"count", json(1.5)}};
  for (const auto& [field, value] : bad) {
    json b = e;
    b[field] = value;
    r["report_losses"] = json::array({b});
    EXPECT_EQ(Bad(r).field, "/report_losses/0/" + field) << field << " = " << value.dump();
  }
  for (const char* required : {"id", "reason", "first_ms", "last_ms", "count", "ended"}) {
    json b = e;
    b.erase(required);
    r["report_losses"] = json::array({b});
    EXPECT_EQ(Bad(r).field, std::string("/report_losses/0/") + required);
  }
  r["report_losses"] = json::array();
  for (int i = 0; i < 65; ++i) r["report_losses"].push_back(e);
  EXPECT_EQ(Bad(r).field, "/report_losses");
}

TEST(CollectorValidate, PortStateShape) {
  json r = Good();
  r["inventory"]["devices"][0]["ports"][0]["state"] = "ACTIVE";
  EXPECT_EQ(Bad(r).field, "/inventory/devices/0/ports/0/state");
}

// Counts and times bounded to what a real node produces, so that no sum the
// collector forms of them can overflow.
TEST(CollectorValidate, CountsAreBoundedToWhatANodeCanProduce) {
  const uint64_t kMax = 1ull << 40;
  for (const char* k : {"sent", "received", "lost"}) {
    json r = Good();
    r["probes"][0]["summary"][k] = INT64_MAX;
    ValidationError e = Bad(r);
    EXPECT_EQ(e.field, std::string("/probes/0/summary/") + k);
    EXPECT_EQ(e.problem, "must be at most 1099511627776");
  }
  json r = Good();
  r["probes"][0]["summary"]["sent"] = kMax;
  r["probes"][0]["summary"]["received"] = kMax - 1;
  r["probes"][0]["summary"]["lost"] = 1;
  EXPECT_FALSE(ValidateBoth(r).has_value()) << "the largest allowed";
  r["probes"][0]["summary"]["lost"] = 2;
  ValidationError e = Bad(r);
  EXPECT_EQ(e.field, "/probes/0/summary/sent");
  EXPECT_EQ(e.problem, "must be at least received + lost");
  r = Good();
  r["probes"][0]["summary"]["sent"] = 100;
  r["probes"][0]["summary"]["received"] = 99;
  r["probes"][0]["summary"]["lost"] = 0;
  EXPECT_FALSE(ValidateBoth(r).has_value()) << "one probe still in flight at the interval's end";
  r = Good();
  r["probes"][0]["summary"]["errors_by_status"]["RETRY_EXC_ERR (12)"] = kMax + 1;
  EXPECT_EQ(Bad(r).field, "/probes/0/summary/errors_by_status/RETRY_EXC_ERR (12)");
  r = Good();
  r["probes"][0]["summary"]["rtt_us"]["count"] = kMax + 1;
  EXPECT_EQ(Bad(r).field, "/probes/0/summary/rtt_us/count");
}

TEST(CollectorValidate, LatenciesAndIntervalsAreBounded) {
  json r = Good();
  r["probes"][0]["summary"]["rtt_us"]["max"] = 3600.0 * 1e6 + 1;  // beyond an hour
  EXPECT_EQ(Bad(r).field, "/probes/0/summary/rtt_us/max");
  r["probes"][0]["summary"]["rtt_us"]["max"] = 3600.0 * 1e6;
  EXPECT_FALSE(ValidateBoth(r).has_value());
  r = Good();
  const int64_t end = r["probes"][0]["interval_end_ms"].get<int64_t>();
  r["probes"][0]["interval_start_ms"] = end - 86400 * 1000 - 1;  // longer than a day
  ValidationError e = Bad(r);
  EXPECT_EQ(e.field, "/probes/0/interval_end_ms");
  EXPECT_EQ(e.problem, "must be at most 86400000 ms after interval_start_ms");
  r["probes"][0]["interval_start_ms"] = end - 86400 * 1000;
  EXPECT_FALSE(ValidateBoth(r).has_value());
  r = Good();
  r["probes"][0]["errors"][0]["vendor_err"] = 1ull << 32;
  EXPECT_EQ(Bad(r).field, "/probes/0/errors/0/vendor_err");
  r = Good();
  r["probes"][0]["errors"][0]["wall_ms"] = 1e300;
  EXPECT_EQ(Bad(r).field, "/probes/0/errors/0/wall_ms");
  r = Good();
  r["probes"][0]["errors"][0]["after_ms"] = 3600.0 * 1e3 + 1;
  EXPECT_EQ(Bad(r).field, "/probes/0/errors/0/after_ms");
  r = Good();
  r["probes"][0]["errors"][0]["since_post_us"] = 3600.0 * 1e6 + 1;
  EXPECT_EQ(Bad(r).field, "/probes/0/errors/0/since_post_us");
}

TEST(CollectorValidate, PointerEscaping) {
  EXPECT_EQ(JsonPointerToken("a~b/c"), "a~0b~1c");
}

// The JSON Schema and this validator accept and reject the same documents:
// every leaf of a good report replaced by odd values, and every key removed.
// Needs Debian's python3 with python3-jsonschema (/usr/bin/python3, not a
// python3 earlier on PATH); skipped (saying so) without it.
TEST(CollectorValidate, AgreesWithTheJsonSchema) {
  json base = Good();
  base["labels"]["control_port"] = "18610";
  base["probes"][0]["summary"]["cold_rtt_us"] = {{"count", 1}, {"min", 900.5}, {"avg", 900.5}, {"p50", 900.5},
                                                  {"p90", 900.5}, {"p99", 900.5}, {"p999", 900.5}, {"max", 900.5}};
  base["responder_events"] = json::array({{{"device", "rxe0"}, {"port", 1}, {"qpn", 17}, {"status", "LOC_PROT_ERR"},
                                           {"detail", "d"}, {"recovered", true}, {"at_ms", 1764566400000}}});
  base["report_losses"] = json::array({{{"id", 1764566400000}, {"reason", "disk_full"}, {"first_ms", 1764566400000},
                                        {"last_ms", 1764566400000}, {"count", 3}, {"ended", true}}});
  const json leaves = base.flatten();
  const std::vector<json> odd = {nullptr, -1, 0, 1.5, 1e300, 18446744073709551615ull, "", "x y", json::array(),
                                 json::object(), true, "18610"};
  char tmpl[] = "/tmp/collector_schema_cases.XXXXXX";
  int fd = mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  close(fd);
  {
    std::ofstream out(tmpl);
    auto emit = [&out](const std::string& what, const json& doc) {
      auto e = ValidateBoth(doc);
      json line = {{"what", what}, {"doc", doc}, {"cpp_ok", !e.has_value()}};
      if (e) line["cpp_field"] = e->field + " " + e->problem;
      out << line.dump() << "\n";
    };
    emit("the good report", base);
    for (const auto& [ptr, leaf] : leaves.items()) {
      (void)leaf;
      for (const json& v : odd) {
        json doc = base;
        doc[json::json_pointer(ptr)] = v;
        // The rules across fields are beyond JSON Schema (interval_end_ms from
        // interval_start_ms to a day after it, received + lost <= sent): keep
        // them true.
        if (ptr.find("interval_") != std::string::npos && v.is_number() && v.get<double>() >= 0) {
          doc["probes"][0]["interval_start_ms"] = v;
          doc["probes"][0]["interval_end_ms"] = v;
        }
        if (ptr.find("/summary/sent") != std::string::npos && v.is_number() && v.get<double>() >= 0)
          doc["probes"][0]["summary"]["received"] = doc["probes"][0]["summary"]["lost"] = 0;
        if ((ptr.find("/summary/received") != std::string::npos || ptr.find("/summary/lost") != std::string::npos) &&
            v.is_number() && v.get<double>() >= 0)
          doc["probes"][0]["summary"]["sent"] = 1ull << 40;
        // last_ms not before first_ms: the same.
        if ((ptr.find("/first_ms") != std::string::npos || ptr.find("/last_ms") != std::string::npos) &&
            v.is_number() && v.get<double>() >= 0)
          doc["report_losses"][0]["first_ms"] = doc["report_losses"][0]["last_ms"] = v;
        emit(ptr + " = " + v.dump(), doc);
      }
      json doc = base;
      json::json_pointer p(ptr);
      if (!p.empty()) {
        doc[p.parent_pointer()].erase(p.back());
        emit("without " + ptr, doc);
      }
    }
  }
  auto res = rdmascope::testsupport::RunCommand(
      {"/usr/bin/python3", SCHEMA_AGREEMENT_SCRIPT, REPORT_SCHEMA_PATH, tmpl}, 120000);
  std::remove(tmpl);
  const std::string out = res.out + res.err;
  const int code = res.exit_code;
  if (code == 77 || code == 127)
    RDMASCOPE_TOOL_MISSING("/usr/bin/python3 with jsonschema", "python3-jsonschema",
                           "agreement of the validator with schemas/report.schema.json (" + out + ")");
  EXPECT_EQ(code, 0) << out;
}

}  // namespace
}  // namespace rdmascope::collector
