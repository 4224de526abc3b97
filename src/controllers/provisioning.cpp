#include "controllers/provisioning.h"

#include <algorithm>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "api/wording.h"
#include "controllers/cluster_autoscaler_controller.h"
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

state::NodeRecord launched_nodeclaim(const state::NodeRecord& claim, const cloud::Instance& instance) {
  const cloud::InstanceType& type = *instance.instance_type;
  const cloud::Offering& offering = instance.offering;
  state::NodeRecord node;
  node.nodepool = claim.nodepool;
  node.nodepool_hash = claim.nodepool_hash;
  node.nodepool_hash_version = claim.nodepool_hash_version;
  node.launched_at = claim.launched_at;
  node.instance_id = instance.id;
  node.instance_type = type.name;
  node.zone = offering.zone;
  node.capacity_type = std::string(cloud::to_string(offering.capacity_type));
  node.price_per_hour = offering.price_per_hour;
  node.node.meta.name = claim.name();
  node.node.meta.labels = claim.node.meta.labels;
  for (const auto& [k, v] : type.labels) node.node.meta.labels.set(k, v);
  // A cloud without zones (Cluster API on bare metal) offers in zone "": its nodes carry no zone label.
  if (!offering.zone.empty()) node.node.meta.labels.set(Symbol(well_known::zone), Symbol(offering.zone));
  node.node.meta.labels.set(Symbol(karpenter_labels::capacity_type), Symbol(node.capacity_type));
  node.node.meta.labels.set(Symbol(karpenter_labels::nodepool), Symbol(node.nodepool));
  node.node.meta.labels.set(Symbol(well_known::hostname), Symbol(claim.name()));
  node.node.taints = claim.node.taints;  // startup taints are gone by the time pods are bound
  node.node.capacity = type.capacity;
  node.node.allocatable = type.allocatable;
  node.node.provider_id = instance.provider_id;
  return node;
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
  const Instant now = clock_.now();
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
      // A NodeClaim whose launch has not answered yet is planned on as its first offering (what the cloud launches
      // unless that one is out of capacity: then the node comes up without the pods it cannot hold, and they need
      // capacity again, as with any nomination).
      const auto expected = expected_.find(name);
      const scheduling::NodeId id = snapshot.add_node(expected != expected_.end() ? expected->second : node.node);
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
  // Pods gone or bound since leave no verdict behind.
  if (verdicts_.size() > 2 * state_.unbound().size() + 64) {
    std::unordered_map<std::uint64_t, Verdict> kept;
    for (const auto& [key, pod] : state_.unbound()) {
      if (auto verdict = verdicts_.find(pod->serial); verdict != verdicts_.end()) kept.insert(*verdict);
    }
    verdicts_ = std::move(kept);
  }
  for (const provisioning::Unschedulable& u : plan.unschedulable) {
    const state::PodRecord& pod = *batch[u.pod];
    Verdict& said = verdicts_[pod.serial];
    if (said.reason.str() != u.reason || said.nominations_ended != pod.nominations_ended) {
      said = {Symbol(u.reason), pod.nominations_ended};
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
bool ProvisioningController::said_unschedulable(const state::PodRecord& pod) const {
  const auto said = verdicts_.find(pod.serial);
  return said != verdicts_.end() && said->second.nominations_ended == pod.nominations_ended;
}

void ProvisioningController::nominate(const state::PodRecord& pod, const std::string& node) {
  writer_.nominate(pod, node);
  nominated_event(pod, node);
}

void ProvisioningController::nominated_event(const state::PodRecord& pod, const std::string& node) {
  writer_.object_event({"Pod", std::string(pod.key), "Normal", "Nominated", "Nominate",
                        fmt::format("Pod should schedule on: {}/{}", state_.in_flight(node) ? "nodeclaim" : "node",
                                    node)});
}

std::optional<std::string> ProvisioningController::launch_replacement(provisioning::NewNodeClaim claim,
                                                                      const std::string& purpose) {
  return launch(std::move(claim), {}, purpose);
}

// Karpenter's order: the NodeClaim first, with every offering its launch may choose from, its pods nominated to it;
// then the launch, whose answer comes back through launched(). The simulator answers at once; a real cloud on a
// launch worker, while the loop goes on (its pods wait for the claim in flight meanwhile, and are not provisioned
// twice).
std::optional<std::string> ProvisioningController::launch(provisioning::NewNodeClaim claim,
                                                          const std::vector<const state::PodRecord*>& pods,
                                                          const std::string& purpose) {
  const Instant now = clock_.now();
  const NodePool* nodepool = state_.find_nodepool(claim.nodepool);
  const bool min_values = nodepool != nullptr && std::any_of(nodepool->requirements.begin(),
                                                             nodepool->requirements.end(),
                                                             [](const NodePoolRequirement& r) { return r.min_values; });
  // The offerings in the order they are preferred, handed to the cloud at once: each it refuses is marked
  // unavailable (Karpenter's cache, which every later plan and launch skips until it lapses). The claim keeps every
  // type that fits, which its explanation counts; the launch offers the cheapest (types are cheapest first).
  const std::size_t offered = min_values ? claim.instance_types.size() : kLaunchInstanceTypes;
  std::vector<provisioning::LaunchChoice> order = provisioning::launch_order(claim, unavailable_, now, offered);
  auto pending = std::make_shared<PendingLaunch>();
  pending->name = names_.next(claim.nodepool, state_);
  pending->purpose = purpose;
  for (const state::PodRecord* pod : pods) pending->pods.emplace_back(pod->key);
  // The node registers with its NodePool's label, as Karpenter's nodes do (the offering's zone and capacity type
  // the provider adds).
  Labels labels = claim.labels;
  labels.set(Symbol(karpenter_labels::nodepool), Symbol(claim.nodepool));
  if (order.empty()) {  // every offering that fits ran out of capacity a moment ago: no claim to create
    pending->claim = std::move(claim);
    not_launched(*pending, cloud::CloudError{cloud::ErrorClass::InsufficientCapacity, "", {}});
    return std::nullopt;
  }

  state::NodeRecord created;
  created.nodepool = claim.nodepool;
  if (nodepool != nullptr) {
    created.nodepool_hash = nodepool->hash();
    created.nodepool_hash_version = std::string(kNodePoolHashVersion);
  }
  created.launched_at = now;
  created.node.meta.name = pending->name;
  created.node.meta.labels = labels;
  created.node.taints = claim.taints;
  // Until the cloud answers, the claim counts against its NodePool's limits as its cheapest offering would.
  created.node.capacity = order.front().instance_type->capacity;
  created.node.allocatable = order.front().instance_type->allocatable;
  if (!writer_.nodeclaim_created(std::move(created), order)) {
    record("launch-failed", fmt::format("NodeClaim for {} not created", purpose));
    clock_.wake_at(now + kUnavailableOfferingTtl, [this] { look_again(); });
    return std::nullopt;
  }
  for (const state::PodRecord* pod : pods) writer_.nominate(*pod, pending->name);
  const provisioning::LaunchChoice first = order.front();
  cloud::CreateRequest request{pending->name, std::move(order), std::move(labels), claim.taints,
                               nodepool != nullptr ? nodepool->node_class : NodeClassReference{}};
  pending->claim = std::move(claim);
  launches_.launch(std::move(request), [this, pending](cloud::CloudResult<cloud::Created> created) {
    launched(*pending, std::move(created));
  });
  const state::NodeRecord* record = state_.find_node(pending->name);
  if (record == nullptr) return std::nullopt;  // answered at once (the simulator) and refused: no claim is left
  if (record->instance_id.empty()) {
    // Not answered yet (a launch worker's): planned on meanwhile as its first offering would launch.
    expected_[pending->name] =
        launched_nodeclaim(*record, {"", pending->name, first.instance_type, *first.offering, ""}).node;
  }
  return pending->name;
}

void ProvisioningController::launched(PendingLaunch& pending, cloud::CloudResult<cloud::Created> created) {
  const Instant now = clock_.now();
  expected_.erase(pending.name);
  // Offerings refused for want of capacity are marked unavailable, whether another launched or none did.
  const std::vector<cloud::LaunchOption>& refused = created ? created->unavailable : created.error().unavailable;
  for (const cloud::LaunchOption& option : refused) {
    unavailable_.mark({option.instance_type->name, option.offering->zone, option.offering->capacity_type},
                      now + kUnavailableOfferingTtl);
  }
  const state::NodeRecord* claim = state_.find_node(pending.name);
  if (claim == nullptr || claim->phase == state::NodePhase::Draining || claim->phase == state::NodePhase::Terminated) {
    // The NodeClaim was deleted while its launch was under way: what was launched for it goes too.
    if (created) terminate_instance(cloud_, clock_, writer_, created->instance.id);
    return;
  }
  if (!created) {
    // Its pods, and those later passes planned onto it, need capacity again (their verdicts kept: said once).
    if (const auto nominees = state_.nominees().find(Symbol(pending.name)); nominees != state_.nominees().end()) {
      const std::vector<const state::PodRecord*> pods(nominees->second.begin(), nominees->second.end());
      for (const state::PodRecord* pod : pods) writer_.nominate(*pod, "");
    }
    writer_.nodeclaim_not_launched(pending.name);
    not_launched(pending, created.error());
    return;
  }
  say_refusals(refused, "launched the next");
  state::NodeRecord node = launched_nodeclaim(*claim, created->instance);
  const cloud::InstanceType& type = *created->instance.instance_type;
  const cloud::Offering& offering = created->instance.offering;
  record("launch", fmt::format("NodeClaim {} launched {} {} {} ${:.4f}/h for {}", pending.name, type.name,
                               offering.zone, node.capacity_type, offering.price_per_hour, pending.purpose));
  const std::string for_what =
      pending.pods.empty() ? pending.purpose : fmt::format("{} ({})", pending.purpose, first_few(pending.pods));
  writer_.object_event({"NodeClaim", pending.name, "Normal", "Launched", "Launch",
                        explainer_.explain(pending.claim, created->launched, for_what, unavailable_, now)});
  const Instant created_at = node.launched_at;
  writer_.node_launched(std::move(node), /*running_already=*/false);
  for (const std::string& key : pending.pods) {
    const state::PodRecord* pod = state_.find_pod(key);
    if (pod != nullptr && pod->nominated_node.str() == pending.name) nominated_event(*pod, pending.name);
  }
  // Karpenter's registration TTL runs from the NodeClaim's creation.
  lifecycle_.launched(pending.name, NodeLifecycleController::kRegistrationTtl, created_at);
}

void ProvisioningController::offering_unavailable(const provisioning::OfferingKey& offering) {
  const Instant now = clock_.now();
  unavailable_.mark(offering, now + kUnavailableOfferingTtl);
  clock_.wake_at(now + kUnavailableOfferingTtl, [this] { look_again(); });
}

void ProvisioningController::not_launched(const PendingLaunch& pending, const cloud::CloudError& error) {
  const Instant now = clock_.now();
  if (error.error_class != cloud::ErrorClass::InsufficientCapacity) {
    record("launch-failed", fmt::format("NodeClaim for {} not launched: {}: {}", pending.purpose,
                                        cloud::to_string(error.error_class), error.message));
  } else {
    say_refusals(error.unavailable, "none left");
    record("launch-failed", fmt::format("NodeClaim for {} not launched: every offering that fits is unavailable",
                                        pending.purpose));
  }
  // Offerings marked unavailable come back after their TTL (and a cloud that failed otherwise may have recovered):
  // look again then.
  clock_.wake_at(now + kUnavailableOfferingTtl, [this] { look_again(); });
}

void ProvisioningController::say_refusals(const std::vector<cloud::LaunchOption>& refused, std::string_view then) {
  if (refused.empty()) return;
  std::vector<std::string> named;  // "spot c5.large us-east-1a", as the timeline says them, the first few
  for (std::size_t i = 0; i < refused.size() && i < kItemsNamed; ++i) named.push_back(cloud::describe(refused[i]));
  record("insufficient-capacity",
         fmt::format("InsufficientInstanceCapacity: no capacity for {} ({}); {}", plural(refused.size(), "offering"),
                     first_of(named, refused.size()), then));
}

}  // namespace scalewright::controllers
