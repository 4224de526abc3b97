#pragma once
// The EC2NodeClasses of the cluster as Karpenter's AWS provider keeps them (its nodeclass status controller): each
// one watched, resolved against the account (subnets, security groups, AMIs) when it changes and every few minutes
// after (an AMI alias moves on with each release), handed to the EC2 provider, and its status written as upstream
// writes it: subnets, securityGroups, amis, instanceProfile and the conditions SubnetsReady, SecurityGroupsReady,
// AMIsReady, InstanceProfileReady and Ready. A class that does not resolve is not Ready, says why in its conditions
// and a Warning Event, and launches nothing; a file that fails validation is refused the same way. Whoever asked is
// told the name of each class that resolves to something else than before (not of one a resync finds unchanged).
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <stop_token>
#include <string>
#include <thread>

#include "cloud/aws/ec2_provider.h"
#include "cloud/provider_registry.h"
#include "kube/api_client.h"
#include "kube/event_sink.h"
#include "kube/reflector.h"

namespace scalewright::cloud::aws {

inline constexpr std::string_view kEc2NodeClassesPath = "/apis/karpenter.k8s.aws/v1/ec2nodeclasses";

// The status Karpenter writes for a resolved class (status.subnets, securityGroups, amis, instanceProfile and the
// conditions), for a merge patch of the status subresource.
nlohmann::json ec2nodeclass_status(const ResolvedNodeClass& resolved, std::int64_t generation,
                                   std::chrono::system_clock::time_point now);

// The hash of an EC2NodeClass's spec with its selector terms left out (Karpenter's static drift hash): what the
// selectors resolve to drifts on its own (AMIDrift, SubnetDrift, SecurityGroupDrift), the rest (userData, tags,
// block devices, metadata options, kubelet, role...) by this hash, which instances carry as a tag from their launch.
std::string ec2nodeclass_hash(const nlohmann::json& spec);

class Ec2NodeClassController final : public kube::ReflectorHandler {
 public:
  Ec2NodeClassController(const kube::ApiClient& client, Ec2Provider& provider, kube::EventSink& events,
                         std::chrono::seconds resync = std::chrono::seconds(300));
  ~Ec2NodeClassController() override;
  Ec2NodeClassController(const Ec2NodeClassController&) = delete;
  Ec2NodeClassController& operator=(const Ec2NodeClassController&) = delete;

  // Told, from the controller's threads, each class that is new, gone, has a new spec (generation), or that the
  // provider's set_node_class found resolved to something else (AMIs, subnets, security groups, readiness). Called
  // before start().
  void report_changes_to(NodeClassChanges changes) { changes_ = std::move(changes); }
  // Watches the classes on a thread of its own until stop() (called once this replica leads).
  void start();
  void stop();
  // Whether the first list was resolved: launches may wait for it.
  bool synced() const;

  void relist_started() override;
  void listed(nlohmann::json object) override;
  void relist_done(const std::string& resource_version) override;
  void watched(std::string_view type, nlohmann::json object) override;

 private:
  void apply(const nlohmann::json& object);
  void remove(const std::string& name);
  void resync_loop(const std::stop_token& stop);

  const kube::ApiClient& client_;
  Ec2Provider& provider_;
  kube::EventSink& events_;
  std::chrono::seconds resync_;
  mutable std::mutex mutex_;
  std::map<std::string, nlohmann::json> known_;  // by name: the object as last seen
  std::set<std::string> listed_;
  std::map<std::string, std::int64_t> generations_;  // by name: the generation last handed to the provider
  NodeClassChanges changes_;
  bool synced_ = false;
  std::unique_ptr<kube::Reflector> reflector_;
  std::jthread watcher_;
  std::jthread resyncer_;
};

}  // namespace scalewright::cloud::aws
