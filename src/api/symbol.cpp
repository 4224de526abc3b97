#include "api/symbol.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <unordered_map>

namespace scalewright {
namespace {

// One table for the process. Texts live in fixed-size chunks that never move, so str() reads without a lock:
// a chunk pointer is published (release) before any id in it is handed out, and readers load it (acquire).
// Interning a new text takes the writer lock; looking up an existing one, the reader lock.
constexpr std::size_t kChunkBits = 12;
constexpr std::size_t kChunkSize = std::size_t{1} << kChunkBits;
constexpr std::size_t kMaxChunks = std::size_t{1} << 16;  // 268 million symbols

struct SymbolTable {
  SymbolTable() : chunks(new std::atomic<std::string*>[kMaxChunks]) {
    for (std::size_t i = 0; i < kMaxChunks; ++i) chunks[i].store(nullptr, std::memory_order_relaxed);
    append(std::string());  // id 0: the empty string
  }
  ~SymbolTable() {
    for (std::size_t i = 0; i < kMaxChunks; ++i) delete[] chunks[i].load(std::memory_order_relaxed);
  }

  std::uint32_t append(std::string_view text) {
    const std::size_t id = size;
    const std::size_t chunk = id >> kChunkBits;
    if (chunk >= kMaxChunks) throw std::length_error("symbol table is full");
    std::string* storage = chunks[chunk].load(std::memory_order_relaxed);
    if (storage == nullptr) {
      storage = new std::string[kChunkSize];
      chunks[chunk].store(storage, std::memory_order_release);
    }
    storage[id & (kChunkSize - 1)] = std::string(text);
    ++size;
    ids.emplace(std::string_view(storage[id & (kChunkSize - 1)]), static_cast<std::uint32_t>(id));
    return static_cast<std::uint32_t>(id);
  }

  std::shared_mutex mutex;
  std::unique_ptr<std::atomic<std::string*>[]> chunks;
  std::size_t size = 0;
  std::unordered_map<std::string_view, std::uint32_t> ids;
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
  id_ = t.append(text);
}

std::string_view Symbol::str() const {
  const std::string* chunk = table().chunks[id_ >> kChunkBits].load(std::memory_order_acquire);
  return chunk[id_ & (kChunkSize - 1)];
}

}  // namespace scalewright
