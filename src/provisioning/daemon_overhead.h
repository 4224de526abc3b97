#pragma once
// The DaemonSet pods a new node would run, and what they request, per instance type: a DaemonSet counts on a
// NodeClaim when it tolerates the claim's taints and one of its node selector terms is compatible with both the
// claim's requirements and the type's labels.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "api/requirements.h"
#include "api/resources.h"
#include "api/workloads.h"
#include "provisioning/instance_types.h"

namespace scalewright::provisioning {

class DaemonOverhead {
 public:
  // Only the first 64 (DaemonSet, node selector term) alternatives are told apart; further ones are ignored.
  DaemonOverhead(const std::vector<Workload>& daemonsets, InstanceTypeIndex& types);

  // The alternatives that a NodeClaim with these requirements and taints allows.
  std::uint64_t claim_mask(const RequirementSet& requirements, const std::vector<Taint>& taints) const;
  // What the daemon pods request on a node of type `type` of a NodeClaim with `claim_mask`.
  const ResourceList& requests(std::uint64_t claim_mask, std::size_t type);

 private:
  struct Alternative {
    std::size_t daemon = 0;
    RequirementSet requirements;
  };
  struct Daemon {
    ResourceList requests;
    std::vector<Toleration> tolerations;
    std::uint64_t bits = 0;  // its alternatives
  };

  InstanceTypeIndex& types_;
  std::vector<Daemon> daemons_;
  std::vector<Alternative> alternatives_;
  std::vector<std::uint64_t> type_mask_;  // per type: the alternatives its labels allow
  std::unordered_map<std::uint64_t, ResourceList> by_mask_;  // node-based: what requests() returns stays put
  std::uint64_t last_landing_ = 0;  // the last mask requests() found, and its entry
  const ResourceList* last_ = nullptr;
};

}  // namespace scalewright::provisioning
