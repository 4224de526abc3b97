#include "api/resources.h"

#include <algorithm>
#include <limits>

#include "api/saturating.h"

namespace scalewright {
namespace {

bool is_byte_resource(Symbol name) {
  std::string_view s = name.str();
  return name == resource_names::memory() || name == resource_names::ephemeral_storage() ||
         s.rfind("hugepages-", 0) == 0;
}

// Bytes in the largest binary unit that divides them exactly ("1Gi", "1536Mi", "1000"), as kubectl shows them.
std::string format_bytes(std::int64_t bytes) {
  static constexpr std::pair<const char*, int> kUnits[] = {{"Ei", 60}, {"Pi", 50}, {"Ti", 40},
                                                           {"Gi", 30}, {"Mi", 20}, {"Ki", 10}};
  if (bytes != 0) {
    for (const auto& [suffix, shift] : kUnits) {
      const std::int64_t unit = std::int64_t{1} << shift;
      if (bytes % unit == 0) return std::to_string(bytes / unit) + suffix;
    }
  }
  return std::to_string(bytes);
}

}  // namespace

std::string format_amount(Symbol name, std::int64_t amount) {
  if (name == resource_names::cpu()) {
    return amount % 1000 == 0 ? std::to_string(amount / 1000) : std::to_string(amount) + "m";
  }
  if (is_byte_resource(name)) return format_bytes(amount);
  return std::to_string(amount);
}

std::int64_t resource_amount(Symbol name, const Quantity& quantity) {
  return name == resource_names::cpu() ? quantity.milli_value() : quantity.value();
}

std::optional<std::int64_t> exact_resource_amount(Symbol name, const Quantity& quantity) {
  return name == resource_names::cpu() ? quantity.exact_milli_value() : quantity.exact_value();
}

std::int64_t ResourceList::get(Symbol name) const {
  if (name == resource_names::cpu()) return cpu_milli_;
  if (name == resource_names::memory()) return memory_;
  if (name == resource_names::ephemeral_storage()) return ephemeral_storage_;
  if (name == resource_names::pods()) return pods_;
  auto it = std::lower_bound(extended_.begin(), extended_.end(), name,
                             [](const auto& entry, Symbol key) { return entry.first < key; });
  return it != extended_.end() && it->first == name ? it->second : 0;
}

void ResourceList::set(Symbol name, std::int64_t amount) {
  if (name == resource_names::cpu()) { cpu_milli_ = amount; return; }
  if (name == resource_names::memory()) { memory_ = amount; return; }
  if (name == resource_names::ephemeral_storage()) { ephemeral_storage_ = amount; return; }
  if (name == resource_names::pods()) { pods_ = amount; return; }
  auto it = std::lower_bound(extended_.begin(), extended_.end(), name,
                             [](const auto& entry, Symbol key) { return entry.first < key; });
  const bool present = it != extended_.end() && it->first == name;
  // Zero amounts are not stored, so that equal lists compare equal however they were built.
  if (amount == 0) {
    if (present) extended_.erase(it);
  } else if (present) {
    it->second = amount;
  } else {
    extended_.insert(it, {name, amount});
  }
}

std::vector<std::pair<Symbol, std::int64_t>> ResourceList::entries() const {
  std::vector<std::pair<Symbol, std::int64_t>> out;
  out.reserve(4 + extended_.size());
  if (cpu_milli_ != 0) out.emplace_back(resource_names::cpu(), cpu_milli_);
  if (memory_ != 0) out.emplace_back(resource_names::memory(), memory_);
  if (ephemeral_storage_ != 0) out.emplace_back(resource_names::ephemeral_storage(), ephemeral_storage_);
  if (pods_ != 0) out.emplace_back(resource_names::pods(), pods_);
  out.insert(out.end(), extended_.begin(), extended_.end());
  return out;
}

void ResourceList::add(Symbol name, std::int64_t amount) { set(name, saturating_add(get(name), amount)); }

// The scheduler's hottest path: saturating_add is a plain add and a branch not taken unless it overflows.
ResourceList& ResourceList::operator+=(const ResourceList& other) {
  cpu_milli_ = saturating_add(cpu_milli_, other.cpu_milli_);
  memory_ = saturating_add(memory_, other.memory_);
  ephemeral_storage_ = saturating_add(ephemeral_storage_, other.ephemeral_storage_);
  pods_ = saturating_add(pods_, other.pods_);
  for (const auto& [name, amount] : other.extended_) add(name, amount);
  return *this;
}

ResourceList& ResourceList::operator-=(const ResourceList& other) {
  cpu_milli_ = saturating_sub(cpu_milli_, other.cpu_milli_);
  memory_ = saturating_sub(memory_, other.memory_);
  ephemeral_storage_ = saturating_sub(ephemeral_storage_, other.ephemeral_storage_);
  pods_ = saturating_sub(pods_, other.pods_);
  for (const auto& [name, amount] : other.extended_) set(name, saturating_sub(get(name), amount));
  return *this;
}

bool operator==(const ResourceList& a, const ResourceList& b) {
  return a.cpu_milli_ == b.cpu_milli_ && a.memory_ == b.memory_ && a.ephemeral_storage_ == b.ephemeral_storage_ &&
         a.pods_ == b.pods_ && a.extended_ == b.extended_;
}

ResourceList ResourceList::max(const ResourceList& a, const ResourceList& b) {
  // Every resource either side names; an absent one counts as zero (so max(-1, absent) is 0).
  ResourceList out;
  out.cpu_milli_ = std::max(a.cpu_milli_, b.cpu_milli_);
  out.memory_ = std::max(a.memory_, b.memory_);
  out.ephemeral_storage_ = std::max(a.ephemeral_storage_, b.ephemeral_storage_);
  out.pods_ = std::max(a.pods_, b.pods_);
  for (const auto& [name, amount] : a.extended_) out.set(name, std::max(amount, b.get(name)));
  for (const auto& [name, amount] : b.extended_) out.set(name, std::max(a.get(name), amount));
  return out;
}

ResourceList ResourceList::times(std::int64_t n) const {
  ResourceList out;
  for (const auto& [name, amount] : entries()) out.set(name, saturating_mul(amount, n));
  return out;
}

std::optional<Symbol> ResourceList::first_overflow(const ResourceList& other) const {
  std::int64_t sum = 0;
  for (const auto& [name, amount] : other.entries()) {
    if (__builtin_add_overflow(get(name), amount, &sum)) return name;
  }
  return std::nullopt;
}

bool ResourceList::any_saturated() const {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  if (cpu_milli_ == kMax || memory_ == kMax || ephemeral_storage_ == kMax || pods_ == kMax) return true;
  return std::any_of(extended_.begin(), extended_.end(), [](const auto& e) { return e.second == kMax; });
}

void ResourceList::take_away(const ResourceList& part) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  auto away = [](std::int64_t& sum, std::int64_t amount) {
    if (sum != kMax) sum = saturating_sub(sum, amount);
  };
  away(cpu_milli_, part.cpu_milli_);
  away(memory_, part.memory_);
  away(ephemeral_storage_, part.ephemeral_storage_);
  away(pods_, part.pods_);
  for (const auto& [name, amount] : part.extended_) {
    const std::int64_t sum = get(name);
    if (sum != kMax) set(name, saturating_sub(sum, amount));
  }
}

bool ResourceList::fits_in(const ResourceList& limit) const {
  if (cpu_milli_ > limit.cpu_milli_ || memory_ > limit.memory_ || ephemeral_storage_ > limit.ephemeral_storage_ ||
      pods_ > limit.pods_) {
    return false;
  }
  for (const auto& [name, amount] : extended_) {
    if (amount > limit.get(name)) return false;
  }
  return true;
}

bool ResourceList::is_zero() const {
  return cpu_milli_ == 0 && memory_ == 0 && ephemeral_storage_ == 0 && pods_ == 0 && extended_.empty();
}

bool ResourceList::any_negative() const {
  if (cpu_milli_ < 0 || memory_ < 0 || ephemeral_storage_ < 0 || pods_ < 0) return true;
  return std::any_of(extended_.begin(), extended_.end(), [](const auto& e) { return e.second < 0; });
}

std::string ResourceList::to_string() const {
  std::string out;
  for (const auto& [name, amount] : entries()) {
    if (!out.empty()) out += ' ';
    out += name.str();
    out += '=';
    out += format_amount(name, amount);
  }
  return out;
}

}  // namespace scalewright
