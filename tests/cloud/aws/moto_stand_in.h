#pragma once
// A stand-in for AwsEmulator (tests/cloud/aws/aws_emulator.h, on its way): plain moto on 127.0.0.1, with the same
// names, so that a test written against it runs unchanged on the emulator once that is merged (swap the include).
// It cannot inject faults nor record calls: add_rule() says so (tests that need rules skip), calls() is empty and
// count() is -1 (count calls on the client's side, with AwsClientOptions::on_answer).
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <httplib.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "api/result.h"

namespace scalewright::cloud::aws::testing {

inline constexpr const char* kAwsEmulatorAccessKey = "AKIDEXAMPLE";
inline constexpr const char* kAwsEmulatorSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";

struct EmulatedCall {
  std::string service;
  std::string action;
  nlohmann::json params;
};

class AwsEmulator {
 public:
  static std::optional<std::string> unavailable() {
    if (std::system("python3 -c 'import moto' >/dev/null 2>&1") != 0) return "moto is not installed in python3";
    return std::nullopt;
  }

  static Result<std::unique_ptr<AwsEmulator>> start() {
    std::unique_ptr<AwsEmulator> emulator(new AwsEmulator());
    char pattern[] = "/tmp/moto-stand-in-XXXXXX";
    if (mkdtemp(pattern) == nullptr) return Error{"moto stand-in: cannot make a temporary directory"};
    emulator->dir_ = pattern;
    const std::string log = (emulator->dir_ / "moto.log").string();
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) return Error{"moto stand-in: fork failed"};
    if (pid == 0) {
      // moto goes with the test process, however that ends.
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != parent) _exit(1);
      if (std::freopen(log.c_str(), "w", stderr) == nullptr) _exit(126);
      if (std::freopen("/dev/null", "w", stdout) == nullptr) _exit(126);
      execlp("python3", "python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", "0", static_cast<char*>(nullptr));
      _exit(127);
    }
    emulator->pid_ = pid;
    // moto prints " * Running on http://127.0.0.1:PORT" once it listens.
    const std::regex running(R"( \* Running on http://127\.0\.0\.1:(\d+))");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      std::ifstream in(log);
      std::stringstream text;
      text << in.rdbuf();
      std::smatch match;
      const std::string content = text.str();
      if (std::regex_search(content, match, running)) {
        emulator->port_ = std::stoi(match[1]);
        if (emulator->reset().empty()) return emulator;
      }
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        emulator->pid_ = -1;
        return Error{"moto stand-in: moto exited: " + content};
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return Error{"moto stand-in: moto did not start within 30 s"};
  }

  ~AwsEmulator() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  }
  AwsEmulator(const AwsEmulator&) = delete;
  AwsEmulator& operator=(const AwsEmulator&) = delete;

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }

  // moto's state of every service and region dropped; "" or what failed.
  std::string reset() {
    httplib::Client client("127.0.0.1", port_);
    auto answer = client.Post("/moto-api/reset", "", "application/json");
    if (!answer) return "moto stand-in: reset: no answer";
    if (answer->status != 200) return "moto stand-in: reset: HTTP " + std::to_string(answer->status);
    return "";
  }
  std::string add_rule(const nlohmann::json&) { return "the moto stand-in cannot inject faults"; }
  std::string register_credentials(const std::string&, const std::string&, const std::string& = "") { return ""; }
  std::vector<EmulatedCall> calls() const { return {}; }
  int count(const std::string&, const std::string&) const { return -1; }
  std::vector<std::string> problems() const { return {}; }
  std::string log() const {
    std::ifstream in(dir_ / "moto.log");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

 private:
  AwsEmulator() = default;
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace scalewright::cloud::aws::testing
