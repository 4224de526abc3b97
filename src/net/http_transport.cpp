#include "net/http_transport.h"

#include <fmt/format.h>
#include <httplib.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <charconv>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#ifndef SCALEWRIGHT_VERSION
#define SCALEWRIGHT_VERSION "0.0.0"
#endif

namespace scalewright::net {
namespace {

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct StoreFree {
  void operator()(X509_STORE* s) const { X509_STORE_free(s); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using BioPtr = std::unique_ptr<BIO, BioFree>;
using StorePtr = std::unique_ptr<X509_STORE, StoreFree>;

// The last OpenSSL error on this thread, for messages; clears the queue.
std::string openssl_error() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "no OpenSSL error recorded";
  char buffer[256];
  ERR_error_string_n(code, buffer, sizeof(buffer));
  return buffer;
}

BioPtr memory_bio(const std::string& pem) {
  return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

Result<X509Ptr> parse_certificate(const std::string& pem, std::string_view what) {
  BioPtr bio = memory_bio(pem);
  if (!bio) return Error{fmt::format("{}: cannot allocate a memory BIO", what)};
  X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) return Error{fmt::format("{} is not a PEM certificate: {}", what, openssl_error())};
  return cert;
}

Result<PkeyPtr> parse_private_key(const std::string& pem, std::string_view what) {
  BioPtr bio = memory_bio(pem);
  if (!bio) return Error{fmt::format("{}: cannot allocate a memory BIO", what)};
  PkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) return Error{fmt::format("{} is not a PEM private key: {}", what, openssl_error())};
  return key;
}

// Every certificate of a PEM bundle into a new store.
Result<StorePtr> parse_ca_bundle(const std::string& pem, std::string_view what) {
  BioPtr bio = memory_bio(pem);
  StorePtr store(X509_STORE_new());
  if (!bio || !store) return Error{fmt::format("{}: cannot allocate", what)};
  int count = 0;
  while (true) {
    X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!cert) break;
    if (X509_STORE_add_cert(store.get(), cert.get()) != 1) {
      return Error{fmt::format("{}: cannot add certificate {}: {}", what, count + 1, openssl_error())};
    }
    ++count;
  }
  ERR_clear_error();  // the loop ends on "no start line"
  if (count == 0) return Error{fmt::format("{} holds no PEM certificate", what)};
  return store;
}

std::optional<int> parse_retry_after(const std::string& value) {
  int seconds = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec != std::errc() || end != value.data() + value.size() || seconds < 0) return std::nullopt;
  return seconds;
}

}  // namespace

std::string user_agent() { return "scalewright/" SCALEWRIGHT_VERSION " (linux/amd64)"; }

struct HttpTransport::Server {
  bool https = false;
  std::string host;
  int port = 0;
  std::string address_prefix;  // "https://host:port" for messages
  X509Ptr client_certificate;
  PkeyPtr client_key;
};

Result<std::shared_ptr<HttpTransport>> HttpTransport::create(HttpEndpoint endpoint, TransportOptions options) {
  const HttpEndpoint& config = endpoint;
  auto parsed = std::make_unique<Server>();
  std::string_view server = config.base_url;
  std::string where = config.source.empty() ? std::string("HTTP endpoint") : config.source;
  std::size_t scheme_end = server.find("://");
  if (scheme_end == std::string_view::npos) {
    return Error{fmt::format("{}: server \"{}\" must start with https:// or http://", where, server)};
  }
  std::string_view scheme = server.substr(0, scheme_end);
  if (scheme != "https" && scheme != "http") {
    return Error{fmt::format("{}: server scheme \"{}\" is not supported", where, scheme)};
  }
  parsed->https = scheme == "https";
  std::string_view authority = server.substr(scheme_end + 3);
  if (std::size_t slash = authority.find('/'); slash != std::string_view::npos) {
    if (authority.substr(slash) != "/") {
      return Error{fmt::format("{}: server \"{}\" has a path; a path prefix is not supported", where, server)};
    }
    authority = authority.substr(0, slash);
  }
  int port = parsed->https ? 443 : 80;
  std::string_view host = authority;
  if (!authority.empty() && authority.front() == '[') {  // [::1]:6443
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return Error{fmt::format("{}: server \"{}\" is malformed", where, server)};
    host = authority.substr(1, close - 1);
    authority = authority.substr(close + 1);
    if (!authority.empty() && authority.front() != ':') {
      return Error{fmt::format("{}: server \"{}\" is malformed", where, server)};
    }
    authority = authority.empty() ? authority : authority.substr(1);
    if (!authority.empty()) {
      auto [end, ec] = std::from_chars(authority.data(), authority.data() + authority.size(), port);
      if (ec != std::errc() || end != authority.data() + authority.size()) {
        return Error{fmt::format("{}: server \"{}\" has a bad port", where, server)};
      }
    }
  } else if (std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    std::string_view digits = authority.substr(colon + 1);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (ec != std::errc() || end != digits.data() + digits.size() || port <= 0 || port > 65535) {
      return Error{fmt::format("{}: server \"{}\" has a bad port", where, server)};
    }
  }
  if (host.empty()) return Error{fmt::format("{}: server \"{}\" has no host", where, server)};
  parsed->host = std::string(host);
  parsed->port = port;
  parsed->address_prefix = std::string(server.substr(0, server.size() - (server.ends_with('/') ? 1 : 0)));

  if (parsed->https) {
    if (!config.client_certificate.empty() || !config.client_key.empty()) {
      if (config.client_certificate.empty() || config.client_key.empty()) {
        return Error{fmt::format("{}: a client certificate needs both the certificate and the key", where)};
      }
      auto cert = parse_certificate(config.client_certificate, where + " client certificate");
      if (!cert) return cert.error();
      auto key = parse_private_key(config.client_key, where + " client key");
      if (!key) return key.error();
      if (X509_check_private_key(cert->get(), key->get()) != 1) {
        return Error{fmt::format("{}: the client key does not match the client certificate: {}", where,
                                 openssl_error())};
      }
      parsed->client_certificate = std::move(*cert);
      parsed->client_key = std::move(*key);
    }
    if (!config.certificate_authority.empty()) {
      auto store = parse_ca_bundle(config.certificate_authority, where + " certificate authority");
      if (!store) return store.error();
    }
  } else if (!config.client_certificate.empty()) {
    return Error{fmt::format("{}: a client certificate needs an https:// server", where)};
  }
  return std::shared_ptr<HttpTransport>(new HttpTransport(std::move(endpoint), std::move(options), std::move(parsed)));
}

namespace {

// A client per connection: httplib clients are not safe for concurrent use, so a pooled one serves one request at a
// time, and a watch holds a client of its own for minutes.
Result<std::unique_ptr<httplib::ClientImpl>> make_client(const HttpEndpoint& config, const TransportOptions& options,
                                                         bool https, const std::string& host, int port,
                                                         X509* cert, EVP_PKEY* key, bool keep_alive) {
  std::unique_ptr<httplib::ClientImpl> client;
  if (https) {
    // SSL_CTX_use_certificate/PrivateKey take their own references: the Server keeps ownership of cert and key.
    auto ssl = cert != nullptr ? std::make_unique<httplib::SSLClient>(host, port, cert, key)
                               : std::make_unique<httplib::SSLClient>(host, port);
    if (!ssl->is_valid()) return Error{fmt::format("cannot set up TLS: {}", openssl_error())};
    if (!config.certificate_authority.empty()) {
      auto store = parse_ca_bundle(config.certificate_authority, "certificate authority");
      if (!store) return store.error();
      ssl->set_ca_cert_store(store->release());  // the SSL_CTX owns it from here
    }
    ssl->enable_server_certificate_verification(!config.insecure_skip_tls_verify);
    client = std::move(ssl);
  } else {
    client = std::make_unique<httplib::ClientImpl>(host, port);
  }
  client->set_connection_timeout(options.connect_timeout);
  client->set_read_timeout(options.read_timeout);
  client->set_write_timeout(options.write_timeout);
  client->set_keep_alive(keep_alive);
  // httplib writes a request's headers and body separately: with Nagle's algorithm the body of a request on a
  // kept-alive connection waits for the server's delayed ACK (40 ms). Go turns it off on every connection too.
  client->set_tcp_nodelay(true);
  client->set_follow_location(false);
  return client;
}

std::string describe_failure(httplib::ClientImpl& client, bool https, httplib::Error error) {
  switch (error) {
    case httplib::Error::Connection: return "cannot connect";
    case httplib::Error::ConnectionTimeout: return "connect timed out";
    case httplib::Error::Read: return "reading the answer failed or timed out";
    case httplib::Error::Write: return "sending the request failed";
    case httplib::Error::SSLConnection: return "TLS handshake failed";
    case httplib::Error::SSLServerVerification: {
      std::string text = "TLS verification of the server certificate failed";
      long verify = https ? static_cast<httplib::SSLClient&>(client).get_openssl_verify_result() : X509_V_OK;
      if (verify != X509_V_OK) text += fmt::format(" ({})", X509_verify_cert_error_string(verify));
      return text;
    }
    default: return httplib::to_string(error);
  }
}

// An idle HTTP/1.1 connection never receives anything but its server closing it (EOF, a reset, or a TLS
// close_notify alert): anything readable means the server has given up on it.
bool server_closed_idle_connection(socket_t socket) {
  pollfd probe{socket, POLLIN, 0};
  return ::poll(&probe, 1, 0) != 0;
}

// Whether a request that failed on a reused connection before any answer arrived may be sent again: the server
// cannot have acted on a request it did not receive whole, and GET and HEAD change nothing however often they run.
bool may_resend(const std::string& method, httplib::Error error) {
  if (error == httplib::Error::Write) return true;
  return error == httplib::Error::Read && (method == "GET" || method == "HEAD");
}

// The request as httplib sends it, without its body: the endpoint's headers, the request's own and its
// authorization's.
httplib::Request base_request(const HttpRequest& request, const std::vector<HttpHeader>& endpoint_headers,
                              const std::vector<HttpHeader>& authorization) {
  httplib::Request req;
  req.method = request.method;
  req.path = request.path;
  req.set_header("User-Agent", user_agent());
  for (const auto* headers : {&endpoint_headers, &request.headers, &authorization}) {
    for (const HttpHeader& header : *headers) req.set_header(header.name, header.value);
  }
  return req;
}

// OpenSSL writes with write(2), which raises SIGPIPE (fatal by default) when the connection is gone: the close_notify
// sent on a stopped stream, or on an idle connection the server closed. While one lives, SIGPIPE is blocked on this
// thread and any it raised is consumed (as libpq does); other threads and the process's disposition are untouched.
class SigpipeBlockedOnThisThread {
 public:
  SigpipeBlockedOnThisThread() {
    sigemptyset(&sigpipe_);
    sigaddset(&sigpipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &sigpipe_, &previous_mask_);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  }
  ~SigpipeBlockedOnThisThread() {
    sigset_t pending;
    sigpending(&pending);
    if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
      timespec no_wait{0, 0};
      sigtimedwait(&sigpipe_, nullptr, &no_wait);
    }
    pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
  }
  SigpipeBlockedOnThisThread(const SigpipeBlockedOnThisThread&) = delete;
  SigpipeBlockedOnThisThread& operator=(const SigpipeBlockedOnThisThread&) = delete;

 private:
  sigset_t sigpipe_;
  sigset_t previous_mask_;
  bool was_pending_ = false;
};

// A request that got no answer: the message names the method, the server and the path.
HttpError no_answer(const HttpRequest& request, std::string_view address_prefix, std::string_view why) {
  return HttpError{request.method, request.path, 0, std::nullopt, {},
                   fmt::format("{} {}{}: {}", request.method, address_prefix, request.path, why)};
}

void read_headers(const httplib::Response& res, HttpResponse& out) {
  out.status = res.status;
  out.content_type = res.get_header_value("Content-Type");
  if (res.has_header("Retry-After")) out.retry_after_seconds = parse_retry_after(res.get_header_value("Retry-After"));
  for (const char* name : {"x-amzn-RequestId", "x-amz-request-id", "x-ms-request-id"}) {
    if (res.has_header(name)) {
      out.request_id = res.get_header_value(name);
      break;
    }
  }
  if (res.has_header("x-amzn-ErrorType")) out.error_type = res.get_header_value("x-amzn-ErrorType");
}

}  // namespace

// Idle kept-alive connections, most recently used last so that the warmest is reused first.
struct HttpTransport::ConnectionPool {
  struct Connection {
    std::unique_ptr<httplib::ClientImpl> client;
    int requests_answered = 0;
    std::chrono::steady_clock::time_point idle_since;
  };

  std::mutex mutex;
  std::vector<Connection> idle;
};

HttpTransport::HttpTransport(HttpEndpoint endpoint, TransportOptions options, std::unique_ptr<Server> server)
    : endpoint_(std::move(endpoint)),
      options_(std::move(options)),
      server_(std::move(server)),
      pool_(std::make_unique<ConnectionPool>()) {}

HttpTransport::~HttpTransport() {
  SigpipeBlockedOnThisThread sigpipe_blocked;  // closing idle TLS connections writes to them
  pool_.reset();
}

HttpResult HttpTransport::request(const HttpRequest& request, std::stop_token stop) const {
  HttpResult answer = send_request(request, stop);
  report(request.method, request.path, answer, stop);
  return answer;
}

HttpResult HttpTransport::stream_lines(const std::string& path, const std::function<bool(std::string_view)>& on_line,
                                       const StreamOptions& options) const {
  HttpResult answer = send_stream(path, on_line, options);
  report("GET", path, answer, options.stop);
  return answer;
}

Result<std::vector<HttpHeader>, HttpError> HttpTransport::authorization(const HttpRequest& request) const {
  std::vector<HttpHeader> headers;
  if (!endpoint_.authorize) return headers;
  if (std::optional<Error> refused = endpoint_.authorize(request, headers)) {
    return HttpError{request.method, request.path, 0, std::nullopt, {},
                     fmt::format("{} {}: {}", request.method, request.path, refused->message)};
  }
  return headers;
}

void HttpTransport::report(std::string_view method, std::string_view path, const HttpResult& answer,
                           const std::stop_token& stop) const {
  if (!options_.on_answer || stop.stop_requested()) return;
  options_.on_answer(method, path, answer ? answer->status : 0);
}

HttpResult HttpTransport::send_request(const HttpRequest& request, std::stop_token stop) const {
  SigpipeBlockedOnThisThread sigpipe_blocked;  // first, so that it outlives every connection closed in here
  const Server& e = *server_;
  auto authorization_headers = authorization(request);
  if (!authorization_headers) return authorization_headers.error();
  auto failed = [&](std::string_view why) { return no_answer(request, e.address_prefix, why); };

  // Takes the most recently used idle connection the server has not closed; closing the stale ones happens after
  // the lock is released, since a TLS shutdown writes to the socket.
  auto take_idle = [&]() -> std::optional<ConnectionPool::Connection> {
    std::vector<ConnectionPool::Connection> stale;
    std::optional<ConnectionPool::Connection> found;
    {
      std::lock_guard lock(pool_->mutex);
      auto now = std::chrono::steady_clock::now();
      while (!found && !pool_->idle.empty()) {
        ConnectionPool::Connection candidate = std::move(pool_->idle.back());
        pool_->idle.pop_back();
        bool open = candidate.client->is_socket_open() != 0;
        if (now - candidate.idle_since > options_.idle_connection_timeout ||
            (open && server_closed_idle_connection(candidate.client->socket()))) {
          stale.push_back(std::move(candidate));
        } else {
          found = std::move(candidate);
        }
      }
    }
    return found;
  };

  for (int attempt = 1;; ++attempt) {
    if (stop.stop_requested()) return failed("stopped");
    std::optional<ConnectionPool::Connection> connection = attempt == 1 ? take_idle() : std::nullopt;
    if (!connection) {
      auto client = make_client(endpoint_, options_, e.https, e.host, e.port, e.client_certificate.get(),
                                e.client_key.get(), /*keep_alive=*/true);
      if (!client) return failed(client.error().message);
      connection = ConnectionPool::Connection{std::move(*client), 0, {}};
    }
    // httplib reconnects by itself a client whose socket it closed (the server answered "Connection: close"):
    // only an open socket that carried an earlier answer can be one the server closed under us.
    bool reused = connection->requests_answered > 0 && connection->client->is_socket_open() != 0;

    httplib::Request req = base_request(request, endpoint_.headers, *authorization_headers);
    if (!request.content_type.empty()) {
      req.set_header("Content-Type", request.content_type);
      req.body = request.body;
    }
    httplib::Response res;
    httplib::Error error = httplib::Error::Success;
    httplib::ClientImpl& client = *connection->client;
    bool sent;
    {
      // As in stream_lines: stop() shuts a connected socket down, the socket options a socket being created.
      client.set_socket_options([&stop](socket_t socket) {
        if (stop.stop_requested()) ::shutdown(socket, SHUT_RDWR);
      });
      std::stop_callback shut_down_on_stop(stop, [&client] {
        SigpipeBlockedOnThisThread sigpipe_blocked;  // on the stopping thread: stop() may close a TLS connection
        client.stop();
      });
      sent = client.send(req, res, error);
      client.set_socket_options(nullptr);  // the pooled client outlives this stop token
    }
    bool stop_requested = stop.stop_requested();  // the connection may have been shut down: not to be reused
    if (!sent) {
      if (stop_requested) return failed("stopped");
      // httplib has closed the socket; the connection is not returned to the pool.
      bool no_answer = res.status == -1;  // not even a status line arrived
      if (attempt == 1 && reused && no_answer && may_resend(request.method, error)) {
        spdlog::debug("http: resending on a new connection method={} path={} reused_connection_error={}",
                      request.method, request.path, httplib::to_string(error));
        continue;
      }
      return failed(describe_failure(*connection->client, e.https, error));
    }
    HttpResponse out;
    read_headers(res, out);
    out.body = std::move(res.body);
    if (stop_requested) return out;

    ++connection->requests_answered;
    connection->idle_since = std::chrono::steady_clock::now();
    {
      std::lock_guard lock(pool_->mutex);
      if (pool_->idle.size() < options_.max_idle_connections) {
        pool_->idle.push_back(std::move(*connection));
        connection.reset();
      }
    }
    return out;  // a connection the pool had no room for is closed here, outside the lock
  }
}

HttpResult HttpTransport::send_stream(const std::string& path, const std::function<bool(std::string_view)>& on_line,
                                      const StreamOptions& options) const {
  SigpipeBlockedOnThisThread sigpipe_blocked;  // first, so that it outlives the stream's connection
  const Server& e = *server_;
  const HttpRequest request{"GET", path, {}, {}};
  const std::stop_token& stop = options.stop;
  HttpResponse out;
  if (stop.stop_requested()) return out;
  auto client = make_client(endpoint_, options_, e.https, e.host, e.port, e.client_certificate.get(),
                            e.client_key.get(), /*keep_alive=*/false);
  if (!client) return no_answer(request, e.address_prefix, client.error().message);
  if (options.read_timeout.count() > 0) (*client)->set_read_timeout(options.read_timeout);
  auto authorization_headers = authorization(request);
  if (!authorization_headers) return authorization_headers.error();

  // httplib's stop() shuts down a connected socket, but does nothing while the socket is not yet created: a stop
  // requested in that moment is seen here, when httplib creates the socket (before connecting it).
  (*client)->set_socket_options([&stop](socket_t socket) {
    if (stop.stop_requested()) ::shutdown(socket, SHUT_RDWR);
  });

  std::string pending;       // an incomplete line carried from one chunk to the next
  bool stopped = false;      // on_line asked to stop
  bool success = false;      // 2xx: the body is lines
  httplib::Request req = base_request(request, endpoint_.headers, *authorization_headers);
  req.response_handler = [&](const httplib::Response& res) {
    read_headers(res, out);
    success = res.status >= 200 && res.status < 300;
    return true;
  };
  req.content_receiver = [&](const char* data, size_t size, uint64_t, uint64_t) {
    if (!success) {
      out.body.append(data, size);
      return true;
    }
    std::string_view chunk(data, size);
    while (!chunk.empty()) {
      std::size_t newline = chunk.find('\n');
      if (newline == std::string_view::npos) {
        pending.append(chunk);
        break;
      }
      std::string_view line = chunk.substr(0, newline);
      chunk.remove_prefix(newline + 1);
      bool keep_going;
      if (pending.empty()) {
        keep_going = on_line(line);
      } else {
        pending.append(line);
        keep_going = on_line(pending);
        pending.clear();
      }
      if (!keep_going) {
        stopped = true;
        return false;
      }
    }
    return true;
  };
  httplib::Response res;
  httplib::Error error = httplib::Error::Success;
  bool sent;
  {
    // Declared after the client, so destroyed first: its destructor waits for a stop() running on another thread.
    std::stop_callback shut_down_on_stop(stop, [&client] {
      SigpipeBlockedOnThisThread sigpipe_blocked;  // on the stopping thread: stop() may close a TLS connection
      (*client)->stop();
    });
    sent = (*client)->send(req, res, error);
  }
  if (stopped || stop.stop_requested()) return out;
  if (!sent) {
    return no_answer(request, e.address_prefix, describe_failure(**client, e.https, error));
  }
  if (success && !pending.empty()) on_line(pending);
  return out;
}

}  // namespace scalewright::net
