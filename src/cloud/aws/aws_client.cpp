#include "cloud/aws/aws_client.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <thread>

#include "net/retry.h"

namespace scalewright::cloud::aws {
namespace {

// The SDKs' throttling error codes (botocore's retries/standard.py, the Go SDK's retry/throttle_error.go).
constexpr std::array<std::string_view, 14> kThrottlingCodes = {"Throttling",
                                                               "ThrottlingException",
                                                               "ThrottledException",
                                                               "RequestThrottledException",
                                                               "TooManyRequestsException",
                                                               "ProvisionedThroughputExceededException",
                                                               "TransactionInProgressException",
                                                               "RequestLimitExceeded",
                                                               "BandwidthLimitExceeded",
                                                               "LimitExceededException",
                                                               "RequestThrottled",
                                                               "SlowDown",
                                                               "PriorRequestNotComplete",
                                                               "EC2ThrottledException"};
// Codes that say the service failed this time, not the request.
constexpr std::array<std::string_view, 4> kTransientCodes = {"RequestTimeout", "RequestTimeoutException",
                                                             "InternalError", "ServiceUnavailable"};

bool one_of(std::string_view code, auto const& codes) {
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

std::string_view content_type_of(Protocol protocol) {
  switch (protocol) {
    case Protocol::Json10:
      return "application/x-amz-json-1.0";
    case Protocol::Json11:
      return "application/x-amz-json-1.1";
    case Protocol::RestJson:
      return "application/json";
    case Protocol::Ec2:
    case Protocol::Query:
      break;
  }
  return "application/x-www-form-urlencoded; charset=utf-8";
}

// The first line of a body that is not the protocol's error document (an HTML error page), shortened for a message.
std::string first_line(std::string_view body) {
  std::string_view line = body.substr(0, body.find('\n'));
  if (line.size() > 200) line = line.substr(0, 200);
  return std::string(line);
}

AwsError answered_error(std::string_view service, std::string_view action, const net::HttpResponse& answer) {
  AwsError error;
  error.service = std::string(service);
  error.action = std::string(action);
  error.status = answer.status;
  error.request_id = answer.request_id;
  return error;
}

void read_xml_error(std::string_view body, AwsError& error) {
  pugi::xml_document document;
  if (!document.load_buffer(body.data(), body.size())) {
    error.message = first_line(body);
    return;
  }
  // EC2: <Response><Errors><Error>..</Error></Errors><RequestID/></Response>; query:
  // <ErrorResponse><Error>..</Error><RequestId/></ErrorResponse>.
  pugi::xml_node root = document.document_element();
  pugi::xml_node detail = root.child("Errors").child("Error");
  if (!detail) detail = root.child("Error");
  if (!detail) {
    error.message = first_line(body);
    return;
  }
  error.code = child_text(detail, "Code");
  error.message = child_text(detail, "Message");
  for (const char* name : {"RequestID", "RequestId"}) {
    if (std::string id = child_text(root, name); !id.empty()) error.request_id = id;
  }
}

// An error code as the SDKs compare it: without its namespace ("com.amazonaws.ssm#ParameterNotFound") or what
// follows a colon ("ResourceNotFoundException:http://internal.amazon.com/coral/com.amazon.coral.service/").
std::string bare_code(std::string code) {
  code.resize(std::min(code.size(), code.find(':')));
  if (std::size_t hash = code.rfind('#'); hash != std::string::npos) code.erase(0, hash + 1);
  return code;
}

// JSON 1.0/1.1 name the code in "__type"; rest-json in "code" or "__type" (its header, when sent, wins: read_error).
void read_json_error(std::string_view body, bool rest, AwsError& error) {
  nlohmann::json value = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!value.is_object()) {
    error.message = first_line(body);
    return;
  }
  std::string type = value.value("__type", std::string());
  if (rest && value.contains("code") && value["code"].is_string()) type = value["code"].get<std::string>();
  error.code = bare_code(std::move(type));
  // The message's key varies in case.
  for (const char* key : {"message", "Message"}) {
    if (value.contains(key) && value[key].is_string()) error.message = value[key].get<std::string>();
  }
}

}  // namespace

bool AwsError::throttled() const { return one_of(code, kThrottlingCodes) || status == 429; }

bool AwsError::transient() const {
  if (!answered()) return code.empty();  // no answer came; but a request never sent (no credentials) is not retried
  if (one_of(code, kTransientCodes)) return true;
  return status == 500 || status == 502 || status == 503 || status == 504;
}

std::string AwsError::describe() const {
  std::string text = fmt::format("{} {}: ", service, action);
  if (!answered()) {
    text += message;
  } else {
    text += code;
    if (!message.empty()) text += (code.empty() ? "" : ": ") + message;
    if (code.empty() && message.empty()) text += "no error document";
    text += fmt::format(" (HTTP {}", status);
    if (!request_id.empty()) text += ", request id " + request_id;
    text += ")";
  }
  if (attempts > 1) text += fmt::format(" after {} attempts", attempts);
  return text;
}

FormParams& FormParams::add(std::string key, std::string value) {
  entries_.emplace_back(std::move(key), std::move(value));
  return *this;
}

FormParams& FormParams::add_list(const std::string& prefix, const std::vector<std::string>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) add(fmt::format("{}.{}", prefix, i + 1), values[i]);
  return *this;
}

FormParams& FormParams::add_filter(Protocol protocol, const std::string& name, const std::vector<std::string>& values) {
  ++filters_;
  const bool ec2 = protocol == Protocol::Ec2;
  const std::string filter = fmt::format("{}.{}", ec2 ? "Filter" : "Filters.member", filters_);
  add(filter + ".Name", name);
  return add_list(filter + (ec2 ? ".Value" : ".Values.member"), values);
}

std::string FormParams::encode(std::string_view action, std::string_view api_version) const {
  std::string body = "Action=" + uri_encode(action, false) + "&Version=" + uri_encode(api_version, false);
  for (const auto& [key, value] : entries_) body += "&" + uri_encode(key, false) + "=" + uri_encode(value, false);
  return body;
}

std::string child_text(const pugi::xml_node& node, const char* name) { return node.child(name).text().as_string(); }

std::vector<pugi::xml_node> list_items(const pugi::xml_node& node, const char* name) {
  std::vector<pugi::xml_node> items;
  for (pugi::xml_node item : node.child(name).children()) {
    if (item.type() == pugi::node_element) items.push_back(item);
  }
  return items;
}

AwsError read_error(Protocol protocol, std::string_view service, std::string_view action,
                    const net::HttpResponse& answer) {
  AwsError error = answered_error(service, action, answer);
  if (protocol == Protocol::Json10 || protocol == Protocol::Json11 || protocol == Protocol::RestJson) {
    // A JSON service may still answer an error page of its front end's (moto: a query-style document).
    if (answer.body.starts_with("<"))
      read_xml_error(answer.body, error);
    else
      read_json_error(answer.body, protocol == Protocol::RestJson, error);
    // rest-json's header names the code whatever the body says, as the SDKs read it.
    if (protocol == Protocol::RestJson && !answer.error_type.empty()) error.code = bare_code(answer.error_type);
  } else {
    read_xml_error(answer.body, error);
  }
  return error;
}

Result<std::unique_ptr<AwsClient>> AwsClient::create(ApiProtocol api, std::string region, std::string endpoint_url,
                                                     CredentialsSource credentials, AwsClientOptions options) {
  while (endpoint_url.ends_with('/')) endpoint_url.pop_back();
  const std::size_t scheme_end = endpoint_url.find("://");
  if (scheme_end == std::string::npos) {
    return Error{fmt::format("{} endpoint \"{}\" must start with https:// or http://", api.signing_name, endpoint_url)};
  }
  std::string authority = endpoint_url.substr(scheme_end + 3);
  if (authority.find('/') != std::string::npos) {
    return Error{fmt::format("{} endpoint \"{}\" has a path; only scheme, host and port are supported",
                             api.signing_name, endpoint_url)};
  }
  net::HttpEndpoint endpoint;
  endpoint.base_url = endpoint_url;
  endpoint.source = fmt::format("{} endpoint {}", api.signing_name, endpoint_url);
  auto transport = net::HttpTransport::create(std::move(endpoint), options.transport);
  if (!transport) return transport.error();
  return std::unique_ptr<AwsClient>(new AwsClient(api, std::move(region), std::move(endpoint_url), std::move(authority),
                                                  std::move(credentials), std::move(options), std::move(*transport)));
}

AwsClient::AwsClient(ApiProtocol api, std::string region, std::string endpoint_url, std::string host,
                     CredentialsSource credentials, AwsClientOptions options,
                     std::shared_ptr<net::HttpTransport> transport)
    : api_(api),
      region_(std::move(region)),
      endpoint_url_(std::move(endpoint_url)),
      host_(std::move(host)),
      path_("/"),
      credentials_(std::move(credentials)),
      options_(std::move(options)),
      transport_(std::move(transport)) {}

AwsResult<XmlAnswer> AwsClient::query(std::string_view action, const FormParams& params, std::stop_token stop) const {
  AwsResult<net::HttpResponse> answer = send(
      action, {"POST", path_, std::string(content_type_of(api_.protocol)), params.encode(action, api_.api_version), {}},
      stop);
  if (!answer) return answer.error();
  XmlAnswer xml{std::make_shared<pugi::xml_document>(), {}, answer->request_id};
  if (pugi::xml_parse_result parsed = xml.document->load_buffer(answer->body.data(), answer->body.size()); !parsed) {
    AwsError error = answered_error(api_.signing_name, action, *answer);
    error.message = fmt::format("the answer is not XML ({}): {}", parsed.description(), first_line(answer->body));
    return error;
  }
  pugi::xml_node root = xml.document->document_element();
  // EC2 answers <ActionResponse><requestId/>...; the query protocol <ActionResponse><ActionResult>...
  // <ResponseMetadata><RequestId/>.
  if (api_.protocol == Protocol::Ec2) {
    xml.result = root;
    if (std::string id = child_text(root, "requestId"); !id.empty()) xml.request_id = id;
  } else {
    xml.result = root.child((std::string(action) + "Result").c_str());
    if (!xml.result) xml.result = root;
    if (std::string id = child_text(root.child("ResponseMetadata"), "RequestId"); !id.empty()) xml.request_id = id;
  }
  return xml;
}

AwsResult<nlohmann::json> AwsClient::json(std::string_view action, const nlohmann::json& request,
                                          std::stop_token stop) const {
  Outgoing outgoing{"POST", path_, std::string(content_type_of(api_.protocol)), request.dump(), {}};
  outgoing.headers.push_back({"X-Amz-Target", fmt::format("{}.{}", api_.target_prefix, action)});
  AwsResult<net::HttpResponse> answer = send(action, outgoing, stop);
  if (!answer) return answer.error();
  return json_value(action, *answer);
}

AwsResult<nlohmann::json> AwsClient::rest_json(std::string_view action, std::string method, std::string path,
                                               const nlohmann::json& body, std::stop_token stop) const {
  Outgoing outgoing{std::move(method), std::move(path), "", "", {}};
  if (!body.is_null()) {
    outgoing.content_type = content_type_of(api_.protocol);
    outgoing.body = body.dump();
  }
  AwsResult<net::HttpResponse> answer = send(action, outgoing, stop);
  if (!answer) return answer.error();
  return json_value(action, *answer);
}

AwsResult<nlohmann::json> AwsClient::json_value(std::string_view action, const net::HttpResponse& answer) const {
  // An operation that returns nothing may answer an empty body, which the SDKs read as {}.
  if (answer.body.find_first_not_of(" \t\r\n") == std::string::npos) return nlohmann::json::object();
  nlohmann::json value = nlohmann::json::parse(answer.body, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    AwsError error = answered_error(api_.signing_name, action, answer);
    error.message = "the answer is not JSON: " + first_line(answer.body);
    return error;
  }
  return value;
}

AwsResult<net::HttpResponse> AwsClient::send(std::string_view action, const Outgoing& outgoing,
                                             std::stop_token stop) const {
  std::optional<double> retry_cost;  // what the quota paid for the attempt under way, when it is a retry
  for (int attempt = 1;; ++attempt) {
    AwsResult<net::HttpResponse> answer = send_once(action, outgoing, stop);
    if (answer) {
      std::lock_guard lock(quota_mutex_);
      quota_.succeeded(retry_cost);
      return answer;
    }
    AwsError error = answer.error();
    error.attempts = attempt;
    const bool retryable = error.throttled() || error.transient();
    if (!retryable || attempt >= options_.max_attempts || stop.stop_requested()) return error;
    {
      std::lock_guard lock(quota_mutex_);
      retry_cost = quota_.try_acquire_retry(/*after_timeout=*/!error.answered());
    }
    if (!retry_cost) {
      error.message += error.message.empty() ? "" : "; ";
      error.message += "not retried: the client's retry quota is spent";
      return error;
    }
    const std::chrono::milliseconds wait = options_.backoff.delay(attempt, net::jitter_random());
    if (options_.before_retry) options_.before_retry(error, wait);
    net::sleep_unless_stopped(wait, stop);
    if (stop.stop_requested()) return error;
  }
}

AwsResult<net::HttpResponse> AwsClient::send_once(std::string_view action, const Outgoing& outgoing,
                                                  std::stop_token stop) const {
  AwsError failure;
  failure.service = std::string(api_.signing_name);
  failure.action = std::string(action);
  Result<Credentials> credentials = credentials_();
  if (!credentials) {
    failure.code = "NoCredentials";
    failure.message = "no credentials: " + credentials.error().message;
    return failure;
  }
  // The path as sent, already percent-encoded: SigV4 encodes it once more, as every service but S3 checks it.
  SigningRequest signing{outgoing.method, outgoing.path, "", {{"Host", host_}}, outgoing.body};
  if (!outgoing.content_type.empty()) signing.headers.emplace_back("Content-Type", outgoing.content_type);
  for (const net::HttpHeader& header : outgoing.headers) signing.headers.emplace_back(header.name, header.value);
  const Signature signature = sign(signing, *credentials, SigningScope{region_, std::string(api_.signing_name)},
                                   std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));

  net::HttpRequest request{outgoing.method, outgoing.path, outgoing.content_type, outgoing.body};
  request.headers.push_back({"Host", host_});
  for (const net::HttpHeader& header : outgoing.headers) request.headers.push_back(header);
  for (const auto& [name, value] : signature.headers) request.headers.push_back({name, value});
  net::HttpResult answer = transport_->request(request, stop);
  if (options_.on_answer) options_.on_answer(action, answer ? answer->status : 0);
  if (!answer) {
    failure.message = answer.error().message;
    return failure;
  }
  if (answer->status / 100 == 2) return std::move(*answer);
  return read_error(api_.protocol, api_.signing_name, action, *answer);
}

}  // namespace scalewright::cloud::aws
