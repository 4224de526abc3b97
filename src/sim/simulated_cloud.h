#pragma once
#include <functional>
#include <limits>
// The simulated cloud: launches instances from the catalog's offerings after a drawn boot time, and has the
// faults a real cloud has — insufficient capacity for an offering, a node that never becomes Ready — as the
// scenario configures them. Spot interruptions are scheduled by the simulator from the same spec.
#include <map>
#include <memory>
#include <vector>
#include <optional>
#include <string>

#include "api/instant.h"
#include "api/scenario.h"
#include "cloud/cloud_provider.h"
#include "cloud/node_class.h"
#include "cloud/played_node_groups.h"
#include "api/random.h"

namespace scalewright::sim {

class SimulatedCloud : public cloud::CloudProvider {
 public:
  SimulatedCloud(cloud::Catalog catalog, CloudSpec spec, std::uint64_t seed);
  // Its node groups launch and terminate through it.
  SimulatedCloud(const SimulatedCloud&) = delete;
  SimulatedCloud& operator=(const SimulatedCloud&) = delete;

  // The simulation's cap on instances at once (its limit on nodes): a launch beyond it is refused, as an account's
  // quota refuses it, and `reached` is told the cap (the simulation stops, saying why).
  void cap_instances(std::size_t max, std::function<void(std::size_t max)> reached) {
    max_instances_ = max;
    cap_reached_ = std::move(reached);
  }
  // The simulator moves the cloud's clock before each call.
  void set_now(Instant now) { now_ = now; }

  const cloud::Catalog& catalog() const override { return catalog_; }
  // A NodePool naming an EC2NodeClass launches the catalog as that class shapes it; one naming an EC2NodeClass that
  // is not there launches nothing (NodeClassNotReady: NodeClassNotFound), once the files hold EC2NodeClasses at all.
  // Any other node class (or none) launches the catalog, and so does every NodePool of files that hold no
  // EC2NodeClass.
  cloud::CloudResult<const cloud::Catalog*> instance_types(const NodePool& pool) const override;
  // The NodePool names an EC2NodeClass the files do not hold, and none is there: its nodes are the catalog's own,
  // which are what Karpenter's getting-started EC2NodeClass launches (AL2023, a 20 GiB root volume).
  bool takes_default_node_class(const NodePool& pool) const;
  // A node class applied (from the files, or an apply step): it replaces one of the same group, kind and name.
  void node_class_applied(cloud::NodeClassPtr node_class);
  cloud::CloudResult<cloud::Created> create(const cloud::CreateRequest& request) override;
  cloud::CloudResult<cloud::Deleted> terminate(const std::string& instance_id) override;
  cloud::CloudResult<cloud::Instance> get(const std::string& instance_id) const override;
  cloud::CloudResult<std::vector<cloud::Instance>> list() const override;
  // AWS's, as the simulated cloud plays EC2.
  std::vector<cloud::RepairStatement> repair_policies() const override;
  // The Auto Scaling groups, played in memory: their instances are launched and terminated through create() and
  // terminate(). The simulator adds the groups and names their instances (from the stream that names every node).
  cloud::PlayedNodeGroups& node_groups() { return groups_; }
  // Launches refused for want of capacity so far (EC2's InsufficientInstanceCapacity).
  std::int32_t insufficient_capacity_errors() const { return insufficient_capacity_errors_; }

  // When a running instance's node registers and becomes Ready (drawn at launch); nullopt when it never will.
  std::optional<Instant> ready_at(const std::string& instance_id) const;

 private:
  bool in_insufficient_capacity_window(const cloud::LaunchOption& option) const;

  cloud::Catalog catalog_;
  // The node classes by group, kind and name, each with the catalog it shapes (made on first need). A replaced
  // class's catalog is kept: instances launched from it still point into it.
  struct ShapedClass {
    cloud::NodeClassPtr node_class;
    mutable const cloud::Catalog* shaped = nullptr;
  };
  std::map<std::string, ShapedClass> node_classes_;
  bool holds_ec2_node_classes_ = false;
  mutable std::vector<std::unique_ptr<cloud::Catalog>> shaped_;
  CloudSpec spec_;
  Random random_;
  Instant now_{};
  std::uint64_t next_instance_ = 1;
  struct Running {
    cloud::Instance instance;
    std::optional<Instant> ready_at;
  };
  std::map<std::string, Running> running_;  // by instance id
  std::int32_t insufficient_capacity_errors_ = 0;
  std::size_t max_instances_ = std::numeric_limits<std::size_t>::max();
  std::function<void(std::size_t)> cap_reached_;
  cloud::PlayedNodeGroups groups_{catalog_, [](const std::string& group) { return group; },
                                  [this](const cloud::CreateRequest& request) { return create(request); },
                                  [this](const std::string& id) { return terminate(id); }};
};

}  // namespace scalewright::sim
