#pragma once
// Why a NodeClaim launched what it did, in words and numbers, for `scalewright explain` and the NodeClaim's Event
// in `scalewright run`: the pods it is for and what they request, the NodePool (and those passed over), the
// instance types that could hold them at their prices, the offering chosen, and each cheaper offering not taken
// with what excluded it (capacity type, zone, insufficient capacity).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/duration.h"
#include "api/instant.h"
#include "provisioning/provisioner.h"

namespace scalewright::provisioning {

// `purpose`: what the claim is for, as the timeline says it ("3 pods: default/web-1, ..."). Read after the launch
// went through, so that offerings that failed on the way are marked unavailable.
std::string explain_launch(const NewNodeClaim& claim, const LaunchChoice& choice, const std::string& purpose,
                           const UnavailableOfferings& unavailable, Instant now);

// explain_launch, keeping the last claim's look at every offering of its types: a batch launches many claims of one
// NodePool over the same types and requirements, taking the same offering, and that look is the same for each (a
// burst of 100,000 pods onto small nodes spent a fifth of its time there).
class LaunchExplainer {
 public:
  std::string explain(const NewNodeClaim& claim, const LaunchChoice& choice, const std::string& purpose,
                      const UnavailableOfferings& unavailable, Instant now);

 private:
  // What the look depends on: the offerings excluded depend on the marks and, as marks lapse, on the time.
  struct Scan {
    std::string nodepool;
    std::string requirements;
    std::vector<const cloud::InstanceType*> instance_types;
    const cloud::Offering* offering = nullptr;
    std::uint64_t unavailable_changes = 0;
    Instant now{};
    bool operator==(const Scan&) const = default;
  };
  std::optional<std::pair<Scan, std::string>> last_;
};

}  // namespace scalewright::provisioning
