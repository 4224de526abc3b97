#pragma once
// Scenario (scalewright.dev/v1alpha1): our own kind, written like a Kubernetes object, that turns a user's
// manifests into a simulation: how long to run, the random seed, the simulated cloud and its faults, and a
// timeline of changes (scale a workload, apply or delete objects, cordon a node).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/duration.h"
#include "api/meta.h"

namespace scalewright {

struct InsufficientCapacityWindow {
  Duration at{0};
  Duration duration{0};
  std::string instance_type;  // empty: every type
  std::string zone;           // empty: every zone
  std::string capacity_type;  // "spot", "on-demand"; empty: both
};

struct SpotInterruptionEvent {
  Duration at{0};
  std::int32_t count = 1;  // the oldest `count` spot nodes get the two-minute notice
};

struct CloudFaults {
  double insufficient_capacity_rate = 0;  // chance that one launch attempt returns insufficient capacity
  std::vector<InsufficientCapacityWindow> insufficient_capacity;
  double never_ready_rate = 0;  // chance that a launched node never becomes Ready
  std::vector<SpotInterruptionEvent> spot_interruptions;
};

struct CloudSpec {
  std::string region = "us-east-1";
  std::vector<std::string> instance_types;  // empty: the whole catalog of the region
  Duration launch_latency_min{45'000};       // launch → Ready, drawn uniformly
  Duration launch_latency_max{75'000};
  std::optional<double> spot_price_fraction;  // overrides the data-derived spot discount
  CloudFaults faults;
};

struct BatchingSpec {
  Duration idle{1'000};
  Duration max{10'000};
};

struct ObjectReference {
  std::string kind;
  std::string name;
  std::string namespace_ = "default";
};

struct TimelineStep {
  enum class Action { Scale, Apply, Delete, Cordon, Uncordon };
  Duration at{0};
  Action action = Action::Scale;
  ObjectReference target;          // Scale, Delete
  std::int32_t replicas = 0;       // Scale
  std::string apply_source;        // Apply: the objects as YAML text, decoded when the scenario loads
  std::string node;                // Cordon, Uncordon
};

struct Scenario {
  ObjectMeta meta;
  Duration duration{3600'000};
  std::uint64_t seed = 1;
  CloudSpec cloud;
  BatchingSpec batching;
  std::vector<TimelineStep> timeline;  // sorted by `at`, stable
};

}  // namespace scalewright
