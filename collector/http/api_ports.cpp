// GET /api/v1/ports: the fleet's ports, in two forms.
//
//  - Paged, when the request names any of cursor, sort, order, device,
//    state, gid, firmware, group or q: one page from the read model (no SQL;
//    contract in collector/readmodel/port_page.h, answer in
//    schemas/ports_page.schema.json). limit: default kPageDefault, at most
//    kPageMax (more is a 400 saying to follow next_cursor). node is a
//    substring there, like the other text filters.
//  - Otherwise the unpaged list of before, for existing callers: node (an
//    exact name) and limit (default and maximum HistoryQueries::kListLimit),
//    {"ports":[...],"truncated":bool}, read from the store.
#include "collector/http/api_params.h"
#include "collector/http/api_server.h"
#include "collector/http/http_body.h"

namespace rdmascope::collector {
namespace {

constexpr int64_t kPageDefault = 100, kPageMax = 1000;
constexpr size_t kFilterMaxLen = 128, kCursorMaxLen = 2048;

bool IsPaged(const httplib::Request& req) {
  for (const char* p : {"cursor", "sort", "order", "device", "state", "gid", "firmware", "group", "q"})
    if (req.has_param(p)) return true;
  return false;
}

// Reads the paged form's parameters into *q; false after answering 400.
bool PageQuery(const httplib::Request& req, httplib::Response& res, PortPageQuery* q) {
  int64_t limit = kPageDefault;
  if (req.has_param("limit")) {
    if (!IntParam(req, res, "limit", 1, INT64_MAX / 2, &limit)) return false;
    if (limit > kPageMax)
      return BadParam(res, "limit", "at most " + std::to_string(kPageMax) +
                                        " ports a page; follow next_cursor for the rest");
  }
  q->limit = static_cast<int>(limit);
  std::optional<std::string> sort, order, cursor, node, device, state, gid, firmware, group, text;
  if (!TextParam(req, res, "sort", 32, &sort) || !TextParam(req, res, "order", 8, &order) ||
      !TextParam(req, res, "cursor", kCursorMaxLen, &cursor) || !TextParam(req, res, "node", kFilterMaxLen, &node) ||
      !TextParam(req, res, "device", kFilterMaxLen, &device) || !TextParam(req, res, "state", kFilterMaxLen, &state) ||
      !TextParam(req, res, "gid", kFilterMaxLen, &gid) || !TextParam(req, res, "firmware", kFilterMaxLen, &firmware) ||
      !TextParam(req, res, "group", kFilterMaxLen, &group) || !TextParam(req, res, "q", kFilterMaxLen, &text))
    return false;
  if (sort) {
    auto s = PortSortByName(*sort);
    if (!s) return BadParam(res, "sort", "expected node, device, state or firmware");
    q->sort = *s;
  }
  if (order) {
    if (*order != "asc" && *order != "desc") return BadParam(res, "order", "expected asc or desc");
    q->desc = *order == "desc";
  }
  if (cursor) {
    auto c = DecodePortCursor(*cursor);
    if (!c.ok()) return BadParam(res, "cursor", c.status().message());
    // The cursor carries its order: a page after it needs the same one.
    if ((sort && c.value().sort != q->sort) || (order && c.value().desc != q->desc))
      return BadParam(res, "cursor", std::string("made for sort=") + PortSortName(c.value().sort) +
                                         "&order=" + (c.value().desc ? "desc" : "asc") +
                                         "; ask with that order, or start again without a cursor");
    q->sort = c.value().sort;
    q->desc = c.value().desc;
    q->after = std::move(c).value();
  }
  PortFilter& f = q->filter;
  f.node = LowerAscii(node.value_or(""));
  f.device = LowerAscii(device.value_or(""));
  f.gid = LowerAscii(gid.value_or(""));
  f.firmware = LowerAscii(firmware.value_or(""));
  f.q = LowerAscii(text.value_or(""));
  f.group = group;
  if (state) {
    std::string s = LowerAscii(*state);
    f.state_negated = s[0] == '!';
    if (f.state_negated) s.erase(0, 1);
    if (s.empty()) return BadParam(res, "state", "expected a state name or number, \"!\" before it for every other");
    f.state = s;
  }
  return true;
}

}  // namespace

void ApiServer::GetPorts(const httplib::Request& req, httplib::Response& res) {
  if (IsPaged(req)) {
    PortPageQuery q;
    if (!PageQuery(req, res, &q)) return;
    q.group_label = options_.pinglist.group_label;
    q.now_ms = Now();
    q.stale_after_ms = options_.stale_after_ms;
    auto text = store_.read.PortPage(q);
    if (!text.ok()) return SendStoreFailure(res, text.status(), "a page of the port list", options_.log);
    return SetUncompressed(res, std::move(text).value(), "application/json; charset=utf-8");
  }
  std::optional<std::string> node;
  int64_t limit = HistoryQueries::kListLimit;
  if (!NameParam(req, res, "node", &node) || !IntParam(req, res, "limit", 1, HistoryQueries::kListLimit, &limit)) return;
  auto text = store_.history.PortsText(node, static_cast<int>(limit));
  if (!text.ok()) return SendStoreFailure(res, text.status(), "the port list", options_.log);
  SetUncompressed(res, std::move(text).value(), "application/json; charset=utf-8");  // moved, not copied
}

}  // namespace rdmascope::collector
