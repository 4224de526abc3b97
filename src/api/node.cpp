#include "api/node.h"

#include <algorithm>

namespace scalewright {

// A node without a Ready condition counts as ready: hand-written manifests rarely carry status conditions, and
// kube-scheduler itself looks only at the not-ready taint the node lifecycle controller adds.
bool Node::is_ready() const {
  auto it = std::find_if(conditions.begin(), conditions.end(), [](const NodeCondition& c) { return c.type == "Ready"; });
  return it == conditions.end() || it->status == "True";
}

}  // namespace scalewright
