#pragma once
// The AWS services Scalewright calls, and where each is: the region, then each service's endpoint URL, resolved from
// the environment and the shared config file as the AWS SDKs resolve them (botocore's configprovider.py, the Go v2
// SDK's config package; the SDKs and Tools reference guide, "Service-specific endpoints").
#include <optional>
#include <string>
#include <string_view>

#include "api/result.h"
#include "cloud/aws/aws_environment.h"
#include "cloud/aws/services.h"
#include "cloud/aws/shared_config.h"

namespace scalewright::cloud::aws {

// A value and where it came from, for a log line ("AWS_REGION", "profile dev in /root/.aws/config").
struct ResolvedSetting {
  std::string value;
  std::string source;
};

// The region: AWS_REGION, else AWS_DEFAULT_REGION, else the profile's `region`; nullopt when none says one (a
// caller on EC2 may then ask IMDS: region_from_imds in imds.h).
std::optional<ResolvedSetting> resolve_region(const AwsEnvironment& environment, const SharedConfig& shared);

struct ResolvedEndpoint {
  std::string url;             // scheme and host (and a path when one was configured), no trailing '/'
  std::string signing_region;  // the region the requests are signed for: pricing's is its endpoint's region
  // Where the URL came from: "AWS_ENDPOINT_URL_EC2", "AWS_ENDPOINT_URL", "ec2's endpoint_url in [services local]
  // of /root/.aws/config", "endpoint_url of profile dev in /root/.aws/config", or "default".
  std::string source;
};

// The endpoint of `service` for `region`, in botocore's order (configprovider.py ConfiguredEndpointProvider, and the
// Go v2 SDK's): AWS_ENDPOINT_URL_<SERVICE_ID>, AWS_ENDPOINT_URL, the `endpoint_url` under the service's key
// (service id lower-cased: `ec2`, `auto_scaling`) in the `[services NAME]` section the profile names, the profile's
// own `endpoint_url`, and otherwise the region's default. AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true (or the
// profile's ignore_configured_endpoint_urls) leaves only the default. Fails on a configured URL that is not
// http(s)://, a `services` setting naming a missing section, or no region when the default is needed.
Result<ResolvedEndpoint> resolve_endpoint(const AwsService& service, std::string_view region,
                                          const AwsEnvironment& environment, const SharedConfig& shared);

// The region's own endpoint: https://<prefix>.<region>.amazonaws.com (.amazonaws.com.cn in China's cn- regions).
// Pricing has endpoints in a few regions only: see pricing_region.
std::string default_endpoint(const AwsService& service, std::string_view region);
// The region `service`'s requests from `region` are signed for: the region's own, pricing's endpoint's, IAM's
// partition's (us-east-1, cn-north-1).
std::string signing_region_of(const AwsService& service, std::string_view region);

// The region whose Price List API endpoint serves `region`, as Karpenter's AWS provider picks it (operator.go
// NewPricingAPI): ap-* -> ap-south-1, eu-* -> eu-central-1, cn-* -> cn-northwest-1, everything else us-east-1.
std::string pricing_region(std::string_view region);

// A URL split for net::HttpTransport: "https://host:port" and the path after it ("/" when there is none).
struct SplitUrl {
  std::string base;
  std::string path;
  std::string host;  // without a port, an IPv6 address without its brackets: "fd00:ec2::23"
  bool https = false;
};
// Fails naming `what` when the URL is not http:// or https:// followed by a host.
Result<SplitUrl> split_url(std::string_view url, std::string_view what);

}  // namespace scalewright::cloud::aws
