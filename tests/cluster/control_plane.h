#pragma once
// A real kube-apiserver, kube-scheduler and kube-controller-manager v1.26.1 (../shared/k8s/control-plane up) for
// the end-to-end tests of `scalewright run`, with what the tests do to it as a user would: kubectl, and the
// scalewright binary started as a process. Started once per suite; the suite skips only where ../shared/k8s is
// absent (a clone outside this workspace).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api/timestamp.h"
#include "tests/cluster/control_plane_harness.h"

namespace scalewright::cluster::testing {

// The items of a list, none when the list fails.
inline std::vector<nlohmann::json> items(const kube::ApiClient& api, const std::string& path) {
  kube::KubeResult<kube::ListResult> list = api.list(path);
  return list ? list->items : std::vector<nlohmann::json>{};
}

class RealControlPlane : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!ControlPlane::available()) return;
    setup_error_ = plane_.up("scalewright-e2e");
    dir_ = plane_.dir();
    if (setup_error_.empty()) setup_error_ = plane_.install_crds();
    if (setup_error_.empty()) setup_error_ = plane_.run_as_service_account();
  }

  static void TearDownTestSuite() {
    if (dir_.empty()) return;
    if (plane_.down() && setup_error_.empty() && !::testing::UnitTest::GetInstance()->Failed()) plane_.remove();
    dir_.clear();
  }

  void SetUp() override {
    if (!ControlPlane::available()) GTEST_SKIP() << kControlPlane << " is absent";
    ASSERT_EQ(setup_error_, "");
  }

  // The controller runs under deploy/'s ServiceAccount and RBAC rules: a request they do not allow is a failure of
  // the test that made it, whatever else the test checks. scalewright run logs each 403 it gets as "forbidden: ".
  // Only a restarted kube-apiserver may refuse for a moment: it authorizes against RBAC informers still syncing and
  // answers 403 to what the role allows (seen: the reflectors' watches, retried and then answered), so a refusal
  // logged from its restart on is no missing rule.
  void TearDown() override {
    for (const std::string& log : started_logs_) {
      std::ifstream in(log);
      for (std::string line; std::getline(in, line);) {
        if (line.find("forbidden: ") == std::string::npos) continue;
        const std::size_t time = line.find("\"time\":\"");
        const bool while_restarting = !restarted_at_.empty() && time != std::string::npos &&
                                      line.compare(time + 8, restarted_at_.size(), restarted_at_) >= 0;
        if (!while_restarting) ADD_FAILURE() << log << ": " << line;
      }
    }
    started_logs_.clear();
    restarted_at_.clear();
  }

  static std::string kubeconfig() { return plane_.kubeconfig(); }

  // Runs kubectl against the control plane; its output (stdout and stderr) in `out`.
  static bool kubectl(const std::string& args, std::string& out) { return plane_.kubectl(args, out); }
  static void kubectl_ok(const std::string& args) {
    std::string out;
    ASSERT_TRUE(kubectl(args, out)) << "kubectl " << args << ": " << out;
  }
  // Applies a manifest given as text.
  static void apply(const std::string& name, const std::string& manifest) {
    std::string out;
    ASSERT_TRUE(plane_.apply(name, manifest, out)) << "kubectl apply " << name << ": " << out;
  }

  static kube::ApiClient client() {
    auto created = plane_.client();
    EXPECT_TRUE(created.ok()) << created.error().message;
    return std::move(created).value();
  }

  // Starts `scalewright run` against the control plane with these extra flags (and environment, as Process takes it).
  static std::unique_ptr<Process> start_scalewright(const std::string& name, std::vector<std::string> flags,
                                                    const std::vector<std::string>& environment = {}) {
    started_logs_.push_back(plane_.dir() + "/" + name + ".log");
    return plane_.start_scalewright(name, flags, environment);
  }

  static bool eventually(const std::function<bool()>& done, std::chrono::seconds limit) {
    return ::scalewright::cluster::testing::eventually(done, limit);
  }

  // Restarts kube-apiserver with the command line it had (its pid replaced in DIR/pids for `down`): every
  // watch breaks, and the server comes back with the same data.
  static void restart_apiserver() {
    std::ifstream pids_in(dir_ + "/pids");
    std::vector<std::pair<std::string, pid_t>> pids;
    std::string name;
    pid_t pid = 0;
    while (pids_in >> name >> pid) pids.emplace_back(name, pid);
    auto api = std::find_if(pids.begin(), pids.end(), [](const auto& p) { return p.first == "kube-apiserver"; });
    ASSERT_NE(api, pids.end());
    std::ifstream cmdline_in("/proc/" + std::to_string(api->second) + "/cmdline");
    std::vector<std::string> argv;
    for (std::string arg; std::getline(cmdline_in, arg, '\0');) argv.push_back(arg);
    ASSERT_FALSE(argv.empty());
    restarted_at_ = format_micro_time(std::chrono::system_clock::now());
    ::kill(api->second, SIGTERM);
    // Gone, or a zombie its parent (not us) has not reaped: either way it holds no port any more.
    auto gone = [pid = api->second] {
      std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
      std::string line;
      if (!std::getline(stat, line)) return true;
      const std::size_t state = line.rfind(')');
      return state != std::string::npos && state + 2 < line.size() && line[state + 2] == 'Z';
    };
    // Its graceful shutdown waits on the requests in flight for up to a minute: past 10 s, it is killed.
    if (!eventually(gone, std::chrono::seconds(10))) ::kill(api->second, SIGKILL);
    ASSERT_TRUE(eventually(gone, std::chrono::seconds(30)));
    Process restarted(argv, dir_ + "/logs/kube-apiserver.log");
    ASSERT_TRUE(restarted.started());
    restarted.release();
    api->second = restarted.pid();
    std::ofstream pids_out(dir_ + "/pids");
    for (const auto& [n, p] : pids) pids_out << n << " " << p << "\n";
    pids_out.close();
    kube::ApiClient api_client = client();
    ASSERT_TRUE(eventually(
        [&] {
          auto ready = api_client.transport().request({"GET", "/readyz", "", ""});
          return ready.ok() && ready->status == 200;
        },
        std::chrono::seconds(60)));
  }

  // Waits until `count` pods of app `app` (namespace default) run bound to a node, none of them being deleted.
  static bool pods_running(const kube::ApiClient& api, const std::string& app, std::size_t count) {
    return eventually(
        [&] {
          std::vector<nlohmann::json> pods =
              items(api, "/api/v1/namespaces/default/pods?labelSelector=app%3D" + app);
          return pods.size() == count && std::all_of(pods.begin(), pods.end(), [](const nlohmann::json& p) {
                   return p["status"].value("phase", "") == "Running" && !p["spec"].value("nodeName", "").empty() &&
                          !p["metadata"].contains("deletionTimestamp");
                 });
        },
        std::chrono::seconds(120));
  }

  // Waits for `text` in the process' log.
  static bool log_shows(const Process& process, const std::string& text, std::chrono::seconds limit) {
    return eventually([&] { return process.log().find(text) != std::string::npos; }, limit);
  }

  static inline ControlPlane plane_;
  static inline std::string dir_;
  static inline std::string setup_error_;
  static inline std::vector<std::string> started_logs_;  // by this test
  static inline std::string restarted_at_;               // when this test restarted kube-apiserver, as logs write it
};

}  // namespace scalewright::cluster::testing
