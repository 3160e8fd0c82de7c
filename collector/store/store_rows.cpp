#include "collector/store/store_rows.h"

#include <string>
#include <string_view>
#include <unordered_map>
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

// A statement's columns as Row() names them: a name ending in "_json" holds
// JSON text, and the suffix is dropped. Worked out once per statement, not
// once per row.
struct ColumnNames {
  std::vector<std::string> names;
  std::vector<bool> json_text;
};

ColumnNames NamesOf(sqlite3_stmt* s) {
  const std::string suffix = "_json";
  ColumnNames c;
  const int n = sqlite3_column_count(s);
  for (int i = 0; i < n; ++i) {
    std::string name = sqlite3_column_name(s, i);
    const bool is_json =
        name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    if (is_json) name.resize(name.size() - suffix.size());
    c.names.push_back(std::move(name));
    c.json_text.push_back(is_json);
  }
  return c;
}

// JSON texts already parsed in one Rows() call: rows that repeat a text
// (every switch port whose error counters are all zero) parse it once.
// Bounded: texts past kMemoEntries distinct ones are parsed each time.
class ParsedTexts {
 public:
  json Parse(const char* text, size_t n) {
    std::string key(text, n);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    json v = json::parse(key, nullptr, /*allow_exceptions=*/false);
    if (memo_.size() < kMemoEntries && n <= kMemoTextBytes) memo_.emplace(std::move(key), v);
    return v;
  }

 private:
  static constexpr size_t kMemoEntries = 4096, kMemoTextBytes = 4096;
  std::unordered_map<std::string, json> memo_;
};

json Row(sqlite3_stmt* s, const ColumnNames& c, ParsedTexts& parsed) {
  json row = json::object();
  for (size_t i = 0; i < c.names.size(); ++i) {
    const int col = static_cast<int>(i);
    if (c.json_text[i] && sqlite3_column_type(s, col) == SQLITE_TEXT) {
      row[c.names[i]] = parsed.Parse(reinterpret_cast<const char*>(sqlite3_column_text(s, col)),
                                     static_cast<size_t>(sqlite3_column_bytes(s, col)));
      continue;
    }
    row[c.names[i]] = Column(s, col);
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
  const ColumnNames names = NamesOf(q.raw());
  ParsedTexts parsed;
  for (;;) {
    auto r = q.Step();
    if (!r.ok()) {
      q.Reset();
      return r.status();
    }
    if (!r.value()) break;
    out.push_back(Row(q.raw(), names, parsed));
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
