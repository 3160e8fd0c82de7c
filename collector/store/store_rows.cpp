#include "collector/store/store_rows.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace rdmascope::collector {
namespace {

using nlohmann::json;

json Column(const SqlStmt& s, int i) {
  switch (s.ColumnType(i)) {
    case SqlStmt::ValueType::kInteger: return s.Int(i);
    case SqlStmt::ValueType::kReal: return s.Real(i);
    case SqlStmt::ValueType::kText: return std::string(s.TextView(i));
    default: return nullptr;
  }
}

// A statement's columns as Row() names them: a name ending in "_json" holds
// JSON text, and the suffix is dropped. Worked out once per statement (at
// its first row), not once per row.
struct ColumnNames {
  std::vector<std::string> names;
  std::vector<bool> json_text;
};

ColumnNames NamesOf(const SqlStmt& s) {
  const std::string suffix = "_json";
  ColumnNames c;
  const int n = s.ColumnCount();
  for (int i = 0; i < n; ++i) {
    std::string name(s.ColumnName(i));
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

json Row(const SqlStmt& s, const ColumnNames& c, ParsedTexts& parsed) {
  json row = json::object();
  for (size_t i = 0; i < c.names.size(); ++i) {
    const int col = static_cast<int>(i);
    if (c.json_text[i] && s.ColumnType(col) == SqlStmt::ValueType::kText) {
      const std::string_view text = s.TextView(col);
      row[c.names[i]] = parsed.Parse(text.data(), text.size());
      continue;
    }
    row[c.names[i]] = Column(s, col);
  }
  return row;
}

// Column i of the current row as JSON text, as Row() would give it once dumped
// (invalid UTF-8 replaced); a "_json" column's text is checked and copied.
void AppendColumnText(const SqlStmt& s, int i, bool json_text, std::string* out) {
  switch (s.ColumnType(i)) {
    case SqlStmt::ValueType::kInteger:
      *out += std::to_string(s.Int(i));
      return;
    case SqlStmt::ValueType::kReal:
      *out += json(s.Real(i)).dump();
      return;
    case SqlStmt::ValueType::kText: {
      const std::string_view text = s.TextView(i);
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

Result<std::string> RowsText(SqlStmt& q, int64_t limit, bool* truncated) {
  ColumnNames names;
  std::vector<std::string> keys;  // each column's member name, as JSON text with its colon
  int n = 0;
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
    if (rows == 0) {
      names = NamesOf(q);
      n = static_cast<int>(names.names.size());
      for (const std::string& name : names.names) keys.push_back(json(name).dump() + ":");
    }
    out += rows == 0 ? "{" : ",{";
    for (int i = 0; i < n; ++i) {
      if (i > 0) out += ',';
      out += keys[static_cast<size_t>(i)];
      AppendColumnText(q, i, names.json_text[static_cast<size_t>(i)], &out);
    }
    out += '}';
  }
  q.Reset();
  out += ']';
  return out;
}

Result<json> Rows(SqlStmt& q) {
  json out = json::array();
  ColumnNames names;
  ParsedTexts parsed;
  for (;;) {
    auto r = q.Step();
    if (!r.ok()) {
      q.Reset();
      return r.status();
    }
    if (!r.value()) break;
    if (out.empty()) names = NamesOf(q);
    out.push_back(Row(q, names, parsed));
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
