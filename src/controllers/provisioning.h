#pragma once
// Karpenter's provisioning loop. Pods that fit on no node and wait for no planned capacity open a batch (1 s
// idle, 10 s at most); when it closes, plan_provisioning packs the batch onto in-flight and new NodeClaims, the
// new ones are launched from their cheapest available offering (an offering out of capacity is avoided for 3
// minutes, the next one tried), and the pods are nominated to the capacity planned for them. A nomination holds
// only while its node is in flight: once the node is Ready, kube-scheduler binds in its own order, and a pod it did
// not place there needs capacity again.
#include <cstdint>
#include <string>
#include <vector>

#include "cloud/cloud_provider.h"
#include "controllers/node_lifecycle.h"
#include "controllers/node_names.h"
#include "controllers/ports.h"
#include "provisioning/batcher.h"
#include "provisioning/provisioner.h"
#include "state/cluster_state.h"

namespace scalewright::controllers {

class NodeGroupController;

class ProvisioningController : private Controller {
 public:
  // How long an offering that returned insufficient capacity is avoided (Karpenter's unavailable-offerings TTL).
  static constexpr Duration kUnavailableOfferingTtl{3 * 60'000};

  ProvisioningController(const Ports& ports, NodeNames& names, NodeLifecycleController& lifecycle,
                         provisioning::BatchWindow window)
      : Controller(ports), names_(names), lifecycle_(lifecycle), batcher_(window) {}
  // With Cluster Autoscaler beside it, a pending pod is CA's first: NodePools provision only for the pods its last
  // scan found no node group for.
  void defer_to(const NodeGroupController* node_groups) { node_groups_ = node_groups; }

  // After kube-scheduler's pass over the pending pods: nominations to nodes no longer in flight end, and pods that
  // need capacity open or extend the batch. Acts when the pass saw something new, or when asked to look again.
  void reconcile();
  // Pending pods may now be provisioned although no observed object changed (Cluster Autoscaler left them to the
  // NodePools; an unavailable offering's time is up).
  void look_again() {
    look_again_ = true;
    capacity_freed_ = true;
  }

 private:
  void on_batch_deadline();
  void provision();
  void launch(provisioning::NewNodeClaim claim, const std::vector<const state::PodRecord*>& pods);

  NodeNames& names_;
  NodeLifecycleController& lifecycle_;
  const NodeGroupController* node_groups_ = nullptr;
  provisioning::Batcher batcher_;
  provisioning::UnavailableOfferings unavailable_;
  std::uint64_t scheduling_seen_ = 0;  // the state's scheduling_changes() at the last reconcile
  std::uint64_t capacity_seen_ = 0;    // its capacity_changes() when a batch was last opened or extended
  bool look_again_ = false;            // reconcile, whatever the state says
  bool capacity_freed_ = false;        // pods need capacity again: worth a batch although no object changed
};

}  // namespace scalewright::controllers
