#pragma once
// Cluster Autoscaler's node groups, carried out: every --scan-interval, what the cluster shows is handed to
// ClusterAutoscalerLoop, and what it decides is done through the ports — a scale-up raises the group's target
// through the node-group port (the cloud launches the instances), an empty unneeded node is tainted and deleted at
// once through its group, any other is drained through TerminationController. Pods no group can take are left to the
// NodePools (ProvisioningController::defer_to).
#include <map>
#include <set>
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
// zones and capacity type, its template's labels (with the group's own) and taints. With `own_type`, its instances
// are its template node rather than a type of the cloud's catalog (a Cluster API group, shaped by its annotations):
// that type goes with the spec, named as the group's instance type, offered on demand at the group's price in its
// zones, or zone-less when it names none.
cloud::PlayedGroupSpec played_group(const nodegroups::NodeGroup& group, bool own_type = false);

class ClusterAutoscalerController : private Controller {
 public:
  ClusterAutoscalerController(const Ports& ports, NodeLifecycleController& lifecycle,
                      TerminationController& termination, ClusterAutoscalerLoop loop)
      : Controller(ports), lifecycle_(lifecycle), termination_(termination), loop_(std::move(loop)) {}
  // Told when pods no group takes are left to the NodePools.
  void hand_off_to(ProvisioningController* provisioning) { provisioning_ = provisioning; }

  // The groups' desired nodes are running when the controller starts, and it scans from now on (the simulator).
  void start();
  // On a running cluster (`scalewright run`, a new leader): each group's nodes are the ones the cluster shows (and,
  // for a cloud that lists them, those of its instances), and its target size what the cloud would keep — those
  // nodes, at least the group's minimum, or its desired capacity while it has none, or the cloud's own target
  // when that is more; the missing ones are launched. A scale-down a leader left half done is abandoned (its
  // ToBeDeleted taint removed), as Cluster Autoscaler does on start. Scans from now on.
  void resume();
  // Launches `count` instances of `group` (`running_already`: instances the group had before the start).
  // `why`: what the nodes are for, as their Event says it ("the scale-up {ng-1 1->3 (max: 10)} ...").
  void launch(const nodegroups::NodeGroup& group, std::int32_t count, const std::string& why,
              bool running_already = false);
  // A node of `group` never came (no capacity, or it did not register in time): the group backs off.
  void provisioning_failed(const std::string& group, const std::string& error_code);
  // Whether CA's last scan found no group for this pending pod (and left it to the NodePools). With no group at all
  // (Cluster API's provider runs CA's model whether or not an object is a group), every pod is the NodePools' at once:
  // they do not wait for a scan that can take nothing.
  bool declined(std::string_view pod) const {
    return loop_.groups().empty() || declined_.find(pod) != declined_.end();
  }

  const ClusterAutoscalerLoop& loop() const { return loop_; }

 private:
  void on_scan();
  // An instance the group's cloud launched: its node, the group's template under the instance's name, is tracked
  // until it registers.
  void registers(const nodegroups::NodeGroup& group, const cloud::Instance& instance, const std::string& why,
                 bool running_already);
  // The group's instances as its cloud lists them (Cluster Autoscaler's NodeGroup.Nodes()), for a cloud that
  // launches them after a raise rather than at it (an Auto Scaling group): an instance not known yet is the group's
  // node — the Node already registered with its providerID, or else a node planned until one registers with it
  // (under the name its kubelet chooses); one that failed is let go and the group backs off; a planned node whose
  // instance left the group before registering stops counting. Placeholders (capacity not launched yet) are
  // upcoming and nothing more. For a cloud that returned its instances at the raise, all are known: nothing changes.
  void sync_instances(const nodegroups::NodeGroup& group);
  // An instance of `group` whose creation failed: the group backs off and lets it go (its target drops with it).
  void let_go(const nodegroups::NodeGroup& group, const cloud::GroupInstance& instance);
  // The record of the group's node on `instance`, named `name`.
  state::NodeRecord group_node(const nodegroups::NodeGroup& group, const cloud::Instance& instance,
                               const std::string& name) const;
  // A Ready node launched within its group's max node provision time that carries the not-ready or unreachable
  // taint, and has not failed since.
  bool still_starting(const state::NodeRecord& node, Instant now) const;
  // How long a node of `group` may take to become Ready: the group's maxnodeprovisiontime option where it sets one
  // (as CA's clusterstate reads each group's own), else --max-node-provision-time.
  Duration max_node_provision_time(const std::string& group) const;
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
  // Per group: the ids of its instances that have a node of the group (launched, planned or found), as of its last
  // listing and since; the failed ones being let go; and why its instances could not be listed, as last said.
  std::map<std::string, std::set<std::string>> known_instances_;
  std::map<std::string, std::set<std::string>> failed_instances_;
  std::map<std::string, std::string> unlisted_;
  // Nodes planned for listed instances, still waiting for their Node: name -> instance id.
  std::map<std::string, std::string> planned_;
};

}  // namespace scalewright::controllers
