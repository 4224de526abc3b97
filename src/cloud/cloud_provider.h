#pragma once
// What the NodePool controllers ask of a cloud, as Karpenter's CloudProvider (cloudprovider/types.go) shapes it: the
// instance types a NodePool launches, create an instance for a NodeClaim from the whole ordered list of offerings it
// allows (the provider chooses, as EC2 Fleet does among up to 60 overrides, and says which it launched), delete it,
// get it, list them. Every call can fail, with an error of a class the controllers branch on: an API outage is an
// error, never "no instances". The simulated cloud, kwok and the real providers implement it; the engine never
// talks to one (the controllers do, through this port).
#include <string>
#include <string_view>
#include <vector>

#include "api/duration.h"
#include "api/labels.h"
#include "api/meta.h"
#include "api/nodepool.h"
#include "api/result.h"
#include "cloud/catalog.h"
#include "cloud/instance_type.h"

namespace scalewright::cloud {

// The classes of failure a caller acts on differently (Karpenter's typed errors, karpenter-provider-aws'
// pkg/errors, Cluster Autoscaler's InstanceErrorInfo classes).
enum class ErrorClass {
  InsufficientCapacity,  // no capacity for the offerings tried: try others (EC2's InsufficientInstanceCapacity)
  NotFound,              // no such instance: for a delete, the work is done
  Throttled,             // the API's rate limit: the same call later
  Unauthorized,          // the credentials may not do it: a person must act
  Quota,                 // an account limit (vCPUs, instances): more of the same fails until it is raised
  NodeClassNotReady,     // the NodePool's node class is missing or unresolved: nothing launches from it
  Other,
};
std::string_view to_string(ErrorClass error_class);

struct CloudError {
  ErrorClass error_class = ErrorClass::Other;
  std::string message;
  // InsufficientCapacity: the offerings the cloud had no capacity for, in the order tried.
  std::vector<LaunchOption> unavailable;
};

template <typename T>
using CloudResult = Result<T, CloudError>;

// A delete that went through (or found the instance gone: NotFound is returned, and means the same to the caller).
struct Deleted {};

struct CreateRequest {
  std::string name;  // the NodeClaim's name; the node registers under it
  // The offerings it may launch from, in the order preferred (cheapest first): the provider launches one of them.
  std::vector<LaunchOption> offerings;
  Labels labels;
  std::vector<Taint> taints;
  // The node class its NodePool names (spec.template.spec.nodeClassRef): what a provider with node classes
  // launches it as.
  NodeClassReference node_class = {};
};

struct Instance {
  std::string id;
  std::string node_name;
  const InstanceType* instance_type = nullptr;
  Offering offering;
  std::string provider_id;  // the Node's spec.providerID: "aws:///us-east-1a/i-0abc...", "kwok://default-x2k4p"
};

struct Created {
  Instance instance;
  LaunchOption launched;  // the request's offering it was launched from
  // Offerings tried first and refused for want of capacity: the caller keeps them out of its next choices for a
  // while (Karpenter's unavailable-offerings cache), as EC2 Fleet reports them beside the instance it launched.
  std::vector<LaunchOption> unavailable;
};

// What a provider is asked about a NodeClaim's instance (Karpenter's CloudProvider.IsDrifted is handed the NodeClaim).
struct ClaimedInstance {
  std::string nodeclaim;  // its name
  std::string instance_id;
  const NodePool* nodepool = nullptr;
  const Labels* labels = nullptr;  // its node's
};

// A node whose condition `type` has had `status` for `toleration` is replaced (Karpenter's RepairStatement).
struct RepairStatement {
  std::string condition_type;    // "Ready"
  std::string condition_status;  // "False", "Unknown"
  Duration toleration{0};
};

class CloudProvider {
 public:
  virtual ~CloudProvider() = default;
  virtual const Catalog& catalog() const = 0;
  // The instance types `pool` launches, as Karpenter's CloudProvider.GetInstanceTypes(nodePool) gives them: the
  // catalog, shaped by the node class its nodeClassRef names where the provider has such classes. NodeClassNotReady
  // when the NodePool can launch nothing: the node class it names is not there (Karpenter's NodePool is then not
  // Ready: NodeClassReady=False).
  virtual CloudResult<const Catalog*> instance_types(const NodePool& pool) const {
    (void)pool;
    return &catalog();
  }
  // Launches one instance from `request.offerings`; InsufficientCapacity (with every offering refused) when none
  // had capacity.
  virtual CloudResult<Created> create(const CreateRequest& request) = 0;
  // Terminates the instance; NotFound when there is none of that id (the work is done).
  virtual CloudResult<Deleted> terminate(const std::string& instance_id) = 0;
  // A running instance; NotFound when there is none of that id (never launched, or terminated).
  virtual CloudResult<Instance> get(const std::string& instance_id) const = 0;
  // Every running instance.
  virtual CloudResult<std::vector<Instance>> list() const = 0;
  // Why `claim`'s instance no longer matches what its NodePool's node class would launch now, as the provider sees
  // it (Karpenter's CloudProvider.IsDrifted: an AMI, subnet or security group replaced, the node class's own hash
  // changed: "AMIDrift", "SubnetDrift", "NodeClassDrift"); empty when it still does. Asked after the NodePool's own
  // checks (NodePoolDrifted, RequirementsDrifted) found nothing, each time a NodePool or a node class changed.
  virtual CloudResult<std::string> is_drifted(const ClaimedInstance& claim) const {
    (void)claim;
    return std::string();
  }
  // The node conditions after which one of its nodes is past saving (Karpenter's CloudProvider.RepairPolicies):
  // read by node repair (the NodeRepair feature gate, off by default). None: the provider repairs nothing.
  virtual std::vector<RepairStatement> repair_policies() const { return {}; }
};

// Whether a delete is done: it went through, or the instance was gone already.
inline bool deleted(const CloudResult<Deleted>& result) {
  return result.ok() || result.error().error_class == ErrorClass::NotFound;
}

CloudError not_found(std::string_view instance_id);
// "spot c5.large us-east-1a", as a timeline line names an offering.
std::string describe(const LaunchOption& option);

}  // namespace scalewright::cloud
