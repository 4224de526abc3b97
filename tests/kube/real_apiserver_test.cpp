// The client over TLS against a real kube-apiserver v1.26.1 (../shared/k8s/control-plane, API server and etcd
// only), with the admin client certificate from the kubeconfig the script writes.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kube/api_client.h"
#include "kube/kubeconfig.h"
#include "real_apiserver.h"

namespace scalewright::kube {
namespace {

using nlohmann::json;

using testing::RealApiServer;

TEST_F(RealApiServer, VersionWithClientCertificate) {
  auto version = client(config_).get("/version");
  ASSERT_TRUE(version.ok()) << version.error().describe();
  EXPECT_EQ((*version)["gitVersion"], "v1.26.1");
  // The client certificate is what authenticates us: an admin-only path answers.
  auto nodes = client(config_).list("/api/v1/nodes");
  ASSERT_TRUE(nodes.ok()) << nodes.error().describe();
  EXPECT_EQ(nodes->kind, "NodeList");
}

TEST_F(RealApiServer, WithoutTheClusterCaVerificationFails) {
  ClusterConfig config = config_;
  config.certificate_authority.clear();  // the system store does not hold the test cluster's CA
  auto version = client(config).get("/version");
  ASSERT_FALSE(version.ok());
  EXPECT_EQ(version.error().code, 0);
  EXPECT_EQ(version.error().describe(), "GET " + config.server +
                                            "/version: TLS verification of the server certificate failed (unable "
                                            "to get local issuer certificate)");
}

TEST_F(RealApiServer, InsecureSkipTlsVerifyConnectsWithoutTheCa) {
  ClusterConfig config = config_;
  config.certificate_authority.clear();
  config.insecure_skip_tls_verify = true;
  auto version = client(config).get("/version");
  ASSERT_TRUE(version.ok()) << version.error().describe();
  EXPECT_EQ((*version)["gitVersion"], "v1.26.1");
}

TEST_F(RealApiServer, ConfigMapCreateGetUpdateConflictDelete) {
  ApiClient api = client(config_);
  std::string name = unique_name("sw-roundtrip");
  std::string collection = "/api/v1/namespaces/default/configmaps";
  std::string path = collection + "/" + name;
  json object = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}, {"data", {{"a", "1"}}}};
  auto created = create_when_namespace_exists(api, collection, object);
  ASSERT_TRUE(created.ok()) << created.error().describe();
  std::string first_rv = (*created)["metadata"]["resourceVersion"];

  auto again = api.create(collection, object);
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(again.error().is_conflict());
  EXPECT_EQ(again.error().reason, "AlreadyExists");

  auto read = api.get(path);
  ASSERT_TRUE(read.ok()) << read.error().describe();
  EXPECT_EQ((*read)["data"]["a"], "1");

  json changed = *read;
  changed["data"]["a"] = "2";
  auto updated = api.update(path, changed);
  ASSERT_TRUE(updated.ok()) << updated.error().describe();
  EXPECT_EQ((*updated)["data"]["a"], "2");
  EXPECT_NE((*updated)["metadata"]["resourceVersion"], first_rv);

  json stale = *read;  // still carries the first resourceVersion
  stale["data"]["a"] = "3";
  auto conflict = api.update(path, stale);
  ASSERT_FALSE(conflict.ok());
  EXPECT_TRUE(conflict.error().is_conflict());
  EXPECT_EQ(conflict.error().reason, "Conflict");
  EXPECT_EQ(conflict.error().describe(),
            "PUT " + path + ": 409 Conflict: Operation cannot be fulfilled on configmaps \"" + name +
                "\": the object has been modified; please apply your changes to the latest version and try again");

  auto removed = api.remove(path, 0);
  ASSERT_TRUE(removed.ok()) << removed.error().describe();
  auto gone = api.get(path);
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(gone.error().is_not_found());
  EXPECT_EQ(gone.error().reason, "NotFound");
}

TEST_F(RealApiServer, WatchSeesAddedThenModified) {
  ApiClient api = client(config_);
  std::string collection = "/api/v1/namespaces/default/configmaps";
  std::string name = unique_name("sw-watch");
  // Wait for the namespace (a create elsewhere would do it too), then take the list's resourceVersion.
  auto seed = create_when_namespace_exists(
      api, collection, {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name + "-seed"}}}});
  ASSERT_TRUE(seed.ok()) << seed.error().describe();
  auto list = api.list(collection);
  ASSERT_TRUE(list.ok()) << list.error().describe();

  std::mutex mutex;
  std::vector<std::pair<std::string, json>> events;
  std::optional<KubeResult<std::string>> outcome;
  std::thread watcher([&] {
    WatchOptions options;
    options.resource_version = list->resource_version;
    options.timeout_seconds = 20;
    auto result = api.watch(collection, options, [&](std::string_view type, const json& object) {
      std::lock_guard lock(mutex);
      if (type == "BOOKMARK" || object["metadata"]["name"] != name) return true;
      events.emplace_back(std::string(type), object);
      return events.size() < 2;
    });
    std::lock_guard lock(mutex);
    outcome = std::move(result);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto created = api.create(collection, {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}},
                                         {"data", {{"k", "v1"}}}});
  ASSERT_TRUE(created.ok()) << created.error().describe();
  auto patched = api.merge_patch(collection + "/" + name, {{"data", {{"k", "v2"}}}});
  ASSERT_TRUE(patched.ok()) << patched.error().describe();
  watcher.join();

  ASSERT_TRUE(outcome.has_value());
  ASSERT_TRUE(outcome->ok()) << outcome->error().describe();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].first, "ADDED");
  EXPECT_EQ(events[0].second["data"]["k"], "v1");
  EXPECT_EQ(events[1].first, "MODIFIED");
  EXPECT_EQ(events[1].second["data"]["k"], "v2");
  EXPECT_EQ(**outcome, (*patched)["metadata"]["resourceVersion"].get<std::string>());

  EXPECT_TRUE(api.remove(collection + "/" + name).ok());
  EXPECT_TRUE(api.remove(collection + "/" + name + "-seed").ok());
}

// The kubeconfig the control-plane script writes loads, and names what the API server was started with.
TEST_F(RealApiServer, ItsKubeconfigLoadsWithTheClusterCaAndTheAdminCertificate) {
  const std::filesystem::path pki = std::filesystem::path(dir_) / "pki";
  auto read = [](const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_TRUE(config_.server.starts_with("https://127.0.0.1:")) << config_.server;
  EXPECT_EQ(config_.certificate_authority, read(pki / "ca.crt"));
  EXPECT_EQ(config_.client_certificate, read(pki / "admin.crt"));
  EXPECT_EQ(config_.client_key, read(pki / "admin.key"));
  EXPECT_TRUE(config_.client_key.starts_with("-----BEGIN PRIVATE KEY-----\n"));
  EXPECT_FALSE(config_.insecure_skip_tls_verify);
  EXPECT_EQ(config_.namespace_, "default");
}

}  // namespace
}  // namespace scalewright::kube
