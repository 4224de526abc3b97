#pragma once
// Errors at the edges are values: a Result holds either the value or a message that says what, where and why
// (or, with a second argument, a structured error such as kube::KubeError).
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace scalewright {

struct Error {
  std::string message;
};

template <typename T, typename E = Error>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(E error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  const T& value() const& { return std::get<T>(state_); }
  T& value() & { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  const E& error() const { return std::get<E>(state_); }

 private:
  std::variant<T, E> state_;
};

}  // namespace scalewright
