#pragma once
// Termination of a node that still runs pods, through the eviction API's rules: the node is tainted (nothing new
// schedules there) and its pods are evicted, each eviction that a PodDisruptionBudget refuses (or that two PDBs
// cover) retried every 10 s; an evicted pod's controller replaces it at once while the pod runs out its grace
// period. The node is deleted once the last evicted pod is gone; a pod still not evicted when the drain's time is
// up fails it: the taint comes off and the node stays. Cluster Autoscaler's scale-down drains this way today.
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/instant.h"
#include "api/node.h"
#include "api/nodepool.h"
#include "cloud/cloud_provider.h"
#include "controllers/ports.h"
#include "state/cluster_state.h"

namespace scalewright::controllers {

struct DrainRules {
  Taint taint;                           // put on the node while it drains (ToBeDeletedByClusterAutoscaler)
  Duration max_pod_eviction_time{0};     // how long refused evictions are retried before the drain fails
  Duration max_graceful_termination{0};  // the longest grace period an evicted pod is given
  Duration delay_after_failure{0};       // how long the owner waits after a failed drain (for the message)
  // Karpenter's terminationGracePeriod: when max_pod_eviction_time is up, the pods still there are deleted without
  // eviction and the node goes anyway, instead of the drain failing.
  bool force_at_deadline = false;
  // Karpenter's drain: a pod that says karpenter.sh/do-not-disrupt is not evicted; it stays until the deadline
  // forces the drain (for ever without one), or until it goes by itself.
  bool wait_on_do_not_disrupt = false;
  // False for a drain that only empties the node (a spot interruption of a node group's instance, as the AWS Node
  // Termination Handler drains it): the node stays cordoned until the cloud takes its instance.
  bool delete_when_drained = true;
};

// The taint a node gets once Karpenter chose to disrupt it (karpenter.sh/disrupted:NoSchedule): nothing new lands
// there.
const Taint& disrupted_taint();
// Karpenter's drain: the disrupted taint, each pod its own grace period, PodDisruptionBudgets and do-not-disrupt
// pods waited on for as long as it takes, unless the NodePool's terminationGracePeriod bounds the drain.
DrainRules karpenter_drain_rules(const NodePool* pool);

class TerminationController : private Controller {
 public:
  // A refused eviction is tried again this much later (Cluster Autoscaler's EvictionRetryTime).
  static constexpr Duration kEvictionRetry{10'000};

  // Told when a drain ended: `deleted` false when it failed.
  using Finished = std::function<void(const std::string& node, const std::string& group, bool deleted)>;

  explicit TerminationController(const Ports& ports) : Controller(ports) {}

  // Taints `node` (of `group`, unneeded since `unneeded_since`) and evicts its pods; `finished` is told the end.
  void drain(const std::string& node, const std::string& group, Instant unneeded_since, const DrainRules& rules,
             Finished finished);
  // A pod of `node` ran out its grace period and is gone.
  void pod_terminated(const std::string& node);
  // NodeClaims deleted and held by their finalizer (state::ClusterState::nodeclaims_finalizing), whoever deleted
  // them (kubectl delete nodeclaim, a leader that stopped mid-drain, or the controllers): a Ready node is drained by
  // Karpenter's rules first; then the node is deleted, its instance's termination asked, and the finalizer removed.
  void reconcile();

  // Drains under way, per group.
  std::map<std::string, std::int32_t> drains_per_group() const;
  std::size_t drains() const { return drains_.size(); }
  bool draining(const std::string& node) const { return drains_.count(node) > 0; }

 private:
  struct NodeDrain {
    std::string group;
    Instant started{};
    Instant unneeded_since{};
    DrainRules rules;
    Finished finished;
    std::vector<std::string> to_evict;                // pods whose eviction was refused so far, retried
    std::vector<std::string> evicted;                 // the node goes when these have stopped
    std::map<std::string, std::string> last_refusal;  // pod -> what the last refusal said, said once
  };
  void evict_round(const std::string& node);
  void finish_if_done(const std::string& node);

  std::map<std::string, NodeDrain> drains_;
  std::set<std::string> released_;  // NodeClaims whose finalizer was removed, until the state says they are gone
};

}  // namespace scalewright::controllers
