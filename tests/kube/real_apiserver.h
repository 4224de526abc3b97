#pragma once
// A real kube-apiserver v1.26.1 with etcd (../shared/k8s/control-plane up --apiserver-only) for the tests of the
// Kubernetes client: started once for the RealApiServer suite (its tests run in one ctest entry, see
// CMakeLists.txt), stopped after it. The tests skip only where ../shared/k8s is absent.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <unistd.h>

#include "kube/api_client.h"
#include "kube/kubeconfig.h"

namespace scalewright::kube::testing {

using nlohmann::json;

inline const std::filesystem::path kControlPlane = SCALEWRIGHT_SOURCE_DIR "/../shared/k8s/control-plane";

class RealApiServer : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!std::filesystem::exists(kControlPlane)) return;
    std::string pattern = (std::filesystem::temp_directory_path() / "scalewright-kube-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      setup_error_ = "mkdtemp failed";
      return;
    }
    dir_ = pattern;
    std::string command = kControlPlane.string() + " up " + dir_ + " --apiserver-only > " + dir_ + "/up.log 2>&1";
    if (std::system(command.c_str()) != 0) {
      setup_error_ = "control-plane up failed; see " + dir_ + "/up.log and " + dir_ + "/logs";
      return;
    }
    KubeconfigOptions options;
    options.kubeconfig = (std::filesystem::path(dir_) / "kubeconfig").string();
    Result<ClusterConfig> config = load_kubeconfig(options);
    if (!config) {
      setup_error_ = config.error().message;
      return;
    }
    config_ = std::move(*config);
  }

  static void TearDownTestSuite() {
    if (dir_.empty()) return;
    std::string command = kControlPlane.string() + " down " + dir_ + " > /dev/null 2>&1";
    int rc = std::system(command.c_str());
    if (rc == 0 && setup_error_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
    dir_.clear();
  }

  void SetUp() override {
    if (!std::filesystem::exists(kControlPlane)) GTEST_SKIP() << kControlPlane << " is absent";
    ASSERT_EQ(setup_error_, "");
  }

  static ApiClient client(const ClusterConfig& config) {
    net::TransportOptions options;
    options.read_timeout = std::chrono::seconds(30);
    auto created = ApiClient::create(config, options);
    EXPECT_TRUE(created.ok()) << created.error().message;
    return std::move(created).value();
  }

  // A ConfigMap name no other test (or earlier run) uses.
  static std::string unique_name(const std::string& prefix) {
    static std::atomic<int> counter{0};
    return prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  }

  // The default namespace appears a moment after the API server is ready: retry NotFound for a while.
  static KubeResult<json> create_when_namespace_exists(const ApiClient& api, const std::string& path,
                                                        const json& object) {
    for (int attempt = 0;; ++attempt) {
      auto created = api.create(path, object);
      if (created.ok() || !created.error().is_not_found() || attempt == 40) return created;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  }

  static inline std::string dir_;
  static inline std::string setup_error_;
  static inline ClusterConfig config_;
};

}  // namespace scalewright::kube::testing
