#pragma once
// Karpenter's node repair (the NodeRepair feature gate, off by default, as upstream): a node of a NodePool whose
// condition has had a status the cloud provider gives up on (CloudProvider::repair_policies: Ready False or Unknown
// for 30 minutes on AWS, 10 on kwok) for the provider's toleration is deleted without a drain, and its instance
// terminated; its pods are replaced as any pods are. Held while more than 20 % of its NodePool's nodes (rounded up)
// are unhealthy, as upstream holds it: a fault shared by many nodes is not repaired by replacing them all.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cloud/cloud_provider.h"
#include "controllers/ports.h"

namespace scalewright::controllers {

class NodeRepairController : private Controller {
 public:
  // Up to this share of a NodePool's nodes may be unhealthy and still be repaired (Karpenter's
  // allowedUnhealthyPercent).
  static constexpr int kAllowedUnhealthyPercent = 20;

  NodeRepairController(const Ports& ports, bool enabled);
  // Repairs the nodes whose toleration ran out, and wakes when the next one does.
  void reconcile();

 private:
  // The statement a node breaks whose toleration runs out first, and when.
  struct Unhealthy {
    const cloud::RepairStatement* statement = nullptr;
    Instant since{};
    Instant due{};
  };
  std::optional<Unhealthy> unhealthy(const state::NodeRecord& node) const;
  void wake_at(Instant at);

  bool enabled_;
  std::vector<cloud::RepairStatement> policies_;
  std::optional<std::pair<Instant, TimerId>> wake_;
  std::set<std::string> blocked_;  // nodes whose repair the NodePool's health holds, said once
};

}  // namespace scalewright::controllers
