#pragma once
// What the cloud says of its instances ahead of acting on them (cloud::InstanceNotice: the AWS interruption queue's
// messages), taken into the loop: the inbox that carries notices from the provider's threads to the loop's, keeping
// those that come before the loop exists, and what a notice does to the cluster state there, as Karpenter's
// interruption controller acts on the NodeClaim whose instance it names.
#include <optional>
#include <string>
#include <string_view>

#include "cloud/provider_registry.h"
#include "cluster/api_objects.h"
#include "cluster/inbox.h"
#include "controllers/ports.h"
#include "provisioning/provisioner.h"
#include "state/cluster_state.h"

namespace scalewright::cluster {

// Notices from any thread to the loop (cloud::ProviderContext::notices is its sender()), kept until the loop takes
// over (ClusterRuntime::take_notices_from).
using InstanceNoticeInbox = ProviderInbox<cloud::InstanceNotice>;

// The node of the state whose instance is `instance_id` ("i-0abc"): its record's instance id is that id or a
// providerID ending in "/i-0abc" ("aws:///us-west-2a/i-0abc"), or its Node's spec.providerID does. nullptr when none
// (one queue may carry the notices of another cluster's instances).
state::NodeRecord* node_of_instance(state::ClusterState& state, std::string_view instance_id);

// What one notice came to.
struct NoticeTaken {
  std::string node;  // the state's node of the instance; empty: no node has it, and nothing was done
  // The Event to record on the node: a rebalance recommendation's (Karpenter's SpotRebalanceRecommendation), which
  // is all that is done of it.
  std::optional<controllers::ObjectEvent> event;
  // A spot interruption's offering (its type, zone, spot), which the launches then avoid for a while, as Karpenter's
  // interruption controller marks it unavailable: the replacement goes elsewhere, not into the pool EC2 is taking
  // capacity back from.
  std::optional<provisioning::OfferingKey> reclaimed_offering;
};

// Acts on `notice` (the loop's thread): a spot interruption, a scheduled change, an instance stopping or terminating
// or a capacity reservation's interruption marks the node interrupted at the notice's time on the engine's clock
// (`time`), for that reason, which the disruption controller acts on once (replacement launched, node drained, an
// Event naming the reason); a second notice of one node keeps the earlier time and its reason. A rebalance
// recommendation only gives an Event.
NoticeTaken take_instance_notice(state::ClusterState& state, const TimeBase& time, const cloud::InstanceNotice& notice);

}  // namespace scalewright::cluster
