#pragma once
// One HTTP exchange as plain values, and why one did not succeed: what every API client (the Kubernetes client
// today, AWS and Azure next) sends through net::HttpTransport and builds its own errors on.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/result.h"

namespace scalewright::net {

struct HttpHeader {
  std::string name;
  std::string value;
};

struct HttpRequest {
  std::string method;        // "GET", "POST", "PUT", "PATCH", "DELETE"
  std::string path;          // with the query string: "/api/v1/nodes?limit=2"
  std::string content_type;  // empty: no body
  std::string body;
  std::vector<HttpHeader> headers = {};  // besides the endpoint's, User-Agent and Content-Type
};

struct HttpResponse {
  int status = 0;
  std::string content_type;
  std::optional<int> retry_after_seconds;  // Retry-After in seconds, when present
  std::string body;                        // for a stream: only the body of a non-2xx answer
  // The id the server gave the request, when it names one in a header (AWS's x-amzn-RequestId or x-amz-request-id,
  // Azure's x-ms-request-id): what its support asks for, so errors carry it.
  std::string request_id = {};
  // The error code a service names in a header rather than its body (AWS's REST services: x-amzn-ErrorType), when
  // it does.
  std::string error_type = {};
};

// No answer (0), 429 Too Many Requests or a 5xx: a status that says nothing against the request itself, so the same
// request may pass later.
bool is_transient_status(int status);

// Why a request did not succeed: no answer arrived (status 0: it could not connect, TLS failed, the connection
// dropped, it was stopped), or the server answered with a status other than 2xx. Each client reads its own error
// out of the body: kube::KubeError a Status object, AWS an <Error> document, Azure Resource Manager a JSON error.
struct HttpError {
  std::string method;
  std::string path;
  int status = 0;                          // 0: no answer
  std::optional<int> retry_after_seconds;  // the answer's Retry-After
  std::string body;                        // the answer's body; empty without an answer
  std::string message;                     // without an answer, what failed: "GET https://host:6443/x: cannot connect"

  bool answered() const { return status != 0; }
  bool is_transient() const { return is_transient_status(status); }
};

// Any status is a response here; the error is that no answer arrived.
using HttpResult = Result<HttpResponse, HttpError>;

// The answer to `request` when it is a 2xx; the error it is otherwise (no answer, or a non-2xx status and its body).
HttpResult successful(const HttpRequest& request, HttpResult answer);

// Proves who the client is, request by request: adds its headers (a bearer token, a SigV4 signature) for a request
// about to be sent. Asked again for every request, so a token that rotates or expires is fetched afresh. An error
// fails the request without sending it.
using Authorize = std::function<std::optional<Error>(const HttpRequest& request, std::vector<HttpHeader>& headers)>;

// "Authorization: Bearer <token>" with what `token` gives for each request; nothing when it gives an empty token.
Authorize bearer_token(std::function<Result<std::string>()> token);

}  // namespace scalewright::net
