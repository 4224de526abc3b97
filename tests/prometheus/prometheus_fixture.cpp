#include "prometheus_fixture.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

namespace scalewright::testing {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// A port the kernel just handed out on 127.0.0.1; a race with another process is possible, so callers retry.
int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  int port = -1;
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

// Label values in the text exposition format escape backslash, double quote and newline.
std::string escape_label_value(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<PrometheusFixture>> PrometheusFixture::start(PrometheusFixtureOptions options) {
  std::error_code ec;
  if (!std::filesystem::exists(options.binary, ec)) {
    return Error{fmt::format("{} not found: the Prometheus tests need a real Prometheus; run scripts/install-deps.sh",
                             options.binary)};
  }
  std::unique_ptr<PrometheusFixture> fixture(new PrometheusFixture());
  std::string pattern = (std::filesystem::temp_directory_path(ec) / "scalewright-prometheus-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Error{fmt::format("cannot create a temp dir from {}: {}", pattern, std::strerror(errno))};
  }
  fixture->dir_ = pattern;
  if (auto error = fixture->start_exporter()) return *error;
  if (auto error = fixture->start_prometheus(options)) return *error;
  return fixture;
}

PrometheusFixture::~PrometheusFixture() { stop(); }

std::string PrometheusFixture::address() const { return fmt::format("http://127.0.0.1:{}", port_); }

void PrometheusFixture::set_value(std::string_view name, const Labels& labels, double value) {
  std::lock_guard lock(mutex_);
  series_[{std::string(name), labels}] = Series{value, 0};
}

void PrometheusFixture::add_per_scrape(std::string_view name, const Labels& labels, double delta) {
  std::lock_guard lock(mutex_);
  series_[{std::string(name), labels}].per_scrape = delta;
}

void PrometheusFixture::remove(std::string_view name, const Labels& labels) {
  std::lock_guard lock(mutex_);
  series_.erase({std::string(name), labels});
}

// Series sort by name, so each metric family's lines come together as the format requires.
std::string PrometheusFixture::exposition() {
  std::lock_guard lock(mutex_);
  ++scrapes_;
  std::string out;
  for (auto& [key, series] : series_) {
    const auto& [name, labels] = key;
    out += name;
    if (!labels.empty()) {
      out += '{';
      bool first = true;
      for (const auto& [label, value] : labels) {
        if (!first) out += ',';
        first = false;
        out += fmt::format("{}=\"{}\"", label, escape_label_value(value));
      }
      out += '}';
    }
    out += ' ' + format_value(series.value) + '\n';
    series.value += series.per_scrape;  // the next scrape sees the counter grown
  }
  return out;
}

std::optional<Error> PrometheusFixture::start_exporter() {
  exporter_ = std::make_unique<httplib::Server>();
  exporter_->Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
    response.set_content(exposition(), "text/plain; version=0.0.4; charset=utf-8");
  });
  exporter_port_ = exporter_->bind_to_any_port("127.0.0.1");
  if (exporter_port_ <= 0) return Error{"the test exporter cannot bind a port on 127.0.0.1"};
  exporter_thread_ = std::thread([server = exporter_.get()] { server->listen_after_bind(); });
  auto deadline = Clock::now() + 5s;
  while (!exporter_->is_running() && Clock::now() < deadline) std::this_thread::sleep_for(10ms);
  if (!exporter_->is_running()) return Error{"the test exporter did not start"};
  return std::nullopt;
}

std::optional<Error> PrometheusFixture::start_prometheus(const PrometheusFixtureOptions& options) {
  std::filesystem::path config = dir_ / "prometheus.yml";
  {
    std::ofstream out(config);
    out << "global:\n"
           "  scrape_interval: 1s\n"
           "  scrape_timeout: 1s\n"
           "  evaluation_interval: 1s\n"
           "scrape_configs:\n"
           "  - job_name: exporter\n"
           "    static_configs:\n"
        << "      - targets: ['127.0.0.1:" << exporter_port_ << "']\n";
    for (const auto& target : options.extra_targets) {
      out << "  - job_name: " << target.job << "\n"
          << "    static_configs:\n"
          << "      - targets: ['" << target.address << "']\n";
    }
    if (!out) return Error{fmt::format("cannot write {}", config.string())};
  }
  std::string log_path = (dir_ / "prometheus.log").string();
  auto deadline = Clock::now() + options.ready_timeout;

  // A port picked by free_port() can be taken before Prometheus binds it; a few fresh attempts make that harmless.
  constexpr int kAttempts = 3;
  for (int attempt = 1; attempt <= kAttempts; ++attempt) {
    port_ = free_port();
    if (port_ <= 0) return Error{"cannot find a free port on 127.0.0.1"};
    std::vector<std::string> args = {
        options.binary,
        "--config.file=" + config.string(),
        "--storage.tsdb.path=" + (dir_ / "data").string(),
        fmt::format("--web.listen-address=127.0.0.1:{}", port_),
    };
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid < 0) return Error{fmt::format("fork failed: {}", std::strerror(errno))};
    if (pid == 0) {
      // Only async-signal-safe calls here: the test process has threads (the exporter).
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(1);
      ::setpgid(0, 0);
      int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (log >= 0) {
        ::dup2(log, STDOUT_FILENO);
        ::dup2(log, STDERR_FILENO);
      }
      if (null >= 0) ::dup2(null, STDIN_FILENO);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::setpgid(pid, pid);  // also from the parent, so a kill of the group right after fork cannot miss
    pid_ = pid;

    bool exited = false;
    while (Clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exited = true;
        pid_ = -1;
        break;
      }
      httplib::Client client("127.0.0.1", port_);
      client.set_connection_timeout(1s);
      client.set_read_timeout(1s);
      auto response = client.Get("/-/ready");
      if (response && response->status == 200) break;
      std::this_thread::sleep_for(100ms);
    }
    if (exited) {
      if (attempt < kAttempts && log_tail().find("address already in use") != std::string::npos) continue;
      return Error{fmt::format("prometheus exited during startup; its log:\n{}", log_tail())};
    }
    break;
  }
  if (pid_ < 0) return Error{fmt::format("prometheus did not start; its log:\n{}", log_tail())};

  // Ready is not enough: the tests need the exporter scraped at least once.
  auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  if (remaining < 1s) remaining = 1s;
  auto scraped = wait_for(R"(up{job="exporter"})", [](double v) { return v == 1; }, remaining);
  if (!scraped) {
    return Error{fmt::format("prometheus at {} did not scrape the exporter within {} s: {}\nits log:\n{}", address(),
                             options.ready_timeout.count(), scraped.message(), log_tail())};
  }
  return std::nullopt;
}

void PrometheusFixture::stop() {
  if (pid_ > 0) {
    ::kill(-pid_, SIGTERM);
    auto deadline = Clock::now() + 10s;
    bool reaped = false;
    while (Clock::now() < deadline) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        reaped = true;
        break;
      }
      std::this_thread::sleep_for(20ms);
    }
    if (!reaped) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    ::kill(-pid_, SIGKILL);  // anything else left in the group
    pid_ = -1;
  }
  if (exporter_) {
    exporter_->stop();
    if (exporter_thread_.joinable()) exporter_thread_.join();
    exporter_.reset();
  }
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }
}

std::pair<int, std::string> PrometheusFixture::query_raw(std::string_view promql) const {
  httplib::Client client("127.0.0.1", port_);
  client.set_connection_timeout(5s);
  client.set_read_timeout(5s);
  httplib::Params params{{"query", std::string(promql)}};
  auto response = client.Get("/api/v1/query", params, httplib::Headers{});
  if (!response) return {-1, httplib::to_string(response.error())};
  return {response->status, response->body};
}

Result<double> PrometheusFixture::query_value(std::string_view promql) const {
  auto [status, body] = query_raw(promql);
  if (status != 200) return Error{fmt::format("HTTP {}: {}", status, body)};
  auto root = nlohmann::json::parse(body, nullptr, false);
  if (root.is_discarded()) return Error{"not JSON: " + body};
  try {
    const auto& data = root.at("data");
    const auto& result = data.at("result");
    std::string text;
    if (data.at("resultType") == "scalar") {
      text = result.at(1).get<std::string>();
    } else if (data.at("resultType") == "vector" && result.size() == 1) {
      text = result.at(0).at("value").at(1).get<std::string>();
    } else {
      return Error{"not a single value: " + body};
    }
    return std::strtod(text.c_str(), nullptr);  // strtod reads "NaN" and "+Inf" too
  } catch (const nlohmann::json::exception& e) {
    return Error{fmt::format("unexpected shape ({}): {}", e.what(), body)};
  }
}

::testing::AssertionResult PrometheusFixture::wait_for(std::string_view promql,
                                                       const std::function<bool(double)>& predicate,
                                                       std::chrono::milliseconds timeout) const {
  auto deadline = Clock::now() + timeout;
  std::string last;
  do {
    auto value = query_value(promql);
    if (value && predicate(*value)) return ::testing::AssertionSuccess();
    last = value ? format_value(*value) : value.error().message;
    std::this_thread::sleep_for(200ms);
  } while (Clock::now() < deadline);
  return ::testing::AssertionFailure() << "query " << promql << " at " << address() << " did not reach the expected "
                                       << "value within " << timeout.count() << " ms; last result: " << last;
}

std::string PrometheusFixture::log_tail() const {
  std::ifstream in(dir_ / "prometheus.log");
  std::deque<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (lines.size() > 20) lines.pop_front();
  }
  std::string out;
  for (const auto& line : lines) out += line + '\n';
  return out;
}

}  // namespace scalewright::testing
