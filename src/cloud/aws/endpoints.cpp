#include "cloud/aws/endpoints.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "api/ascii.h"

namespace scalewright::cloud::aws {
namespace {

// botocore's validate_region_name: letters, digits and inner hyphens, so the region can go into a host name.
bool valid_region(std::string_view region) {
  if (region.empty() || region.size() > 63 || region.front() == '-' || region.back() == '-') return false;
  return std::all_of(region.begin(), region.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-'; });
}

}  // namespace

std::optional<ResolvedSetting> resolve_region(const AwsEnvironment& environment, const SharedConfig& shared) {
  for (std::string_view variable : {"AWS_REGION", "AWS_DEFAULT_REGION"}) {
    if (auto region = environment.get(variable)) return ResolvedSetting{*region, std::string(variable)};
  }
  if (auto region = shared.get("region"); region && !region->empty()) {
    return ResolvedSetting{*region, shared.where("region")};
  }
  return std::nullopt;
}

std::string pricing_region(std::string_view region) {
  if (region.starts_with("ap-")) return "ap-south-1";
  if (region.starts_with("eu-")) return "eu-central-1";
  if (region.starts_with("cn-")) return "cn-northwest-1";
  return "us-east-1";
}

std::string signing_region_of(const AwsService& service, std::string_view region) {
  if (service.service_id == kPricing.service_id) return pricing_region(region);
  // IAM is global: one endpoint per partition, signed for its first region.
  if (service.service_id == kIam.service_id) return region.starts_with("cn-") ? "cn-north-1" : "us-east-1";
  return std::string(region);
}

std::string default_endpoint(const AwsService& service, std::string_view region) {
  std::string_view domain = region.starts_with("cn-") ? "amazonaws.com.cn" : "amazonaws.com";
  if (service.service_id == kIam.service_id) return fmt::format("https://{}.{}", service.endpoint_prefix, domain);
  std::string host_region = signing_region_of(service, region);
  return fmt::format("https://{}.{}.{}", service.endpoint_prefix, host_region, domain);
}

Result<SplitUrl> split_url(std::string_view url, std::string_view what) {
  SplitUrl split;
  std::string_view rest;
  if (url.starts_with("https://")) {
    split.https = true;
    rest = url.substr(8);
  } else if (url.starts_with("http://")) {
    rest = url.substr(7);
  } else {
    return Error{fmt::format("{} \"{}\" must start with https:// or http://", what, url)};
  }
  std::size_t path_start = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, path_start);
  std::string_view path = path_start == std::string_view::npos ? std::string_view() : rest.substr(path_start);
  if (authority.find('@') != std::string_view::npos) {
    return Error{fmt::format("{} \"{}\" must not carry a user name or password", what, url)};
  }
  if (authority.starts_with('[')) {
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return Error{fmt::format("{} \"{}\" has a malformed host", what, url)};
    split.host = std::string(authority.substr(1, close - 1));
  } else {
    split.host = std::string(authority.substr(0, authority.find(':')));
  }
  if (split.host.empty()) return Error{fmt::format("{} \"{}\" has no host", what, url)};
  split.base = fmt::format("{}://{}", split.https ? "https" : "http", authority);
  split.path = path.empty() || path.front() != '/' ? "/" + std::string(path) : std::string(path);
  return split;
}

Result<ResolvedEndpoint> resolve_endpoint(const AwsService& service, std::string_view region,
                                          const AwsEnvironment& environment, const SharedConfig& shared) {
  const std::string signing_region = signing_region_of(service, region);
  auto configured = [&](std::string_view url, std::string source) -> Result<ResolvedEndpoint> {
    if (auto split = split_url(url, source); !split) return split.error();
    while (url.ends_with('/')) url.remove_suffix(1);
    return ResolvedEndpoint{std::string(url), signing_region, std::move(source)};
  };

  std::optional<std::string> ignore =
      setting(environment, shared, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "ignore_configured_endpoint_urls");
  if (!ignore || !is_true_setting(*ignore)) {
    const std::string service_variable = fmt::format("AWS_ENDPOINT_URL_{}", service.service_id);
    if (auto url = environment.get(service_variable)) return configured(*url, service_variable);
    if (auto url = environment.get("AWS_ENDPOINT_URL")) return configured(*url, "AWS_ENDPOINT_URL");
    auto services = shared.services();
    if (!services) return services.error();
    const std::string key = ascii_lower(service.service_id);
    if (*services != nullptr) {
      if (auto url = (*services)->get(key, "endpoint_url")) {
        return configured(*url, fmt::format("{}'s endpoint_url in [services {}] of {}", key,
                                            shared.get("services").value_or(""), shared.config.path));
      }
    }
    if (auto url = shared.get("endpoint_url"); url && !url->empty()) {
      return configured(*url, "endpoint_url of " + shared.where("endpoint_url"));
    }
  }
  if (region.empty()) {
    return Error{fmt::format("no AWS region to find {}'s endpoint in: set AWS_REGION, or region in the profile",
                             service.service_id)};
  }
  if (!valid_region(region)) {
    return Error{fmt::format("AWS region \"{}\" is not a region name (letters, digits and hyphens)", region)};
  }
  return ResolvedEndpoint{default_endpoint(service, region), signing_region, "default"};
}

}  // namespace scalewright::cloud::aws
