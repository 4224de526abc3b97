#include "controllers/termination.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "api/wording.h"
#include "disruption/consolidation.h"
#include "eviction/eviction.h"

namespace scalewright::controllers {

const Taint& disrupted_taint() {
  static const Taint taint{std::string(karpenter_labels::disrupted_taint), "", TaintEffect::NoSchedule};
  return taint;
}

DrainRules karpenter_drain_rules(const NodePool* pool) {
  DrainRules rules{disrupted_taint(), Duration::max() / 4, Duration(24LL * 3600 * 1000), Duration(0)};
  rules.wait_on_do_not_disrupt = true;
  if (pool != nullptr && pool->termination_grace_period) {
    rules.max_pod_eviction_time = *pool->termination_grace_period;
    rules.force_at_deadline = true;
  }
  return rules;
}

void TerminationController::reconcile() {
  const std::set<std::string>& finalizing = state_.nodeclaims_finalizing();
  std::erase_if(released_, [&](const std::string& name) { return !finalizing.contains(name); });
  std::vector<std::string> released;
  for (const std::string& name : finalizing) {
    if (released_.contains(name)) continue;
    const state::NodeRecord* node = state_.find_node(name);
    if (node != nullptr && node->phase == state::NodePhase::Ready) {
      if (!draining(name)) {
        drain(name, node->nodepool, clock_.now(), karpenter_drain_rules(state_.find_nodepool(node->nodepool)),
              [](const std::string&, const std::string&, bool) {});
      }
      continue;
    }
    // Draining (its deletion sent), never registered, or gone: the instance goes, then the finalizer.
    std::string instance = node != nullptr && !node->instance_id.empty() ? node->instance_id : name;
    if (node != nullptr && node->phase == state::NodePhase::Launching) writer_.delete_node(name);
    terminate_instance(cloud_, clock_, writer_, std::move(instance));
    released.push_back(name);
  }
  for (const std::string& name : released) {
    writer_.release_nodeclaim(name);
    released_.insert(name);
  }
}

void TerminationController::drain(const std::string& node, const std::string& group, Instant unneeded_since,
                                  const DrainRules& rules, Finished finished) {
  writer_.set_taint(node, rules.taint, true);
  NodeDrain drain{group, clock_.now(), unneeded_since, rules, std::move(finished), {}, {}, {}};
  const scheduling::ClusterSnapshot& snapshot = state_.snapshot();
  if (const scheduling::NodeId id = snapshot.find_node(node); id != scheduling::kNoNode) {
    std::vector<std::shared_ptr<const Pod>> movable;
    for (const auto& placed : snapshot.node(id).pods) {
      const state::PodRecord& pod = *state_.find_pod(placed.pod->meta.key());
      if (!pod.daemon && !pod.terminating_until && !eviction::is_mirror_pod(*pod.pod)) movable.push_back(placed.pod);
    }
    for (const auto& pod : eviction::eviction_order(std::move(movable))) drain.to_evict.push_back(pod->meta.key());
  }
  record("drain", fmt::format("draining node {} of {}: {} to evict, unneeded since {}", node, group,
                              plural(drain.to_evict.size(), "pod"), format_time(unneeded_since)));
  drains_.emplace(node, std::move(drain));
  evict_round(node);
}

// One round of evictions, each decided by may_evict as the scale-down planner decides them. The budgets are the
// PDBs' status as it stands (the pods being deleted out, pending replacements counted but not healthy), lowered by
// each eviction of the round that spends one, as the eviction API lowers a PDB's status before its controller
// recomputes it.
void TerminationController::evict_round(const std::string& node) {
  auto found = drains_.find(node);
  if (found == drains_.end()) return;
  NodeDrain& drain = found->second;
  const state::NodeRecord* live = state_.find_node(node);
  if (live == nullptr || live->phase != state::NodePhase::Ready) {
    drains_.erase(found);  // the node went another way (a spot reclaim, a deletion): nothing to finish
    return;
  }
  // Pods gone meanwhile (deleted by their controller, or evicted by someone else) need no eviction.
  std::erase_if(drain.to_evict, [&](const std::string& key) {
    const state::PodRecord* pod = state_.find_pod(key);
    return pod == nullptr || pod->terminating_until || pod->pod->spec.node_name != node;
  });
  if (drain.to_evict.empty()) {
    finish_if_done(node);
    return;
  }
  const Instant now = clock_.now();
  const DrainRules& rules = drain.rules;
  if (now >= drain.started + rules.max_pod_eviction_time && rules.force_at_deadline) {
    const std::string& first = drain.to_evict.front();
    record("drain-deadline", fmt::format("node {} of {}: its terminationGracePeriod of {} is up; {} deleted without "
                                         "eviction ({}: {}) and the node removed",
                                         node, drain.group, format_duration(rules.max_pod_eviction_time),
                                         plural(drain.to_evict.size(), "pod"), first, drain.last_refusal[first]));
    const std::string group = drain.group;
    const Finished finished = std::move(drain.finished);
    drains_.erase(found);
    delete_node_and_instance(node);  // its pods are deleted with it
    finished(node, group, true);
    return;
  }
  if (now >= drain.started + rules.max_pod_eviction_time) {
    const std::string& first = drain.to_evict.front();
    record("scale-down-failed",
           fmt::format("ScaleDownFailed: failed to drain node {} of {}: {} not evicted within {} ({}); the taint is "
                       "removed and scale-down waits {}",
                       node, drain.group, first, format_duration(rules.max_pod_eviction_time),
                       drain.last_refusal[first], format_duration(rules.delay_after_failure)));
    writer_.set_taint(node, rules.taint, false);
    const std::string group = drain.group;
    const Finished finished = std::move(drain.finished);
    drains_.erase(found);
    finished(node, group, false);
    return;
  }
  std::vector<eviction::PdbBudget> budgets;
  if (!state_.pdbs().empty()) {
    std::vector<const Pod*> all;
    all.reserve(state_.pods().size());
    for (const auto& [key, pod] : state_.pods()) all.push_back(pod.pod.get());
    for (const PodDisruptionBudget& pdb : state_.pdbs()) budgets.push_back(eviction::pdb_budget(pdb, all));
  }
  std::vector<std::string> refused;
  for (const std::string& key : drain.to_evict) {
    const state::PodRecord* pod = state_.find_pod(key);
    if (pod == nullptr) continue;  // scaled in by its controller during this round
    const eviction::EvictionVerdict verdict = eviction::may_evict(*pod->pod, budgets);
    std::string refusal;
    if (rules.wait_on_do_not_disrupt && disruption::says_do_not_disrupt(pod->pod->meta)) {
      refusal = "the pod has karpenter.sh/do-not-disrupt: \"true\", so it is not evicted and stays until the drain's "
                "deadline";
    } else if (verdict.outcome == eviction::EvictionOutcome::MoreThanOneBudget) {
      refusal = "the pod has more than one PodDisruptionBudget, which the eviction subresource does not support";
    } else if (verdict.outcome == eviction::EvictionOutcome::RefusedByBudget) {
      const PodDisruptionBudget& pdb = budgets[*verdict.budget].pdb;
      refusal = fmt::format("cannot evict pod as it would violate the pod's disruption budget {}/{}",
                            pdb.meta.namespace_, pdb.meta.name);
    }
    if (refusal.empty()) {
      if (verdict.spends) --budgets[*verdict.budget].disruptions_allowed;
      const std::int64_t grace_seconds =
          eviction::eviction_grace_period_seconds(*pod->pod, rules.max_graceful_termination.count() / 1000);
      writer_.evict(*pod, Duration(std::max<std::int64_t>(grace_seconds, 0) * 1000));
      drain.evicted.push_back(key);
      continue;
    }
    std::string& last = drain.last_refusal[key];
    if (last != refusal) {
      record("eviction-refused", fmt::format("eviction of {} from node {}: {}; retrying every {}", key, node, refusal,
                                             format_duration(kEvictionRetry)));
    }
    last = refusal;
    refused.push_back(key);
  }
  drain.to_evict = std::move(refused);
  if (!drain.to_evict.empty()) {
    Instant next = now + kEvictionRetry;
    // A deadline that forces the drain is kept to the moment, not to the next round.
    if (rules.force_at_deadline) next = std::min(next, drain.started + rules.max_pod_eviction_time);
    clock_.wake_at(next, [this, node] { evict_round(node); });
    return;
  }
  finish_if_done(node);
}

void TerminationController::pod_terminated(const std::string& node) {
  finish_if_done(node);
}

// A drained node goes once every eviction went through and no evicted pod is still running out its grace period.
void TerminationController::finish_if_done(const std::string& node) {
  auto found = drains_.find(node);
  if (found == drains_.end() || !found->second.to_evict.empty()) return;
  const state::NodeRecord* live = state_.find_node(node);
  if (live == nullptr || live->phase != state::NodePhase::Ready) {
    drains_.erase(found);  // the node went another way (a spot reclaim, a deletion): nothing to finish
    return;
  }
  const NodeDrain& drain = found->second;
  for (const std::string& key : drain.evicted) {
    const state::PodRecord* pod = state_.find_pod(key);
    if (pod != nullptr && pod->terminating_until && pod->pod->spec.node_name == node) return;
  }
  const Instant now = clock_.now();
  if (!drain.rules.delete_when_drained) {
    record("drained", fmt::format("node {} of {} drained ({} evicted, drain took {}); it stays cordoned until its "
                                  "instance is gone", node, drain.group, plural(drain.evicted.size(), "pod"),
                                  format_duration(now - drain.started)));
    const std::string group = drain.group;
    const Finished finished = drain.finished;
    drains_.erase(found);
    finished(node, group, false);
    return;
  }
  record("scale-down", fmt::format("drained node {} of {} removed ({} evicted, drain took {}), unneeded since {}", node,
                                   drain.group, plural(drain.evicted.size(), "pod"),
                                   format_duration(now - drain.started), format_time(drain.unneeded_since)));
  const std::string group = drain.group;
  const Finished finished = drain.finished;
  drains_.erase(found);
  delete_node_and_instance(node);
  finished(node, group, true);
}

std::map<std::string, std::int32_t> TerminationController::drains_per_group() const {
  std::map<std::string, std::int32_t> out;
  for (const auto& [node, drain] : drains_) ++out[drain.group];
  return out;
}

}  // namespace scalewright::controllers
