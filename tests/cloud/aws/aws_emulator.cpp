#include "aws_emulator.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace scalewright::cloud::aws::testing {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// Both defined by the library's target: the script beside this file, and the botocore judges it imports.
const std::filesystem::path kScript = AWS_EMULATOR_SCRIPT;
const std::filesystem::path kOracle = AWS_EMULATOR_ORACLE;
constexpr std::string_view kListening = "AWS emulator listening on http://127.0.0.1:";

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string find_unavailable() {
  if (std::system("command -v python3 > /dev/null 2>&1") != 0) return "python3 not found on PATH";
  if (std::system("python3 -c 'import moto, botocore' > /dev/null 2>&1") != 0) {
    return "python3 cannot import moto and botocore (the machine image's python3 has them: ../shared/aws/README.md)";
  }
  if (!std::filesystem::exists(kOracle / "sigv4_verify.py") || !std::filesystem::exists(kOracle / "query_oracle.py")) {
    return fmt::format("the botocore judges are missing: {} (the repository must sit beside shared/)",
                       kOracle.string());
  }
  return "";
}

}  // namespace

std::optional<std::string> AwsEmulator::unavailable() {
  static const std::string why = find_unavailable();  // importing moto takes a second: asked once per process
  if (why.empty()) return std::nullopt;
  return why;
}

Result<std::unique_ptr<AwsEmulator>> AwsEmulator::start() {
  if (auto why = unavailable()) return Error{*why};
  std::unique_ptr<AwsEmulator> emulator(new AwsEmulator());
  std::error_code ec;
  std::string pattern = (std::filesystem::temp_directory_path(ec) / "scalewright-aws-emulator-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Error{fmt::format("cannot create a temp dir from {}: {}", pattern, std::strerror(errno))};
  }
  emulator->dir_ = pattern;
  const std::string log = (emulator->dir_ / "emulator.log").string();

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::string python = "python3";
  std::string script = kScript.string();
  char* argv[] = {python.data(), script.data(), nullptr};
  const int spawned = posix_spawnp(&emulator->pid_, "python3", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    emulator->pid_ = -1;
    return Error{fmt::format("cannot start python3 {}: {}", script, std::strerror(spawned))};
  }

  // moto is ready in about a second; a loaded machine may take much longer.
  const auto deadline = Clock::now() + 60s;
  while (Clock::now() < deadline) {
    const std::string text = read_file(log);
    if (const std::size_t at = text.find(kListening); at != std::string::npos) {
      emulator->port_ = std::atoi(text.c_str() + at + kListening.size());
      if (emulator->port_ > 0) return emulator;
    }
    int status = 0;
    if (::waitpid(emulator->pid_, &status, WNOHANG) == emulator->pid_) {
      emulator->pid_ = -1;
      return Error{fmt::format("the AWS emulator exited while starting; its log:\n{}", read_file(log))};
    }
    std::this_thread::sleep_for(50ms);
  }
  return Error{fmt::format("the AWS emulator did not listen within 60 s; its log:\n{}", read_file(log))};
}

AwsEmulator::~AwsEmulator() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);  // it stops moto, then itself
    const auto deadline = Clock::now() + 10s;
    bool reaped = false;
    while (!reaped && Clock::now() < deadline) {
      reaped = ::waitpid(pid_, nullptr, WNOHANG) == pid_;
      if (!reaped) std::this_thread::sleep_for(20ms);
    }
    if (!reaped) {
      ::kill(pid_, SIGKILL);  // moto has PDEATHSIG set: it follows
      ::waitpid(pid_, nullptr, 0);
    }
  }
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

std::string AwsEmulator::endpoint() const { return fmt::format("http://127.0.0.1:{}", port_); }

Result<nlohmann::json> AwsEmulator::control(const std::string& method, const std::string& what,
                                            const std::string& body) const {
  httplib::Client client("127.0.0.1", port_);
  client.set_connection_timeout(5s);
  client.set_read_timeout(30s);
  const std::string path = "/_emulator/" + what;
  auto answer = method == "GET" ? client.Get(path) : client.Post(path, body, "application/json");
  if (!answer) return Error{fmt::format("{} {}: {}", method, path, httplib::to_string(answer.error()))};
  if (answer->status != 200)
    return Error{fmt::format("{} {}: HTTP {}: {}", method, path, answer->status, answer->body)};
  nlohmann::json json = nlohmann::json::parse(answer->body, nullptr, false);
  if (json.is_discarded()) return Error{fmt::format("{} {}: not JSON: {}", method, path, answer->body)};
  return json;
}

std::string AwsEmulator::reset() {
  auto answer = control("POST", "reset");
  return answer ? "" : answer.error().message;
}

std::string AwsEmulator::add_rule(const nlohmann::json& rule) {
  auto answer = control("POST", "rules", rule.dump());
  return answer ? "" : answer.error().message;
}

std::string AwsEmulator::register_credentials(const std::string& access_key_id, const std::string& secret,
                                              const std::string& session_token) {
  nlohmann::json entry{{"secret", secret}};
  if (!session_token.empty()) entry["token"] = session_token;
  auto answer = control("POST", "credentials", nlohmann::json{{access_key_id, entry}}.dump());
  return answer ? "" : answer.error().message;
}

std::vector<EmulatedCall> AwsEmulator::calls() const {
  std::vector<EmulatedCall> out;
  auto answer = control("GET", "calls");
  if (!answer) return out;  // problems() says why
  for (const nlohmann::json& call : *answer) {
    const nlohmann::json& key = call.contains("access_key") ? call["access_key"] : nlohmann::json();
    out.push_back({call.value("service", ""), call.value("action", ""), call.value("params", nlohmann::json()),
                   key.is_string() ? key.get<std::string>() : "", call.value("at", 0.0)});
  }
  return out;
}

int AwsEmulator::count(const std::string& service, const std::string& action) const {
  int n = 0;
  for (const EmulatedCall& call : calls()) n += call.service == service && call.action == action ? 1 : 0;
  return n;
}

std::vector<std::string> AwsEmulator::problems() const {
  auto answer = control("GET", "problems");
  if (!answer) return {"the emulator's control API did not answer: " + answer.error().message};
  std::vector<std::string> out;
  for (const nlohmann::json& problem : *answer) {
    std::string text = fmt::format("{} {}: {}", problem.value("service", ""), problem.value("action", ""),
                                   problem.value("problem", ""));
    if (problem.contains("canonical_request") && problem["canonical_request"].is_string()) {
      text += "\ncanonical request (botocore's):\n" + problem["canonical_request"].get<std::string>();
    }
    out.push_back(std::move(text));
  }
  return out;
}

std::string AwsEmulator::log() const { return read_file(dir_ / "emulator.log"); }

}  // namespace scalewright::cloud::aws::testing
