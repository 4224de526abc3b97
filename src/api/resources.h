#pragma once
// A list of resource amounts: cpu in millicores; memory, ephemeral-storage and hugepages in bytes; pods and
// extended resources (nvidia.com/gpu, ...) as counts. The four common resources are fixed fields so that the
// hot path adds and compares plain integers; anything else lives in a short sorted vector.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/quantity.h"
#include "api/symbol.h"

namespace scalewright {

namespace resource_names {
inline const Symbol& cpu() { static const Symbol s("cpu"); return s; }
inline const Symbol& memory() { static const Symbol s("memory"); return s; }
inline const Symbol& ephemeral_storage() { static const Symbol s("ephemeral-storage"); return s; }
inline const Symbol& pods() { static const Symbol s("pods"); return s; }
}  // namespace resource_names

// The amount a quantity stands for in resource `name`'s unit: milli for cpu, whole units (rounded up) otherwise.
std::int64_t resource_amount(Symbol name, const Quantity& quantity);
// As resource_amount(), or nullopt when the amount does not fit in an int64 in that unit (cpu "1e308").
std::optional<std::int64_t> exact_resource_amount(Symbol name, const Quantity& quantity);

// An amount of resource `name` as a Kubernetes quantity: "3920m" or "4" for cpu, "16Gi" for bytes, "110" else.
std::string format_amount(Symbol name, std::int64_t amount);

// Arithmetic on amounts saturates at int64's limits, everywhere (see api/saturating.h). The API server checks
// each quantity on its own (each fits an int64) but never a sum of them, and kube-scheduler adds them in int64,
// where two containers of 5Ei wrap to a negative request that fits any node. Here a sum past 2^63-1 stays at
// 2^63-1, the most a node's allocatable can hold, so a saturated request fits no real node and a saturated
// node's requested leaves room for nothing. A pod whose own requests sum that far is refused when it is decoded
// (requests_overflow in api/pod.h); the sums no decoder sees (many pods on a node, a NodePool's usage, a claim of
// k pods) cannot be refused, so they saturate.
class ResourceList {
 public:
  ResourceList() = default;

  std::int64_t get(Symbol name) const;
  void set(Symbol name, std::int64_t amount);
  void add(Symbol name, std::int64_t amount);

  std::int64_t cpu_milli() const { return cpu_milli_; }
  std::int64_t memory() const { return memory_; }
  std::int64_t ephemeral_storage() const { return ephemeral_storage_; }
  std::int64_t pods() const { return pods_; }
  // Resources beyond the four above, sorted by name id.
  const std::vector<std::pair<Symbol, std::int64_t>>& extended() const { return extended_; }

  // Every named resource, the four common ones first (only those that are non-zero), then extended ones.
  std::vector<std::pair<Symbol, std::int64_t>> entries() const;

  ResourceList& operator+=(const ResourceList& other);
  ResourceList& operator-=(const ResourceList& other);
  friend ResourceList operator+(ResourceList a, const ResourceList& b) { return a += b; }
  friend ResourceList operator-(ResourceList a, const ResourceList& b) { return a -= b; }
  friend bool operator==(const ResourceList& a, const ResourceList& b);

  // Resource by resource, the larger of the two.
  static ResourceList max(const ResourceList& a, const ResourceList& b);
  // Each resource multiplied by n (a workload of n replicas).
  ResourceList times(std::int64_t n) const;
  // The first resource (in entries() order) whose sum with `other`'s would pass int64's limits, if any.
  std::optional<Symbol> first_overflow(const ResourceList& other) const;
  // True when some resource stands at int64's maximum: a sum that saturated there has lost what it summed.
  bool any_saturated() const;
  // *this is a sum that included `part`: takes it away, except from a resource whose sum saturated, which stays
  // at the limit (taking a part from a sum that lost count would under-count the rest).
  void take_away(const ResourceList& part);

  // True when every resource in *this is at most the same resource in `limit` (absent counts as zero).
  bool fits_in(const ResourceList& limit) const;
  bool is_zero() const;
  bool any_negative() const;

  // "cpu=500m memory=1Gi nvidia.com/gpu=1": human units, for logs and reasons.
  std::string to_string() const;

 private:
  std::int64_t cpu_milli_ = 0;
  std::int64_t memory_ = 0;
  std::int64_t ephemeral_storage_ = 0;
  std::int64_t pods_ = 0;
  std::vector<std::pair<Symbol, std::int64_t>> extended_;
};

}  // namespace scalewright
