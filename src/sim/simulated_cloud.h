#pragma once
// The simulated cloud: launches instances from the catalog's offerings after a drawn boot time, and has the
// faults a real cloud has — insufficient capacity for an offering, a node that never becomes Ready — as the
// scenario configures them. Spot interruptions are scheduled by the simulator from the same spec.
#include <map>
#include <optional>
#include <string>

#include "api/scenario.h"
#include "cloud/cloud_provider.h"
#include "api/random.h"

namespace scalewright::sim {

class SimulatedCloud : public cloud::CloudProvider {
 public:
  SimulatedCloud(cloud::Catalog catalog, CloudSpec spec, std::uint64_t seed);

  // The simulator moves the cloud's clock before each call.
  void set_now(Duration now) { now_ = now; }

  const cloud::Catalog& catalog() const override { return catalog_; }
  cloud::LaunchOutcome launch(const cloud::LaunchRequest& request) override;
  void terminate(const std::string& instance_id) override;
  std::optional<cloud::Instance> get(const std::string& instance_id) const override;
  std::vector<cloud::Instance> list() const override;
  // Launches refused for want of capacity so far (EC2's InsufficientInstanceCapacity).
  std::int32_t insufficient_capacity_errors() const { return insufficient_capacity_errors_; }

  // When a running instance's node registers and becomes Ready (drawn at launch); nullopt when it never will.
  std::optional<Duration> ready_at(const std::string& instance_id) const;

 private:
  bool in_insufficient_capacity_window(const cloud::LaunchRequest& request) const;

  cloud::Catalog catalog_;
  CloudSpec spec_;
  Random random_;
  Duration now_{0};
  std::uint64_t next_instance_ = 1;
  struct Running {
    cloud::Instance instance;
    std::optional<Duration> ready_at;
  };
  std::map<std::string, Running> running_;  // by instance id
  std::int32_t insufficient_capacity_errors_ = 0;
};

}  // namespace scalewright::sim
