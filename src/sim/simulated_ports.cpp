// The ports the controllers act through, as the simulated cluster carries them out: each change is made at once
// and observed into the cluster state, as the API server would persist it and a watch deliver it.
#include <fmt/format.h>

#include "sim/simulation.h"

namespace scalewright::sim {

// The simulated API server changes the object a controller names: the record the state keeps under its key.
state::PodRecord& Simulation::record_of(const state::PodRecord& pod) { return *state_.find_pod(std::string(pod.key)); }

void Simulation::nominate(const state::PodRecord& pod, const std::string& node) {
  state_.pod_nominated(record_of(pod), node.empty() ? Symbol() : Symbol(node));
}

// The eviction API's delete: the pod is marked for deletion and leaves its controller's count (a replacement is
// created now), and it stops after its grace period.
void Simulation::evict(const state::PodRecord& pod, Duration grace) {
  ++evictions_;
  mark_deleted(record_of(pod), now_ + grace);
}

void Simulation::set_taint(const std::string& node_name, const Taint& taint, bool present) {
  state::NodeRecord* node = state_.find_node(node_name);
  if (node == nullptr) return;
  std::vector<Taint>& taints = node->node.taints;
  std::erase_if(taints, [&](const Taint& t) { return t.key == taint.key; });
  if (present) taints.push_back(taint);
  state_.node_updated(*node);
}

bool Simulation::nodeclaim_created(state::NodeRecord claim, const std::vector<cloud::LaunchOption>&) {
  state_.node_added(std::move(claim));
  return true;
}

// The instance boots: its node registers and is Ready when the simulated cloud drew it would (never, for an
// instance that fails to); one that was running before the run is Ready now. A NodeClaim's record was made when
// it was created, and takes the instance.
void Simulation::node_launched(state::NodeRecord node, bool running_already) {
  const std::string name = node.name();
  const std::optional<Instant> ready = running_already ? std::optional(now_) : cloud_.ready_at(node.instance_id);
  state_.node_launched(std::move(node));
  if (running_already) {
    on_node_ready(name);
    return;
  }
  ++launches_;
  if (ready) push({*ready, 0, EventKind::NodeReady, 0, name, {}});
}

// Takes the node out of scheduling and deletes its pods; their controllers create replacements.
void Simulation::drain(const std::string& name) {
  state::NodeRecord* node = state_.find_node(name);
  if (node == nullptr) return;
  std::vector<std::string> deleted;
  if (const scheduling::NodeId id = state_.snapshot().find_node(name); id != scheduling::kNoNode) {
    for (const auto& placed : state_.snapshot().node(id).pods) deleted.push_back(placed.pod->meta.key());
  }
  for (const std::string& key : deleted) delete_pod(key);
  state_.nominations_released(name);
  state_.node_draining(*node);
}

void Simulation::delete_node(const std::string& name) {
  state::NodeRecord* node = state_.find_node(name);
  if (node == nullptr || node->phase == state::NodePhase::Terminated) return;
  if (node->phase != state::NodePhase::Draining) drain(name);
  state_.node_terminated(*node, now_);
}

}  // namespace scalewright::sim
