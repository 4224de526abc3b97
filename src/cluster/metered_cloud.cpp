#include "cluster/metered_cloud.h"

#include <chrono>

namespace scalewright::cluster {

MeteredCloud::MeteredCloud(cloud::CloudProvider& inner, cloud::NodeGroupProvider& groups, std::string provider,
                           ops::MetricsRegistry& registry)
    : inner_(inner),
      groups_(groups),
      provider_(std::move(provider)),
      duration_(registry.histogram("karpenter_cloudprovider_duration_seconds",
                                   "Duration of cloud provider method calls, labeled by method and provider.",
                                   {"method", "provider"}, ops::exponential_buckets(0.001, 2, 16))),
      errors_(registry.counter("karpenter_cloudprovider_errors_total",
                               "Total number of errors returned from cloud provider calls, labeled by method, "
                               "provider and error class.",
                               {"method", "provider", "error"})) {}

template <typename Call>
auto MeteredCloud::measure(const char* method, Call&& call) const {
  const auto started = std::chrono::steady_clock::now();
  auto result = call();
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
  duration_.with({method, provider_}).observe(took.count());
  if (!result.ok()) errors_.with({method, provider_, std::string(cloud::to_string(result.error().error_class))}).inc();
  return result;
}

cloud::CloudResult<const cloud::Catalog*> MeteredCloud::instance_types(const NodePool& pool) const {
  return measure("GetInstanceTypes", [&] { return inner_.instance_types(pool); });
}

cloud::CloudResult<cloud::Created> MeteredCloud::create(const cloud::CreateRequest& request) {
  return measure("Create", [&] { return inner_.create(request); });
}

cloud::CloudResult<cloud::Deleted> MeteredCloud::terminate(const std::string& instance_id) {
  return measure("Delete", [&] { return inner_.terminate(instance_id); });
}

cloud::CloudResult<std::string> MeteredCloud::is_drifted(const cloud::ClaimedInstance& claim) const {
  return measure("IsDrifted", [&] { return inner_.is_drifted(claim); });
}

cloud::CloudResult<cloud::Instance> MeteredCloud::get(const std::string& instance_id) const {
  return measure("Get", [&] { return inner_.get(instance_id); });
}

cloud::CloudResult<std::vector<cloud::Instance>> MeteredCloud::list() const {
  return measure("List", [&] { return inner_.list(); });
}

// The node-group port's methods by Cluster Autoscaler's names.
cloud::CloudResult<std::int32_t> MeteredCloud::target_size(const std::string& group) const {
  return measure("TargetSize", [&] { return groups_.target_size(group); });
}

cloud::CloudResult<std::vector<cloud::GroupInstance>> MeteredCloud::increase_size(const std::string& group,
                                                                                 std::int32_t delta) {
  return measure("IncreaseSize", [&] { return groups_.increase_size(group, delta); });
}

cloud::CloudResult<cloud::Deleted> MeteredCloud::delete_nodes(const std::string& group,
                                                              const std::vector<std::string>& instance_ids) {
  return measure("DeleteNodes", [&] { return groups_.delete_nodes(group, instance_ids); });
}

cloud::CloudResult<cloud::Deleted> MeteredCloud::decrease_target_size(const std::string& group, std::int32_t delta) {
  return measure("DecreaseTargetSize", [&] { return groups_.decrease_target_size(group, delta); });
}

cloud::CloudResult<std::vector<cloud::GroupInstance>> MeteredCloud::nodes(const std::string& group) const {
  return measure("Nodes", [&] { return groups_.nodes(group); });
}

}  // namespace scalewright::cluster
