#include "collector/store_rows.h"

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

}  // namespace

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

}  // namespace rdmascope::collector
