#pragma once
// One AWS API over HTTP, as the AWS SDKs call it: a request in the service's protocol (EC2's and the query
// protocol's form-encoded parameters, JSON 1.0/1.1 with X-Amz-Target, or rest-json's method and path), signed with
// SigV4 by the credentials of the moment, sent to the service's endpoint, retried as the SDKs' standard retry mode
// does (3 attempts, full-jitter exponential back-off capped at 20 s, throttling and transient errors only, and a retry
// quota of 500 tokens so that an outage does not become a storm of retries), and its answer read: an XML document
// (pugixml) or a JSON value, or the service's error with its code, message and request id. The typed calls (ec2_api.h, auto_scaling_api.h, ...)
// build on it; nothing here knows an operation.
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <pugixml.hpp>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/result.h"
#include "cloud/aws/services.h"
#include "cloud/aws/sigv4.h"
#include "net/backoff.h"
#include "net/http_transport.h"
#include "net/token_bucket.h"

namespace scalewright::cloud::aws {

// Why a call did not succeed: the service's own error (its code, "RequestLimitExceeded",
// "InvalidLaunchTemplateName.NotFoundException"), or no answer at all (status 0, the code empty).
struct AwsError {
  std::string service;  // the signing name: "ec2"
  std::string action;   // "CreateFleet"
  int status = 0;       // the HTTP status; 0: no answer arrived
  std::string code;
  std::string message;
  std::string request_id;
  int attempts = 1;  // how many times it was sent

  bool answered() const { return status != 0; }
  // The service's rate limit: the same call later (the SDKs' throttling error codes).
  bool throttled() const;
  // A failure that says nothing against the request: no answer, a 5xx, or a transient code.
  bool transient() const;
  // "ec2 CreateFleet: RequestLimitExceeded: Request limit exceeded. (HTTP 503, request id 7a62c49f-..., 3 attempts)"
  std::string describe() const;
};

template <typename T>
using AwsResult = Result<T, AwsError>;

// An EC2 or query protocol request's parameters, in the order added (AWS does not care; tests and logs do).
class FormParams {
 public:
  FormParams& add(std::string key, std::string value);
  // EC2's lists: Key.1, Key.2, ...; the query protocol's: Key.member.1, ... (use the full prefix: "Filters.member").
  FormParams& add_list(const std::string& prefix, const std::vector<std::string>& values);
  // A filter of EC2's (Filter.N.Name, Filter.N.Value.M) or Auto Scaling's (Filters.member.N.Name,
  // Filters.member.N.Values.member.M), numbered after those already added.
  FormParams& add_filter(Protocol protocol, const std::string& name, const std::vector<std::string>& values);
  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }
  // application/x-www-form-urlencoded, percent-encoded as SigV4 expects.
  std::string encode(std::string_view action, std::string_view api_version) const;

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
  int filters_ = 0;
};

// An XML answer: its document and its result element (EC2: the <ActionResponse> root; query: <ActionResult>).
struct XmlAnswer {
  std::shared_ptr<pugi::xml_document> document;
  pugi::xml_node result;
  std::string request_id;
};

// The text of `node`'s child `name` ("" when missing).
std::string child_text(const pugi::xml_node& node, const char* name);
// The elements of a list: EC2's <name><item>...</item></name>, the query protocol's <name><member>...</member></name>.
std::vector<pugi::xml_node> list_items(const pugi::xml_node& node, const char* name);

struct AwsClientOptions {
  int max_attempts = 3;  // the SDKs' standard retry mode
  net::Backoff backoff{std::chrono::milliseconds(1000), std::chrono::milliseconds(20'000), 2.0,
                       net::Backoff::Jitter::Full};
  net::TransportOptions transport = {};
  // Told before each wait, for a log line.
  std::function<void(const AwsError& error, std::chrono::milliseconds wait)> before_retry = {};
  // Told of every answer (status 0: none), for metrics and tests that count calls.
  std::function<void(std::string_view action, int status)> on_answer = {};
};

// The credentials of the moment: a provider that caches and refreshes them (credentials.h).
using CredentialsSource = std::function<Result<Credentials>()>;

// Thread-safe: any number of threads may call at once.
class AwsClient {
 public:
  // `endpoint_url`: "https://ec2.us-west-2.amazonaws.com", "http://127.0.0.1:4566"; fails when it cannot be used.
  static Result<std::unique_ptr<AwsClient>> create(ApiProtocol api, std::string region, std::string endpoint_url,
                                                   CredentialsSource credentials, AwsClientOptions options = {});

  // An EC2 or query protocol call: its answer's result element, or the error.
  AwsResult<XmlAnswer> query(std::string_view action, const FormParams& params, std::stop_token stop = {}) const;
  // A JSON protocol call: the answer's JSON value, or the error.
  AwsResult<nlohmann::json> json(std::string_view action, const nlohmann::json& request,
                                 std::stop_token stop = {}) const;
  // A rest-json call, its operation named by `method` and `path` (EKS's DescribeCluster: GET /clusters/NAME):
  // `path` as sent, each value in it percent-encoded (uri_encode); `body` sent as JSON unless null. The answer's JSON
  // value, or the error; `action` names the operation for errors and metrics.
  AwsResult<nlohmann::json> rest_json(std::string_view action, std::string method, std::string path,
                                      const nlohmann::json& body, std::stop_token stop = {}) const;

  const ApiProtocol& api() const { return api_; }
  const std::string& region() const { return region_; }
  const std::string& endpoint_url() const { return endpoint_url_; }

 private:
  // A request before it is signed: POST to the endpoint's path in the form and JSON protocols, any method and path
  // in rest-json's.
  struct Outgoing {
    std::string method;
    std::string path;          // as sent, percent-encoded
    std::string content_type;  // empty: no body
    std::string body;
    std::vector<net::HttpHeader> headers;  // besides Host, Content-Type and the signature's
  };

  AwsClient(ApiProtocol api, std::string region, std::string endpoint_url, std::string host,
            CredentialsSource credentials, AwsClientOptions options, std::shared_ptr<net::HttpTransport> transport);
  // Sends the request, signed anew for each attempt, until it succeeds or may not be retried.
  AwsResult<net::HttpResponse> send(std::string_view action, const Outgoing& outgoing, std::stop_token stop) const;
  AwsResult<net::HttpResponse> send_once(std::string_view action, const Outgoing& outgoing,
                                         std::stop_token stop) const;
  // A JSON answer's value ({} for an empty body), or the error that it is not JSON.
  AwsResult<nlohmann::json> json_value(std::string_view action, const net::HttpResponse& answer) const;

  ApiProtocol api_;
  std::string region_;
  std::string endpoint_url_;
  std::string host_;  // as signed and sent: "ec2.us-west-2.amazonaws.com", "127.0.0.1:4566"
  std::string path_;  // the endpoint's path, "/" when it has none
  CredentialsSource credentials_;
  AwsClientOptions options_;
  std::shared_ptr<net::HttpTransport> transport_;
  mutable std::mutex quota_mutex_;
  mutable net::RetryQuota quota_;
};

// The error a non-2xx answer is, read from its body (and for rest-json its x-amzn-ErrorType header) in `protocol`'s
// error format.
AwsError read_error(Protocol protocol, std::string_view service, std::string_view action,
                    const net::HttpResponse& answer);

}  // namespace scalewright::cloud::aws
