#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/resources.h"

namespace scalewright {

struct NodeCondition {
  std::string type;    // Ready, MemoryPressure, ...
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::optional<std::int64_t> last_transition_time{};  // seconds since the epoch (UTC), as the kubelet wrote it
};

struct Node {
  ObjectMeta meta;
  // spec
  bool unschedulable = false;
  std::vector<Taint> taints;
  std::string provider_id;
  // status
  ResourceList capacity;
  ResourceList allocatable;  // defaults to capacity when the manifest leaves it out
  std::vector<NodeCondition> conditions;

  bool is_ready() const;
};

}  // namespace scalewright
