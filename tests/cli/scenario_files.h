#pragma once
// Manifest files written to a private temporary directory, and `scalewright simulate` / `check` run on them
// in-process, for tests of what the commands refuse (exit status and the one error line).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <unistd.h>

#include "cli/check_command.h"
#include "cli/simulate_command.h"

namespace scalewright::cli::testing {

// A valid scenario to mutate: a Scenario, a Deployment, a NodePool and an HPA scaling the Deployment.
inline const std::string kValidScenario = R"(apiVersion: scalewright.dev/v1alpha1
kind: Scenario
metadata: {name: s}
spec:
  duration: 10m
  seed: 7
  cloud: {region: us-east-1, launchLatency: {min: 45s, max: 75s}}
  timeline:
  - {at: 1m, scale: {kind: Deployment, name: web, namespace: default, replicas: 3}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: c
        image: nginx
        resources: {requests: {cpu: 500m, memory: 256Mi}}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      requirements:
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
)";

struct CommandRun {
  int status = 0;
  std::string out;
  std::string err;
};

// A directory of its own per test process, removed with the object.
class ScenarioFiles {
 public:
  ScenarioFiles()
      : dir_(std::filesystem::temp_directory_path() / ("scalewright-validation-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
  }
  ~ScenarioFiles() { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  // Where `name` is (or would be) in the directory.
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  static CommandRun simulate(const std::vector<std::string>& files, const std::vector<std::string>& status_at = {}) {
    SimulateOptions options;
    options.files = files;
    options.quiet = true;
    options.status_at = status_at;
    std::ostringstream out, err;
    CommandRun run;
    run.status = run_simulate(options, out, err);
    run.out = out.str();
    run.err = err.str();
    return run;
  }

  static CommandRun check(const std::vector<std::string>& files) {
    CheckOptions options;
    options.files = files;
    std::ostringstream out, err;
    CommandRun run;
    run.status = run_check(options, out, err);
    run.out = out.str();
    run.err = err.str();
    return run;
  }

 private:
  std::filesystem::path dir_;
};

// The built binary run with `args` (a shell command line), its stdout and stderr together.
struct BinaryRun {
  int status;
  std::string output;
};

inline BinaryRun run_binary(const std::string& args) {
  std::string command = std::string(SCALEWRIGHT_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  std::array<char, 4096> buffer{};
  while (std::size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// `text` with its first `from` replaced by `to`; fails the test when `from` is not there.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "no " << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

}  // namespace scalewright::cli::testing
