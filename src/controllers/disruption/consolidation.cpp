#include "controllers/disruption/consolidation.h"

#include <algorithm>

#include <fmt/format.h>

#include "api/wording.h"
#include "controllers/disruption/validation.h"
#include "eviction/eviction.h"

namespace scalewright::controllers {

void ConsolidationCandidates::look_at_node(const std::string& name, Instant now) {
  const state::NodeRecord* node = state_.find_node(name);
  // Gone, or going: it leaves the record of its pod events.
  if (node == nullptr || node->phase != state::NodePhase::Ready) pod_events_.erase(name);
  const bool ready = node != nullptr && node->phase == state::NodePhase::Ready && !node->nodepool.empty();
  const NodePool* pool = ready ? state_.find_nodepool(node->nodepool) : nullptr;
  if (consolidated(pool) && pool->consolidation_policy != ConsolidationPolicy::WhenEmpty) {
    underutilized_.insert(name);
    // consolidateAfter runs from a pod's last arrival or departure: seen here as a change of the node's count.
    auto [seen, first] = pod_events_.try_emplace(name, node->busy, now);
    if (!first && seen->second.first != node->busy) seen->second = {node->busy, now};
  } else {
    underutilized_.erase(name);
  }
}

ConsolidationCandidates::Found ConsolidationCandidates::find(Instant now) const {
  Found out;
  const scheduling::ClusterSnapshot& snapshot = state_.snapshot();
  std::vector<eviction::PdbBudget> pdbs = eviction::pdb_budgets(snapshot, state_.pdbs());
  for (const auto& [name, node] : state_.nodes()) {
    if (node.phase != state::NodePhase::Ready || node.nodepool.empty()) continue;
    const NodePool* pool = state_.find_nodepool(node.nodepool);
    if (pool == nullptr || pool->consolidation_policy == ConsolidationPolicy::WhenEmpty || !consolidated(pool)) {
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
    std::string blocked = rules_.why_not_disruptable(node, id, pdbs);
    const CandidateRules::NodePods& pods = rules_.node_pods(node, id);
    c.disruption_cost = pods.eviction_cost * lifetime;
    out.pool_cost[c.nodepool] += c.price_per_hour;
    out.pool_disruption_cost[c.nodepool] += c.disruption_cost;
    if (node.busy == 0 || pods.movable.empty()) continue;  // emptiness's
    if (queue_.disrupting(name)) continue;
    if (termination_.draining(name)) continue;
    auto events = pod_events_.find(name);
    const Instant due = (events == pod_events_.end() ? now : events->second.second) + *pool->consolidate_after;
    if (due > now) {
      if (!out.next_due || due < *out.next_due) out.next_due = due;
      continue;
    }
    if (const Instant grace = rules_.nomination_grace_ends(name); grace > now) {
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

disruption::ConsolidationInput ConsolidationCandidates::input(Found& found, scheduling::ClusterSnapshot& cluster,
                                                              Instant now) const {
  disruption::ConsolidationInput input;
  provisioning::ProvisioningInput context;
  describe_cluster(state_, cloud_, context);
  input.cluster = &cluster;
  input.candidates = std::move(found.list);
  for (const disruption::Candidate& c : input.candidates) {
    if (!input.allowed.contains(c.nodepool)) {
      input.allowed[c.nodepool] = rules_.budget_allows(c.nodepool, DisruptionReason::Underutilized);
    }
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
  input.pool_cost = std::move(found.pool_cost);
  input.pool_disruption_cost = std::move(found.pool_disruption_cost);
  return input;
}

std::optional<Instant> ConsolidationMethod::next_pass(Instant now) const {
  if (!candidates_.any()) return std::nullopt;
  std::optional<Instant> due;
  if (cluster_fingerprint(state_) != fruitless_at_) due = now;
  if (next_due_ && (!due || *next_due_ < *due)) due = *next_due_;
  if (due && last_pass_) due = std::max(*due, *last_pass_ + kDisruptionPollPeriod);
  return due;
}

std::uint64_t ConsolidationMethod::verdict_context() const {
  return state::combined_version({state_.room_changes(), state_.nodepool_changes(), state_.workload_changes(),
                                  state_.node_departures(), provisioning_.unavailable().changes()});
}

bool ConsolidationMethod::disrupt(Instant now) {
  last_pass_ = now;
  if (rules_.cluster_settling()) return false;  // looked at again a poll period later
  const std::uint64_t seen = cluster_fingerprint(state_);
  ConsolidationCandidates::Found found = candidates_.find(now);
  say_on_nodes("DisruptionBlocked", found.blocked, node_blocked_);
  next_due_ = found.next_due;
  // The nodes of a command abandoned at its check sit out while the cluster stays as it was: the search would
  // only find that command again.
  const std::set<std::string>& abandoned = queue_.abandoned_while(seen);
  std::erase_if(found.list, [&](const disruption::Candidate& c) { return abandoned.contains(c.node); });
  if (found.list.empty()) {
    fruitless_at_ = seen;
    return false;
  }
  state::ClusterState::WhatIf what_if(state_);
  disruption::ConsolidationInput input = candidates_.input(found, what_if.snapshot(), now);
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
    // Why each candidate stays (Karpenter's Unconsolidatable), said when it changes.
    say_on_nodes("Unconsolidatable", kept, node_kept_);
    fruitless_at_ = seen;
    return false;
  }
  DisruptionCommand command;
  command.command = std::move(*result.command);
  for (std::size_t i : command.command.candidates) command.nodes.push_back(input.candidates[i].node);
  command.computed_at = now;
  record("consolidation-planned", fmt::format("{}; checked again in {}", describe(command.command, command.nodes),
                                              format_duration(Validation::kDelay)));
  queue_.add(std::move(command));
  validation_.check_later(now);
  return true;
}

void ConsolidationMethod::say_on_nodes(const std::string& reason, const std::map<std::string, std::string>& now,
                                       std::map<std::string, std::string>& said) {
  for (const auto& [node, why] : now) {
    auto before = said.find(node);
    if (before != said.end() && before->second == why) continue;
    writer_.object_event({"Node", node, "Normal", reason, "Disrupt", why});
  }
  said = now;
}

}  // namespace scalewright::controllers
