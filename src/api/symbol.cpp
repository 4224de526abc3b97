#include "api/symbol.h"

#include <deque>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace scalewright {
namespace {

// One table for the process. Strings live in a deque so the views handed out stay valid as it grows.
struct SymbolTable {
  std::shared_mutex mutex;
  std::deque<std::string> texts{std::string()};
  std::unordered_map<std::string_view, std::uint32_t> ids{{std::string_view(), 0}};
};

SymbolTable& table() {
  static SymbolTable instance;
  return instance;
}

}  // namespace

Symbol::Symbol(std::string_view text) {
  if (text.empty()) return;
  SymbolTable& t = table();
  {
    std::shared_lock lock(t.mutex);
    if (auto it = t.ids.find(text); it != t.ids.end()) {
      id_ = it->second;
      return;
    }
  }
  std::unique_lock lock(t.mutex);
  if (auto it = t.ids.find(text); it != t.ids.end()) {
    id_ = it->second;
    return;
  }
  t.texts.emplace_back(text);
  id_ = static_cast<std::uint32_t>(t.texts.size() - 1);
  t.ids.emplace(std::string_view(t.texts.back()), id_);
}

std::string_view Symbol::str() const {
  SymbolTable& t = table();
  std::shared_lock lock(t.mutex);
  return t.texts[id_];
}

}  // namespace scalewright
