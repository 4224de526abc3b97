#pragma once
// moto, the AWS emulator the image's python3 carries (../shared/aws/README.md), as a server on 127.0.0.1 for tests
// that talk to AWS over the wire: `python3 -m moto.server -H 127.0.0.1 -p 0`, its port read from the line
// " * Running on http://127.0.0.1:PORT" it writes to stderr, ready once POST /moto-api/reset answers 200. Stopped
// (SIGTERM) when destroyed; started with PDEATHSIG, so a crashed test takes it down too.
//
//   if (!MotoServer::available()) GTEST_SKIP() << "moto is not installed";
//   auto moto = MotoServer::start();
//   ASSERT_TRUE(moto.ok()) << moto.error().message;
//   environment.variables["AWS_ENDPOINT_URL"] = (*moto)->address();
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "api/result.h"

namespace scalewright::cloud::aws::aws_testing {

class MotoServer {
 public:
  // Whether `python3 -c 'import moto'` succeeds: moto is no Debian package, so a machine may lack it.
  static bool available();
  static Result<std::unique_ptr<MotoServer>> start(std::chrono::seconds ready_timeout = std::chrono::seconds(30));
  ~MotoServer();
  MotoServer(const MotoServer&) = delete;
  MotoServer& operator=(const MotoServer&) = delete;

  std::string address() const;  // "http://127.0.0.1:PORT", one endpoint for every service
  // Drops every service's state in every region (POST /moto-api/reset).
  std::optional<Error> reset() const;

 private:
  MotoServer() = default;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string log_path_;  // moto's stderr: its request log, and the line with its port
};

}  // namespace scalewright::cloud::aws::aws_testing
