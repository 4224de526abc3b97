#pragma once
// Cluster Autoscaler's priority expander configuration as users keep it: the `priorities` entry of the
// kube-system/cluster-autoscaler-priority-expander ConfigMap, a YAML map of integer priority -> list of regexes
// matched against node group ids. Read here, apart from the engine's nodegroups/, which takes the PriorityConfig.
#include <string_view>

#include "api/result.h"
#include "nodegroups/expander.h"

namespace scalewright::config {

// Parses the `priorities` text. A whole ConfigMap manifest is accepted too: its data.priorities is read. Errors name
// the entry that is wrong.
Result<nodegroups::PriorityConfig> parse_priority_config(std::string_view text);

}  // namespace scalewright::config
