#pragma once
// A real kube-apiserver (tests/kube/real_apiserver.h: one per test binary) with Cluster API's real CRDs from
// ../shared/crds/cluster-api/: v1.10.10 (serves v1beta1) or v1.14.0 (serves v1beta1 and v1beta2, prefers v1beta2).
// No Cluster API controller runs, so every object is exactly what the test wrote.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

#include "../../kube/real_apiserver.h"
#include "cloud/clusterapi/capi_api.h"

namespace scalewright::cloud::clusterapi::testing {

using nlohmann::json;

// The scalable kinds and the Machines they own.
inline const char* const kScalableCrds[] = {"machinedeployments", "machinesets", "machinepools", "machines"};

class CapiOnRealApiServer : public kube::testing::RealApiServer {
 protected:
  // Each suite has an API server of its own: nothing is installed on it yet.
  static void SetUpTestSuite() {
    installed_.clear();
    RealApiServer::SetUpTestSuite();
  }

  // Installs the scalable kinds' CRDs of one Cluster API release ("v1.10.10", "v1.14.0"), unless installed already,
  // and waits until discovery prefers `preferred`. Switching releases deletes the other one's CRDs (and so their
  // objects) first: v1.10.10's CRDs cannot replace v1.14.0's once v1beta2 objects are stored.
  static void use_release(const std::string& release, const std::string& preferred) {
    if (installed_ == release) return;
    kube::ApiClient api = client(config_);
    const std::string crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/";
    if (!installed_.empty()) {
      for (const char* crd : kScalableCrds) {
        auto removed = api.remove(crds + crd + ".cluster.x-k8s.io");
        ASSERT_TRUE(removed.ok() || removed.error().is_not_found()) << removed.error().describe();
      }
      for (const char* crd : kScalableCrds) {
        for (int attempt = 0; api.get(crds + crd + ".cluster.x-k8s.io").ok(); ++attempt) {
          ASSERT_LT(attempt, 240) << crd << " is not deleted";
          std::this_thread::sleep_for(std::chrono::milliseconds(250));
        }
      }
      installed_.clear();
    }
    for (const char* crd : kScalableCrds) {
      const std::string file = std::string(SCALEWRIGHT_SOURCE_DIR) + "/../shared/crds/cluster-api/" + release +
                               "/cluster.x-k8s.io_" + crd + ".yaml";
      std::ifstream in(file);
      ASSERT_TRUE(in) << file;
      std::stringstream text;
      text << in.rdbuf();
      kube::ApplyOptions options;
      options.force = true;
      auto applied = api.apply(crds + crd + ".cluster.x-k8s.io", text.str(), options);
      ASSERT_TRUE(applied.ok()) << applied.error().describe();
    }
    // Established, and in discovery with the expected preferred version and all three resources.
    for (int attempt = 0;; ++attempt) {
      auto group = api.get("/apis/cluster.x-k8s.io");
      auto resources = api.get("/apis/cluster.x-k8s.io/" + preferred);
      if (group.ok() && (*group)["preferredVersion"]["version"] == preferred && resources.ok() &&
          (*resources)["resources"].dump().find("machinepools/scale") != std::string::npos &&
          (*resources)["resources"].dump().find("machinedeployments/scale") != std::string::npos &&
          (*resources)["resources"].dump().find("machinesets/scale") != std::string::npos &&
          api.list("/apis/cluster.x-k8s.io/" + preferred + "/machinepools").ok()) {
        break;
      }
      ASSERT_LT(attempt, 240) << "Cluster API " << release << " is not served";
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    installed_ = release;
  }

  static void create_namespace(const kube::ApiClient& api, const std::string& name) {
    auto created = api.create("/api/v1/namespaces", {{"metadata", {{"name", name}}}});
    ASSERT_TRUE(created.ok()) << created.error().describe();
  }

  static inline std::string installed_;
};

// What a scalable object of the test looks like: deployment("md-0", bounds("1", "5")).with_replicas(2).
struct Scalable {
  std::string kind;  // MachineDeployment, MachineSet, MachinePool
  std::string name;
  json annotations = json::object();
  std::optional<int> replicas = 1;
  std::string cluster = "purple";
  json labels = json::object();
  std::string owned_by_deployment;  // a MachineSet's MachineDeployment owner

  Scalable& with_replicas(std::optional<int> n) {
    replicas = n;
    return *this;
  }
  Scalable& in_cluster(std::string name_of_cluster) {
    cluster = std::move(name_of_cluster);
    return *this;
  }
  Scalable& labelled(json object_labels) {
    labels = std::move(object_labels);
    return *this;
  }
  Scalable& owned_by(std::string deployment) {
    owned_by_deployment = std::move(deployment);
    return *this;
  }
};

inline Scalable scalable(std::string kind, std::string name, json annotations) {
  Scalable s;
  s.kind = std::move(kind);
  s.name = std::move(name);
  s.annotations = std::move(annotations);
  return s;
}
inline Scalable deployment(std::string name, json annotations = json::object()) {
  return scalable("MachineDeployment", std::move(name), std::move(annotations));
}
inline Scalable machine_set(std::string name, json annotations = json::object()) {
  return scalable("MachineSet", std::move(name), std::move(annotations));
}
inline Scalable machine_pool(std::string name, json annotations = json::object()) {
  return scalable("MachinePool", std::move(name), std::move(annotations));
}

// The smallest object each version's schema accepts (research §3.2), with `s`'s metadata and replicas.
inline json scalable_object(const std::string& version, const std::string& namespace_, const Scalable& s) {
  json infrastructure_ref = version == "v1beta2" ? json{{"apiGroup", "infrastructure.cluster.x-k8s.io"},
                                                        {"kind", "DockerMachineTemplate"},
                                                        {"name", s.name + "-template"}}
                                                 : json{{"apiVersion", "infrastructure.cluster.x-k8s.io/v1beta1"},
                                                        {"kind", "DockerMachineTemplate"},
                                                        {"name", s.name + "-template"}};
  json spec = {{"clusterName", s.cluster},
               {"template",
                {{"metadata", {{"labels", {{"pool", s.name}}}}},
                 {"spec",
                  {{"clusterName", s.cluster},
                   {"bootstrap", {{"dataSecretName", ""}}},
                   {"infrastructureRef", infrastructure_ref}}}}}};
  if (s.kind != "MachinePool") spec["selector"] = {{"matchLabels", {{"pool", s.name}}}};
  if (s.replicas) spec["replicas"] = *s.replicas;
  json metadata = {{"name", s.name}, {"namespace", namespace_}, {"annotations", s.annotations}, {"labels", s.labels}};
  if (!s.owned_by_deployment.empty()) {
    metadata["ownerReferences"] = json::array({{{"apiVersion", "cluster.x-k8s.io/" + version},
                                                {"kind", "MachineDeployment"},
                                                {"name", s.owned_by_deployment},
                                                {"uid", "5a0c0f4e-0000-4000-8000-000000000001"},
                                                {"controller", true}}});
  }
  return {{"apiVersion", "cluster.x-k8s.io/" + version}, {"kind", s.kind}, {"metadata", metadata}, {"spec", spec}};
}

inline std::string resource_of(const std::string& kind) {
  if (kind == "MachineDeployment") return "machinedeployments";
  if (kind == "MachineSet") return "machinesets";
  return "machinepools";
}

inline void create_scalable(const kube::ApiClient& api, const std::string& version, const std::string& namespace_,
                            const Scalable& s) {
  const std::string path =
      "/apis/cluster.x-k8s.io/" + version + "/namespaces/" + namespace_ + "/" + resource_of(s.kind);
  auto created = api.create(path, scalable_object(version, namespace_, s));
  ASSERT_TRUE(created.ok()) << created.error().describe();
}

// The bounds annotations, as a user writes them.
inline json bounds(const std::string& min, const std::string& max) {
  return {{"cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size", min},
          {"cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size", max}};
}

}  // namespace scalewright::cloud::clusterapi::testing
