#pragma once
// The kubelets of EC2 instances, for the end-to-end tests of `scalewright run --cloud-provider aws` against the AWS
// emulator: every second it lists the account's instances (DescribeInstances), and each running instance of the
// cluster (tagged eks:eks-cluster-name=CLUSTER, as the user data of the cluster's nodes joins them to it) registers a
// Node as EKS's kubelet does: named by the instance's private DNS name, spec.providerID aws:///ZONE/i-..., the
// instance type's well-known labels, capacity and allocatable from the catalog, Ready; an instance Karpenter launched
// (tagged karpenter.sh/nodepool) registers with the karpenter.sh/unregistered:NoExecute taint its user data names.
// Its Lease is renewed and its pods played (cloud::FakeKubelet); once the instance is terminated, its Node goes.
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cloud/aws/ec2_api.h"
#include "cloud/catalog.h"
#include "cloud/kwok/fake_kubelet.h"
#include "kube/api_client.h"
#include "net/retry.h"

namespace scalewright::cluster::testing {

class Ec2Kubelets {
 public:
  // `client`, `ec2` and `catalog` outlive it.
  Ec2Kubelets(const kube::ApiClient& client, const cloud::aws::AwsClient& ec2, const cloud::Catalog& catalog,
              std::string cluster)
      : ec2_(ec2), catalog_(catalog), cluster_(std::move(cluster)), kubelet_(client, options()) {}
  ~Ec2Kubelets() { stop(); }

  void start() {
    kubelet_.start();
    poller_ = std::jthread([this](std::stop_token stop) {
      while (!stop.stop_requested()) {
        sync();
        net::sleep_unless_stopped(std::chrono::seconds(1), stop);
      }
    });
  }

  void stop() {
    if (poller_.joinable()) {
      poller_.request_stop();
      poller_.join();
    }
    kubelet_.stop();
  }

  // The Node each instance registered, by instance id.
  std::map<std::string, std::string> nodes() const {
    std::lock_guard lock(mutex_);
    return nodes_;
  }

 private:
  static cloud::FakeKubeletOptions options() {
    cloud::FakeKubeletOptions out;
    out.log_prefix = "ec2 kubelet";
    return out;
  }

  void sync() {
    auto described = cloud::aws::Ec2Api(ec2_).describe_instances({});
    if (!described) return;  // the next pass tries again
    std::map<std::string, const cloud::aws::Ec2Instance*> running;
    for (const cloud::aws::Ec2Instance& instance : *described) {
      if (instance.state == "running" && instance.tag("eks:eks-cluster-name") == cluster_) {
        running[instance.id] = &instance;
      }
    }
    std::lock_guard lock(mutex_);
    for (auto it = nodes_.begin(); it != nodes_.end();) {
      if (running.contains(it->first)) {
        ++it;
        continue;
      }
      kubelet_.remove_node(it->second);
      it = nodes_.erase(it);
    }
    for (const auto& [id, instance] : running) {
      if (nodes_.contains(id)) continue;
      const cloud::InstanceType* type = catalog_.find(instance->instance_type);
      if (type == nullptr) continue;  // not in the catalog: nothing to register it with
      cloud::KubeletNode node;
      node.name = instance->private_dns_name.empty() ? "ip-" + id : instance->private_dns_name;
      node.provider_id = "aws:///" + instance->zone + "/" + id;
      const Symbol* arch = type->labels.find(Symbol("kubernetes.io/arch"));
      node.labels = {{"node.kubernetes.io/instance-type", instance->instance_type},
                     {"topology.kubernetes.io/zone", instance->zone},
                     {"topology.kubernetes.io/region", catalog_.region()},
                     {"kubernetes.io/arch", arch != nullptr ? arch->string() : "amd64"},
                     {"kubernetes.io/os", "linux"},
                     {"kubernetes.io/hostname", node.name}};
      if (!instance->tag("karpenter.sh/nodepool").empty()) {
        node.taints.push_back({{"key", "karpenter.sh/unregistered"}, {"effect", "NoExecute"}});
      }
      node.capacity = type->capacity;
      node.allocatable = type->allocatable;
      node.hostname_address = true;
      node.kubelet_version = "v1.26.1-eks";
      nodes_[id] = node.name;
      kubelet_.register_node(std::move(node));
    }
  }

  const cloud::aws::AwsClient& ec2_;
  const cloud::Catalog& catalog_;
  std::string cluster_;
  cloud::FakeKubelet kubelet_;
  mutable std::mutex mutex_;
  std::map<std::string, std::string> nodes_;  // instance id -> its Node's name
  std::jthread poller_;
};

}  // namespace scalewright::cluster::testing
