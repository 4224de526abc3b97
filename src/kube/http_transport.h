#pragma once
// HTTP(S) to the Kubernetes API server, built from a ClusterConfig: server verification, client certificate,
// bearer token, User-Agent and timeouts. Knows nothing of Kubernetes objects; api_client.h does.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "api/result.h"
#include "kube/cluster_config.h"

namespace scalewright::kube {

struct HttpRequest {
  std::string method;        // "GET", "POST", "PUT", "PATCH", "DELETE"
  std::string path;          // with the query string: "/api/v1/nodes?limit=2"
  std::string content_type;  // empty: no body
  std::string body;
};

struct HttpResponse {
  int status = 0;
  std::string content_type;
  std::optional<int> retry_after_seconds;  // Retry-After in seconds, when present
  std::string body;                        // for a stream: only the body of a non-2xx answer
};

struct TransportOptions {
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds read_timeout{60'000};  // a watch's read timeout must exceed its timeoutSeconds
  std::chrono::milliseconds write_timeout{60'000};
};

// "scalewright/<version> (linux/amd64)"
std::string user_agent();

class HttpTransport {
 public:
  // Fails when the server address or a PEM in the config cannot be used.
  static Result<std::shared_ptr<HttpTransport>> create(const ClusterConfig& config, TransportOptions options = {});

  // Sends one request and reads the whole answer. Any HTTP status is a response; only I/O and TLS failures are
  // errors.
  Result<HttpResponse> request(const HttpRequest& request) const;

  // GET whose body is a stream of newline-delimited lines (a watch): on_line is called once per complete line
  // (without the '\n'; a final unterminated line is delivered at the end) until the server closes the stream or
  // on_line returns false. A non-2xx answer is collected into the response body instead.
  Result<HttpResponse> stream_lines(const std::string& path,
                                    const std::function<bool(std::string_view line)>& on_line) const;

  const ClusterConfig& config() const { return config_; }

  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

 private:
  struct Endpoint;
  HttpTransport(ClusterConfig config, TransportOptions options, std::unique_ptr<Endpoint> endpoint);

  ClusterConfig config_;
  TransportOptions options_;
  std::unique_ptr<Endpoint> endpoint_;
};

}  // namespace scalewright::kube
