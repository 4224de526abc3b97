#pragma once
// What the controllers ask of a cloud: its instance types and offerings, launch an instance from an offering,
// terminate it, and the instances running. The simulated cloud implements it, a kwok-style and an AWS provider
// later; the engine never talks to one (the controllers do, through this port).
#include <optional>
#include <string>
#include <vector>

#include "api/labels.h"
#include "api/meta.h"
#include "cloud/catalog.h"
#include "cloud/instance_type.h"

namespace scalewright::cloud {

struct LaunchRequest {
  std::string name;  // the NodeClaim's name; the node registers under it
  const InstanceType* instance_type = nullptr;
  const Offering* offering = nullptr;
  Labels labels;
  std::vector<Taint> taints;
};

struct Instance {
  std::string id;
  std::string node_name;
  const InstanceType* instance_type = nullptr;
  Offering offering;
  std::string provider_id;  // the Node's spec.providerID: "aws:///us-east-1a/i-0abc...", "kwok://default-x2k4p"
};

struct LaunchOutcome {
  std::optional<Instance> instance;
  // The offering has no capacity right now (EC2's InsufficientInstanceCapacity): try another one.
  bool insufficient_capacity = false;
  std::string message;
};

class CloudProvider {
 public:
  virtual ~CloudProvider() = default;
  virtual const Catalog& catalog() const = 0;
  // The instance types `pool` launches, as Karpenter's CloudProvider.GetInstanceTypes(nodePool) gives them: the
  // catalog, shaped by the node class its nodeClassRef names where the provider has such classes. Null, with `why`
  // set, when the NodePool can launch nothing: the node class it names is not there (Karpenter's NodePool is then
  // not Ready: NodeClassReady=False).
  virtual const Catalog* instance_types(const NodePool& pool, std::string& why) const {
    (void)pool;
    (void)why;
    return &catalog();
  }
  virtual LaunchOutcome launch(const LaunchRequest& request) = 0;
  virtual void terminate(const std::string& instance_id) = 0;
  // A running instance; nullopt when there is none of that id (never launched, or terminated).
  virtual std::optional<Instance> get(const std::string& instance_id) const = 0;
  // Every running instance, by id.
  virtual std::vector<Instance> list() const = 0;
};

}  // namespace scalewright::cloud
