#pragma once
// NodePools on EC2, as Karpenter's AWS provider launches them (research: aws-provider.md §1): each EC2NodeClass
// resolved against the account (its subnets, security groups and AMIs, by its selector terms; AMI aliases through
// SSM's public parameters), the catalog shaped by it and offered only in its subnets' zones; a launch is one
// CreateFleet of type instant over a launch template per AMI and capacity type (named by a hash of what it holds,
// created when missing; it tags the network interfaces and spot requests with the instances' tags) with an override
// per (instance type, zone) offering the NodeClaim allows, cheapest first (price-capacity-optimized for spot,
// lowest-price on demand), and identical launches made in the same moment are merged into one call for as many
// instances. Offerings EC2 answers with a capacity error (inside its 200) come back as unavailable, for the
// controllers' 3-minute cache. Instances are tagged as Karpenter tags them, found by those tags, and terminated by id.
// An instance has drifted when its image, subnet or security groups are no longer what its class resolves to
// (Karpenter's AMIDrift, SubnetDrift, SecurityGroupDrift).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include "cloud/aws/aws_client.h"
#include "cloud/aws/bootstrap.h"
#include "cloud/aws/cloud_errors.h"
#include "cloud/aws/ec2_api.h"
#include "cloud/aws/ec2nodeclass.h"
#include "cloud/aws/instance_profiles.h"
#include "cloud/cloud_provider.h"

namespace scalewright::cloud::aws {

// Tags Karpenter's AWS provider puts on what it launches (and finds its instances by).
namespace karpenter_tags {
inline constexpr std::string_view nodepool = "karpenter.sh/nodepool";
inline constexpr std::string_view nodeclaim = "karpenter.sh/nodeclaim";
inline constexpr std::string_view ec2nodeclass = "karpenter.k8s.aws/ec2nodeclass";
// The hash of the class's spec an instance was launched from (Karpenter keeps it as a NodeClaim annotation of this
// name): NodeClassDrift when the class's hash is another now.
inline constexpr std::string_view ec2nodeclass_hash = "karpenter.k8s.aws/ec2nodeclass-hash";
inline constexpr std::string_view cluster_name = "eks:eks-cluster-name";
inline constexpr std::string_view cluster_prefix = "kubernetes.io/cluster/";  // + name: "owned"
}  // namespace karpenter_tags

// An EC2NodeClass as the account resolves it, and whether a NodePool can launch from it.
struct ResolvedNodeClass {
  std::shared_ptr<const EC2NodeClass> node_class;
  std::vector<Ec2Subnet> subnets;
  std::vector<Ec2SecurityGroup> security_groups;
  std::vector<Ec2Image> amis;    // the newest per architecture
  std::string instance_profile;  // what its instances launch with: the class's own, or the one made for its role
  // The hash of the class's spec, its selector terms aside (ec2nodeclass_hash in ec2nodeclass_controller.h); empty
  // where none was computed. Its instances are tagged with it.
  std::string spec_hash;
  // Each condition Karpenter reports (SubnetsReady, SecurityGroupsReady, AMIsReady, InstanceProfileReady), with the
  // reason and message of one that is not True.
  struct Condition {
    std::string type;
    bool ready = true;
    std::string reason;
    std::string message;
  };
  std::vector<Condition> conditions;
  bool ready() const;
  // The first condition that is not ready, as "AMIsReady: ...": why nothing launches from it.
  std::string why_not_ready() const;
};

struct Ec2ProviderOptions {
  ClusterIdentity cluster;
  // Identical launches within this long of each other (and no more than batch_max after the first) are one
  // CreateFleet (Karpenter's batcher: 35 ms idle, 1 s at most).
  std::chrono::milliseconds batch_idle{35};
  std::chrono::milliseconds batch_max{1000};
  // A launch template no launch has used for this long is deleted (delete_idle_launch_templates). Karpenter's
  // cache lets one go after a minute; a template is named by what it holds, so keeping it a little longer never
  // launches a stale one and spares a DescribeLaunchTemplates and a CreateLaunchTemplate per launch made minutes
  // apart.
  std::chrono::seconds launch_template_idle{300};
};

class Ec2Provider final : public CloudProvider {
 public:
  // `ec2` and `ssm` outlive the provider.
  Ec2Provider(const AwsClient& ec2, const AwsClient& ssm, Catalog catalog, Ec2ProviderOptions options);
  ~Ec2Provider() override;

  // Resolves `node_class` against the account: its subnets, security groups and AMIs. Safe from any thread.
  ResolvedNodeClass resolve(std::shared_ptr<const EC2NodeClass> node_class) const;
  // What NodePools naming it launch from now on; a class that is not ready launches nothing. Returns whether that
  // changed: the class is new, became ready or not, or resolves to other AMIs, subnets, security groups or instance
  // profile (a resync that finds the same is no change).
  bool set_node_class(ResolvedNodeClass resolved);
  // Returns whether there was such a class.
  bool remove_node_class(const std::string& name);
  // Deletes the launch templates made for node class `name` in this cluster (found by their tags), as Karpenter
  // does when an EC2NodeClass is deleted; they are made again if the class comes back.
  std::optional<CloudError> delete_launch_templates(const std::string& name);
  // Deletes this cluster's launch templates (found by their tags) that no launch has used for
  // options.launch_template_idle by `now`: those of configurations no longer launched (a new AMI, a changed class)
  // and those an earlier run left, which count as used when first seen here. Called now and then (with the garbage
  // collection); a launch that finds its template gone makes it again.
  std::optional<CloudError> delete_idle_launch_templates(
      std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());
  // Where given, a class naming a `role` gets an instance profile made for it (Karpenter's), deleted with it;
  // without, such a class is not ready. `profiles` outlives the provider.
  void use_instance_profiles(InstanceProfiles* profiles) { profiles_ = profiles; }
  std::optional<CloudError> delete_instance_profile(const std::string& name);

  // A catalog read from the account again (Karpenter reads its types, offerings and prices every 12 h): its prices
  // and availability are taken into the catalogs in use at the engine's next instance_types() call, on the engine's
  // thread, so that nothing the engine reads changes under it. Types and offerings the account has gained are not
  // taken: the engine holds pointers into the catalogs in use (they come with the next start). Safe from any thread.
  void refresh_catalog(Catalog fresh);

  const Catalog& catalog() const override { return catalog_; }
  // The catalog as the NodePool's EC2NodeClass shapes it, offered in its subnets' zones; NodeClassNotReady while
  // the class is missing or unresolved. Takes in a refreshed catalog's prices first (refresh_catalog).
  CloudResult<const Catalog*> instance_types(const NodePool& pool) const override;
  CloudResult<Created> create(const CreateRequest& request) override;
  CloudResult<Deleted> terminate(const std::string& instance_id) override;
  CloudResult<Instance> get(const std::string& instance_id) const override;
  // Every instance of this cluster's NodePools that is not terminated.
  CloudResult<std::vector<Instance>> list() const override;
  // Karpenter's checks, in its order: the instance's image is not among the AMIs its NodePool's class resolves to
  // ("AMIDrift"), its security groups are not that class's ("SecurityGroupDrift"), its subnet is not among the
  // class's ("SubnetDrift"). Not drifted (empty) while the class is missing or not ready, or no instance of this
  // cluster has that id. The instances are described once for every claim asked about within kDescribedFor (one
  // pass of the drift method over every node), and again after a launch.
  CloudResult<std::string> is_drifted(const ClaimedInstance& claim) const override;
  std::vector<RepairStatement> repair_policies() const override;

  // Calls made, for the benchmarks: CreateFleet calls and the instances they asked for.
  std::size_t fleet_calls() const;

  // How long the instances described for drift answer for: a pass of the drift method asks about every node in a
  // row, and one DescribeInstances answers them all.
  static constexpr std::chrono::seconds kDescribedFor{5};

 private:
  struct Batch;
  struct NodeClassEntry {
    ResolvedNodeClass resolved;
    Catalog* shaped = nullptr;  // in shaped_; its prices change only in take_refreshed_catalog
  };

  // The launch this request makes, or why it cannot be made: template configs, capacity type, tags.
  CloudResult<FleetRequest> fleet_request(const CreateRequest& request, const NodeClassEntry& entry);
  // Joins (or opens) the batch of identical requests and waits for its instance.
  CloudResult<FleetInstance> launch_batched(const FleetRequest& request, std::vector<FleetError>& errors);
  void send(Batch& batch);
  CloudResult<Created> created(const CreateRequest& request, const FleetInstance& instance,
                               const std::vector<FleetError>& errors) const;
  std::vector<LaunchOption> unavailable_options(const CreateRequest& request,
                                                const std::vector<FleetError>& errors) const;
  std::optional<Instance> instance_of(const Ec2Instance& described) const;
  // This cluster's instance of that id as last described for drift (described again when that is older than
  // kDescribedFor, or a launch came since); nullopt when there is none.
  CloudResult<std::optional<Ec2Instance>> described_instance(const std::string& id) const;
  // Creates the launch template when it is not known to exist.
  std::optional<CloudError> ensure_launch_template(const std::string& name, const LaunchTemplateData& data,
                                                   const Tags& tags);
  Tags launch_tags(const std::string& nodepool, const EC2NodeClass& node_class) const;
  // The catalog as `resolved` shapes it, offered in its subnets' zones; null when it is not ready. Reads catalog_:
  // called with catalog_mutex_ held.
  std::unique_ptr<Catalog> shape(const ResolvedNodeClass& resolved) const;
  // Takes the refreshed catalog's prices into catalog_ and the shaped catalogs in use, if one is waiting.
  void take_refreshed_catalog() const;

  const AwsClient& ec2_client_;
  const AwsClient& ssm_client_;
  Ec2Api ec2_;
  Ec2ProviderOptions options_;

  // The catalogs' prices change in place (take_refreshed_catalog, on the engine's thread, which reads them without
  // a lock); the other threads that read them (the node classes' shaping, the launches' pricing of their overrides)
  // hold this shared, the change holds it alone. Taken before mutex_ where both are held.
  mutable std::shared_mutex catalog_mutex_;
  mutable Catalog catalog_;
  mutable std::list<std::unique_ptr<Catalog>> shaped_;  // every shaped catalog handed out: the engine holds its types

  mutable std::mutex mutex_;
  std::map<std::string, NodeClassEntry> node_classes_;  // by name
  mutable std::optional<Catalog> refreshed_;            // read from the account, its prices not taken yet
  std::set<std::string> launch_templates_;              // known to exist
  std::map<std::string, std::chrono::steady_clock::time_point> template_used_;  // by name: last launch, or first seen
  std::set<std::string> templates_in_flight_;           // being looked up or made by one launch
  std::condition_variable template_made_;
  std::map<std::string, std::string> claim_of_instance_;  // instance id -> its NodeClaim, for those it launched
  // The instances this provider terminated (by id, and by their NodeClaim's name), the most recent kTerminatedKept.
  static constexpr std::size_t kTerminatedKept = 4096;
  std::set<std::string> terminated_;
  std::deque<std::string> terminated_order_;
  std::map<std::string, std::shared_ptr<Batch>> batches_;  // open batches by request key
  std::size_t fleet_calls_ = 0;
  InstanceProfiles* profiles_ = nullptr;

  // The cluster's instances by id, as one DescribeInstances found them for drift (the drift method's thread).
  struct Described {
    std::map<std::string, Ec2Instance> instances;
    std::chrono::steady_clock::time_point at;
    std::uint64_t launches = 0;  // launches_ when described
    bool valid = false;
  };
  mutable std::mutex described_mutex_;
  mutable Described described_;
  std::atomic<std::uint64_t> launches_{0};  // instances launched: what was described before misses them
};

}  // namespace scalewright::cloud::aws
