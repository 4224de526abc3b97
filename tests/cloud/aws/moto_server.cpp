#include "moto_server.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <httplib.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace scalewright::cloud::aws::aws_testing {
namespace {

using MotoClock = std::chrono::steady_clock;

std::string read_log(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The port in moto's " * Running on http://127.0.0.1:PORT" line; 0 until it is there.
int port_in_log(const std::string& log) {
  constexpr std::string_view kPrefix = "Running on http://127.0.0.1:";
  std::size_t at = log.find(kPrefix);
  if (at == std::string::npos) return 0;
  const char* begin = log.data() + at + kPrefix.size();
  int port = 0;
  std::from_chars(begin, log.data() + log.size(), port);
  return port;
}

}  // namespace

bool MotoServer::available() { return std::system("python3 -c 'import moto' >/dev/null 2>&1") == 0; }

Result<std::unique_ptr<MotoServer>> MotoServer::start(std::chrono::seconds ready_timeout) {
  std::unique_ptr<MotoServer> moto(new MotoServer());
  std::string pattern = (std::filesystem::temp_directory_path() / "scalewright-moto-XXXXXX").string();
  int log = ::mkstemp(pattern.data());
  if (log < 0) return Error{fmt::format("cannot create moto's log file: {}", std::strerror(errno))};
  moto->log_path_ = pattern;

  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(log);
    return Error{fmt::format("fork failed: {}", std::strerror(errno))};
  }
  if (pid == 0) {
    // Only async-signal-safe calls here: the test process may have threads.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
      ::dup2(null, STDIN_FILENO);
      ::dup2(null, STDOUT_FILENO);
    }
    ::dup2(log, STDERR_FILENO);
    const char* argv[] = {"python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", "0", nullptr};
    ::execvp("python3", const_cast<char* const*>(argv));
    ::_exit(127);
  }
  ::close(log);
  moto->pid_ = pid;

  const auto deadline = MotoClock::now() + ready_timeout;
  while (moto->port_ == 0) {
    moto->port_ = port_in_log(read_log(moto->log_path_));
    if (moto->port_ != 0) break;
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      moto->pid_ = -1;
      return Error{fmt::format("moto exited before serving: {}", read_log(moto->log_path_))};
    }
    if (MotoClock::now() > deadline) return Error{"moto did not say which port it serves within the timeout"};
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  while (moto->reset()) {
    if (MotoClock::now() > deadline) return Error{fmt::format("moto on port {} did not answer in time", moto->port_)};
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return moto;
}

MotoServer::~MotoServer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int status = 0;
    const auto deadline = MotoClock::now() + std::chrono::seconds(5);
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (MotoClock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  if (!log_path_.empty()) {
    std::error_code ec;
    std::filesystem::remove(log_path_, ec);
  }
}

std::string MotoServer::address() const { return fmt::format("http://127.0.0.1:{}", port_); }

std::optional<Error> MotoServer::reset() const {
  httplib::Client client("127.0.0.1", port_);
  client.set_connection_timeout(std::chrono::seconds(2));
  client.set_read_timeout(std::chrono::seconds(10));
  auto answer = client.Post("/moto-api/reset", "", "text/plain");
  if (!answer) return Error{fmt::format("POST {}/moto-api/reset: {}", address(), httplib::to_string(answer.error()))};
  if (answer->status != 200) return Error{fmt::format("POST {}/moto-api/reset: HTTP {}", address(), answer->status)};
  return std::nullopt;
}

}  // namespace scalewright::cloud::aws::aws_testing
