#include "cluster/instance_notices.h"

namespace scalewright::cluster {

namespace {

// `provider_id` names the instance `instance_id`: it is the id, or a providerID whose last segment it is.
bool names_instance(std::string_view provider_id, std::string_view instance_id) {
  if (provider_id == instance_id) return true;
  return provider_id.size() > instance_id.size() && provider_id.ends_with(instance_id) &&
         provider_id[provider_id.size() - instance_id.size() - 1] == '/';
}

// The state's word for what a notice that drains says (a rebalance recommendation drains nothing).
state::InterruptionKind interruption_kind(cloud::InstanceNotice::Kind kind) {
  switch (kind) {
    case cloud::InstanceNotice::Kind::ScheduledChange:
      return state::InterruptionKind::ScheduledChange;
    case cloud::InstanceNotice::Kind::Stopping:
      return state::InterruptionKind::Stopping;
    case cloud::InstanceNotice::Kind::Terminating:
      return state::InterruptionKind::Terminating;
    case cloud::InstanceNotice::Kind::CapacityReservationInterruption:
      return state::InterruptionKind::CapacityReservationInterruption;
    case cloud::InstanceNotice::Kind::SpotInterruption:
    case cloud::InstanceNotice::Kind::RebalanceRecommendation:
      break;
  }
  return state::InterruptionKind::SpotInterruption;
}

}  // namespace

state::NodeRecord* node_of_instance(state::ClusterState& state, std::string_view instance_id) {
  if (instance_id.empty()) return nullptr;
  for (auto& [name, node] : state.nodes()) {
    if (node.phase == state::NodePhase::Terminated) continue;
    if (names_instance(node.instance_id, instance_id) || names_instance(node.node.provider_id, instance_id)) {
      return &node;
    }
  }
  return nullptr;
}

NoticeTaken take_instance_notice(state::ClusterState& state, const TimeBase& time,
                                 const cloud::InstanceNotice& notice) {
  state::NodeRecord* node = node_of_instance(state, notice.instance_id);
  if (node == nullptr) return {};
  NoticeTaken taken{node->name(), std::nullopt, std::nullopt};
  if (notice.kind == cloud::InstanceNotice::Kind::RebalanceRecommendation) {
    // Karpenter's words (karpenter-provider-aws events.RebalanceRecommendation); it does nothing more (aws#2813).
    taken.event = controllers::ObjectEvent{"Node",   node->name(),
                                           "Normal", "SpotRebalanceRecommendation",
                                           "Notice", "Spot rebalance recommendation was triggered"};
    return taken;
  }
  // The earliest notice of a node stands, with what it said: that happens first.
  Instant at = time.at(notice.at);
  state::InterruptionKind kind = interruption_kind(notice.kind);
  if (node->reclaimed_at && *node->reclaimed_at <= at) {
    at = *node->reclaimed_at;
    kind = node->interruption;
  }
  state.interruption_noticed(*node, at, kind);
  if (notice.kind == cloud::InstanceNotice::Kind::SpotInterruption && !node->instance_type.empty() &&
      !node->zone.empty()) {
    taken.reclaimed_offering = provisioning::OfferingKey{node->instance_type, node->zone, cloud::CapacityType::Spot};
  }
  return taken;
}

}  // namespace scalewright::cluster
