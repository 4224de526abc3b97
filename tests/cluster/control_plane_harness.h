#pragma once
// A real kube-apiserver, kube-scheduler and kube-controller-manager v1.26.1 (../shared/k8s/control-plane up), and
// what is done to it as a user would: kubectl, and the scalewright binary started as a process whose /metrics is
// read over HTTP. No test framework here: the end-to-end tests (control_plane.h) and the real-cluster benchmark
// (bench/real_cluster_bench.cpp) both drive a control plane through it.
//
// SCALEWRIGHT_SOURCE_DIR and SCALEWRIGHT_BINARY are defined by the target that includes it.
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
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

#include "kube/api_client.h"
#include "kube/kubeconfig.h"

extern char** environ;

namespace scalewright::cluster::testing {

inline const std::filesystem::path kSource = SCALEWRIGHT_SOURCE_DIR;
inline const std::filesystem::path kControlPlane = kSource / "../shared/k8s/control-plane";

// A process started with its output to a log file, stopped with SIGTERM. Its environment is this process' with
// `environment`'s "NAME=value" entries in place of those of the same names ("NAME=" unsets NAME).
class Process {
 public:
  Process(const std::vector<std::string>& argv, const std::filesystem::path& log,
          const std::vector<std::string>& environment = {})
      : log_(log) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
    std::vector<std::string> entries;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry = *e;
      const bool replaced = std::any_of(environment.begin(), environment.end(),
                                        [&](const std::string& own) { return name_of(own) == name_of(entry); });
      if (!replaced) entries.push_back(entry);
    }
    for (const std::string& own : environment) {
      if (own.size() > name_of(own).size() + 1) entries.push_back(own);
    }
    std::vector<char*> envp;
    for (std::string& entry : entries) envp.push_back(entry.data());
    envp.push_back(nullptr);
    if (posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), envp.data()) != 0) pid_ = -1;
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

// Polls `done` every `every` until it holds or `limit` passes; false then.
inline bool eventually(const std::function<bool()>& done, std::chrono::seconds limit,
                       std::chrono::milliseconds every = std::chrono::milliseconds(250)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(every);
  }
  return done();
}

// The port `scalewright run --metrics-bind-address 127.0.0.1:0` logged it serves on; 0 before it did.
inline int ops_port(const Process& process) {
  const std::string marker = "on port ";
  const std::string log = process.log();
  const std::size_t at = log.find(marker);
  return at == std::string::npos ? 0 : std::atoi(log.c_str() + at + marker.size());
}

inline std::string http_get(int port, const std::string& path, int* status = nullptr) {
  httplib::Client http("127.0.0.1", port);
  auto answer = http.Get(path);
  if (status != nullptr) *status = answer ? answer->status : 0;
  return answer ? answer->body : "";
}

// The port of a started scalewright's /metrics, once it says /readyz ok; 0 when it did not within `limit` each.
inline int ready_port(const Process& process, std::chrono::seconds limit = std::chrono::seconds(60)) {
  int port = 0;
  int status = 0;
  if (!process.started() || !eventually([&] { return (port = ops_port(process)) != 0; }, limit) ||
      !eventually([&] { return http_get(port, "/readyz", &status) == "ok" && status == 200; }, limit)) {
    return 0;
  }
  return port;
}

// One control plane in a directory of its own: `up`, Karpenter's CRDs installed as a user installs them, kubectl,
// an API client, and `scalewright run` processes logging into the directory.
class ControlPlane {
 public:
  static bool available() { return std::filesystem::exists(kControlPlane); }

  // Starts the control plane (scheduler and controller-manager too) in a new directory under the temporary one,
  // named `prefix`-XXXXXX; returns what failed, or "".
  std::string up(const std::string& prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) return "mkdtemp failed";
    dir_ = pattern;
    if (std::system((kControlPlane.string() + " up " + dir_ + " > " + dir_ + "/up.log 2>&1").c_str()) != 0) {
      return "control-plane up failed; see " + dir_ + "/up.log and " + dir_ + "/logs";
    }
    kube::KubeconfigOptions options;
    options.kubeconfig = kubeconfig();
    Result<kube::ClusterConfig> config = kube::load_kubeconfig(options);
    if (!config) return config.error().message;
    config_ = std::move(*config);
    return "";
  }

  // Karpenter's CRDs (deploy/crds), applied and Established; returns what failed, or "".
  std::string install_crds() const {
    std::string out;
    if (!kubectl("apply -k " + (kSource / "deploy/crds").string(), out) ||
        !kubectl("wait --for condition=established --timeout=60s crd/nodepools.karpenter.sh "
                 "crd/nodeclaims.karpenter.sh",
                 out)) {
      return "installing the CRDs: " + out;
    }
    return "";
  }

  // The controller's ServiceAccount and RBAC rules as deploy/ installs them (namespace scalewright), and a kubeconfig
  // with a token of that ServiceAccount (TokenRequest, as `kubectl create token` asks), which every later
  // start_scalewright() then runs under: a request the ClusterRole or Role does not allow is answered 403. Returns
  // what failed, or "".
  std::string run_as_service_account() {
    std::string out;
    for (const char* file : {"deploy/kustomize/namespace.yaml", "deploy/kustomize/serviceaccount.yaml",
                             "deploy/kustomize/rbac-bindings.yaml"}) {
      if (!kubectl("apply -f " + (kSource / file).string(), out)) return std::string("applying ") + file + ": " + out;
    }
    if (!kubectl("apply -k " + (kSource / "deploy/helm/scalewright/files").string(), out)) {
      return "applying the ClusterRole and Role: " + out;
    }
    Result<kube::ApiClient> api = client();
    if (!api) return api.error().message;
    kube::KubeResult<nlohmann::json> token = api->create(
        "/api/v1/namespaces/scalewright/serviceaccounts/scalewright/token",
        {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}, {"spec", {{"expirationSeconds", 7200}}}});
    if (!token) return "TokenRequest for ServiceAccount scalewright/scalewright: " + token.error().describe();
    controller_kubeconfig_ = dir_ + "/scalewright-serviceaccount.kubeconfig";
    std::ofstream(controller_kubeconfig_)
        << "apiVersion: v1\nkind: Config\nclusters:\n- name: local\n  cluster: {server: \"" << config_.server
        << "\", certificate-authority: \"" << dir_ << "/pki/ca.crt\"}\nusers:\n- name: scalewright\n  user: {token: \""
        << (*token)["status"].value("token", "") << "\"}\ncontexts:\n- name: scalewright\n  context: {cluster: local, "
        << "user: scalewright, namespace: scalewright}\ncurrent-context: scalewright\n";
    return "";
  }

  // Stops what `up` started; true when `down` succeeded. The directory stays (remove() takes it).
  bool down() {
    if (dir_.empty()) return true;
    return std::system((kControlPlane.string() + " down " + dir_ + " > /dev/null 2>&1").c_str()) == 0;
  }
  void remove() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }

  // Brings it down at the end of a program (a bench): its directory goes when the run went well and was not asked
  // to be kept, else it is named for its logs. The program's exit status.
  int finish(bool ok, bool keep) {
    down();
    if (ok && !keep) {
      remove();
    } else {
      std::cout << "logs kept in " << dir_ << "\n";
    }
    return ok ? 0 : 1;
  }

  const std::string& dir() const { return dir_; }
  std::string kubeconfig() const { return dir_ + "/kubeconfig"; }
  const kube::ClusterConfig& config() const { return config_; }

  // Runs kubectl against the control plane; its output (stdout and stderr) in `out`.
  bool kubectl(const std::string& args, std::string& out) const {
    const std::string log = dir_ + "/kubectl.out";
    const std::string command = "kubectl --kubeconfig " + kubeconfig() + " " + args + " > " + log + " 2>&1";
    const int rc = std::system(command.c_str());
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    out = text.str();
    return rc == 0;
  }
  // Applies a manifest given as text (written to DIR/`name`); kubectl's output in `out`.
  bool apply(const std::string& name, const std::string& manifest, std::string& out) const {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << manifest;
    return kubectl("apply -f " + path, out);
  }

  Result<kube::ApiClient> client() const { return kube::ApiClient::create(config_); }

  // Starts `scalewright run` against the control plane with these extra flags; its log is DIR/`name`.log.
  // Runs under the ServiceAccount once run_as_service_account() succeeded, else as the admin; `environment` as
  // Process takes it.
  std::unique_ptr<Process> start_scalewright(const std::string& name, const std::vector<std::string>& flags,
                                             const std::vector<std::string>& environment = {}) const {
    const std::string& credentials = controller_kubeconfig_.empty() ? kubeconfig() : controller_kubeconfig_;
    std::vector<std::string> argv{SCALEWRIGHT_BINARY, "run", "--kubeconfig", credentials, "--log-format", "json"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    return std::make_unique<Process>(argv, dir_ + "/" + name + ".log", environment);
  }

 private:
  std::string dir_;
  std::string controller_kubeconfig_;
  kube::ClusterConfig config_;
};

}  // namespace scalewright::cluster::testing
