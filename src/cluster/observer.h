#pragma once
// What the informers deliver, observed into the cluster state: the adapter that feeds src/state/ from Kubernetes
// lists and watches, as src/sim/ feeds it from simulated events. It translates objects into observations and
// decides nothing.
//
// Two differences from the simulator shape what is observed when:
// - kube-scheduler binds pods, not Scalewright. A pending pod enters the state (and may need capacity) only once
//   kube-scheduler has said it is Unschedulable, as Karpenter provisions only for such pods; a pod bound to a node
//   enters it bound.
// - Watches of different kinds arrive in any order: a pod bound to a node not yet Ready in the state waits here
//   until that node is, and a pod's workload is looked up through its ReplicaSet's owner.
//
// A NodeClaim's Node may be registered under another name (a cloud's hostname): it is the NodeClaim's node when its
// spec.providerID is the NodeClaim's status.providerID (Karpenter's registration), and the state knows it by the
// NodeClaim's name. The observer links the two names (node_names()) and observes the Node, and every pod bound to
// it, under the NodeClaim's. A node group's node planned for an instance its cloud listed (named after the
// instance) is linked to its Node the same way, by the instance's providerID.
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "api/instant.h"
#include "api/pod.h"
#include "cloud/catalog.h"
#include "cluster/api_objects.h"
#include "cluster/node_object_names.h"
#include "cluster/pod_sharing.h"
#include "state/cluster_state.h"

namespace scalewright::cluster {

enum class Change { Listed, Added, Modified, Deleted };

// What happens in the cluster that the environment acts on besides the state.
class ObserverListener {
 public:
  virtual ~ObserverListener() = default;
  // The Node of a NodeClaim registered (its object appeared); it is not Ready yet, or not initialized.
  virtual void node_registered(const std::string& node) = 0;
  // A node joined the scheduling snapshot: Ready, and its startup taints gone.
  virtual void node_ready(const std::string& node) = 0;
  // A pod bound to `node` is gone (a drain's progress).
  virtual void pod_left(const std::string& node) = 0;
  // An object could not be read: it is left out of the state.
  virtual void object_unreadable(const std::string& message) = 0;
};

class ClusterObserver {
 public:
  ClusterObserver(state::ClusterState& state, const cloud::Catalog& catalog, const TimeBase& time,
                  ObserverListener& listener)
      : state_(state), catalog_(catalog), time_(time), listener_(listener) {}

  // A list of `resource` begins: objects not listed again by relist_done() are gone.
  void relist_started(const Resource& resource);
  void relist_done(const Resource& resource, Instant now);
  void observe(const Resource& resource, Change change, const nlohmann::json& object, Instant now);

  // Pods known but not in the state: pending without kube-scheduler's verdict, or bound to a node not Ready yet.
  std::size_t held_pods() const { return held_.size(); }

  struct NodeClaimSeen {
    bool deleting = false;   // metadata.deletionTimestamp is set
    bool finalizer = false;  // karpenter.sh/termination still holds it
    std::string nodepool_hash;  // karpenter.sh/nodepool-hash and -version: what drift compares
    std::string nodepool_hash_version;
    std::string provider_id;  // status.providerID: its instance's, once launched
  };
  // The NodeClaims that exist, by name.
  const std::map<std::string, NodeClaimSeen>& nodeclaims() const { return nodeclaims_; }
  // The Node object behind each node of the state that is named after a NodeClaim and registered under another name.
  const NodeObjectNames& node_names() const { return names_; }
  // Node objects that belong to no NodeClaim known yet and may be one's (karpenter.sh/unregistered, or a providerID
  // while launches are in flight): they wait for it.
  std::size_t waiting_nodes() const { return waiting_nodes_.size(); }

 private:
  struct HeldPod {
    Pod pod;
    std::string workload;
  };

  void observe_pod(Change change, const nlohmann::json& object, Instant now);
  void observe_node(Change change, const nlohmann::json& object, Instant now);
  void observe_nodeclaim(Change change, const nlohmann::json& object, Instant now);
  // The state's record of the NodeClaim `name`: in flight when launched before this controller started.
  void observe_nodeclaim_record(const std::string& name, const NodeClaimSeen& seen, const nlohmann::json& object,
                                Instant now);
  void observe_nodepool(Change change, const nlohmann::json& object);
  void observe_workload(const Resource& resource, Change change, const nlohmann::json& object);
  void observe_pdb(Change change, const nlohmann::json& object);
  void observe_scaled_object(Change change, const nlohmann::json& object);
  void forget(const Resource& resource, const std::string& key, Instant now);

  std::optional<ManifestSet> decode(const nlohmann::json& object, const Resource& resource);
  // Adds the pod to the state when it may be (bound to a Ready node, or judged Unschedulable); else holds it.
  void admit_pod(Pod pod, std::string workload, bool unschedulable, Instant now);
  void pod_gone(const std::string& key);
  void release_held(const std::string& node, Instant now);
  // `name` is the state's.
  void node_gone(const std::string& name, Instant now);
  // Observes the waiting Nodes again once no launch is in flight.
  void observe_waiting_nodes_if_no_launch(Instant now);
  // The state's name for the Node `node` (named as its object): its own, or its NodeClaim's when it is the node of a
  // NodeClaim named otherwise. nullopt for a Node that registered for a NodeClaim not known yet.
  std::optional<std::string> name_in_state(const Node& node);
  // The NodeClaim whose instance has `provider_id`, as its status or its launch says, or the node a node group
  // planned for that instance; empty when none.
  std::string nodeclaim_of_instance(const std::string& provider_id) const;
  void link(const std::string& nodeclaim, const std::string& node_object);
  // The NodeRecord of a node that Scalewright did not launch in this run (or launched before a restart).
  state::NodeRecord record_for(Node node, Instant now) const;
  // Takes when each of `conditions` last changed status into `record` (condition_since); true when a status differs
  // from the record's.
  bool observe_conditions(state::NodeRecord& record, const std::vector<NodeCondition>& conditions, Instant now) const;
  std::string workload_of(const ObjectMeta& meta) const;

  state::ClusterState& state_;
  const cloud::Catalog& catalog_;
  const TimeBase& time_;
  ObserverListener& listener_;
  PodPartSharing pod_parts_;

  std::unordered_map<std::string, HeldPod> held_;            // pod key -> pod
  std::map<std::string, std::set<std::string>> held_on_;      // node -> keys of held pods bound to it
  std::unordered_map<std::string, std::string> rs_owner_;     // "ns/replicaset" -> its Deployment's workload key
  std::set<std::string> node_objects_;                         // nodes whose Node object exists
  std::set<std::string> registered_;                           // nodes told node_registered()
  std::map<std::string, NodeClaimSeen> nodeclaims_;
  std::map<std::string, std::string> nodeclaim_of_provider_id_;  // status.providerID -> NodeClaim
  NodeObjectNames names_;
  std::map<std::string, nlohmann::json> waiting_nodes_;  // Node object name -> the object, till its NodeClaim is known
  // NodeClaims being launched: not deleting, and no status.providerID yet.
  std::set<std::string> launching_claims_;
  std::map<std::string, std::int64_t> scaled_object_generations_;  // taken on: key -> metadata.generation
  std::map<std::string_view, std::set<std::string>> listed_;  // kind -> keys seen since relist_started
};

}  // namespace scalewright::cluster
