#pragma once
// HTTP(S) to one API endpoint, built from an HttpEndpoint: server verification, client certificate, the client's
// own authorization (a bearer token, a signature), User-Agent and timeouts, over kept-alive connections. Knows
// nothing of any API's objects: kube::ApiClient, and the cloud providers' clients, build on it.
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "api/result.h"
#include "net/http.h"

namespace scalewright::net {

// Where an API is, how to trust it, and how to prove who we are to it.
struct HttpEndpoint {
  std::string base_url;                   // "https://127.0.0.1:6443": scheme, host and port, no path
  std::string certificate_authority;      // PEM; empty: the system's trust store
  bool insecure_skip_tls_verify = false;  // only when the user's configuration says so
  std::string client_certificate;         // PEM; empty: no client certificate
  std::string client_key;                 // PEM
  std::vector<HttpHeader> headers;        // sent with every request: "Accept: application/json"
  Authorize authorize;                    // empty: requests are sent as they are
  // Where the endpoint came from, for messages: "kubeconfig /path (context kind)"; empty: "HTTP endpoint".
  std::string source;
};

struct TransportOptions {
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds read_timeout{60'000};  // streams may set their own: StreamOptions
  std::chrono::milliseconds write_timeout{60'000};
  // Kept-alive connections waiting for the next request; more than this many idle at once are closed.
  std::size_t max_idle_connections = 8;
  // An idle connection older than this is closed instead of reused: the API server closes its idle connections
  // after 90 s, and reusing one just as it does so would fail the request.
  std::chrono::milliseconds idle_connection_timeout{50'000};
  // Told of every request and stream once its answer's status is known (0: no answer arrived), on the thread that
  // sent it, whatever the caller then makes of it; not for requests ended by a stop. client-go's request metrics
  // (rest_client_requests_total) are counted here, and a 403 is where a too narrow RBAC role shows.
  std::function<void(std::string_view method, std::string_view path, int status)> on_answer;
};

struct StreamOptions {
  std::stop_token stop;                       // a stop request ends the stream at once, from any thread
  std::chrono::milliseconds read_timeout{0};  // silence longer than this fails the stream; 0: the transport's
};

// "scalewright/<version> (linux/amd64)"
std::string user_agent();

// Thread-safe: any number of threads may call request() and stream_lines() on one HttpTransport at once. Requests
// share a pool of kept-alive connections (one request at a time on each); every stream has a connection of its own.
class HttpTransport {
 public:
  // Fails when the base URL or a PEM of the endpoint cannot be used.
  static Result<std::shared_ptr<HttpTransport>> create(HttpEndpoint endpoint, TransportOptions options = {});

  // Sends one request on an idle kept-alive connection, or a new one when none is idle, and reads the whole answer.
  // Any HTTP status is a response; only I/O and TLS failures (and a refused authorization) are errors. When a reused
  // connection turns out to have been closed by the server before any byte of the answer arrived, the request is
  // sent once more on a new connection if that cannot make the server act twice: always when sending failed, and
  // for GET and HEAD when the answer never came (as Go's net/http does). A stop request from another thread shuts
  // the connection down: the request fails at once with an error ending in "stopped" (its connection is not reused).
  HttpResult request(const HttpRequest& request, std::stop_token stop = {}) const;

  // GET whose body is a stream of newline-delimited lines (a watch), on a connection of its own: on_line is called
  // once per complete line (without the '\n'; a final unterminated line is delivered at the end) until the server
  // closes the stream, on_line returns false, or options.stop is requested. A non-2xx answer is collected into the
  // response body instead. A stop request from another thread shuts the connection down, so the call returns at
  // once with what arrived so far (status 0 when no answer did), not an error; a connect or TLS handshake in
  // progress finishes or times out first.
  HttpResult stream_lines(const std::string& path, const std::function<bool(std::string_view line)>& on_line,
                          const StreamOptions& options = {}) const;

  const HttpEndpoint& endpoint() const { return endpoint_; }

  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

 private:
  struct Server;
  struct ConnectionPool;
  HttpTransport(HttpEndpoint endpoint, TransportOptions options, std::unique_ptr<Server> server);
  HttpResult send_request(const HttpRequest& request, std::stop_token stop) const;
  HttpResult send_stream(const std::string& path, const std::function<bool(std::string_view line)>& on_line,
                         const StreamOptions& options) const;
  // The endpoint's authorization headers for `request`, or the error that fails it.
  Result<std::vector<HttpHeader>, HttpError> authorization(const HttpRequest& request) const;
  void report(std::string_view method, std::string_view path, const HttpResult& answer,
              const std::stop_token& stop) const;

  HttpEndpoint endpoint_;
  TransportOptions options_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<ConnectionPool> pool_;  // mutable behind the const methods, guarded by its own mutex
};

}  // namespace scalewright::net
