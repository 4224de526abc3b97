#pragma once
// The simulated cloud: launches instances from the catalog's offerings after a drawn boot time, and has the
// faults a real cloud has — insufficient capacity for an offering, a node that never becomes Ready — as the
// scenario configures them. Spot interruptions are scheduled by the simulator from the same spec.
#include <map>
#include <optional>
#include <string>

#include "api/scenario.h"
#include "cloud/cloud_provider.h"
#include "sim/random.h"

namespace scalewright::sim {

class SimulatedCloud : public cloud::CloudProvider {
 public:
  SimulatedCloud(cloud::Catalog catalog, CloudSpec spec, std::uint64_t seed);

  // The simulator moves the cloud's clock before each call.
  void set_now(Duration now) { now_ = now; }

  const cloud::Catalog& catalog() const override { return catalog_; }
  cloud::LaunchOutcome launch(const cloud::LaunchRequest& request) override;
  void terminate(const std::string& instance_id) override;

  // When a running instance's node registers and becomes Ready (drawn at launch); nullopt when it never will.
  std::optional<Duration> ready_at(const std::string& instance_id) const;

 private:
  bool in_insufficient_capacity_window(const cloud::LaunchRequest& request) const;

  cloud::Catalog catalog_;
  CloudSpec spec_;
  Random random_;
  Duration now_{0};
  std::uint64_t next_instance_ = 1;
  std::map<std::string, std::optional<Duration>> ready_at_;  // running instances
};

}  // namespace scalewright::sim
