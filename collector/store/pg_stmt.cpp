// PgStmt and PgSql (contract in pg_stmt.h).
#include "collector/store/pg_stmt.h"

#include <charconv>
#include <cmath>
#include <memory>
#include <utility>

namespace rdmascope::collector {

namespace {

constexpr char kIndexedBy[] = "INDEXED BY";

bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Whether "INDEXED BY" (any case) starts a word at sql[i].
bool IsIndexedBy(std::string_view sql, size_t i) {
  const size_t n = sizeof(kIndexedBy) - 1;
  if (i + n > sql.size() || (i > 0 && IsIdentChar(sql[i - 1]))) return false;
  for (size_t k = 0; k < n; ++k) {
    char c = sql[i + k];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (c != kIndexedBy[k]) return false;
  }
  return i + n == sql.size() || !IsIdentChar(sql[i + n]);
}

}  // namespace

std::string PgSql(std::string_view sql, int* params) {
  std::string out;
  out.reserve(sql.size() + 8);
  int highest = 0, next = 1;
  char quote = 0;  // inside '...' or "..." (a doubled quote closes and reopens: same result)
  for (size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (quote) {
      out.push_back(c);
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      out.push_back(c);
      continue;
    }
    if (IsIndexedBy(sql, i)) {  // SQLite's planner hint: the clause and its index's name
      i += sizeof(kIndexedBy) - 1;
      while (i < sql.size() && sql[i] == ' ') ++i;
      while (i < sql.size() && IsIdentChar(sql[i])) ++i;
      --i;
      continue;
    }
    if (c != '?') {
      out.push_back(c);
      continue;
    }
    size_t j = i + 1;
    int n = 0;
    while (j < sql.size() && sql[j] >= '0' && sql[j] <= '9' && n < 100000) n = n * 10 + (sql[j++] - '0');
    if (j == i + 1) n = next;  // a bare ?: the next number
    next = n + 1;
    if (n > highest) highest = n;
    out += "$" + std::to_string(n);
    i = j - 1;
  }
  if (params) *params = highest;
  return out;
}

PgStmt::PgStmt(PgDb* db, std::string name, std::string_view sql) : db_(db), name_(std::move(name)) {
  sql_ = PgSql(sql, &params_);
  values_.resize(static_cast<size_t>(params_));
}

PgStmt& PgStmt::Bind(int i, int64_t v) {
  char buf[32];
  return Bind(i, PgNumberText(v, buf));
}

PgStmt& PgStmt::Bind(int i, double v) {
  char buf[32];
  return Bind(i, PgNumberText(v, buf));
}

PgStmt& PgStmt::Bind(int i, std::string_view v) {
  if (i < 1 || i > params_) {
    if (bind_error_.empty())
      bind_error_ = "parameter " + std::to_string(i) + " is not in 1.." + std::to_string(params_) + " of the statement";
    return *this;
  }
  values_[static_cast<size_t>(i - 1)].emplace(v);
  return *this;
}

PgStmt& PgStmt::BindNull(int i) {
  if (i < 1 || i > params_) return Bind(i, std::string_view());  // records the error
  values_[static_cast<size_t>(i - 1)].reset();
  return *this;
}

PgStmt& PgStmt::BindBlob(int i, const std::vector<uint8_t>& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text = "\\x";
  text.reserve(2 + 2 * bytes.size());
  for (uint8_t b : bytes) text.push_back(kHex[b >> 4]), text.push_back(kHex[b & 15]);
  return Bind(i, std::string_view(text));
}

std::vector<uint8_t> PgStmt::Blob(int col) const {
  std::vector<uint8_t> out;
  if (IsNull(col)) return out;
  const std::string_view t = result_.Text(row_, col);
  if (t.size() < 2 || t[0] != '\\' || t[1] != 'x') return out;  // bytea_output is hex unless set otherwise
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  out.reserve((t.size() - 2) / 2);
  for (size_t k = 2; k + 1 < t.size(); k += 2) {
    const int hi = nibble(t[k]), lo = nibble(t[k + 1]);
    if (hi < 0 || lo < 0) return {};
    out.push_back(static_cast<uint8_t>(hi << 4 | lo));
  }
  return out;
}

Status PgStmt::Execute() {
  if (!bind_error_.empty()) return Status::Error("PostgreSQL " + sql_.substr(0, 60) + ": " + bind_error_);
  if (prepared_in_ != db_->generation()) {
    if (Status s = db_->Prepare(name_, sql_); !s.ok()) return s;
    prepared_in_ = db_->generation();
  }
  auto r = db_->ExecPrepared(name_, sql_, values_);
  if (!r.ok()) return r.status();
  result_ = std::move(r).value();
  changes_ = result_.Affected();
  executed_ = true;
  row_ = -1;
  return Status::Ok();
}

Result<bool> PgStmt::Step() {
  if (!executed_)
    if (Status s = Execute(); !s.ok()) return s;
  if (row_ < result_.rows()) ++row_;
  return row_ < result_.rows();
}

Status PgStmt::Run() {
  Status s = executed_ ? Status::Ok() : Execute();
  Reset();
  return s;
}

void PgStmt::Reset() {
  for (auto& v : values_) v.reset();
  bind_error_.clear();
  executed_ = false;
  result_ = PgResult();
  row_ = -1;
}

int64_t PgStmt::Int(int col) const {
  if (IsNull(col)) return 0;
  const std::string_view t = result_.Text(row_, col);
  if (t == "t") return 1;
  if (t == "f") return 0;
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec == std::errc() && end == t.data() + t.size()) return v;
  const double d = Real(col);
  return std::isfinite(d) && std::fabs(d) < 9.2e18 ? static_cast<int64_t>(d) : 0;
}

SqlStmt::ValueType PgStmt::ColumnType(int col) const {
  if (IsNull(col)) return ValueType::kNull;
  // Type OIDs of the built-in types (pg_type.dat).
  switch (result_.TypeOid(col)) {
    case 16:  // bool
    case 20:  // int8
    case 21:  // int2
    case 23:  // int4
      return ValueType::kInteger;
    case 700:  // float4
    case 701:  // float8
      return ValueType::kReal;
    case 1700: {  // numeric (SUM of bigint): an integer unless it has a fraction or exponent
      const std::string_view t = result_.Text(row_, col);
      return t.find_first_of(".eEN") == std::string_view::npos ? ValueType::kInteger : ValueType::kReal;
    }
    default:
      return ValueType::kText;
  }
}

double PgStmt::Real(int col) const {
  if (IsNull(col)) return 0;
  const std::string_view t = result_.Text(row_, col);
  double v = 0;
  std::from_chars(t.data(), t.data() + t.size(), v);  // also "Infinity", "-Infinity", "NaN"
  return v;
}

}  // namespace rdmascope::collector
