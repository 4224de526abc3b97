#include "cloud/aws/credentials.h"

#include <arpa/inet.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "api/ascii.h"
#include "cloud/aws/endpoints.h"
#include "cloud/aws/imds.h"
#include "manifest/meta_decoder.h"
#include "net/http_transport.h"

namespace scalewright::cloud::aws {
namespace {

using std::chrono::sys_seconds;
using json = nlohmann::json;

// How much longer than the advisory window IMDS credentials that are about to expire (or have) are used, so that
// an IMDS outage does not stop every call (botocore's _evaluate_expiration, the SDKs' "static stability"; botocore
// adds 2 to 10 minutes at random, we take 5: one controller, no herd to spread).
constexpr std::chrono::seconds kImdsExtension{5 * 60};

std::string format_time(sys_seconds time) { return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", time); }

// The start of an answer's body on one line, for an error message.
std::string excerpt(std::string_view body) {
  std::string out(ascii_trim(body.substr(0, 300)));
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return out.empty() ? "(empty body)" : out;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

Result<sys_seconds> parse_expiration(std::string_view text, std::string_view what) {
  std::optional<std::int64_t> seconds = manifest::parse_rfc3339(ascii_trim(text));
  if (!seconds) return Error{fmt::format("{}: expiration \"{}\" is not an ISO 8601 time", what, text)};
  return sys_seconds(std::chrono::seconds(*seconds));
}

// A file holding one token (a service account's JWT), trimmed: kubelet writes none, but a hand-made file often ends
// in a newline, and no token holds white space.
Result<std::string> read_token_file(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{fmt::format("{} {}: cannot read it: {}", what, path, std::strerror(errno))};
  std::ostringstream text;
  text << in.rdbuf();
  std::string token(ascii_trim(text.str()));
  if (token.empty()) return Error{fmt::format("{} {} is empty", what, path)};
  return token;
}

Result<std::shared_ptr<net::HttpTransport>> transport_for(const SplitUrl& url, std::string source,
                                                          std::chrono::milliseconds timeout) {
  net::TransportOptions options;
  options.connect_timeout = timeout;
  options.read_timeout = timeout;
  options.write_timeout = timeout;
  net::HttpEndpoint endpoint;
  endpoint.base_url = url.base;
  endpoint.source = std::move(source);
  return net::HttpTransport::create(std::move(endpoint), options);
}

// A JSON answer's string member; empty when it is missing or not a string.
std::string string_member(const json& object, const char* name) {
  auto found = object.find(name);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

// ---- web identity -----------------------------------------------------------------------------------------------

struct WebIdentity {
  std::string token_file;
  std::string role_arn;
  std::string session_name;
  ResolvedEndpoint sts;
  std::string path;  // the request's path on STS's endpoint
  std::shared_ptr<net::HttpTransport> transport;
};

// One sts:AssumeRoleWithWebIdentity call, unsigned (the token is the proof), as a query-protocol form.
Result<ExpiringCredentials> assume_role_with_web_identity(const WebIdentity& identity) {
  auto token = read_token_file(identity.token_file, "web identity token file");
  if (!token) return token.error();
  const std::string what =
      fmt::format("sts:AssumeRoleWithWebIdentity for role {} at {}", identity.role_arn, identity.sts.url);
  net::HttpRequest request;
  request.method = "POST";
  request.path = identity.path;
  request.content_type = "application/x-www-form-urlencoded; charset=utf-8";
  request.body = fmt::format(
      "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn={}&RoleSessionName={}"
      "&WebIdentityToken={}",
      uri_encode(identity.role_arn, false), uri_encode(identity.session_name, false), uri_encode(*token, false));
  net::HttpResult answer = identity.transport->request(request);
  if (!answer) return Error{fmt::format("{}: {}", what, answer.error().message)};
  pugi::xml_document document;
  const bool parsed = document.load_buffer(answer->body.data(), answer->body.size());
  if (answer->status != 200) {
    pugi::xml_node error_response = document.child("ErrorResponse");
    pugi::xml_node error = error_response.child("Error");
    if (parsed && error) {
      return Error{fmt::format("{}: {}: {} (HTTP {}, request id {})", what, error.child_value("Code"),
                               error.child_value("Message"), answer->status, error_response.child_value("RequestId"))};
    }
    return Error{fmt::format("{}: HTTP {}: {}", what, answer->status, excerpt(answer->body))};
  }
  pugi::xml_node credentials =
      document.child("AssumeRoleWithWebIdentityResponse").child("AssumeRoleWithWebIdentityResult").child("Credentials");
  if (!parsed || !credentials) {
    return Error{fmt::format("{}: the answer holds no Credentials: {}", what, excerpt(answer->body))};
  }
  ExpiringCredentials result{.credentials = {credentials.child_value("AccessKeyId"),
                                             credentials.child_value("SecretAccessKey"),
                                             credentials.child_value("SessionToken")}};
  if (result.credentials.access_key_id.empty() || result.credentials.secret_access_key.empty() ||
      result.credentials.session_token.empty()) {
    return Error{fmt::format("{}: the answer's Credentials lack AccessKeyId, SecretAccessKey or SessionToken", what)};
  }
  auto expiration = parse_expiration(credentials.child_value("Expiration"), what);
  if (!expiration) return expiration.error();
  result.expiration = *expiration;
  return result;
}

// ---- container credentials --------------------------------------------------------------------------------------

struct Container {
  std::string url;
  std::string path;
  std::shared_ptr<net::HttpTransport> transport;
  std::optional<std::string> token_file;  // AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE, read for every call
  std::optional<std::string> token;       // AWS_CONTAINER_AUTHORIZATION_TOKEN
  int attempts = 3;
  std::chrono::milliseconds retry_wait{1000};
};

// Plain http is allowed only to these hosts, as botocore's ContainerMetadataFetcher allows it: a loopback address,
// ECS's 169.254.170.2, EKS Pod Identity's 169.254.170.23 and fd00:ec2::23, and localhost.
bool allowed_container_host(std::string_view host) {
  std::string text(host);
  if (text == "localhost") return true;
  std::array<unsigned char, 16> address{};
  if (::inet_pton(AF_INET, text.c_str(), address.data()) == 1) {
    return address[0] == 127 || text == "169.254.170.2" || text == "169.254.170.23";
  }
  if (::inet_pton(AF_INET6, text.c_str(), address.data()) == 1) {
    std::array<unsigned char, 16> loopback{}, pod_identity{};
    ::inet_pton(AF_INET6, "::1", loopback.data());
    ::inet_pton(AF_INET6, "fd00:ec2::23", pod_identity.data());
    return address == loopback || address == pod_identity;
  }
  return false;
}

Result<ExpiringCredentials> fetch_container_credentials(const Container& container) {
  net::HttpRequest request;
  request.method = "GET";
  request.path = container.path;
  request.headers.push_back({"Accept", "application/json"});
  std::optional<std::string> authorization = container.token;
  if (container.token_file) {
    auto token = read_token_file(*container.token_file, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
    if (!token) return token.error();
    authorization = std::move(*token);
  }
  if (authorization) {
    if (authorization->find_first_of("\r\n") != std::string::npos) {
      return Error{"the container authorization token holds a line break, which cannot go into a header"};
    }
    request.headers.push_back({"Authorization", *authorization});
  }
  std::string last;
  for (int attempt = 1; attempt <= container.attempts; ++attempt) {
    if (attempt > 1) std::this_thread::sleep_for(container.retry_wait);
    net::HttpResult answer = container.transport->request(request);
    if (!answer) {
      last = answer.error().message;
      continue;
    }
    if (answer->status != 200) {
      last = fmt::format("HTTP {}: {}", answer->status, excerpt(answer->body));
      continue;
    }
    json body = json::parse(answer->body, nullptr, false);
    if (!body.is_object()) {
      last = fmt::format("the answer is not a JSON object: {}", excerpt(answer->body));
      continue;
    }
    ExpiringCredentials result{.credentials = {string_member(body, "AccessKeyId"),
                                               string_member(body, "SecretAccessKey"), string_member(body, "Token")}};
    if (result.credentials.access_key_id.empty() || result.credentials.secret_access_key.empty()) {
      return Error{
          fmt::format("container credentials {}: the answer lacks AccessKeyId or SecretAccessKey", container.url)};
    }
    if (std::string expiration = string_member(body, "Expiration"); !expiration.empty()) {
      auto parsed = parse_expiration(expiration, "container credentials " + container.url);
      if (!parsed) return parsed.error();
      result.expiration = *parsed;
    }
    return result;
  }
  return Error{fmt::format("container credentials {}: {}", container.url, last)};
}

// ---- IMDS -------------------------------------------------------------------------------------------------------

constexpr std::string_view kImdsRolesPath = "/latest/meta-data/iam/security-credentials/";

Result<ExpiringCredentials> fetch_imds_credentials(const ImdsClient& imds, const WallClock& clock) {
  auto token = imds.token();
  if (!token) return token.error();
  auto roles = imds.get(kImdsRolesPath, *token);
  if (!roles) return Error{roles.error().message + " (no instance profile role)"};
  std::string_view listing = ascii_trim(*roles);
  std::string role(ascii_trim(listing.substr(0, listing.find('\n'))));
  const std::string& endpoint = imds.settings().endpoint;
  if (role.empty()) return Error{fmt::format("IMDS at {}: no instance profile role (an empty list)", endpoint)};
  auto answer = imds.get(std::string(kImdsRolesPath) + role, *token);
  if (!answer) return answer.error();
  const std::string what = fmt::format("IMDS at {}: role {}", endpoint, role);
  json body = json::parse(*answer, nullptr, false);
  if (!body.is_object()) return Error{fmt::format("{}: the answer is not a JSON object: {}", what, excerpt(*answer))};
  if (std::string code = string_member(body, "Code"); !code.empty() && code != "Success") {
    return Error{fmt::format("{}: {}: {}", what, code, string_member(body, "Message"))};
  }
  // botocore takes the answer for no credentials unless it has all four.
  ExpiringCredentials result{.credentials = {string_member(body, "AccessKeyId"), string_member(body, "SecretAccessKey"),
                                             string_member(body, "Token")}};
  std::string expiration = string_member(body, "Expiration");
  if (result.credentials.access_key_id.empty() || result.credentials.secret_access_key.empty() ||
      result.credentials.session_token.empty() || expiration.empty()) {
    return Error{fmt::format("{}: the answer lacks AccessKeyId, SecretAccessKey, Token or Expiration", what)};
  }
  auto expires = parse_expiration(expiration, what);
  if (!expires) return expires.error();
  result.expiration = *expires;
  const sys_seconds now = clock();
  if (*result.expiration - now <= kAdvisoryRefreshWindow + kImdsExtension) {
    result.expiration = now + kAdvisoryRefreshWindow + kImdsExtension;
    spdlog::warn("aws: IMDS gave credentials of role {} that expire at {}; using them until {} and asking again", role,
                 expiration, format_time(*result.expiration));
  }
  return result;
}

// ---- the chain's links ------------------------------------------------------------------------------------------

// The static keys of a shared file's profile section; nullptr (and why, in `lacked`) when it has none.
Result<std::shared_ptr<CredentialsProvider>> shared_file_link(std::string_view kind, const SharedFile& file,
                                                              const ConfigSection* section, const std::string& profile,
                                                              const WallClock& clock,
                                                              std::vector<std::string>& lacked) {
  if (!file.found) {
    lacked.push_back(fmt::format("{} {}: no such file", kind, file.path));
    return std::shared_ptr<CredentialsProvider>();
  }
  std::optional<std::string> access_key = section != nullptr ? section->get("aws_access_key_id") : std::nullopt;
  if (!access_key || access_key->empty()) {
    lacked.push_back(section == nullptr
                         ? fmt::format("{} {}: no profile {}", kind, file.path, profile)
                         : fmt::format("{} {}: profile {} has no aws_access_key_id", kind, file.path, profile));
    return std::shared_ptr<CredentialsProvider>();
  }
  std::optional<std::string> secret = section->get("aws_secret_access_key");
  if (!secret || secret->empty()) {
    return Error{fmt::format("{}: profile {} has aws_access_key_id but no aws_secret_access_key", file.path, profile)};
  }
  std::optional<std::string> token = section->get("aws_session_token");
  if (!token) token = section->get("aws_security_token");  // botocore's older name
  ExpiringCredentials value{.credentials = {*access_key, *secret, token.value_or("")}};
  return std::shared_ptr<CredentialsProvider>(std::make_shared<RefreshingCredentialsProvider>(
      fmt::format("{} {} (profile {})", kind, file.path, profile),
      [value] { return Result<ExpiringCredentials>(value); }, clock));
}

// A profile setting that asks for a way of getting credentials Scalewright does not have.
std::optional<Error> unsupported(const SharedConfig& shared, std::initializer_list<std::string_view> keys,
                                 std::string_view what) {
  for (std::string_view key : keys) {
    if (shared.get(key)) {
      return Error{
          fmt::format("{} sets {}: {} is not supported; give Scalewright web identity (IRSA), container "
                      "(EKS Pod Identity), instance profile or static credentials",
                      shared.where(key), key, what)};
    }
  }
  return std::nullopt;
}

}  // namespace

std::chrono::sys_seconds system_now() {
  return std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
}

RefreshingCredentialsProvider::RefreshingCredentialsProvider(std::string source, CredentialsFetch fetch,
                                                             WallClock clock)
    : source_(std::move(source)), fetch_(std::move(fetch)), clock_(std::move(clock)) {}

bool RefreshingCredentialsProvider::needs_refresh(sys_seconds now, std::chrono::seconds window) const {
  if (!cached_) return true;
  return cached_->expiration && *cached_->expiration - now < window;
}

Result<Credentials> RefreshingCredentialsProvider::credentials() {
  {
    std::lock_guard lock(mutex_);
    if (!needs_refresh(clock_(), kAdvisoryRefreshWindow)) return cached_->credentials;
  }
  std::unique_lock refresh(refresh_mutex_, std::try_to_lock);
  if (!refresh.owns_lock()) {
    {
      std::lock_guard lock(mutex_);
      // Another caller is fetching; the current credentials serve until the mandatory window.
      if (!needs_refresh(clock_(), kMandatoryRefreshWindow)) return cached_->credentials;
    }
    refresh.lock();
  }
  std::optional<ExpiringCredentials> current;
  {
    std::lock_guard lock(mutex_);
    if (!needs_refresh(clock_(), kAdvisoryRefreshWindow)) return cached_->credentials;  // fetched meanwhile
    current = cached_;
  }
  Result<ExpiringCredentials> fetched = fetch_();
  const sys_seconds now = clock_();
  if (fetched && fetched->expiration && *fetched->expiration <= now) {
    // Expired on arrival: a failed refresh (botocore raises even in the advisory window, having dropped the
    // current ones; keeping them while they last is kinder).
    fetched =
        Error{fmt::format("{} gave AWS credentials that expired at {}", source_, format_time(*fetched->expiration))};
  }
  if (!fetched) {
    if (!current) return fetched.error();
    const sys_seconds expiration = current->expiration.value_or(now);
    if (expiration - now >= kMandatoryRefreshWindow) {
      spdlog::warn("aws: refreshing the credentials from {} failed; the current ones serve until {}: {}", source_,
                   format_time(expiration), fetched.error().message);
      return current->credentials;
    }
    return Error{fmt::format("the AWS credentials from {} expire at {} and refreshing them failed: {}", source_,
                             format_time(expiration), fetched.error().message)};
  }
  std::lock_guard lock(mutex_);
  cached_ = std::move(*fetched);
  return cached_->credentials;
}

Result<std::shared_ptr<CredentialsProvider>> default_credentials_chain(const AwsEnvironment& environment,
                                                                       const SharedConfig& shared,
                                                                       const CredentialsChainOptions& options) {
  const WallClock& clock = options.clock;
  std::vector<std::string> lacked;

  // 1. The environment.
  if (auto access_key = environment.get("AWS_ACCESS_KEY_ID")) {
    auto secret = environment.get("AWS_SECRET_ACCESS_KEY");
    if (!secret) return Error{"AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not"};
    // AWS_SESSION_TOKEN is the name the SDKs agree on; AWS_SECURITY_TOKEN is boto's older one.
    std::optional<std::string> token = environment.get("AWS_SESSION_TOKEN");
    if (!token) token = environment.get("AWS_SECURITY_TOKEN");
    ExpiringCredentials value{.credentials = {*access_key, *secret, token.value_or("")}};
    if (auto expiration = environment.get("AWS_CREDENTIAL_EXPIRATION")) {
      auto parsed = parse_expiration(*expiration, "AWS_CREDENTIAL_EXPIRATION");
      if (!parsed) return parsed.error();
      value.expiration = *parsed;
    }
    return std::shared_ptr<CredentialsProvider>(std::make_shared<RefreshingCredentialsProvider>(
        "environment", [value] { return Result<ExpiringCredentials>(value); }, clock));
  }
  lacked.push_back("environment: AWS_ACCESS_KEY_ID is not set");

  // botocore's assume-role provider comes next: a profile that assumes a role from another profile's credentials.
  if (shared.get("role_arn") && !shared.get("web_identity_token_file")) {
    if (auto error = unsupported(shared, {"source_profile", "credential_source"}, "sts:AssumeRole chaining")) {
      return *error;
    }
  }

  // 2. Web identity: each setting from its variable, else from the profile (botocore reads them key by key).
  if (auto token_file = setting(environment, shared, "AWS_WEB_IDENTITY_TOKEN_FILE", "web_identity_token_file")) {
    auto role_arn = setting(environment, shared, "AWS_ROLE_ARN", "role_arn");
    if (!role_arn) {
      return Error{
          fmt::format("web identity token file {} is set but no role is: set AWS_ROLE_ARN, or role_arn in "
                      "profile {}",
                      *token_file, shared.profile)};
    }
    std::string session_name = setting(environment, shared, "AWS_ROLE_SESSION_NAME", "role_session_name")
                                   .value_or(fmt::format("scalewright-{}", clock().time_since_epoch().count()));
    // Without a region the SDKs reach STS's global endpoint, which is us-east-1's.
    std::string region = options.region.value_or(
        resolve_region(environment, shared).value_or(ResolvedSetting{"us-east-1", "default"}).value);
    auto sts = resolve_endpoint(kSts, region, environment, shared);
    if (!sts) return sts.error();
    auto url = split_url(sts->url, sts->source);
    if (!url) return url.error();
    auto transport = transport_for(*url, "STS " + sts->url, std::chrono::milliseconds(60'000));
    if (!transport) return transport.error();
    auto identity = std::make_shared<WebIdentity>(WebIdentity{.token_file = environment.expand_home(*token_file),
                                                              .role_arn = *role_arn,
                                                              .session_name = std::move(session_name),
                                                              .sts = *sts,
                                                              .path = url->path,
                                                              .transport = std::move(*transport)});
    return std::shared_ptr<CredentialsProvider>(std::make_shared<RefreshingCredentialsProvider>(
        fmt::format("web identity (role {}, token file {}, STS {})", identity->role_arn, identity->token_file,
                    identity->sts.url),
        [identity] { return assume_role_with_web_identity(*identity); }, clock));
  }
  lacked.push_back(
      fmt::format("web identity: AWS_WEB_IDENTITY_TOKEN_FILE is not set, nor web_identity_token_file "
                  "in profile {}",
                  shared.profile));

  if (auto error = unsupported(shared, {"sso_session", "sso_start_url"}, "AWS IAM Identity Center (SSO)")) {
    return *error;
  }

  // 3. The shared files' static keys: the credentials file's, then (after botocore's credential_process) the
  // config file's.
  auto from_credentials = shared_file_link("shared credentials file", shared.credentials, shared.credentials_profile(),
                                           shared.profile, clock, lacked);
  if (!from_credentials || *from_credentials) return from_credentials;
  if (auto error = unsupported(shared, {"credential_process"}, "credential_process")) return *error;
  auto from_config =
      shared_file_link("shared config file", shared.config, shared.config_profile(), shared.profile, clock, lacked);
  if (!from_config || *from_config) return from_config;

  // 4. Container credentials.
  auto relative_uri = environment.get("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
  auto full_uri = environment.get("AWS_CONTAINER_CREDENTIALS_FULL_URI");
  if (relative_uri || full_uri) {
    const std::string variable =
        relative_uri ? "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI" : "AWS_CONTAINER_CREDENTIALS_FULL_URI";
    const std::string address = relative_uri ? "http://169.254.170.2" + *relative_uri : *full_uri;
    auto url = split_url(address, variable);
    if (!url) return url.error();
    if (!url->https && !allowed_container_host(url->host)) {
      return Error{
          fmt::format("{} \"{}\": plain http is allowed only to a loopback address, 169.254.170.2, "
                      "169.254.170.23 or [fd00:ec2::23]",
                      variable, address)};
    }
    auto transport = transport_for(*url, "container credentials " + address, options.container_timeout);
    if (!transport) return transport.error();
    std::optional<std::string> token_file = environment.get("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
    auto container = std::make_shared<Container>(
        Container{.url = address,
                  .path = url->path,
                  .transport = std::move(*transport),
                  .token_file = token_file ? std::optional(environment.expand_home(*token_file)) : std::nullopt,
                  .token = environment.get("AWS_CONTAINER_AUTHORIZATION_TOKEN"),
                  .attempts = std::max(1, options.container_attempts),
                  .retry_wait = options.container_retry_wait});
    return std::shared_ptr<CredentialsProvider>(std::make_shared<RefreshingCredentialsProvider>(
        "container credentials " + address, [container] { return fetch_container_credentials(*container); }, clock));
  }
  lacked.push_back(
      "container: neither AWS_CONTAINER_CREDENTIALS_RELATIVE_URI nor AWS_CONTAINER_CREDENTIALS_FULL_URI "
      "is set");

  // 5. IMDS, the last resort: if it gives nothing either, the error says what every link lacked.
  auto settings = imds_settings(environment, shared);
  if (!settings) return settings.error();
  if (!settings->disabled_by.empty()) {
    lacked.push_back(fmt::format("IMDS: disabled by {}", settings->disabled_by));
    return Error{"no AWS credentials: " + join(lacked, "; ")};
  }
  auto imds = ImdsClient::create(*settings);
  if (!imds) return imds.error();
  std::string nothing = fmt::format("no AWS credentials: {}; ", join(lacked, "; "));
  auto answered = std::make_shared<std::atomic<bool>>(false);
  return std::shared_ptr<CredentialsProvider>(std::make_shared<RefreshingCredentialsProvider>(
      "IMDS at " + settings->endpoint,
      [client = *imds, clock, nothing, answered]() -> Result<ExpiringCredentials> {
        auto fetched = fetch_imds_credentials(*client, clock);
        if (fetched) {
          answered->store(true);
        } else if (!answered->load()) {
          return Error{nothing + fetched.error().message};
        }
        return fetched;
      },
      clock));
}

}  // namespace scalewright::cloud::aws
