#include "collector/store/store_rows.h"

#include <string>
#include <string_view>
#include <vector>

namespace rdmascope::collector {
namespace {

using nlohmann::json;

json Column(sqlite3_stmt* s, int i) {
  switch (sqlite3_column_type(s, i)) {
    case SQLITE_INTEGER: return sqlite3_column_int64(s, i);
    case SQLITE_FLOAT: return sqlite3_column_double(s, i);
    case SQLITE_TEXT:
      return std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, i)), sqlite3_column_bytes(s, i));
    default: return nullptr;
  }
}

// Column names ending in "_json" hold JSON text; the suffix is dropped.
json Row(sqlite3_stmt* s) {
  json row = json::object();
  int n = sqlite3_column_count(s);
  for (int i = 0; i < n; ++i) {
    std::string name = sqlite3_column_name(s, i);
    json v = Column(s, i);
    const std::string suffix = "_json";
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      name.resize(name.size() - suffix.size());
      if (v.is_string()) v = json::parse(v.get<std::string>(), nullptr, /*allow_exceptions=*/false);
    }
    row[name] = std::move(v);
  }
  return row;
}

// Column i of the current row as JSON text, as Row() would give it once dumped
// (invalid UTF-8 replaced); a "_json" column's text is checked and copied.
void AppendColumnText(sqlite3_stmt* s, int i, bool json_text, std::string* out) {
  switch (sqlite3_column_type(s, i)) {
    case SQLITE_INTEGER:
      *out += std::to_string(sqlite3_column_int64(s, i));
      return;
    case SQLITE_FLOAT:
      *out += json(sqlite3_column_double(s, i)).dump();
      return;
    case SQLITE_TEXT: {
      std::string_view text(reinterpret_cast<const char*>(sqlite3_column_text(s, i)),
                            static_cast<size_t>(sqlite3_column_bytes(s, i)));
      if (json_text)
        *out += json::accept(text) ? text : std::string_view("null");
      else
        *out += json(text).dump(-1, ' ', false, json::error_handler_t::replace);
      return;
    }
    default:
      *out += "null";
  }
}

}  // namespace

Result<std::string> RowsText(Stmt& q, int64_t limit, bool* truncated) {
  const std::string suffix = "_json";
  std::vector<std::string> keys;  // each column's member name, as JSON text with its colon
  std::vector<bool> json_text;
  const int n = sqlite3_column_count(q.raw());
  for (int i = 0; i < n; ++i) {
    std::string name = sqlite3_column_name(q.raw(), i);
    const bool is_json =
        name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    if (is_json) name.resize(name.size() - suffix.size());
    keys.push_back(json(name).dump() + ":");
    json_text.push_back(is_json);
  }
  std::string out = "[";
  *truncated = false;
  for (int64_t rows = 0;; ++rows) {
    auto r = q.Step();
    if (!r.ok()) {
      q.Reset();
      return r.status();
    }
    if (!r.value()) break;
    if (rows == limit) {
      *truncated = true;
      break;
    }
    out += rows == 0 ? "{" : ",{";
    for (int i = 0; i < n; ++i) {
      if (i > 0) out += ',';
      out += keys[static_cast<size_t>(i)];
      AppendColumnText(q.raw(), i, json_text[static_cast<size_t>(i)], &out);
    }
    out += '}';
  }
  q.Reset();
  out += ']';
  return out;
}

Result<json> Rows(Stmt& q) {
  json out = json::array();
  for (;;) {
    auto r = q.Step();
    if (!r.ok()) {
      q.Reset();
      return r.status();
    }
    if (!r.value()) break;
    out.push_back(Row(q.raw()));
  }
  q.Reset();
  return out;
}

bool TrimToLimit(json* rows, int64_t limit) {
  if (limit < 0 || rows->size() <= static_cast<size_t>(limit)) return false;
  rows->erase(rows->begin() + limit, rows->end());
  return true;
}

}  // namespace rdmascope::collector
