#include "cloud/aws/imds.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

#include "api/ascii.h"
#include "cloud/aws/endpoints.h"
#include "net/http_transport.h"

namespace scalewright::cloud::aws {
namespace {

constexpr std::string_view kTokenPath = "/latest/api/token";
constexpr std::string_view kTokenTtlSeconds = "21600";  // six hours, the SDKs' session length

std::string describe(const net::HttpResult& answer) {
  if (!answer) return answer.error().message;
  return fmt::format("HTTP {}", answer->status);
}

}  // namespace

Result<ImdsSettings> imds_settings(const AwsEnvironment& environment, const SharedConfig& shared) {
  ImdsSettings settings;
  if (auto endpoint =
          setting(environment, shared, "AWS_EC2_METADATA_SERVICE_ENDPOINT", "ec2_metadata_service_endpoint")) {
    settings.endpoint = *endpoint;
  } else if (auto mode = setting(environment, shared, "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE",
                                 "ec2_metadata_service_endpoint_mode")) {
    if (*mode == "IPv6" || *mode == "ipv6") {
      settings.endpoint = "http://[fd00:ec2::254]";
    } else if (*mode != "IPv4" && *mode != "ipv4") {
      return Error{fmt::format("AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE \"{}\" must be IPv4 or IPv6", *mode)};
    }
  }
  if (environment.is_true("AWS_EC2_METADATA_DISABLED")) settings.disabled_by = "AWS_EC2_METADATA_DISABLED";
  if (auto v1 = setting(environment, shared, "AWS_EC2_METADATA_V1_DISABLED", "ec2_metadata_v1_disabled")) {
    settings.v1_disabled = is_true_setting(*v1);
  }
  if (auto timeout = setting(environment, shared, "AWS_METADATA_SERVICE_TIMEOUT", "metadata_service_timeout")) {
    double seconds = 0;
    auto [end, ec] = std::from_chars(timeout->data(), timeout->data() + timeout->size(), seconds);
    if (ec != std::errc() || end != timeout->data() + timeout->size() || !(seconds > 0) || seconds > 3600) {
      return Error{fmt::format("AWS_METADATA_SERVICE_TIMEOUT \"{}\" must be a number of seconds above 0", *timeout)};
    }
    settings.timeout = std::chrono::milliseconds(static_cast<long>(std::lround(seconds * 1000)));
  }
  if (auto attempts =
          setting(environment, shared, "AWS_METADATA_SERVICE_NUM_ATTEMPTS", "metadata_service_num_attempts")) {
    int count = 0;
    auto [end, ec] = std::from_chars(attempts->data(), attempts->data() + attempts->size(), count);
    if (ec != std::errc() || end != attempts->data() + attempts->size() || count < 1 || count > 100) {
      return Error{fmt::format("AWS_METADATA_SERVICE_NUM_ATTEMPTS \"{}\" must be a whole number from 1", *attempts)};
    }
    settings.attempts = count;
  }
  return settings;
}

ImdsClient::ImdsClient(ImdsSettings settings, std::shared_ptr<net::HttpTransport> transport, std::string path_prefix)
    : settings_(std::move(settings)), transport_(std::move(transport)), path_prefix_(std::move(path_prefix)) {}

Result<std::shared_ptr<ImdsClient>> ImdsClient::create(ImdsSettings settings) {
  auto split = split_url(settings.endpoint, "the IMDS endpoint");
  if (!split) return split.error();
  net::HttpEndpoint endpoint;
  endpoint.base_url = split->base;
  endpoint.source = "IMDS " + settings.endpoint;
  net::TransportOptions options;
  options.connect_timeout = settings.timeout;
  options.read_timeout = settings.timeout;
  options.write_timeout = settings.timeout;
  auto transport = net::HttpTransport::create(std::move(endpoint), options);
  if (!transport) return transport.error();
  std::string prefix = split->path;
  while (prefix.ends_with('/')) prefix.pop_back();
  return std::shared_ptr<ImdsClient>(new ImdsClient(std::move(settings), std::move(*transport), std::move(prefix)));
}

Result<std::optional<std::string>> ImdsClient::token() const {
  if (!settings_.disabled_by.empty()) return Error{fmt::format("IMDS is disabled by {}", settings_.disabled_by)};
  net::HttpRequest request;
  request.method = "PUT";
  request.path = path_prefix_ + std::string(kTokenPath);
  request.headers.push_back({"X-aws-ec2-metadata-token-ttl-seconds", std::string(kTokenTtlSeconds)});
  std::string last = "no attempt";
  for (int attempt = 0; attempt < settings_.attempts; ++attempt) {
    net::HttpResult answer = transport_->request(request);
    last = describe(answer);
    if (!answer) continue;
    if (answer->status == 200 && !ascii_trim(answer->body).empty()) {
      return std::optional<std::string>(std::string(ascii_trim(answer->body)));
    }
    if (answer->status == 400) {
      return Error{
          fmt::format("IMDS at {}: the session token request was refused as malformed (HTTP 400)", settings_.endpoint)};
    }
    if (answer->status == 403 || answer->status == 404 || answer->status == 405) break;  // no IMDSv2 here
  }
  if (settings_.v1_disabled) {
    return Error{
        fmt::format("IMDS at {}: no session token ({}) and IMDSv1 is disabled "
                    "(AWS_EC2_METADATA_V1_DISABLED)",
                    settings_.endpoint, last)};
  }
  return std::optional<std::string>();
}

Result<std::string> ImdsClient::get(std::string_view path, const std::optional<std::string>& token) const {
  if (!settings_.disabled_by.empty()) return Error{fmt::format("IMDS is disabled by {}", settings_.disabled_by)};
  net::HttpRequest request;
  request.method = "GET";
  request.path = path_prefix_ + std::string(path);
  if (token) request.headers.push_back({"X-aws-ec2-metadata-token", *token});
  std::string last = "no attempt";
  for (int attempt = 0; attempt < settings_.attempts; ++attempt) {
    net::HttpResult answer = transport_->request(request);
    if (answer && answer->status == 200 && !answer->body.empty()) return std::move(answer->body);
    last = answer && answer->status == 200 ? "an empty answer" : describe(answer);
  }
  return Error{fmt::format("IMDS at {}: GET {}: {}", settings_.endpoint, path, last)};
}

Result<std::string> region_from_imds(const ImdsClient& imds) {
  auto token = imds.token();
  if (!token) return token.error();
  auto region = imds.get("/latest/meta-data/placement/region", *token);
  if (!region) return region.error();
  return std::string(ascii_trim(*region));
}

}  // namespace scalewright::cloud::aws
