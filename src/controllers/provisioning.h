#pragma once
// Karpenter's provisioning loop. Pods that fit on no node and wait for no planned capacity open a batch (1 s
// idle, 10 s at most); when it closes, plan_provisioning packs the batch onto in-flight and new NodeClaims, the
// new ones are launched from their cheapest available offering (an offering out of capacity is avoided for 3
// minutes, the next one tried), and the pods are nominated to the capacity planned for them. A nomination holds
// only while its node is in flight: once the node is Ready, kube-scheduler binds in its own order, and a pod it did
// not place there needs capacity again.
#include <cstdint>
#include <map>
#include <unordered_map>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "cloud/cloud_provider.h"
#include "controllers/node_lifecycle.h"
#include "controllers/node_names.h"
#include "controllers/ports.h"
#include "provisioning/batcher.h"
#include "provisioning/launch_explanation.h"
#include "provisioning/provisioner.h"
#include "state/cluster_state.h"

namespace scalewright::controllers {

class ClusterAutoscalerController;

// What a provisioning plan needs to know of the cluster beside the pods it places: the DaemonSets (their pods land
// on every new node), the NodePools with the instance types `cloud` gives each (or why it gives none), and the
// capacity each NodePool runs (against its limits).
void describe_cluster(const state::ClusterState& state, const cloud::CloudProvider& cloud,
                      provisioning::ProvisioningInput& input);

// The record of NodeClaim `claim` (in flight, created with its labels and taints) once `instance` was launched for
// it: the instance's type, zone, capacity type and price, and the labels its node registers with.
state::NodeRecord launched_nodeclaim(const state::NodeRecord& claim, const cloud::Instance& instance);

class ProvisioningController : private Controller {
 public:
  // How long an offering that returned insufficient capacity is avoided (Karpenter's unavailable-offerings TTL).
  static constexpr Duration kUnavailableOfferingTtl{3 * 60'000};
  // A launch is made over at most this many of a NodeClaim's instance types, the cheapest, as Karpenter's AWS
  // provider truncates its CreateFleet request (all of them where the NodePool sets minValues, which the
  // truncation must keep).
  static constexpr std::size_t kLaunchInstanceTypes = 60;

  ProvisioningController(const Ports& ports, NodeNames& names, NodeLifecycleController& lifecycle,
                         provisioning::BatchWindow window)
      : Controller(ports), launches_(ports.launches), names_(names), lifecycle_(lifecycle), batcher_(window) {}
  // With Cluster Autoscaler beside it, a pending pod is CA's first: NodePools provision only for the pods its last
  // scan found no node group for.
  void defer_to(const ClusterAutoscalerController* node_groups) { node_groups_ = node_groups; }

  // After kube-scheduler's pass over the pending pods: nominations to nodes no longer in flight end, and pods that
  // need capacity open or extend the batch. Acts when the pass saw something new, or when asked to look again.
  void reconcile();
  // Pending pods may now be provisioned although no observed object changed (Cluster Autoscaler left them to the
  // NodePools; an unavailable offering's time is up).
  void look_again() {
    look_again_ = true;
    capacity_freed_ = true;
  }

  // Launches a node disruption planned (a consolidation's or a drifted node's replacement) from the claim's
  // cheapest available offering; the NodeClaim's name (created, its launch under way or done), or nullopt when no
  // offering was left or its launch was refused at once. A launch refused later deletes the NodeClaim.
  // `purpose` completes the timeline's "NodeClaim ... launched ... for ".
  std::optional<std::string> launch_replacement(provisioning::NewNodeClaim claim, const std::string& purpose);
  // Offerings that just ran out of capacity, which a replacement avoids too.
  const provisioning::UnavailableOfferings& unavailable() const { return unavailable_; }
  // `offering` is to be avoided for kUnavailableOfferingTtl from now, as one that ran out of capacity is: the cloud
  // said it is taking that capacity back (a spot interruption).
  void offering_unavailable(const provisioning::OfferingKey& offering);
  // Whether it said why `pod` cannot be provisioned (its FailedScheduling), and nothing has changed for the pod
  // since (no nomination of it ended): the pod waits for a change of its own, not for capacity.
  bool said_unschedulable(const state::PodRecord& pod) const;

 private:
  // A NodeClaim created and not yet answered for: what its launch's answer is said and explained with.
  struct PendingLaunch {
    std::string name;
    provisioning::NewNodeClaim claim;
    std::vector<std::string> pods;  // the keys of the pods nominated to it
    std::string purpose;
  };

  void on_batch_deadline();
  void provision();
  void nominate(const state::PodRecord& pod, const std::string& node);
  void nominated_event(const state::PodRecord& pod, const std::string& node);
  std::optional<std::string> launch(provisioning::NewNodeClaim claim,
                                    const std::vector<const state::PodRecord*>& pods, const std::string& purpose);
  // The cloud's answer to a NodeClaim's launch (on the controllers' thread): the claim takes its instance, or is
  // deleted and its pods need capacity again.
  void launched(PendingLaunch& pending, cloud::CloudResult<cloud::Created> created);
  void not_launched(const PendingLaunch& pending, const cloud::CloudError& error);
  void say_refusals(const std::vector<cloud::LaunchOption>& refused, std::string_view then);

  // Why each pod it found no capacity for cannot be provisioned, by the pod's serial, as last said: said once, and
  // anew once a nomination of the pod ended (`nominations_ended` moved).
  struct Verdict {
    Symbol reason;
    std::uint32_t nominations_ended = 0;
  };
  std::unordered_map<std::uint64_t, Verdict> verdicts_;

  Launches& launches_;
  // The NodeClaims whose launch has not answered yet, as the node their first offering would be: what later
  // provisioning passes pack onto meanwhile (the state's record holds no instance type before the answer).
  std::map<std::string, Node> expected_;
  NodeNames& names_;
  NodeLifecycleController& lifecycle_;
  const ClusterAutoscalerController* node_groups_ = nullptr;
  provisioning::Batcher batcher_;
  provisioning::UnavailableOfferings unavailable_;
  provisioning::LaunchExplainer explainer_;
  std::uint64_t scheduling_seen_ = 0;  // the state's scheduling_changes() at the last reconcile
  std::uint64_t capacity_seen_ = 0;    // its capacity_changes() when a batch was last opened or extended
  bool look_again_ = false;            // reconcile, whatever the state says
  bool capacity_freed_ = false;        // pods need capacity again: worth a batch although no object changed
  state::NodeChanges node_changes_{state_};  // nodes changed since the last reconcile: which may have landed
};

}  // namespace scalewright::controllers
