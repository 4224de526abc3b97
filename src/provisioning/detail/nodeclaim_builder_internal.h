// Internal to src/provisioning/: helpers the NodeClaimBuilder's files share (nodeclaim_builder.cpp,
// nodepool_limits.cpp), formerly in nodeclaim_builder.cpp's anonymous namespace. Inline, as they were there: both
// are read in the builder's hot loop.
#pragma once

#include <cstdint>
#include <string_view>

#include "api/meta.h"
#include "api/nodepool.h"
#include "cloud/instance_type.h"
#include "provisioning/instance_types.h"

namespace scalewright::provisioning::detail {

inline bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// Keys the instance type's labels do not decide: offerings, the host, and labels Karpenter itself sets.
inline bool type_independent(std::string_view key) {
  return is_offering_key(key) || key == well_known::hostname || starts_with(key, "karpenter.sh/");
}

// What launching `type` counts against a NodePool's limit on `resource`: its capacity, and one of `nodes`
// (limit_usage() for a single resource, without building the list).
inline std::int64_t counted(const cloud::InstanceType& type, Symbol resource) {
  return resource == nodes_resource() ? 1 : type.capacity.get(resource);
}

}  // namespace scalewright::provisioning::detail
