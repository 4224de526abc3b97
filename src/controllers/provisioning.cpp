#include "controllers/provisioning.h"

#include <algorithm>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "api/wording.h"
#include "controllers/node_groups.h"
#include "provisioning/launch_explanation.h"

namespace scalewright::controllers {

void describe_cluster(const state::ClusterState& state, const cloud::CloudProvider& cloud,
                      provisioning::ProvisioningInput& input) {
  for (const auto& [key, record] : state.workloads()) {
    if (record.workload.kind == WorkloadKind::DaemonSet) input.daemonsets.push_back(record.workload);
  }
  input.catalog = &cloud.catalog();
  for (const auto& [name, pool] : state.nodepools()) {
    input.nodepools.push_back(pool);
    const cloud::CloudResult<const cloud::Catalog*> types = cloud.instance_types(pool);
    if (!types) {
      input.nodepools_not_ready.emplace(name, types.error().message);
    } else if (*types != input.catalog) {
      input.nodepool_catalogs.emplace(name, *types);
    }
  }
  for (const auto& [name, node] : state.nodes()) {
    if (node.nodepool.empty() || node.phase == state::NodePhase::Terminated) continue;
    input.nodepool_usage[node.nodepool] += limit_usage(node.node.capacity);
  }
}

void ProvisioningController::reconcile() {
  if (state_.scheduling_changes() == scheduling_seen_ && !look_again_) return;
  scheduling_seen_ = state_.scheduling_changes();
  look_again_ = false;
  // Nodes no longer in flight that pods are still nominated to: only a node that changed can have become one.
  std::vector<std::string> landed;
  for (std::string& node : node_changes_.take()) {
    if (state_.nominees().contains(Symbol(node)) && !state_.in_flight(node)) landed.push_back(std::move(node));
  }
  for (const std::string& node : landed) writer_.release_nominations(node);
  if (!landed.empty()) capacity_freed_ = true;
  // Pods that fit nowhere and wait for no planned node need capacity: they open or extend a batch.
  const bool changed = capacity_freed_ || state_.capacity_changes() != capacity_seen_;
  if (state_.needing_capacity() > 0 && changed && !state_.nodepools().empty()) {
    capacity_seen_ = state_.capacity_changes();
    capacity_freed_ = false;
    clock_.wake_at(batcher_.trigger(clock_.now()), [this] { on_batch_deadline(); });
  }
}

void ProvisioningController::on_batch_deadline() {
  if (!batcher_.due(clock_.now())) return;
  batcher_.close();
  provision();
}

void ProvisioningController::provision() {
  const Duration now = clock_.now();
  provisioning::ProvisioningInput input;
  std::vector<const state::PodRecord*> batch;  // the batch's pods, in the order of input.pending
  std::map<std::string, std::vector<std::shared_ptr<const Pod>>> planned;  // in-flight node -> pods nominated to it
  for (const auto& [key, pod_ptr] : state_.unbound()) {
    const state::PodRecord& pod = *pod_ptr;
    if (pod.daemon) continue;
    if (state_.in_flight(pod.nominated_node.string())) {
      planned[pod.nominated_node.string()].push_back(pod.pod);  // waits for its node: not part of the batch
      continue;
    }
    // With Cluster Autoscaler, only what its last scan left to the NodePools (not a group's, nor yet unseen).
    if (node_groups_ != nullptr && !node_groups_->declined(key)) continue;
    writer_.nominate(pod, "");
    input.pending.push_back(pod.pod);  // shared, not copied
    batch.push_back(&pod);
  }
  if (input.pending.empty()) return;

  provisioning::ProvisioningPlan plan;
  {
    // The provisioner sees Ready nodes and in-flight ones, each with the pods already planned onto it.
    state::ClusterState::WhatIf what_if(state_);
    scheduling::ClusterSnapshot& snapshot = what_if.snapshot();
    for (const auto& [name, node] : state_.nodes()) {
      // A node group's upcoming node is for the pods Cluster Autoscaler launched it for, not for these.
      if (node.phase != state::NodePhase::Launching || !node.node_group.empty()) continue;
      const scheduling::NodeId id = snapshot.add_node(node.node);
      input.in_flight_nodes.push_back(name);
      for (std::shared_ptr<const Pod>& pod : planned[name]) snapshot.add_pod(std::move(pod), id);  // shared
    }
    describe_cluster(state_, cloud_, input);
    input.cluster = &snapshot;
    input.unavailable = &unavailable_;
    input.now = now;
    plan = provisioning::plan_provisioning(input);
  }

  for (const provisioning::Nomination& n : plan.existing) nominate(*batch[n.pod], n.node);
  for (const provisioning::Unschedulable& u : plan.unschedulable) {
    const state::PodRecord& pod = *batch[u.pod];
    if (pod.last_reason.str() != u.reason) {
      writer_.report_unschedulable(pod, u.reason);
      writer_.object_event({"Pod", std::string(pod.key), "Warning", "FailedScheduling", "Provision",
                            fmt::format("Failed to schedule pod, {}", u.reason)});
      record("unschedulable", fmt::format("pod {} cannot be provisioned: {}", pod.key, u.reason));
    }
  }
  for (provisioning::NewNodeClaim& claim : plan.new_claims) {
    std::vector<const state::PodRecord*> pods;
    for (std::size_t i : claim.pods) pods.push_back(batch[i]);
    launch(std::move(claim), pods, plural(pods.size(), "pod"));
  }
}

// Karpenter's nomination, with its Event on the pod: the capacity it waits for, in flight or there already.
void ProvisioningController::nominate(const state::PodRecord& pod, const std::string& node) {
  writer_.nominate(pod, node);
  writer_.object_event({"Pod", std::string(pod.key), "Normal", "Nominated", "Nominate",
                        fmt::format("Pod should schedule on: {}/{}", state_.in_flight(node) ? "nodeclaim" : "node",
                                    node)});
}

std::optional<std::string> ProvisioningController::launch_replacement(provisioning::NewNodeClaim claim,
                                                                      const std::string& purpose) {
  return launch(std::move(claim), {}, purpose);
}

std::optional<std::string> ProvisioningController::launch(provisioning::NewNodeClaim claim,
                                                          const std::vector<const state::PodRecord*>& pods,
                                                          const std::string& purpose) {
  if (!writer_.can_add_node()) return std::nullopt;
  const Duration now = clock_.now();
  const std::string name = names_.next(claim.nodepool, state_);
  const NodePool* nodepool = state_.find_nodepool(claim.nodepool);
  const bool min_values = nodepool != nullptr && std::any_of(nodepool->requirements.begin(),
                                                             nodepool->requirements.end(),
                                                             [](const NodePoolRequirement& r) { return r.min_values; });
  // The offerings in the order they are preferred, handed to the cloud at once: each it refuses is marked
  // unavailable (Karpenter's cache, which every later plan and launch skips until it lapses). The claim keeps every
  // type that fits, which its explanation counts; the launch offers the cheapest (types are cheapest first).
  const std::size_t offered = min_values ? claim.instance_types.size() : kLaunchInstanceTypes;
  const std::vector<provisioning::LaunchChoice> order = provisioning::launch_order(claim, unavailable_, now, offered);
  // The node registers with its NodePool's label, as Karpenter's nodes do (the offering's zone and capacity type
  // the provider adds).
  Labels labels = claim.labels;
  labels.set(Symbol(karpenter_labels::nodepool), Symbol(claim.nodepool));
  cloud::CloudResult<cloud::Created> created = cloud_.create({name, order, labels, claim.taints});
  // Offerings refused for want of capacity are marked unavailable, whether another launched or none did.
  const std::vector<cloud::LaunchOption>& refused =
      created ? created->unavailable : created.error().unavailable;
  for (const cloud::LaunchOption& option : refused) {
    unavailable_.mark({option.instance_type->name, option.offering->zone, option.offering->capacity_type},
                      now + kUnavailableOfferingTtl);
  }
  const auto say_refusals = [&](std::string_view then) {
    if (refused.empty()) return;
    std::vector<std::string> named;  // "spot c5.large us-east-1a", as the timeline says them, the first few
    for (std::size_t i = 0; i < refused.size() && i < kItemsNamed; ++i) named.push_back(cloud::describe(refused[i]));
    record("insufficient-capacity",
           fmt::format("InsufficientInstanceCapacity: no capacity for {} ({}); {}", plural(refused.size(), "offering"),
                       first_of(named, refused.size()), then));
  };
  if (created) {
    const cloud::Instance& instance = created->instance;
    const cloud::InstanceType& type = *instance.instance_type;
    const cloud::Offering& offering = instance.offering;
    const provisioning::LaunchChoice choice = created->launched;
    say_refusals("launched the next");
    state::NodeRecord node;
    node.nodepool = claim.nodepool;
    node.instance_id = instance.id;
    node.instance_type = type.name;
    node.zone = offering.zone;
    node.capacity_type = std::string(cloud::to_string(offering.capacity_type));
    node.price_per_hour = offering.price_per_hour;
    if (const NodePool* pool = state_.find_nodepool(claim.nodepool)) {
      node.nodepool_hash = pool->hash();
      node.nodepool_hash_version = std::string(kNodePoolHashVersion);
    }
    node.launched_at = now;
    node.node.meta.name = name;
    node.node.meta.labels = std::move(labels);
    for (const auto& [k, v] : type.labels) node.node.meta.labels.set(k, v);
    node.node.meta.labels.set(Symbol(well_known::zone), Symbol(offering.zone));
    node.node.meta.labels.set(Symbol(karpenter_labels::capacity_type), Symbol(node.capacity_type));
    node.node.meta.labels.set(Symbol(karpenter_labels::nodepool), Symbol(claim.nodepool));
    node.node.meta.labels.set(Symbol(well_known::hostname), Symbol(name));
    node.node.taints = claim.taints;  // startup taints are gone by the time pods are bound
    node.node.capacity = type.capacity;
    node.node.allocatable = type.allocatable;
    node.node.provider_id = instance.provider_id;
    record("launch", fmt::format("NodeClaim {} launched {} {} {} ${:.4f}/h for {}", name, type.name, offering.zone,
                                 node.capacity_type, offering.price_per_hour, purpose));
    std::vector<std::string> pod_names;
    for (const state::PodRecord* pod : pods) pod_names.emplace_back(pod->key);
    const std::string for_what =
        pods.empty() ? purpose : fmt::format("{} ({})", purpose, first_few(pod_names));
    writer_.object_event({"NodeClaim", name, "Normal", "Launched", "Launch",
                          explainer_.explain(claim, choice, for_what, unavailable_, now)});
    writer_.node_launched(std::move(node), /*running_already=*/false);
    for (const state::PodRecord* pod : pods) nominate(*pod, name);
    lifecycle_.launched(name, NodeLifecycleController::kRegistrationTtl);
    return name;
  }
  if (created.error().error_class != cloud::ErrorClass::InsufficientCapacity) {
    record("launch-failed", fmt::format("NodeClaim for {} not launched: {}: {}", purpose,
                                        cloud::to_string(created.error().error_class), created.error().message));
    clock_.wake_at(now + kUnavailableOfferingTtl, [this] { look_again(); });
    return std::nullopt;
  }
  say_refusals("none left");
  record("launch-failed", fmt::format("NodeClaim for {} not launched: every offering that fits is unavailable",
                                      purpose));
  // Offerings marked unavailable come back after their TTL: look again then.
  clock_.wake_at(now + kUnavailableOfferingTtl, [this] { look_again(); });
  return std::nullopt;
}

}  // namespace scalewright::controllers
