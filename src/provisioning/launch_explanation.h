#pragma once
// Why a NodeClaim launched what it did, in words and numbers, for `scalewright explain` and the NodeClaim's Event
// in `scalewright run`: the pods it is for and what they request, the NodePool (and those passed over), the
// instance types that could hold them at their prices, the offering chosen, and each cheaper offering not taken
// with what excluded it (capacity type, zone, insufficient capacity).
#include <string>

#include "api/duration.h"
#include "provisioning/provisioner.h"

namespace scalewright::provisioning {

// `purpose`: what the claim is for, as the timeline says it ("3 pods: default/web-1, ..."). Read after the launch
// went through, so that offerings that failed on the way are marked unavailable.
std::string explain_launch(const NewNodeClaim& claim, const LaunchChoice& choice, const std::string& purpose,
                           const UnavailableOfferings& unavailable, Duration now);

}  // namespace scalewright::provisioning
