#pragma once
// The infrastructure templates Cluster API's Machines are made from (a DockerMachineTemplate, an
// AWSMachineTemplate...), read for what they say of a new machine: Cluster API's opt-in autoscaling from zero has a
// provider publish status.capacity (resource name to quantity) and status.nodeInfo (architecture, operating
// system) on its templates, and Cluster Autoscaler builds an empty group's template node from them.
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "api/result.h"
#include "cloud/clusterapi/scalable_resource.h"
#include "kube/api_client.h"

namespace scalewright::cloud::clusterapi {

class InfrastructureTemplates {
 public:
  explicit InfrastructureTemplates(const kube::ApiClient& api) : api_(api) {}

  // The template `ref` names in `namespace_`: nullopt when it is not there or publishes no capacity; an error when
  // its resource cannot be found in API discovery or a capacity is not a quantity (naming the template and the
  // resource). The kind's resource is found once: in v1beta1's apiVersion, else in the first version of the API
  // group that serves it, in discovery's order, as Cluster Autoscaler looks it up.
  Result<std::optional<TemplateInfo>> read(const std::string& namespace_, const InfrastructureRef& ref) const;

 private:
  // "/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/NS/dockermachinetemplates/NAME" without the
  // namespace and name: "/apis/<group>/<version>" and the resource's plural, or nullopt when nothing serves it.
  Result<std::optional<std::pair<std::string, std::string>>> resource_of(const InfrastructureRef& ref) const;

  const kube::ApiClient& api_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::optional<std::pair<std::string, std::string>>> resources_;  // by group/kind
};

}  // namespace scalewright::cloud::clusterapi
