#pragma once
// Cluster Autoscaler's node groups, carried out: every --scan-interval, what the cluster shows is handed to
// ClusterAutoscalerLoop, and what it decides is done through the ports — a scale-up raises the group's target
// through the node-group port (the cloud launches the instances), an empty unneeded node is tainted and deleted at
// once through its group, any other is drained through TerminationController. Pods no group can take are left to the
// NodePools (ProvisioningController::defer_to).
#include <map>
#include <string>
#include <string_view>

#include "api/instant.h"
#include "cloud/cloud_provider.h"
#include "cloud/played_node_groups.h"
#include "controllers/cluster_autoscaler_loop.h"
#include "controllers/node_lifecycle.h"
#include "controllers/ports.h"
#include "controllers/termination.h"
#include "state/cluster_state.h"

namespace scalewright::controllers {

class ProvisioningController;

// A group as a cloud that plays node groups in memory (the simulated cloud, kwok) launches it: its instance type,
// zones and capacity type, its template's labels (with the group's own) and taints.
cloud::PlayedGroupSpec played_group(const nodegroups::NodeGroup& group);

class ClusterAutoscalerController : private Controller {
 public:
  ClusterAutoscalerController(const Ports& ports, NodeLifecycleController& lifecycle,
                      TerminationController& termination, ClusterAutoscalerLoop loop)
      : Controller(ports), lifecycle_(lifecycle), termination_(termination), loop_(std::move(loop)) {}
  // Told when pods no group takes are left to the NodePools.
  void hand_off_to(ProvisioningController* provisioning) { provisioning_ = provisioning; }

  // The groups' desired nodes are running when the controller starts, and it scans from now on (the simulator).
  void start();
  // On a running cluster (`scalewright run`, a new leader): each group's nodes are the ones the cluster shows, and
  // its target size what the cloud would keep — those nodes, at least the group's minimum, or its desired
  // capacity while it has none; the missing ones are launched. A scale-down a leader left half done is abandoned
  // (its ToBeDeleted taint removed), as Cluster Autoscaler does on start. Scans from now on.
  void resume();
  // Launches `count` instances of `group` (`running_already`: instances the group had before the start).
  // `why`: what the nodes are for, as their Event says it ("the scale-up {ng-1 1->3 (max: 10)} ...").
  void launch(const nodegroups::NodeGroup& group, std::int32_t count, const std::string& why,
              bool running_already = false);
  // A node of `group` never came (no capacity, or it did not register in time): the group backs off.
  void provisioning_failed(const std::string& group, const std::string& error_code);
  // Whether CA's last scan found no group for this pending pod (and left it to the NodePools).
  bool declined(std::string_view pod) const { return declined_.find(pod) != declined_.end(); }

  const ClusterAutoscalerLoop& loop() const { return loop_; }

 private:
  void on_scan();
  // An instance the group's cloud launched: its node, the group's template under the instance's name, is tracked
  // until it registers.
  void registers(const nodegroups::NodeGroup& group, const cloud::Instance& instance, const std::string& why,
                 bool running_already);
  // A Ready node launched within --max-node-provision-time that carries the not-ready or unreachable taint, and has
  // not failed since.
  bool still_starting(const state::NodeRecord& node, Instant now) const;
  void remove(const nodegroups::UnneededNode& unneeded);
  void record_pod_events(std::vector<nodegroups::Event> events);
  DrainRules drain_rules() const;

  NodeLifecycleController& lifecycle_;
  TerminationController& termination_;
  ClusterAutoscalerLoop loop_;
  scheduling::Scheduler scheduler_;
  ProvisioningController* provisioning_ = nullptr;
  // Pod -> why no group takes it, as of the last scan.
  std::map<std::string, std::string, std::less<>> declined_;
  // Pod -> the NotTriggerScaleUp message last recorded on it: said again only when it changes.
  std::map<std::string, std::string, std::less<>> not_triggered_said_;
};

}  // namespace scalewright::controllers
