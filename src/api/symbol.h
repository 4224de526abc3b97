#pragma once
// Interned strings. Label keys and values, resource names and topology keys are compared millions of times on
// the scheduling hot path; interning turns those comparisons into integer compares and shrinks every label set.
#include <compare>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace scalewright {

class Symbol {
 public:
  Symbol() = default;  // the empty string
  explicit Symbol(std::string_view text);
  Symbol(const char* text) : Symbol(std::string_view(text)) {}  // NOLINT(google-explicit-constructor)

  std::string_view str() const;
  std::string string() const { return std::string(str()); }
  std::uint32_t id() const { return id_; }
  bool empty() const { return id_ == 0; }

  // Identity order (by id), stable within a process; use str() where people read the order.
  friend bool operator==(Symbol a, Symbol b) { return a.id_ == b.id_; }
  friend auto operator<=>(Symbol a, Symbol b) { return a.id_ <=> b.id_; }
  friend std::ostream& operator<<(std::ostream& out, Symbol s) { return out << s.str(); }

 private:
  std::uint32_t id_ = 0;
};

}  // namespace scalewright

template <>
struct std::hash<scalewright::Symbol> {
  std::size_t operator()(scalewright::Symbol s) const noexcept { return std::hash<std::uint32_t>{}(s.id()); }
};
