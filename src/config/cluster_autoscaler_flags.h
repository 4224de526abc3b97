#pragma once
// Cluster Autoscaler's command line (read here, apart from the engine's nodegroups/, which takes the options it
// yields as values), as users keep it in CA's Deployment (`command:` or `args:`), read into
// AutoscalerOptions so an existing set-up moves over unchanged. Flags are CA's own names and syntax (pflag):
// `--flag=value` or `--flag value`, booleans as `--flag` or `--flag=false`, `--nodes`,
// `--node-group-auto-discovery` and `--balancing-ignore-label` repeated; a discovery spec is kept as given, for the
// provider to read (cloud/aws reads `asg:tag=...`), and so is `--cloud-provider` (the simulator reads Cluster API's
// objects as CA's groups with `clusterapi`). CA flags Scalewright does not act on (logging, leader election, ...) are
// accepted and listed in AutoscalerOptions::ignored_flags; anything else is an error.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "api/result.h"
#include "nodegroups/options.h"

namespace scalewright::config {

using nodegroups::AutoscalerOptions;
using nodegroups::StaticNodeGroup;

// Parses `args`. When the first element is the binary ("./cluster-autoscaler", "/cluster-autoscaler",
// ".../cluster-autoscaler"), as in a container's `command`, it is skipped. Errors name the flag and the value
// at fault (`flag --nodes: "1:x:ng": max size "x" is not an integer`); when `failed_arg` is given it receives the
// index in `args` of the element at fault, so a manifest decoder can point at `args[i]`.
Result<AutoscalerOptions> parse_autoscaler_flags(const std::vector<std::string>& args,
                                                 std::size_t* failed_arg = nullptr);

// --nodes=MIN:MAX:NAME (the name may itself hold colons, as CA splits on the first two).
Result<StaticNodeGroup> parse_nodes_flag(std::string_view value);

// CA's flags that are accepted and ignored, without the leading dashes, sorted.
const std::vector<std::string_view>& ignored_autoscaler_flags();

}  // namespace scalewright::config
