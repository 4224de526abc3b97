#pragma once
// AWS credentials as the SDKs find them, in botocore's default chain (credentials.py create_credential_resolver;
// the Go v2 SDK's order is the same for the links we have):
//   1. environment: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN (or the legacy AWS_SECURITY_TOKEN),
//      AWS_CREDENTIAL_EXPIRATION;
//   2. web identity (IRSA): AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN (+ AWS_ROLE_SESSION_NAME), or the profile's
//      web_identity_token_file / role_arn / role_session_name, each variable over its key: an unsigned
//      sts:AssumeRoleWithWebIdentity with the token file's contents, read again for every refresh;
//   3. the shared credentials file's keys for the profile (aws_access_key_id, aws_secret_access_key,
//      aws_session_token), then the shared config file's; botocore puts web identity before both files (its
//      ProfileProviderBuilder: web identity, SSO, credentials file, process, config file);
//   4. container credentials (ECS task roles, EKS Pod Identity): AWS_CONTAINER_CREDENTIALS_RELATIVE_URI or
//      AWS_CONTAINER_CREDENTIALS_FULL_URI, with AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE (read for every call) or
//      AWS_CONTAINER_AUTHORIZATION_TOKEN as the Authorization header;
//   5. IMDS (imds.h): the instance profile's role credentials.
// The first link that is configured answers, and keeps answering: a failure of the link chosen is an error, not a
// step down the chain, as in the SDKs. Profile settings that ask for what Scalewright does not do (role_arn with
// source_profile or credential_source, SSO, credential_process) fail at their place in the chain rather than
// letting a later link answer with other credentials.
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "api/result.h"
#include "cloud/aws/aws_environment.h"
#include "cloud/aws/shared_config.h"
#include "cloud/aws/sigv4.h"

namespace scalewright::cloud::aws {

// Credentials and when they stop working.
struct ExpiringCredentials {
  Credentials credentials;
  std::optional<std::chrono::sys_seconds> expiration = std::nullopt;  // nullopt: long-term keys, which do not expire
};

using WallClock = std::function<std::chrono::sys_seconds()>;
std::chrono::sys_seconds system_now();

// botocore's refresh windows: temporary credentials are fetched again once they have less than 15 minutes left
// (advisory: if that fails, the current ones are kept), and must be once they have less than 10 (mandatory: if that
// fails, the call fails).
inline constexpr std::chrono::seconds kAdvisoryRefreshWindow{15 * 60};
inline constexpr std::chrono::seconds kMandatoryRefreshWindow{10 * 60};

class CredentialsProvider {
 public:
  virtual ~CredentialsProvider() = default;
  // Credentials valid now; temporary ones are refreshed before they expire. Thread-safe.
  virtual Result<Credentials> credentials() = 0;
  // Which link of the chain answers, for a log line: "environment", "web identity (role ..., token file ...)".
  virtual std::string source() const = 0;
};

using CredentialsFetch = std::function<Result<ExpiringCredentials>()>;

// Keeps what `fetch` gives, and fetches again in the refresh windows (botocore's RefreshableCredentials): one fetch
// at a time; while one runs in the advisory window, other callers keep using the current credentials; in the
// mandatory window they wait for it.
class RefreshingCredentialsProvider final : public CredentialsProvider {
 public:
  RefreshingCredentialsProvider(std::string source, CredentialsFetch fetch, WallClock clock = system_now);
  Result<Credentials> credentials() override;
  std::string source() const override { return source_; }

 private:
  // Whether the cached credentials are missing or have less than `window` left at `now`; mutex_ held.
  bool needs_refresh(std::chrono::sys_seconds now, std::chrono::seconds window) const;

  const std::string source_;
  const CredentialsFetch fetch_;
  const WallClock clock_;
  std::mutex refresh_mutex_;  // held by the one caller that fetches
  mutable std::mutex mutex_;  // guards cached_
  std::optional<ExpiringCredentials> cached_;
};

struct CredentialsChainOptions {
  WallClock clock = system_now;
  // STS's region for web identity (its regional endpoint, AWS_ENDPOINT_URL_STS and the like apply); nullopt: the
  // region the environment and profile name (resolve_region), else us-east-1.
  std::optional<std::string> region;
  // Container credentials, as botocore asks for them (ContainerMetadataFetcher): 2 s per attempt, 3 attempts, 1 s
  // apart.
  std::chrono::milliseconds container_timeout{2000};
  int container_attempts = 3;
  std::chrono::milliseconds container_retry_wait{1000};
};

// The default chain for this environment and profile. Fails when the link chosen is misconfigured (an access key
// without its secret, a web identity token file without a role ARN, a container URL outside the allowed hosts), and
// when no link is configured and IMDS is disabled, with one line saying what each link lacked. When only IMDS is
// left, the provider asks it; if IMDS gives no credentials either, credentials() fails with that line.
Result<std::shared_ptr<CredentialsProvider>> default_credentials_chain(const AwsEnvironment& environment,
                                                                       const SharedConfig& shared,
                                                                       const CredentialsChainOptions& options = {});

}  // namespace scalewright::cloud::aws
