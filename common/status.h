// Status and Result<T>: errors as values that cross module borders.
//
// Contract: a Status is either ok() or carries a message that names what failed
// (the file, verb or field) and, where useful, what to check. Functions that can
// fail return Status or Result<T>; nothing in the daemons' loops throws.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace rdmascope {

class Status {
 public:
  Status() = default;  // ok
  static Status Ok() { return Status(); }
  static Status Error(std::string message) { return Status(std::move(message)); }

  bool ok() const { return !message_.has_value(); }
  // The error text; empty for ok().
  const std::string& message() const {
    static const std::string kEmpty;
    return message_ ? *message_ : kEmpty;
  }

 private:
  explicit Status(std::string message) : message_(std::move(message)) {}
  std::optional<std::string> message_;
};

// Result<T> holds either a value or an error Status (never both).
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Status error) : status_(std::move(error)) {}    // NOLINT: must be an error
  static Result Error(std::string message) { return Result(Status::Error(std::move(message))); }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const T* operator->() const { return &*value_; }
  const T& operator*() const { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace rdmascope
