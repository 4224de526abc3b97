#pragma once
// A real kube-apiserver, kube-scheduler and kube-controller-manager v1.26.1 (../shared/k8s/control-plane up) for
// the end-to-end tests of `scalewright run`, with what the tests do to it as a user would: kubectl, and the
// scalewright binary started as a process. Started once per suite; the suite skips only where ../shared/k8s is
// absent (a clone outside this workspace).
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kube/api_client.h"
#include "kube/kubeconfig.h"

extern char** environ;

namespace scalewright::cluster::testing {

inline const std::filesystem::path kSource = SCALEWRIGHT_SOURCE_DIR;
inline const std::filesystem::path kControlPlane = kSource / "../shared/k8s/control-plane";

// A process started with its output to a log file, stopped with SIGTERM.
class Process {
 public:
  Process(const std::vector<std::string>& argv, const std::filesystem::path& log) : log_(log) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    if (posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~Process() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  bool started() const { return pid_ > 0; }
  // Leaves the process running when this object goes (the control plane's `down` stops it).
  void release() { exited_ = true; }
  pid_t pid() const { return pid_; }
  // Sends `signal` and waits for the exit; returns the exit status (128 + signal when killed by one).
  int stop(int signal = SIGTERM) {
    if (pid_ <= 0 || exited_) return status_;
    ::kill(pid_, signal);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    exited_ = true;
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return status_;
  }
  std::string log() const {
    std::ifstream in(log_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

 private:
  std::filesystem::path log_;
  pid_t pid_ = -1;
  bool exited_ = false;
  int status_ = -1;
};

class RealControlPlane : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!std::filesystem::exists(kControlPlane)) return;
    std::string pattern = (std::filesystem::temp_directory_path() / "scalewright-e2e-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      setup_error_ = "mkdtemp failed";
      return;
    }
    dir_ = pattern;
    if (std::system((kControlPlane.string() + " up " + dir_ + " > " + dir_ + "/up.log 2>&1").c_str()) != 0) {
      setup_error_ = "control-plane up failed; see " + dir_ + "/up.log and " + dir_ + "/logs";
      return;
    }
    kube::KubeconfigOptions options;
    options.kubeconfig = kubeconfig();
    Result<kube::ClusterConfig> config = kube::load_kubeconfig(options);
    if (!config) {
      setup_error_ = config.error().message;
      return;
    }
    config_ = std::move(*config);
    // Karpenter's CRDs, as a user installs them.
    if (std::string out; !kubectl("apply -k " + (kSource / "deploy/crds").string(), out) ||
                         !kubectl("wait --for condition=established --timeout=60s crd/nodepools.karpenter.sh "
                                  "crd/nodeclaims.karpenter.sh",
                                  out)) {
      setup_error_ = "installing the CRDs: " + out;
    }
  }

  static void TearDownTestSuite() {
    if (dir_.empty()) return;
    const int rc = std::system((kControlPlane.string() + " down " + dir_ + " > /dev/null 2>&1").c_str());
    if (rc == 0 && setup_error_.empty() && !::testing::UnitTest::GetInstance()->Failed()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
    dir_.clear();
  }

  void SetUp() override {
    if (!std::filesystem::exists(kControlPlane)) GTEST_SKIP() << kControlPlane << " is absent";
    ASSERT_EQ(setup_error_, "");
  }

  static std::string kubeconfig() { return dir_ + "/kubeconfig"; }

  // Runs kubectl against the control plane; its output (stdout and stderr) in `out`.
  static bool kubectl(const std::string& args, std::string& out) {
    const std::string log = dir_ + "/kubectl.out";
    const std::string command = "kubectl --kubeconfig " + kubeconfig() + " " + args + " > " + log + " 2>&1";
    const int rc = std::system(command.c_str());
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    out = text.str();
    return rc == 0;
  }
  static void kubectl_ok(const std::string& args) {
    std::string out;
    ASSERT_TRUE(kubectl(args, out)) << "kubectl " << args << ": " << out;
  }
  // Applies a manifest given as text.
  static void apply(const std::string& name, const std::string& manifest) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << manifest;
    kubectl_ok("apply -f " + path);
  }

  static kube::ApiClient client() {
    auto created = kube::ApiClient::create(config_);
    EXPECT_TRUE(created.ok()) << created.error().message;
    return std::move(created).value();
  }

  // Starts `scalewright run` against the control plane with these extra flags.
  static std::unique_ptr<Process> start_scalewright(const std::string& name, std::vector<std::string> flags) {
    std::vector<std::string> argv{SCALEWRIGHT_BINARY, "run", "--kubeconfig", kubeconfig(), "--log-format", "json"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    return std::make_unique<Process>(argv, dir_ + "/" + name + ".log");
  }

  // Polls `done` every 250 ms until it holds or `limit` passes; false then.
  static bool eventually(const std::function<bool()>& done, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    return done();
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

  // Waits for `text` in the process' log.
  static bool log_shows(const Process& process, const std::string& text, std::chrono::seconds limit) {
    return eventually([&] { return process.log().find(text) != std::string::npos; }, limit);
  }

  static inline std::string dir_;
  static inline std::string setup_error_;
  static inline kube::ClusterConfig config_;
};

}  // namespace scalewright::cluster::testing
