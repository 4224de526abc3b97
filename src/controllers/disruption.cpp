#include "controllers/disruption.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/wording.h"
#include "disruption/budgets.h"
#include "disruption/drift.h"
#include "nodegroups/drainability.h"
#include "nodegroups/scale_down.h"

namespace scalewright::controllers {
namespace {

std::string joined(const std::vector<std::string>& names) { return fmt::format("{}", fmt::join(names, ", ")); }

std::uint64_t fingerprint(const state::ClusterState& state) {
  return state.scheduling_changes() ^ (state.capacity_changes() << 32) ^ (state.node_departures() << 48);
}

}  // namespace

void DisruptionController::reconcile() {
  std::optional<Duration> earliest;
  const Duration now = clock_.now();
  std::erase_if(expiring_, [&](const std::string& name) { return !termination_.draining(name); });
  // What is kept per node moves only for the nodes that changed; a NodePool applied or deleted changes what its
  // nodes are due for, and all are looked at again.
  for (const std::string& name : node_changes_.take()) look_at_node(name, now);
  if (state_.nodepool_changes() != node_nodepools_seen_) {
    node_nodepools_seen_ = state_.nodepool_changes();
    for (const auto& [name, node] : state_.nodes()) look_at_node(name, now);
  }
  last_look_ = now;
  // Nominations that ended a grace period ago are forgotten, oldest first (a node nominated again since keeps its
  // later time).
  while (!nominations_ended_.empty() && nominations_ended_.front().first + kNominationGrace <= now) {
    const auto& [at, name] = nominations_ended_.front();
    if (auto seen = last_nominated_.find(name); seen != last_nominated_.end() && seen->second == at) {
      last_nominated_.erase(seen);
    }
    nominations_ended_.pop_front();
  }
  const bool consolidating = !underutilized_candidates_.empty();
  for (const auto& [expires, name] : expiries_) {
    if (expiring_.contains(name)) continue;
    earliest = expires;
    break;
  }
  // While budgets hold empty nodes back, the next look is a poll period later; while a command is under way,
  // when it ends (a pass then would do nothing, and be due again at once).
  if (!command_) {
    for (const auto& [name, since] : empty_since_) {
      const state::NodeRecord* node = state_.find_node(name);
      const NodePool* pool = node == nullptr ? nullptr : state_.find_nodepool(node->nodepool);
      if (pool == nullptr || !pool->consolidate_after) continue;  // kept only for such nodes: never so
      const Duration due =
          std::max({since + *pool->consolidate_after, nomination_grace_ends(name), empty_held_until_});
      if (!earliest || due < *earliest) earliest = due;
    }
  }

  if (command_ && command_->stage == Command::Stage::Replacing) {
    bool all_ready = true;
    std::string failed;
    for (const std::string& name : command_->replacements) {
      const state::NodeRecord* replacement = state_.find_node(name);
      if (replacement == nullptr || replacement->phase == state::NodePhase::Terminated) failed = name;
      all_ready = all_ready && replacement != nullptr && replacement->phase == state::NodePhase::Ready;
    }
    if (!failed.empty()) {
      abandon(fmt::format("its replacement {} did not come up", failed));
    } else if (all_ready) {
      start_drains();
    }
  }
  // Drift is looked for when a NodePool's template or requirements changed, and until a pass finds none.
  if (state_.nodepool_changes() != nodepools_seen_) {
    nodepools_seen_ = state_.nodepool_changes();
    std::map<std::string, std::string> templates;
    for (const auto& [name, pool] : state_.nodepools()) {
      templates.emplace(name, pool.hash() + "\n" + pool.requirement_set().to_string());
    }
    if (templates != templates_) {
      templates_ = std::move(templates);
      drift_due_ = true;
    }
  }
  if (drift_due_ && !command_) {
    const Duration due = last_drift_pass_ ? std::max(now, *last_drift_pass_ + kPollPeriod) : now;
    earliest = std::min(earliest.value_or(due), due);
  }
  // Consolidation looks again once the cluster changed since it last found nothing, or a node passes
  // consolidateAfter; at most one consolidation pass per poll period, as Karpenter polls.
  if (consolidating && !command_) {
    std::optional<Duration> due;
    if (fingerprint(state_) != fruitless_at_) due = now;
    if (next_due_ && (!due || *next_due_ < *due)) due = *next_due_;
    if (due) {
      if (last_consolidation_) due = std::max(*due, *last_consolidation_ + kPollPeriod);
      if (!earliest || *due < *earliest) earliest = due;
    }
  }
  if (earliest) schedule_pass(std::max(*earliest, now));
}

// What the walk over every node at every look kept, kept for one node: the look's time stands for when it was seen.
void DisruptionController::look_at_node(const std::string& name, Duration now) {
  // A node with pods nominated to it was last nominated now; one whose nominations ended since the last look, then.
  if (state_.nominees().contains(Symbol(name))) {
    nominated_.insert(name);
  } else if (nominated_.erase(name) > 0) {
    last_nominated_[name] = last_look_;
    nominations_ended_.emplace_back(last_look_, name);
  }
  if (auto was = expiry_of_.find(name); was != expiry_of_.end()) {
    expiries_.erase({was->second, name});
    expiry_of_.erase(was);
  }
  const state::NodeRecord* node = state_.find_node(name);
  if (node == nullptr || node->phase != state::NodePhase::Ready) {
    // Gone, or going: it leaves the record of its pod events and what consolidation read of its pods.
    pod_events_.erase(name);
    node_pods_.erase(name);
  }
  const bool ready = node != nullptr && node->phase == state::NodePhase::Ready && !node->nodepool.empty();
  const NodePool* pool = ready ? state_.find_nodepool(node->nodepool) : nullptr;
  if (pool != nullptr && pool->expire_after) {
    const Duration expires = node->launched_at + *pool->expire_after;
    expiry_of_.emplace(name, expires);
    expiries_.emplace(expires, name);
  }
  // A static NodePool is never consolidated, empty or not; its consolidation fields are ignored.
  const bool consolidated = pool != nullptr && pool->consolidate_after && !pool->is_static();
  if (consolidated && pool->consolidation_policy != ConsolidationPolicy::WhenEmpty) {
    underutilized_candidates_.insert(name);
    // consolidateAfter runs from a pod's last arrival or departure: seen here as a change of the node's count.
    auto [seen, first] = pod_events_.try_emplace(name, node->busy, now);
    if (!first && seen->second.first != node->busy) seen->second = {node->busy, now};
  } else {
    underutilized_candidates_.erase(name);
  }
  // A node that says do-not-disrupt is not removed empty either (consolidation says DisruptionBlocked of it); one
  // that stopped being empty, left, or was replaced by a namesake starts over.
  if (consolidated && node->busy == 0 && !disruption::says_do_not_disrupt(node->node.meta)) {
    empty_since_.try_emplace(name, now);
  } else {
    empty_since_.erase(name);
  }
}

Duration DisruptionController::nomination_grace_ends(const std::string& node) const {
  if (nominated_.contains(node)) return last_look_ + kNominationGrace;
  auto seen = last_nominated_.find(node);
  return seen == last_nominated_.end() ? Duration(0) : seen->second + kNominationGrace;
}

void DisruptionController::schedule_pass(Duration at) {
  // One pass pending at a time, the earliest asked for (an expiry weeks away must not hold back a pass due now).
  if (pass_at_) {
    if (*pass_at_ <= at) return;
    clock_.cancel(pass_timer_);
  }
  pass_at_ = at;
  pass_timer_ = clock_.wake_at(at, [this] {
    pass_at_.reset();
    on_pass();
  });
}

std::int32_t DisruptionController::budget_allows(const std::string& pool_name, DisruptionReason reason) const {
  const NodePool* pool = state_.find_nodepool(pool_name);
  if (pool == nullptr) return 0;
  // Counted as Karpenter counts them: the NodePool's initialized nodes (Ready, or draining since), of which those
  // draining, NotReady or taken by the command under way are being disrupted already. A node still launching is
  // neither.
  std::int32_t nodes = 0;
  std::int32_t disrupting = 0;
  for (const auto& [name, node] : state_.nodes()) {
    if (node.nodepool != pool_name) continue;
    if (node.phase != state::NodePhase::Ready && node.phase != state::NodePhase::Draining) continue;
    ++nodes;
    const bool in_command = command_ && std::find(command_->nodes.begin(), command_->nodes.end(), name) !=
                                            command_->nodes.end();
    if (node.phase == state::NodePhase::Draining || node.failed_at || in_command || termination_.draining(name)) {
      ++disrupting;
    }
  }
  const auto wall_clock = wall_clock_at_start_ + std::chrono::floor<std::chrono::seconds>(clock_.now());
  return disruption::allowed_disruptions(*pool, reason, nodes, disrupting, wall_clock);
}

void DisruptionController::expire_due_nodes(Duration now) {
  // The nodes whose expiry the last look found passed (all nodes, if a NodePool changed since), by name.
  std::vector<std::string> candidates;
  if (state_.nodepool_changes() != node_nodepools_seen_) {
    for (const auto& [name, node] : state_.nodes()) candidates.push_back(name);
  } else {
    for (auto it = expiries_.begin(); it != expiries_.end() && it->first <= now; ++it) candidates.push_back(it->second);
    std::sort(candidates.begin(), candidates.end());
  }
  std::vector<std::string> due;
  for (const std::string& name : candidates) {
    const state::NodeRecord* node = state_.find_node(name);
    if (node == nullptr || node->phase != state::NodePhase::Ready || node->nodepool.empty()) continue;
    if (expiring_.contains(name) || termination_.draining(name)) continue;
    const NodePool* pool = state_.find_nodepool(node->nodepool);
    if (pool == nullptr || !pool->expire_after || node->launched_at + *pool->expire_after > now) continue;
    due.push_back(name);
  }
  for (const std::string& name : due) {
    const state::NodeRecord& node = *state_.find_node(name);
    const NodePool* pool = state_.find_nodepool(node.nodepool);
    record("expired", fmt::format("node {} expired: launched {} ago, its NodePool's expireAfter is {}; draining{}",
                                  name, format_duration(now - node.launched_at), format_duration(*pool->expire_after),
                                  pool->termination_grace_period
                                      ? fmt::format(" within its terminationGracePeriod of {}",
                                                    format_duration(*pool->termination_grace_period))
                                      : std::string()));
    writer_.object_event({"Node", name, "Normal", "DisruptionTerminating", "Disrupt",
                          fmt::format("Disrupting Node: Expired; launched {} ago, its NodePool's expireAfter is {}",
                                      format_duration(now - node.launched_at), format_duration(*pool->expire_after))});
    expiring_.insert(name);
    termination_.drain(name, node.nodepool, now, karpenter_drain_rules(pool),
                       [this](const std::string& done, const std::string&, bool) { expiring_.erase(done); });
  }
}

void DisruptionController::on_pass() {
  const Duration now = clock_.now();
  expire_due_nodes(now);
  // One method acts per pass; one command at a time, which moves on by its own timers and reconcile.
  if (!command_ && !remove_empty_nodes(now) && !replace_drifted(now)) consolidate(now);
  reconcile();  // the next pass: whatever else is due (an empty node, an expiry) keeps its time
}

bool DisruptionController::remove_empty_nodes(Duration now) {
  if (now < empty_held_until_) return false;  // budgets held nodes back: the next look is a poll period later
  std::map<std::string, std::int32_t> allowed;
  std::set<std::string> blocked;
  bool removed = false;
  // The empty nodes as the last look found them, by name as the state lists nodes.
  for (auto since = empty_since_.begin(); since != empty_since_.end(); ++since) {
    const std::string& name = since->first;
    const state::NodeRecord* found = state_.find_node(name);
    if (found == nullptr || found->phase != state::NodePhase::Ready) continue;
    const state::NodeRecord& node = *found;
    const NodePool* pool = state_.find_nodepool(node.nodepool);
    if (pool == nullptr || !pool->consolidate_after) continue;
    if (since->second + *pool->consolidate_after > now || nomination_grace_ends(name) > now) continue;
    auto budget = allowed.find(node.nodepool);
    if (budget == allowed.end()) budget = allowed.emplace(node.nodepool, budget_allows(node.nodepool, DisruptionReason::Empty)).first;
    if (budget->second <= 0) {
      blocked.insert(node.nodepool);
      continue;
    }
    --budget->second;
    record("removed", fmt::format("node {} empty, removed after {}", name, format_duration(now - since->second)));
    writer_.object_event({"Node", name, "Normal", "DisruptionTerminating", "Disrupt",
                          fmt::format("Disrupting Node: Empty/Delete; empty since {}, its NodePool's consolidateAfter "
                                      "is {}",
                                      format_time(since->second), format_duration(*pool->consolidate_after))});
    delete_node_and_instance(name);
    removed = true;
  }
  // Said on the NodePool once while its budgets keep holding nodes back, in Karpenter's words.
  for (const std::string& pool : blocked) {
    if (budget_blocked_.contains(pool)) continue;
    writer_.object_event({"NodePool", pool, "Normal", "DisruptionBlocked", "Disrupt",
                          "No allowed disruptions for disruption reason Empty due to blocking budget"});
  }
  budget_blocked_ = std::move(blocked);
  empty_held_until_ = budget_blocked_.empty() ? Duration(0) : now + kPollPeriod;
  return removed;
}

const DisruptionController::NodePods& DisruptionController::node_pods(const state::NodeRecord& node,
                                                                     scheduling::NodeId id) const {
  const scheduling::NodeInfo& info = state_.snapshot().node(id);
  auto [it, added] = node_pods_.try_emplace(node.name());
  NodePods& known = it->second;
  if (!added && known.serial == info.serial && known.version == node.pod_changes) return known;
  known = NodePods{};
  known.serial = info.serial;
  known.version = node.pod_changes;
  for (const scheduling::PlacedPod& placed : info.pods) {
    const Pod& pod = *placed.pod;
    if (!disruption::needs_another_node(pod)) continue;
    if (known.do_not_disrupt == std::string::npos && disruption::says_do_not_disrupt(pod.meta)) {
      known.do_not_disrupt = known.movable.size();
    }
    known.movable.push_back(placed.pod);
    known.classes.push_back(placed.scheduling_class);
    known.requests += placed.requests;
    known.eviction_cost += disruption::eviction_cost(pod);
  }
  return known;
}

std::string DisruptionController::why_not_disruptable(const state::NodeRecord& node, scheduling::NodeId id,
                                                      const std::vector<nodegroups::PdbBudget>& pdbs) const {
  if (disruption::says_do_not_disrupt(node.node.meta)) return "Node has \"karpenter.sh/do-not-disrupt\" annotation";
  if (id == scheduling::kNoNode) return "";
  const NodePods& pods = node_pods(node, id);
  // The pods in their order on the node, the first that forbids it saying why: up to the first that says
  // do-not-disrupt, the eviction API's own answer now (a pod it would refuse keeps the node: Karpenter's pdb check).
  const std::size_t asked = std::min(pods.do_not_disrupt, pods.movable.size());
  for (std::size_t i = 0; i < asked && !pdbs.empty(); ++i) {
    const Pod& pod = *pods.movable[i];
    const nodegroups::EvictionVerdict verdict = nodegroups::may_evict(pod, pdbs);
    if (verdict.outcome == nodegroups::EvictionOutcome::RefusedByBudget) {
      return fmt::format("PDB \"{}\" prevents pod evictions", pdbs[*verdict.budget].pdb.meta.key());
    }
    if (verdict.outcome == nodegroups::EvictionOutcome::MoreThanOneBudget) {
      return fmt::format("Pod \"{}\" is covered by more than one PDB", pod.meta.key());
    }
  }
  if (asked < pods.movable.size()) {
    return fmt::format("Pod \"{}\" has \"karpenter.sh/do-not-disrupt\" annotation",
                       pods.movable[asked]->meta.key());
  }
  return "";
}

std::uint64_t DisruptionController::verdict_context() const {
  return state::combined_version({state_.room_changes(), state_.nodepool_changes(), state_.workload_changes(),
                                  state_.node_departures(), provisioning_.unavailable().changes()});
}

DisruptionController::Candidates DisruptionController::consolidation_candidates(Duration now) const {
  Candidates out;
  const scheduling::ClusterSnapshot& snapshot = state_.snapshot();
  std::vector<nodegroups::PdbBudget> pdbs = nodegroups::pdb_budgets(snapshot, state_.pdbs());
  for (const auto& [name, node] : state_.nodes()) {
    if (node.phase != state::NodePhase::Ready || node.nodepool.empty()) continue;
    const NodePool* pool = state_.find_nodepool(node.nodepool);
    if (pool == nullptr || pool->consolidation_policy == ConsolidationPolicy::WhenEmpty || !pool->consolidate_after ||
        pool->is_static()) {
      continue;
    }
    const scheduling::NodeId id = snapshot.find_node(name);
    if (id == scheduling::kNoNode) continue;
    disruption::Candidate c;
    c.id = id;
    c.node = name;
    c.nodepool = node.nodepool;
    c.instance_type = node.instance_type;
    c.capacity_type = cloud::parse_capacity_type(node.capacity_type).value_or(cloud::CapacityType::OnDemand);
    c.price_per_hour = node.price_per_hour;
    c.capacity = node.node.capacity;
    c.pods_version = node.pod_changes;
    const double lifetime = disruption::lifetime_remaining(now - node.launched_at, pool->expire_after);
    std::string blocked = why_not_disruptable(node, id, pdbs);
    const NodePods& pods = node_pods(node, id);
    c.disruption_cost = pods.eviction_cost * lifetime;
    out.pool_cost[c.nodepool] += c.price_per_hour;
    out.pool_disruption_cost[c.nodepool] += c.disruption_cost;
    if (node.busy == 0 || pods.movable.empty()) continue;  // emptiness's
    if (command_ && std::find(command_->nodes.begin(), command_->nodes.end(), name) != command_->nodes.end()) continue;
    if (termination_.draining(name)) continue;
    auto events = pod_events_.find(name);
    const Duration due = (events == pod_events_.end() ? now : events->second.second) + *pool->consolidate_after;
    if (due > now) {
      if (!out.next_due || due < *out.next_due) out.next_due = due;
      continue;
    }
    if (nomination_grace_ends(name) > now) {
      const Duration grace = nomination_grace_ends(name);
      if (!out.next_due || grace < *out.next_due) out.next_due = grace;
      continue;
    }
    if (!blocked.empty()) {
      out.blocked.emplace(name, std::move(blocked));
      continue;
    }
    c.pods = pods.movable;
    c.classes = pods.classes;
    c.requests = pods.requests;
    out.list.push_back(std::move(c));
  }
  disruption::order_candidates(out.list);
  return out;
}

disruption::ConsolidationInput DisruptionController::consolidation_input(Candidates& candidates,
                                                                         scheduling::ClusterSnapshot& cluster,
                                                                         Duration now) const {
  disruption::ConsolidationInput input;
  provisioning::ProvisioningInput context;
  describe_cluster(state_, cloud_, context);
  input.cluster = &cluster;
  input.candidates = std::move(candidates.list);
  for (const disruption::Candidate& c : input.candidates) {
    if (!input.allowed.contains(c.nodepool)) input.allowed[c.nodepool] = budget_allows(c.nodepool, DisruptionReason::Underutilized);
  }
  input.nodepools = std::move(context.nodepools);
  // As Karpenter when every NodePool whose nodes are candidates says so.
  const auto as_karpenter = [&](const disruption::Candidate& c) {
    const NodePool* pool = state_.find_nodepool(c.nodepool);
    return pool != nullptr && pool->meta.annotated_true(disruption::kAsKarpenterAnnotation);
  };
  input.as_karpenter =
      !input.candidates.empty() && std::all_of(input.candidates.begin(), input.candidates.end(), as_karpenter);
  input.catalog = context.catalog;
  input.nodepool_catalogs = std::move(context.nodepool_catalogs);
  input.nodepools_not_ready = std::move(context.nodepools_not_ready);
  input.daemonsets = std::move(context.daemonsets);
  input.nodepool_usage = std::move(context.nodepool_usage);
  input.unavailable = &provisioning_.unavailable();
  input.now = now;
  input.pool_cost = std::move(candidates.pool_cost);
  input.pool_disruption_cost = std::move(candidates.pool_disruption_cost);
  return input;
}

bool DisruptionController::cluster_settling() const {
  // A pod the provisioner found no NodePool for (its verdict published) waits for a change of its own, not for
  // capacity: it does not count, or one pod that fits nowhere would stop drift and consolidation for good.
  for (const auto& [key, pod] : state_.unbound()) {
    if (!pod->daemon && pod->last_reason.empty()) return true;
  }
  for (const auto& [name, node] : state_.nodes()) {
    if (node.phase == state::NodePhase::Launching) return true;
  }
  return false;
}

// What the node's pods need besides the rest of the cluster: a provisioning plan without the node, on a what-if that
// ends before anything is done.
provisioning::ProvisioningPlan DisruptionController::plan_without(const std::string& name, Duration now,
                                                                  std::size_t& pods) const {
  state::ClusterState::WhatIf what_if(state_);
  scheduling::ClusterSnapshot& snapshot = what_if.snapshot();
  provisioning::ProvisioningInput input;
  describe_cluster(state_, cloud_, input);
  if (const scheduling::NodeId id = snapshot.find_node(name); id != scheduling::kNoNode) {
    for (const scheduling::PlacedPod& placed : snapshot.node(id).pods) {
      const Pod& pod = *placed.pod;
      if (!disruption::needs_another_node(pod)) continue;
      auto copy = std::make_shared<Pod>(pod);
      copy->spec.node_name.clear();
      input.pending.push_back(std::move(copy));
      ++pods;
    }
    snapshot.remove_node(id);
  }
  input.cluster = &snapshot;
  input.unavailable = &provisioning_.unavailable();
  input.now = now;
  return provisioning::plan_provisioning(input);
}

bool DisruptionController::replace_drifted(Duration now) {
  if (!drift_due_) return false;
  last_drift_pass_ = now;
  if (cluster_settling()) return false;  // looked at again a poll period later
  struct Drifted {
    const state::NodeRecord* node;
    disruption::DriftReason reason;
  };
  std::vector<Drifted> drifted;
  for (const auto& [name, node] : state_.nodes()) {
    if (node.phase != state::NodePhase::Ready || node.nodepool.empty() || termination_.draining(name)) continue;
    const NodePool* pool = state_.find_nodepool(node.nodepool);
    if (pool == nullptr) continue;
    std::optional<disruption::DriftReason> reason = disruption::drifted(*pool, node.nodepool_hash, node.node.meta.labels,
                                                            node.nodepool_hash_version);
    if (reason) drifted.push_back({&node, *reason});
  }
  if (drifted.empty()) {
    drift_due_ = false;
    return false;
  }
  // Oldest first, as Karpenter replaces drifted nodes.
  std::stable_sort(drifted.begin(), drifted.end(),
                   [](const Drifted& a, const Drifted& b) { return a.node->launched_at < b.node->launched_at; });
  const std::vector<nodegroups::PdbBudget> pdbs = nodegroups::pdb_budgets(state_.snapshot(), state_.pdbs());
  for (const Drifted& d : drifted) {
    const state::NodeRecord& node = *d.node;
    const std::string name = node.name();
    if (nomination_grace_ends(name) > now) continue;
    if (!why_not_disruptable(node, state_.snapshot().find_node(name), pdbs).empty()) continue;
    if (budget_allows(node.nodepool, DisruptionReason::Drifted) <= 0) continue;
    std::size_t pods = 0;
    provisioning::ProvisioningPlan plan;
    if (const NodePool* pool = state_.find_nodepool(node.nodepool); pool->is_static()) {
      // Karpenter's static drift: one node from the template for one, once the NodePool is down to its replicas
      // and while limits.nodes leaves room for the replacement beside it.
      const StaticNodeCount count = count_static_nodes(state_, termination_, node.nodepool);
      const bool limited = std::find(pool->limited_resources.begin(), pool->limited_resources.end(),
                                     nodes_resource()) != pool->limited_resources.end();
      if (count.running + count.pending_disruption > *pool->replicas) continue;
      if (limited && count.present + 1 > pool->limits.get(nodes_resource())) continue;
      const cloud::CloudResult<const cloud::Catalog*> types = cloud_.instance_types(*pool);
      if (!types) continue;
      std::optional<provisioning::NewNodeClaim> claim =
          provisioning::template_claim(*pool, **types, &provisioning_.unavailable(), now);
      if (!claim) continue;
      plan.new_claims.push_back(std::move(*claim));
      if (const scheduling::NodeId id = state_.snapshot().find_node(name); id != scheduling::kNoNode) {
        for (const scheduling::PlacedPod& placed : state_.snapshot().node(id).pods) {
          if (disruption::needs_another_node(*placed.pod)) ++pods;
        }
      }
    } else {
      plan = plan_without(name, now, pods);
      if (!plan.unschedulable.empty()) continue;  // its pods would have nowhere to go: kept, as Karpenter keeps it
    }
    Command command;
    command.reason = "Drifted";
    command.nodes = {name};
    command.computed_at = now;
    command.command.method = disruption::Method::Drift;
    command.command.decision = plan.new_claims.empty() ? disruption::Decision::Delete : disruption::Decision::Replace;
    command.command.candidates = {0};
    command.command.pods = pods;
    command.command.price_before = node.price_per_hour;
    command_ = std::move(command);
    writer_.set_taint(name, disrupted_taint(), true);
    writer_.object_event({"Node", name, "Normal", "DisruptionTerminating", "Disrupt",
                          fmt::format("Disrupting Node: Drifted/{}; {}, {}",
                                      plan.new_claims.empty() ? "Delete" : "Replace", disruption::to_string(d.reason),
                                      plan.new_claims.empty() ? "its pods fit on the other nodes"
                                                              : plural(plan.new_claims.size(), "replacement"))});
    for (provisioning::NewNodeClaim& claim : plan.new_claims) {
      std::optional<std::string> launched = provisioning_.launch_replacement(
          std::move(claim), fmt::format("the replacement of drifted node {}", name));
      if (launched) command_->replacements.push_back(*launched);
    }
    record("drift", fmt::format("node {} drifted ({}): {}, {} move", name, disruption::to_string(d.reason),
                                command_->replacements.empty()
                                    ? std::string("its pods fit on the other nodes")
                                    : fmt::format("replaced by {}", joined(command_->replacements)),
                                plural(pods, "pod")));
    if (command_->replacements.size() < plan.new_claims.size()) {
      abandon("not every replacement could be launched");
    } else if (command_->replacements.empty()) {
      start_drains();
    } else {
      command_->stage = Command::Stage::Replacing;
    }
    return true;
  }
  return false;
}

void DisruptionController::consolidate(Duration now) {
  last_consolidation_ = now;
  if (cluster_settling()) return;  // looked at again a poll period later
  const std::uint64_t seen = fingerprint(state_);
  Candidates candidates = consolidation_candidates(now);
  report_blocked(candidates.blocked);
  next_due_ = candidates.next_due;
  // The nodes of a command abandoned at its check sit out while the cluster stays as it was: the search would
  // only find that command again.
  if (seen == abandoned_at_) {
    std::erase_if(candidates.list, [&](const disruption::Candidate& c) { return abandoned_.contains(c.node); });
  }
  if (candidates.list.empty()) {
    fruitless_at_ = seen;
    return;
  }
  state::ClusterState::WhatIf what_if(state_);
  disruption::ConsolidationInput input = consolidation_input(candidates, what_if.snapshot(), now);
  memo_.begin(verdict_context(), now, provisioning_.unavailable().next_lapse(now));
  input.memo = &memo_;
  // Karpenter takes multi-node's command when there is one; here single-node's and a repack are asked too, and the
  // command that saves more goes ahead, for the same saving the one that moves fewer pods.
  disruption::ConsolidationResult result = disruption::consolidate_multi_node(input);
  std::map<std::string, std::string> kept;  // each candidate single-node tried and did not take, with why
  if (!input.as_karpenter || !result.command) {
    disruption::ConsolidationResult single = disruption::consolidate_single_node(input);
    for (const disruption::Kept& k : single.kept) kept.emplace(input.candidates[k.candidate].node, k.reason);
    if (!result.command || (single.command && disruption::better(*single.command, *result.command))) {
      result = std::move(single);
    }
  }
  disruption::ConsolidationResult repack = disruption::consolidate_repack(input);
  if (!result.command || (repack.command && disruption::better(*repack.command, *result.command))) {
    result = std::move(repack);
  }
  if (!result.command) {
    report_unconsolidatable(kept);
    fruitless_at_ = seen;
    return;
  }
  Command command;
  command.command = std::move(*result.command);
  for (std::size_t i : command.command.candidates) command.nodes.push_back(input.candidates[i].node);
  command.computed_at = now;
  record("consolidation-planned", fmt::format("{}; checked again in {}", describe(command.command, command.nodes),
                                              format_duration(kValidationDelay)));
  command_ = std::move(command);
  clock_.wake_at(now + kValidationDelay, [this] { validate(); });
}

void DisruptionController::validate() {
  if (!command_ || command_->stage != Command::Stage::Validating) return;
  const Duration now = clock_.now();
  // Asked as if the command were not there: its nodes are candidates again, and not yet disrupting.
  Command planned = std::move(*command_);
  command_.reset();
  Candidates candidates = consolidation_candidates(now);
  std::vector<std::size_t> indexes;
  std::string why;
  for (const std::string& node : planned.nodes) {
    auto it = std::find_if(candidates.list.begin(), candidates.list.end(),
                           [&](const disruption::Candidate& c) { return c.node == node; });
    if (it == candidates.list.end()) {
      auto blocked = candidates.blocked.find(node);
      why = fmt::format("node {} is no longer a candidate{}", node,
                        blocked == candidates.blocked.end() ? "" : ": " + blocked->second);
      break;
    }
    indexes.push_back(static_cast<std::size_t>(it - candidates.list.begin()));
  }
  std::optional<disruption::Command> again;
  if (why.empty()) {
    state::ClusterState::WhatIf what_if(state_);
    disruption::ConsolidationInput input = consolidation_input(candidates, what_if.snapshot(), now);
    disruption::Revalidation revalidation =
        disruption::revalidate(input, indexes, planned.command.decision, planned.command.method);
    again = std::move(revalidation.command);
    why = std::move(revalidation.reason);
  }
  command_ = std::move(planned);
  if (!again) {
    abandon(why);
    return;
  }
  execute(std::move(*again));
}

void DisruptionController::execute(disruption::Command command) {
  command_->command = std::move(command);
  const disruption::Command& c = command_->command;
  for (const std::string& node : command_->nodes) {
    writer_.set_taint(node, disrupted_taint(), true);
    writer_.object_event({"Node", node, "Normal", "DisruptionTerminating", "Disrupt",
                          fmt::format("Disrupting Node: {}/{}; {}", command_->reason,
                                      c.decision == disruption::Decision::Delete ? "Delete" : "Replace",
                                      describe(c, command_->nodes))});
  }
  record("consolidation", describe(c, command_->nodes));
  if (c.decision == disruption::Decision::Delete) {
    start_drains();
    return;
  }
  for (const provisioning::NewNodeClaim& claim : c.replacements) {
    std::optional<std::string> replacement =
        provisioning_.launch_replacement(claim, "the replacement of " + joined(command_->nodes));
    if (!replacement) {
      abandon("no offering of its replacement could be launched");  // those launched go empty, and are removed
      return;
    }
    command_->replacements.push_back(*replacement);
  }
  command_->stage = Command::Stage::Replacing;
}

void DisruptionController::start_drains() {
  command_->stage = Command::Stage::Draining;
  command_->draining = {command_->nodes.begin(), command_->nodes.end()};
  const std::vector<std::string> nodes = command_->nodes;
  for (const std::string& node : nodes) {
    const state::NodeRecord* record = state_.find_node(node);
    if (record == nullptr || record->phase != state::NodePhase::Ready) {
      command_->draining.erase(node);
      continue;
    }
    termination_.drain(node, record->nodepool, command_->computed_at,
                       karpenter_drain_rules(state_.find_nodepool(record->nodepool)),
                       [this](const std::string& done, const std::string&, bool) {
                         if (!command_) return;
                         command_->draining.erase(done);
                         if (command_->draining.empty()) {
                           command_.reset();
                           schedule_pass(clock_.now());
                         }
                       });
  }
  if (command_ && command_->draining.empty()) {
    command_.reset();
    schedule_pass(clock_.now());
  }
}

void DisruptionController::abandon(const std::string& why) {
  // Commands abandoned one after another while the cluster stays as it was keep all their nodes out.
  if (fingerprint(state_) != abandoned_at_) abandoned_.clear();
  abandoned_.insert(command_->nodes.begin(), command_->nodes.end());
  for (const std::string& node : command_->nodes) {
    const state::NodeRecord* record = state_.find_node(node);
    if (record == nullptr) continue;
    const std::vector<Taint>& taints = record->node.taints;
    if (std::any_of(taints.begin(), taints.end(), [](const Taint& t) { return t.key == disrupted_taint().key; })) {
      writer_.set_taint(node, disrupted_taint(), false);
    }
  }
  record(command_->reason == "Drifted" ? "drift-abandoned" : "consolidation-abandoned",
         fmt::format("{} abandoned: {}", describe(command_->command, command_->nodes), why));
  abandoned_at_ = fingerprint(state_);
  command_.reset();
  schedule_pass(clock_.now() + kPollPeriod);
}

void DisruptionController::report_blocked(const std::map<std::string, std::string>& blocked) {
  say_on_nodes("DisruptionBlocked", blocked, node_blocked_);
}

void DisruptionController::report_unconsolidatable(const std::map<std::string, std::string>& kept) {
  say_on_nodes("Unconsolidatable", kept, node_kept_);
}

void DisruptionController::say_on_nodes(const std::string& reason, const std::map<std::string, std::string>& now,
                                        std::map<std::string, std::string>& said) {
  for (const auto& [node, why] : now) {
    auto before = said.find(node);
    if (before != said.end() && before->second == why) continue;
    writer_.object_event({"Node", node, "Normal", reason, "Disrupt", why});
  }
  said = now;
}

std::string DisruptionController::describe(const disruption::Command& c, const std::vector<std::string>& nodes) const {
  std::string what = fmt::format("{} {} {} ({})", disruption::to_string(c.method), disruption::to_string(c.decision),
                                 plural(nodes.size(), "node"), joined(nodes));
  if (c.replacements.size() == 1) {
    std::vector<std::string> types;
    for (const cloud::InstanceType* t : c.replacements.front().instance_types) {
      if (types.size() == 3) {
        types.push_back("...");
        break;
      }
      types.push_back(t->name);
    }
    what += fmt::format(" by one node ({}) from ${:.4f}/h", joined(types), c.price_after);
  } else if (!c.replacements.empty()) {
    std::map<std::string, std::size_t> cheapest;  // each new node by the type it is launched from, as counted
    for (const provisioning::NewNodeClaim& claim : c.replacements) {
      if (!claim.instance_types.empty()) ++cheapest[claim.instance_types.front()->name];
    }
    std::vector<std::string> types;
    for (const auto& [type, count] : cheapest) types.push_back(fmt::format("{} {}", count, type));
    what += fmt::format(" by {} nodes ({})", c.replacements.size(), joined(types));
  }
  return fmt::format("{}: ${:.4f}/h → ${:.4f}/h saves ${:.4f}/h, {} move", what, c.price_before, c.price_after,
                     c.savings(), plural(c.pods, "pod"));
}

void DisruptionController::interruption_notice(const std::string& name, Duration notice) {
  const state::NodeRecord* node = state_.find_node(name);
  if (node == nullptr) return;
  const Duration now = clock_.now();
  const std::string notice_line = fmt::format("spot interruption notice for node {} ({} {}), reclaimed in {}", name,
                                              node->instance_type, node->zone, format_duration(notice));
  writer_.object_event({"Node", name, "Warning", "SpotInterrupted", "Disrupt",
                        fmt::format("Spot interruption warning: the instance is reclaimed in {}", format_duration(notice))});
  // A command that counted on the node no longer holds; one that already drains it goes on.
  if (command_ && command_->stage != Command::Stage::Draining &&
      std::find(command_->nodes.begin(), command_->nodes.end(), name) != command_->nodes.end()) {
    abandon(fmt::format("node {} got a spot interruption notice", name));
  }
  if (node->phase != state::NodePhase::Ready || termination_.draining(name)) {
    record("interruption", notice_line + (termination_.draining(name) ? "; its drain goes on" : ""));
    return;
  }
  // The capacity its pods need is launched now, beside the drain, not after it: two minutes are about what a
  // launch takes, and the pods evicted meanwhile are nominated to the replacements as they come.
  std::vector<std::string> replacements;
  std::size_t pods = 0;
  const NodePool* pool = node->nodepool.empty() ? nullptr : state_.find_nodepool(node->nodepool);
  if (pool != nullptr) {
    provisioning::ProvisioningPlan plan = plan_without(name, now, pods);
    for (provisioning::NewNodeClaim& claim : plan.new_claims) {
      std::optional<std::string> launched = provisioning_.launch_replacement(
          std::move(claim), fmt::format("the pods of interrupted node {}", name));
      if (launched) replacements.push_back(*launched);
    }
  }
  std::string where;  // for a node group's node, nothing: its pods are Cluster Autoscaler's to place
  if (pool != nullptr && replacements.empty()) {
    where = fmt::format(", {} move to the other nodes", plural(pods, "pod"));
  } else if (pool != nullptr) {
    where = fmt::format(", {} move; replacement launched at once: {}", plural(pods, "pod"), joined(replacements));
  }
  record("interruption", fmt::format("{}; draining{}", notice_line, where));
  // Karpenter deletes its node once drained; a node group's instance is the cloud's to take, and its group's to
  // replace (Cluster Autoscaler does nothing of interruptions: the AWS Node Termination Handler drains the node).
  DrainRules rules = karpenter_drain_rules(pool);
  rules.delete_when_drained = pool != nullptr;
  const std::string owner = pool != nullptr ? node->nodepool : node->node_group;
  termination_.drain(name, owner, now, rules, [](const std::string&, const std::string&, bool) {});
}

}  // namespace scalewright::controllers
