#pragma once
// The controllers' ClusterWriter over the Kubernetes API: nominations and verdicts become Events, a launch a
// NodeClaim (karpenter.sh/v1, with its conditions and the karpenter.sh/termination finalizer), an eviction the
// Eviction subresource, a scale the scale subresource. What the API server accepted is written through into the
// state at once, as the watch will deliver it a moment later (the observer then finds it already there), so that
// the controllers never act twice on a change still in flight.
//
// The controllers name a NodeClaim's node after its NodeClaim; every write to its Node, and every log line and
// Event naming it, names the Node object (`names`: registered under a hostname, it is named otherwise).
#include <atomic>
#include <functional>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "api/instant.h"
#include "cluster/api_objects.h"
#include "cluster/node_object_names.h"
#include "controllers/ports.h"
#include "kube/api_client.h"
#include "kube/event_sink.h"
#include "state/cluster_state.h"

namespace scalewright::cluster {

// Karpenter's own names.
inline constexpr std::string_view kTerminationFinalizer = "karpenter.sh/termination";
inline constexpr std::string_view kUnregisteredTaintKey = "karpenter.sh/unregistered";
inline constexpr std::string_view kDisruptedTaintKey = karpenter_labels::disrupted_taint;
inline constexpr std::string_view kInitializedLabel = "karpenter.sh/initialized";
inline constexpr std::string_view kRegisteredLabel = "karpenter.sh/registered";

struct WriterOptions {
  // Acts on nothing: every change is logged and recorded as an Event-to-be, the cluster is left as it is
  // (`scalewright run --dry-run`).
  bool dry_run = false;
  // Told, for each pod a NodeClaim is created for, the seconds to the NodeClaim's create call: from when the pod
  // last needed capacity (its arrival in the state, the watch showing it Unschedulable, or the end of its last
  // nomination: the node it was planned onto came up without it, or went), and from its arrival.
  std::function<void(double since_needed, double since_arrival)> observe_pod_to_nodeclaim_seconds;
};

class KubernetesWriter final : public controllers::ClusterWriter {
 public:
  KubernetesWriter(const kube::ApiClient& client, state::ClusterState& state, const controllers::Clock& clock,
                   const TimeBase& time, kube::EventSink& events, const NodeObjectNames& names,
                   WriterOptions options = {});

  // --- controllers::ClusterWriter ---
  void record(controllers::TimelineEntry entry) override;
  void nominate(const state::PodRecord& pod, const std::string& node) override;
  void release_nominations(const std::string& node) override;
  void evict(const state::PodRecord& pod, Duration grace) override;
  void set_taint(const std::string& node, const Taint& taint, bool present) override;
  bool nodeclaim_created(state::NodeRecord claim, const std::vector<cloud::LaunchOption>& offerings) override;
  void nodeclaim_not_launched(const std::string& name) override;
  void node_launched(state::NodeRecord node, bool running_already) override;
  // delete_node's first step: cordons the node and deletes its pods at once.
  void drain(const std::string& node);
  void delete_node(const std::string& node) override;
  void release_nodeclaim(const std::string& name) override;
  void scale(const std::string& workload, std::int32_t replicas) override;
  void object_event(controllers::ObjectEvent event) override;

  // --- Karpenter's NodeClaim lifecycle, as the observer reports the node's progress ---
  // The node registered: Karpenter's registration syncs the NodeClaim's labels, annotations and taints onto the
  // Node, labels it registered and takes its startup taint karpenter.sh/unregistered off, in one write; the
  // NodeClaim says Registered, with the Node's name in status.nodeName.
  void node_registered(const std::string& node);
  // The node is Ready: labelled karpenter.sh/initialized, the NodeClaim Initialized and Ready.
  void node_initialized(const std::string& node);
  // Writes the status of the NodeClaims launched since the last call: providerID, capacity, allocatable and the
  // Launched condition. Called at the end of every pass, so that the answers of several launches are taken in one
  // after the other.
  void write_launched_statuses();


  // Cluster Autoscaler's status report: the `status` key of ConfigMap kube-system/cluster-autoscaler-status and its
  // last-updated annotation, created on the first write, as CA writes it after every scan.
  void publish_cluster_autoscaler_status(const std::string& status, const std::string& last_updated);

  // What was done so far (read from any thread: the metrics endpoint).
  struct Counts {
    std::atomic<std::uint64_t> nodeclaims_created{0};
    std::atomic<std::uint64_t> nodes_deleted{0};
    std::atomic<std::uint64_t> evictions{0};
    std::atomic<std::uint64_t> pods_nominated{0};
    std::atomic<std::uint64_t> api_errors{0};
  };
  const Counts& counts() const { return counts_; }

 private:
  // Sets conditions of a NodeClaim's status (type -> status, reason), keeping the others, in one write with the
  // rest of `status`.
  void set_claim_conditions(const std::string& name,
                            const std::vector<std::pair<std::string, std::string>>& true_conditions,
                            nlohmann::json status = nlohmann::json::object());
  // PUTs the node back with `change` applied to a fresh copy; retried on conflict.
  bool update_node(const std::string& node, const std::function<void(nlohmann::json&)>& change);
  void failed(std::string_view what, const kube::KubeError& error);
  state::PodRecord& record_of(const state::PodRecord& pod);
  kube::ObjectReference pod_reference(const state::PodRecord& pod) const;
  static kube::ObjectReference nodeclaim_reference(const std::string& name);

  const kube::ApiClient& client_;
  state::ClusterState& state_;
  const controllers::Clock& clock_;
  const TimeBase& time_;
  kube::EventSink& events_;
  const NodeObjectNames& names_;
  WriterOptions options_;
  Counts counts_;
  std::set<std::string> deleted_;
  std::string last_created_;   // the NodeClaim created last, and when: the pods nominated to it next are its own
  Instant last_created_at_{};  // nodes whose deletion was sent (a name is never reused: NodeNames draws anew)
  // Pods whose nomination ended, and when: from then on they needed capacity again.
  std::map<std::string, Instant, std::less<>> needed_since_;
  std::vector<std::pair<std::string, nlohmann::json>> launched_statuses_;  // NodeClaim -> its status, to write
};

}  // namespace scalewright::cluster
