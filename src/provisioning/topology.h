#pragma once
// Pod-to-pod constraints across existing nodes and the NodeClaims of one batch, as Karpenter's topology: each
// distinct (kind, key, selector, ...) is a group that counts matching pods per domain (a zone, a capacity type,
// a hostname). A NodeClaim's domain for a key is known once its requirements narrow the key to one value (or, for
// hostname, always: the claim is its own host). Placing a pod asks the groups which domains remain allowed and
// narrows the claim's requirements to the best one.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/nodepool.h"
#include "api/pod.h"
#include "api/requirements.h"
#include "provisioning/instance_types.h"
#include "provisioning/pod_constraints.h"
#include "scheduling/snapshot.h"

namespace scalewright::provisioning {

// A NodePool as provisioning uses it.
struct NodePoolInfo {
  const NodePool* pool = nullptr;
  RequirementSet requirements;  // template labels and requirements, karpenter.sh/nodepool included
  std::vector<std::pair<std::string, std::int32_t>> min_values;
  std::vector<std::string> own_keys;  // keys the NodePool itself labels, not checked against instance types (sorted)
  // Instance types its requirements allow that have an available offering, cheapest first in the zones and
  // capacity types its requirements allow (price_order_*).
  std::vector<std::uint32_t> types;
  // The zones and capacity types its requirements allow: the price order's, and those a claim opened from it has.
  std::uint64_t price_order_zones = 0;
  CapacityTypeMask price_order_capacity_types = 0;
  std::uint64_t zones = 0;
  CapacityTypeMask capacity_types = 0;
  // Annotated kPackAsKarpenterAnnotation "true": its NodeClaims grow as Karpenter's do, while any type holds them.
  bool pack_as_karpenter = false;
};

using GroupId = std::uint32_t;

// What one kind of pod (an equivalence class) is to the groups.
struct ClassTopology {
  const Pod* exemplar = nullptr;  // a pod of the class, for selectors registered later
  std::vector<GroupId> counted;  // groups its pods count toward (they match the selector, or own the term)
  std::vector<GroupId> blocked;  // inverse anti-affinity groups whose selector matches its pods
  std::vector<std::size_t> snapshot_terms;  // existing pods' anti-affinity groups matching its pods
  std::size_t snapshot_terms_seen = 0;
};

// A NodeClaim's share of the counts: matching pods per group.
struct ClaimTopology {
  Symbol hostname;
  std::vector<std::pair<GroupId, std::int32_t>> counts;
};

class Topology {
 public:
  Topology(const std::vector<NodePoolInfo>& pools, const InstanceTypeIndex& types,
           const scheduling::ClusterSnapshot& cluster);

  // Registers the groups of a pod kind's constraints (before any pod is placed) and returns their ids.
  std::vector<GroupId> register_groups(const PodConstraints& constraints);
  // The ids of groups already registered for these constraints (a relaxed variant owns a subset).
  std::vector<GroupId> groups_of(const PodConstraints& constraints) const;
  // Inverse anti-affinity: the required anti-affinity terms of `pod` as groups that count where such pods are.
  void register_inverse(const Pod& pod);
  // Once every group is registered: which groups pods like `pod` count toward or are blocked by.
  ClassTopology classify(const Pod& pod) const;

  // Whether an existing node's domains allow the pod, given pods placed on NodeClaims of this batch (the
  // scheduler's filters have already judged the node against the cluster's own pods).
  bool allows_node(const std::vector<GroupId>& owned, const ClassTopology& cls,
                   const scheduling::NodeInfo& node) const;

  // How the pod's groups narrow a NodeClaim: not at all, to `options` (best first), or not possible (`reason`
  // then names the rule).
  enum class Narrowing { Unchanged, Narrowed, Rejected };
  Narrowing claim_options(const std::vector<GroupId>& owned, ClassTopology& cls, const ClaimTopology& claim,
                          const RequirementSet& requirements, std::vector<RequirementSet>& options,
                          std::string* reason) const;
  // Whether any group constrains where pods of `cls` with these owned groups go.
  bool constrains(const std::vector<GroupId>& owned, ClassTopology& cls) const;

  // A pod of `cls` was placed on an existing node.
  void record_node(const ClassTopology& cls, const scheduling::NodeInfo& node);
  // A NodeClaim's contribution to the counts: retract before changing its pods or requirements, apply after.
  void retract(const ClaimTopology& claim, const RequirementSet& requirements, const std::vector<Taint>& taints);
  void apply(const ClaimTopology& claim, const RequirementSet& requirements, const std::vector<Taint>& taints);


 private:
  enum class Kind : std::uint8_t { Spread, Affinity, AntiAffinity, Inverse };
  struct Group {
    Kind kind = Kind::Spread;
    Symbol key;
    std::string key_text;
    bool hostname = false;
    std::int32_t max_skew = 1;
    std::optional<std::int32_t> min_domains;
    std::optional<scheduling::PodMatcher> matcher;
    bool honor_affinity = false;
    bool honor_taints = false;
    std::vector<RequirementSet> owner_strict;
    std::vector<Toleration> owner_tolerations;
    std::vector<Symbol> domains;   // known domains of the key, sorted by text (not for hostname)
    std::vector<char> pod_domain;  // parallel: the owner may run there
    std::unordered_map<Symbol, std::int32_t> counts;
    std::string description;
    std::string inverse_term;  // Inverse: canonical text of the anti-affinity term it stands for
  };

  std::string identity(const TopologyTerm& term, const PodConstraints& owner) const;
  void register_domains(Group& group) const;
  bool node_counts(const Group& group, const scheduling::NodeInfo& node) const;
  bool claim_counts(const Group& group, const RequirementSet& requirements, const std::vector<Taint>& taints) const;
  void contribute(const ClaimTopology& claim, const RequirementSet& requirements, const std::vector<Taint>& taints,
                  int sign);
  std::int32_t count(const Group& group, Symbol domain) const;
  // The known domain of `group` spelled `text`; the empty symbol when there is none.
  Symbol find_domain(const Group& group, std::string_view text) const;
  std::int64_t spread_min(const Group& group) const;
  bool bootstrap(const Group& group, bool self_match) const;
  void refresh(ClassTopology& cls) const;

  const std::vector<NodePoolInfo>& pools_;
  const InstanceTypeIndex& types_;
  const scheduling::ClusterSnapshot& cluster_;
  std::vector<Group> groups_;
  std::unordered_map<std::string, GroupId> by_identity_;
  // classify's answer by what it reads of the pod (deletion, namespace, labels, owned inverse terms): pods of
  // one workload that differ only in requests are separate classes, and every class would otherwise test every
  // group. Cleared whenever a group is registered.
  struct Classified {
    std::vector<GroupId> counted;
    std::vector<GroupId> blocked;
  };
  mutable std::unordered_map<std::string, Classified> classified_;
  // claim_options()'s scratch, kept so that a call allocates nothing once they have grown.
  mutable std::vector<Symbol> scratch_keys_, scratch_allowed_, scratch_open_;
};

// Domain of a node for a topology key: its label, or for hostname the node name when the label is missing.
const Symbol* node_domain(const scheduling::NodeInfo& node, Symbol key);

// Whether node labels satisfy a requirement set (an absent label only where the requirement allows absence).
bool labels_satisfy(const RequirementSet& requirements, const Labels& labels);

}  // namespace scalewright::provisioning
