#pragma once
// Cluster Autoscaler's priority expander configuration as users keep it: the `priorities` entry of the
// kube-system/cluster-autoscaler-priority-expander ConfigMap, a YAML map of integer priority -> list of regexes
// matched against node group ids. Read here, apart from the engine's nodegroups/, which takes the PriorityConfig.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/result.h"
#include "nodegroups/expander.h"

namespace scalewright::config {

// Parses the `priorities` text. A whole ConfigMap manifest is accepted too: its data.priorities is read. Errors name
// the entry that is wrong.
Result<nodegroups::PriorityConfig> parse_priority_config(std::string_view text);

// The priority expander's configuration: parsed from `priorities` (the ConfigMap's data.priorities, when the cluster
// has it) if `expanders` names the priority expander, as CA reads it only then; nullopt otherwise. Errors begin with
// "--expander: " and say which ConfigMap was read.
Result<std::optional<nodegroups::PriorityConfig>> priority_expander_config(
    const std::vector<std::string>& expanders, const std::optional<std::string>& priorities);

}  // namespace scalewright::config
