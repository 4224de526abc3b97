#pragma once
// The EC2 instance metadata service (IMDS) as the AWS SDKs ask it (botocore's utils.py IMDSFetcher): a session token
// first (IMDSv2: PUT /latest/api/token with X-aws-ec2-metadata-token-ttl-seconds), then GETs carrying it in
// X-aws-ec2-metadata-token. Where IMDS refuses tokens (403, 404, 405) or the PUT gets no answer (a pod behind a hop
// limit of 1), the GETs go without one (IMDSv1) unless IMDSv1 is disabled.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "api/result.h"
#include "cloud/aws/aws_environment.h"
#include "cloud/aws/shared_config.h"

namespace scalewright::net {
class HttpTransport;
}

namespace scalewright::cloud::aws {

// How to reach IMDS, each setting from its variable, else the profile's key (botocore's names):
// AWS_EC2_METADATA_SERVICE_ENDPOINT (ec2_metadata_service_endpoint), else AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE=IPv6
// (ec2_metadata_service_endpoint_mode) for http://[fd00:ec2::254], else http://169.254.169.254;
// AWS_EC2_METADATA_DISABLED=true (the variable only); AWS_EC2_METADATA_V1_DISABLED (ec2_metadata_v1_disabled);
// AWS_METADATA_SERVICE_TIMEOUT in seconds (metadata_service_timeout, 1) and AWS_METADATA_SERVICE_NUM_ATTEMPTS
// (metadata_service_num_attempts, 1).
struct ImdsSettings {
  std::string endpoint = "http://169.254.169.254";
  std::string disabled_by;  // the setting that turned IMDS off ("AWS_EC2_METADATA_DISABLED"); empty: IMDS may be asked
  bool v1_disabled = false;
  std::chrono::milliseconds timeout{1000};
  int attempts = 1;
};

// Fails naming the variable or key whose value is unusable.
Result<ImdsSettings> imds_settings(const AwsEnvironment& environment, const SharedConfig& shared);

// Thread-safe.
class ImdsClient {
 public:
  // Fails when the endpoint is not an http(s) URL.
  static Result<std::shared_ptr<ImdsClient>> create(ImdsSettings settings);

  // A session token; nullopt when IMDS gives none and IMDSv1 may be used instead. Fails when IMDS gives none and
  // IMDSv1 is disabled, or when it refuses the request as malformed (400).
  Result<std::optional<std::string>> token() const;
  // The body of a 200 answer to GET `path` ("/latest/meta-data/placement/region"), asked up to `attempts` times
  // while the answer is not a 200 with a body (botocore's rule); fails with the last answer's status.
  Result<std::string> get(std::string_view path, const std::optional<std::string>& token) const;

  const ImdsSettings& settings() const { return settings_; }

 private:
  ImdsClient(ImdsSettings settings, std::shared_ptr<net::HttpTransport> transport, std::string path_prefix);
  ImdsSettings settings_;
  std::shared_ptr<net::HttpTransport> transport_;
  std::string path_prefix_;  // the endpoint's own path, without a trailing '/'
};

// The instance's region (GET /latest/meta-data/placement/region with a token), as Karpenter asks for it when the
// environment names none. Fails when IMDS is disabled or gives no answer.
Result<std::string> region_from_imds(const ImdsClient& imds);

}  // namespace scalewright::cloud::aws
