// The AWS credential chain as the SDKs walk it, over the wire: web identity against a local STS (and moto's in
// web_identity_test.cpp), container credentials and IMDSv2 against local servers that check what they are sent, the
// refresh windows with a clock the test steps, the chain's order and the line that says what every link lacked.
#include "cloud/aws/credentials.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "aws_config_files.h"
#include "cloud/aws/imds.h"

namespace scalewright::cloud::aws {
namespace {

using aws_testing::AwsTestHome;
using std::chrono::minutes;
using std::chrono::sys_seconds;

constexpr sys_seconds kNewYear{std::chrono::seconds(1767225600)};  // 2026-01-01T00:00:00Z
constexpr char kRoleArn[] = "arn:aws:iam::123456789012:role/scalewright";

// A clock the test sets; credentials providers read it from their own threads.
class SteppedClock {
 public:
  explicit SteppedClock(sys_seconds start) : seconds_(start.time_since_epoch().count()) {}
  WallClock clock() {
    return [this] { return sys_seconds(std::chrono::seconds(seconds_.load())); };
  }
  void set(sys_seconds now) { seconds_ = now.time_since_epoch().count(); }

 private:
  std::atomic<std::int64_t> seconds_;
};

// An httplib::Server on 127.0.0.1 that notes every request and answers as the test's handler says.
class CredentialsServer {
 public:
  struct Seen {
    std::string method;
    std::string path;
    std::string body;
    httplib::Headers headers;
    std::string header(const std::string& name) const {
      auto found = headers.find(name);
      return found == headers.end() ? "(none)" : found->second;
    }
    std::string line() const { return method + " " + path; }
  };
  using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;

  explicit CredentialsServer(Handler handler) : handler_(std::move(handler)) {
    auto note = [this](const httplib::Request& request, httplib::Response& response) {
      {
        std::lock_guard lock(mutex_);
        seen_.push_back({request.method, request.path, request.body, request.headers});
      }
      handler_(request, response);
    };
    server_.Get(".*", note);
    server_.Post(".*", note);
    server_.Put(".*", note);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~CredentialsServer() {
    server_.stop();
    thread_.join();
  }
  std::string address() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<Seen> seen() const {
    std::lock_guard lock(mutex_);
    return seen_;
  }

 private:
  Handler handler_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::vector<Seen> seen_;
};

// What a test's server answers next, set by the test between calls.
struct NextAnswer {
  std::mutex mutex;
  int status = 200;
  std::string access_key = "ASIAFIRST";
  std::string expiration = "2026-01-01T01:00:00Z";
  void set(int new_status, std::string key, std::string expires) {
    std::lock_guard lock(mutex);
    status = new_status;
    access_key = std::move(key);
    expiration = std::move(expires);
  }
};

std::string sts_answer(const std::string& key, const std::string& expiration) {
  return fmt::format(R"(<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <SubjectFromWebIdentityToken>system:serviceaccount:kube-system:scalewright</SubjectFromWebIdentityToken>
    <Audience>sts.amazonaws.com</Audience>
    <AssumedRoleUser>
      <Arn>arn:aws:sts::123456789012:assumed-role/scalewright/scalewright-1767225600</Arn>
      <AssumedRoleId>AROA3XFRBF535PLBIFPI4:scalewright-1767225600</AssumedRoleId>
    </AssumedRoleUser>
    <Credentials>
      <SessionToken>token-of-{0}</SessionToken>
      <SecretAccessKey>secret-of-{0}</SecretAccessKey>
      <Expiration>{1}</Expiration>
      <AccessKeyId>{0}</AccessKeyId>
    </Credentials>
    <Provider>arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-east-1.amazonaws.com/id/EXAMPLE</Provider>
  </AssumeRoleWithWebIdentityResult>
  <ResponseMetadata>
    <RequestId>ad4156e9-bce1-11e2-82e6-6b6efEXAMPLE</RequestId>
  </ResponseMetadata>
</AssumeRoleWithWebIdentityResponse>
)",
                     key, expiration);
}

CredentialsChainOptions chain_options(SteppedClock& clock) {
  CredentialsChainOptions options;
  options.clock = clock.clock();
  options.container_attempts = 1;  // a failing answer fails at once: no waits in tests
  return options;
}

std::shared_ptr<CredentialsProvider> chain_of(const AwsEnvironment& environment, SteppedClock& clock) {
  auto shared = load_shared_config(environment);
  EXPECT_TRUE(shared.ok()) << shared.error().message;
  if (!shared) return nullptr;
  auto chain = default_credentials_chain(environment, *shared, chain_options(clock));
  EXPECT_TRUE(chain.ok()) << chain.error().message;
  return chain ? *chain : nullptr;
}

std::string error_of_chain(const AwsEnvironment& environment) {
  auto shared = load_shared_config(environment);
  if (!shared) return shared.error().message;
  SteppedClock clock(kNewYear);
  auto chain = default_credentials_chain(environment, *shared, chain_options(clock));
  if (!chain) return chain.error().message;
  auto credentials = (*chain)->credentials();
  return credentials ? "credentials from " + (*chain)->source() : credentials.error().message;
}

std::string keys_of(const Result<Credentials>& credentials) {
  if (!credentials) return "error: " + credentials.error().message;
  return credentials->access_key_id + "/" + credentials->secret_access_key + "/" + credentials->session_token;
}

TEST(Credentials, TheChainTakesTheFirstConfiguredLinkInBotocoresOrder) {
  AwsTestHome home;
  const std::string config = home.path() + "/.aws/config";
  const std::string credentials = home.path() + "/.aws/credentials";
  const std::string token = home.write("token", "jwt");
  const std::map<std::string, std::string> environment_keys = {
      {"AWS_ACCESS_KEY_ID", "AKIDENV"}, {"AWS_SECRET_ACCESS_KEY", "env-secret"}, {"AWS_SESSION_TOKEN", "env-token"}};
  const std::map<std::string, std::string> web_identity = {{"AWS_WEB_IDENTITY_TOKEN_FILE", token},
                                                           {"AWS_ROLE_ARN", kRoleArn},
                                                           {"AWS_ENDPOINT_URL_STS", "http://127.0.0.1:9"}};
  const std::map<std::string, std::string> container = {
      {"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/v2/credentials/task"}};
  const std::string credentials_file =
      "[default]\naws_access_key_id = AKIDCREDS\naws_secret_access_key = creds-secret\n";
  const std::string config_file =
      "[default]\naws_access_key_id = AKIDCONFIG\naws_secret_access_key = config-secret\n"
      "aws_session_token = config-token\n";
  auto merged = [](std::initializer_list<std::map<std::string, std::string>> parts) {
    std::map<std::string, std::string> all;
    for (const auto& part : parts) all.insert(part.begin(), part.end());
    return all;
  };
  struct Case {
    std::map<std::string, std::string> variables;
    std::string credentials_file;
    std::string config_file;
    std::string source;
    std::string keys;  // for the links that need no server
  };
  const std::vector<Case> cases = {
      {merged({environment_keys, web_identity, container}), credentials_file, config_file, "environment",
       "AKIDENV/env-secret/env-token"},
      {merged({web_identity, container}), credentials_file, config_file,
       std::string("web identity (role ") + kRoleArn + ", token file " + token + ", STS http://127.0.0.1:9)", ""},
      // The profile's web identity settings count as the variables do.
      {merged({container}), credentials_file,
       "[default]\nweb_identity_token_file = " + token + "\nrole_arn = " + kRoleArn + "\n",
       std::string("web identity (role ") + kRoleArn + ", token file " + token +
           ", STS https://sts.us-east-1.amazonaws.com)",
       ""},
      {merged({container}), credentials_file, config_file,
       "shared credentials file " + credentials + " (profile default)", "AKIDCREDS/creds-secret/"},
      {merged({container}), "", config_file, "shared config file " + config + " (profile default)",
       "AKIDCONFIG/config-secret/config-token"},
      {merged({container}), "[other]\naws_access_key_id = AKIDOTHER\naws_secret_access_key = s\n", "",
       "container credentials http://169.254.170.2/v2/credentials/task", ""},
      {{{"AWS_EC2_METADATA_SERVICE_ENDPOINT", "http://127.0.0.1:9"}}, "", "", "IMDS at http://127.0.0.1:9", ""},
      // The legacy name of the session token still counts.
      {{{"AWS_ACCESS_KEY_ID", "AKIDENV"}, {"AWS_SECRET_ACCESS_KEY", "env-secret"}, {"AWS_SECURITY_TOKEN", "legacy"}},
       "",
       "",
       "environment",
       "AKIDENV/env-secret/legacy"},
  };
  SteppedClock clock(kNewYear);
  for (const Case& c : cases) {
    home.shared_files(c.credentials_file, c.config_file);
    AwsEnvironment environment = home.environment(c.variables);
    auto chain = chain_of(environment, clock);
    ASSERT_NE(chain, nullptr) << c.source;
    EXPECT_EQ(chain->source(), c.source);
    if (!c.keys.empty()) {
      EXPECT_EQ(keys_of(chain->credentials()), c.keys) << c.source;
    }
  }
}

TEST(Credentials, AMisconfiguredLinkIsRefusedRatherThanSkipped) {
  AwsTestHome home;
  const std::string config = home.path() + "/.aws/config";
  const std::string credentials = home.path() + "/.aws/credentials";
  struct Case {
    std::map<std::string, std::string> variables;
    std::string credentials_file;
    std::string config_file;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{{"AWS_ACCESS_KEY_ID", "AKIDENV"}}, "", "", "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not"},
      {{{"AWS_ACCESS_KEY_ID", "AKIDENV"}, {"AWS_SECRET_ACCESS_KEY", "s"}, {"AWS_CREDENTIAL_EXPIRATION", "soon"}},
       "",
       "",
       "AWS_CREDENTIAL_EXPIRATION: expiration \"soon\" is not an ISO 8601 time"},
      {{{"AWS_WEB_IDENTITY_TOKEN_FILE", "/var/run/token"}},
       "",
       "",
       "web identity token file /var/run/token is set but no role is: set AWS_ROLE_ARN, or role_arn in profile "
       "default"},
      {{},
       "[default]\naws_access_key_id = AKIDCREDS\n",
       "",
       credentials + ": profile default has aws_access_key_id but no aws_secret_access_key"},
      {{},
       "",
       "[default]\nrole_arn = " + std::string(kRoleArn) + "\nsource_profile = base\n",
       "profile default in " + config +
           " sets source_profile: sts:AssumeRole chaining is not supported; give Scalewright web identity (IRSA), "
           "container (EKS Pod Identity), instance profile or static credentials"},
      {{},
       "",
       "[default]\ncredential_process = /usr/bin/get-creds\n",
       "profile default in " + config +
           " sets credential_process: credential_process is not supported; give Scalewright web identity (IRSA), "
           "container (EKS Pod Identity), instance profile or static credentials"},
      {{{"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://10.0.0.1/credentials"}},
       "",
       "",
       "AWS_CONTAINER_CREDENTIALS_FULL_URI \"http://10.0.0.1/credentials\": plain http is allowed only to a loopback "
       "address, 169.254.170.2, 169.254.170.23 or [fd00:ec2::23]"},
      {{{"AWS_EC2_METADATA_SERVICE_ENDPOINT", "169.254.169.254"}},
       "",
       "",
       "the IMDS endpoint \"169.254.169.254\" must start with https:// or http://"},
  };
  for (const Case& c : cases) {
    home.shared_files(c.credentials_file, c.config_file);
    AwsEnvironment environment = home.environment(c.variables);
    EXPECT_EQ(error_of_chain(environment), c.error);
  }
  // Pod Identity's and ECS's addresses, and loopback, may be plain http.
  for (std::string allowed : {"http://169.254.170.23/v1/credentials", "http://[fd00:ec2::23]/v1/credentials",
                              "http://127.0.0.2:8080/creds", "http://localhost/creds", "http://[::1]/creds"}) {
    AwsEnvironment environment = home.environment({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", allowed}});
    auto shared = load_shared_config(environment);
    ASSERT_TRUE(shared.ok());
    auto chain = default_credentials_chain(environment, *shared);
    ASSERT_TRUE(chain.ok()) << chain.error().message;
    EXPECT_EQ((*chain)->source(), "container credentials " + allowed);
  }
}

TEST(Credentials, WithNoLinkConfiguredTheErrorSaysWhatEachLackedInOneLine) {
  AwsTestHome home;
  const std::string config = home.path() + "/.aws/config";
  const std::string credentials = home.path() + "/.aws/credentials";
  EXPECT_EQ(error_of_chain(home.environment({{"AWS_EC2_METADATA_DISABLED", "true"}})),
            "no AWS credentials: environment: AWS_ACCESS_KEY_ID is not set; web identity: "
            "AWS_WEB_IDENTITY_TOKEN_FILE is not set, nor web_identity_token_file in profile default; shared "
            "credentials file " +
                credentials + ": no such file; shared config file " + config +
                ": no such file; container: neither AWS_CONTAINER_CREDENTIALS_RELATIVE_URI nor "
                "AWS_CONTAINER_CREDENTIALS_FULL_URI is set; IMDS: disabled by AWS_EC2_METADATA_DISABLED");

  // IMDS answers, but this instance has no role: the same line, ending with what IMDS said.
  home.write(".aws/config", "[default]\nregion = eu-west-1\n");
  home.write(".aws/credentials", "[other]\naws_access_key_id = AKIDOTHER\naws_secret_access_key = s\n");
  CredentialsServer imds([](const httplib::Request& request, httplib::Response& response) {
    if (request.method == "PUT") {
      response.set_content("imds-session-token", "text/plain");
    } else {
      response.status = 404;
    }
  });
  EXPECT_EQ(error_of_chain(home.environment({{"AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.address()}})),
            "no AWS credentials: environment: AWS_ACCESS_KEY_ID is not set; web identity: "
            "AWS_WEB_IDENTITY_TOKEN_FILE is not set, nor web_identity_token_file in profile default; shared "
            "credentials file " +
                credentials + ": no profile default; shared config file " + config +
                ": profile default has no aws_access_key_id; container: neither "
                "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI nor AWS_CONTAINER_CREDENTIALS_FULL_URI is set; IMDS at " +
                imds.address() +
                ": GET /latest/meta-data/iam/security-credentials/: HTTP 404 (no instance profile role)");
}

TEST(Credentials, WebIdentityAsksStsUnsignedWithTheTokenFilesCurrentContents) {
  AwsTestHome home;
  const std::string token = home.write("token", "token-1");
  NextAnswer next;
  CredentialsServer sts([&next](const httplib::Request&, httplib::Response& response) {
    std::lock_guard lock(next.mutex);
    response.set_content(sts_answer(next.access_key, next.expiration), "text/xml");
  });
  SteppedClock clock(kNewYear);
  auto chain = chain_of(home.environment({{"AWS_WEB_IDENTITY_TOKEN_FILE", token},
                                          {"AWS_ROLE_ARN", kRoleArn},
                                          {"AWS_REGION", "us-east-1"},
                                          {"AWS_ENDPOINT_URL_STS", sts.address()}}),
                        clock);
  ASSERT_NE(chain, nullptr);
  EXPECT_EQ(chain->source(),
            std::string("web identity (role ") + kRoleArn + ", token file " + token + ", STS " + sts.address() + ")");

  EXPECT_EQ(keys_of(chain->credentials()), "ASIAFIRST/secret-of-ASIAFIRST/token-of-ASIAFIRST");
  clock.set(kNewYear + minutes(44));  // 16 minutes left: still good
  EXPECT_EQ(keys_of(chain->credentials()), "ASIAFIRST/secret-of-ASIAFIRST/token-of-ASIAFIRST");
  EXPECT_EQ(sts.seen().size(), 1u);

  home.write("token", "token-2\n");  // kubelet rotated the token
  next.set(200, "ASIASECOND", "2026-01-01T02:00:00Z");
  clock.set(kNewYear + minutes(46));  // 14 minutes left: inside the advisory window
  EXPECT_EQ(keys_of(chain->credentials()), "ASIASECOND/secret-of-ASIASECOND/token-of-ASIASECOND");

  auto seen = sts.seen();
  ASSERT_EQ(seen.size(), 2u);
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].line(), "POST /");
    EXPECT_EQ(seen[i].header("Content-Type"), "application/x-www-form-urlencoded; charset=utf-8");
    EXPECT_EQ(seen[i].header("Authorization"), "(none)");  // unsigned: the token is the proof
    EXPECT_EQ(seen[i].header("X-Amz-Date"), "(none)");
    EXPECT_EQ(seen[i].header("X-Amz-Security-Token"), "(none)");
    // The session name is generated from the clock when AWS_ROLE_SESSION_NAME is not set: 1767225600 is New Year.
    EXPECT_EQ(seen[i].body,
              "Action=AssumeRoleWithWebIdentity&Version=2011-06-15"
              "&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fscalewright"
              "&RoleSessionName=scalewright-1767225600&WebIdentityToken=token-" +
                  std::to_string(i + 1));
  }
}

TEST(Credentials, AnStsErrorNamesItsCodeMessageAndRequestId) {
  AwsTestHome home;
  const std::string token = home.write("token", "expired-token");
  NextAnswer next;
  CredentialsServer sts([&next](const httplib::Request&, httplib::Response& response) {
    std::lock_guard lock(next.mutex);
    response.status = next.status;
    if (next.status == 400) {
      response.set_content(R"(<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <Error>
    <Type>Sender</Type>
    <Code>InvalidIdentityToken</Code>
    <Message>Token expired: current date/time 1767225600 must be before the expiration date/time 1767222000</Message>
  </Error>
  <RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId>
</ErrorResponse>
)",
                           "text/xml");
    } else {
      response.set_content("<html><body>Service Unavailable</body></html>", "text/html");
    }
  });
  AwsEnvironment environment = home.environment({{"AWS_WEB_IDENTITY_TOKEN_FILE", token},
                                                 {"AWS_ROLE_ARN", kRoleArn},
                                                 {"AWS_ROLE_SESSION_NAME", "scalewright-test"},
                                                 {"AWS_ENDPOINT_URL", sts.address()}});
  const std::string call = std::string("sts:AssumeRoleWithWebIdentity for role ") + kRoleArn + " at " + sts.address();
  next.set(400, "", "");
  EXPECT_EQ(error_of_chain(environment),
            call +
                ": InvalidIdentityToken: Token expired: current date/time 1767225600 must be before the "
                "expiration date/time 1767222000 (HTTP 400, request id c6104cbe-af31-11e0-8154-cbc7ccf896c7)");
  next.set(503, "", "");
  EXPECT_EQ(error_of_chain(environment), call + ": HTTP 503: <html><body>Service Unavailable</body></html>");
  ASSERT_EQ(sts.seen().size(), 2u);
  EXPECT_NE(sts.seen()[0].body.find("&RoleSessionName=scalewright-test&"), std::string::npos);
}

TEST(Credentials, ContainerCredentialsCarryTheTokenFilesCurrentContents) {
  AwsTestHome home;
  const std::string token = home.write("pod-identity-token", "pod-token-1");
  NextAnswer next;
  next.set(200, "ASIAPOD1", "2026-01-01T01:00:00Z");
  CredentialsServer agent([&next](const httplib::Request&, httplib::Response& response) {
    std::lock_guard lock(next.mutex);
    response.set_content(R"({"AccessKeyId":")" + next.access_key + R"(","SecretAccessKey":"secret-of-)" +
                             next.access_key + R"(","Token":"token-of-)" + next.access_key +
                             R"(","AccountId":"123456789012","Expiration":")" + next.expiration + R"("})",
                         "application/json");
  });
  SteppedClock clock(kNewYear);
  auto chain = chain_of(home.environment({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", agent.address() + "/v1/credentials"},
                                          {"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", token},
                                          {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "the-file-wins"}}),
                        clock);
  ASSERT_NE(chain, nullptr);
  EXPECT_EQ(chain->source(), "container credentials " + agent.address() + "/v1/credentials");
  EXPECT_EQ(keys_of(chain->credentials()), "ASIAPOD1/secret-of-ASIAPOD1/token-of-ASIAPOD1");

  home.write("pod-identity-token", "pod-token-2");
  next.set(200, "ASIAPOD2", "2026-01-01T02:00:00Z");
  clock.set(kNewYear + minutes(46));
  EXPECT_EQ(keys_of(chain->credentials()), "ASIAPOD2/secret-of-ASIAPOD2/token-of-ASIAPOD2");

  // Without a token file, the token variable is the header.
  auto by_variable = chain_of(home.environment({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", agent.address() + "/creds"},
                                                {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "static-token"}}),
                              clock);
  ASSERT_NE(by_variable, nullptr);
  EXPECT_EQ(keys_of(by_variable->credentials()), "ASIAPOD2/secret-of-ASIAPOD2/token-of-ASIAPOD2");

  auto seen = agent.seen();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].line(), "GET /v1/credentials");
  EXPECT_EQ(seen[0].header("Authorization"), "pod-token-1");
  EXPECT_EQ(seen[0].header("Accept"), "application/json");
  EXPECT_EQ(seen[1].header("Authorization"), "pod-token-2");
  EXPECT_EQ(seen[2].line(), "GET /creds");
  EXPECT_EQ(seen[2].header("Authorization"), "static-token");
}

TEST(Credentials, TemporaryCredentialsAreRefreshedInTheAdvisoryWindowKeptWhenThatFailsAndRefusedInTheMandatoryOne) {
  AwsTestHome home;
  NextAnswer next;
  next.set(200, "ASIAONE", "2026-01-01T01:00:00Z");
  CredentialsServer agent([&next](const httplib::Request&, httplib::Response& response) {
    std::lock_guard lock(next.mutex);
    response.status = next.status;
    if (next.status != 200) {
      response.set_content("boom", "text/plain");
      return;
    }
    response.set_content(R"({"AccessKeyId":")" + next.access_key +
                             R"(","SecretAccessKey":"s","Token":"t",)"
                             R"("Expiration":")" +
                             next.expiration + R"("})",
                         "application/json");
  });
  SteppedClock clock(kNewYear);
  const std::string url = agent.address() + "/v1/credentials";
  auto chain = chain_of(home.environment({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", url}}), clock);
  ASSERT_NE(chain, nullptr);
  auto key = [&chain] {
    auto credentials = chain->credentials();
    return credentials ? credentials->access_key_id : "error: " + credentials.error().message;
  };

  EXPECT_EQ(key(), "ASIAONE");  // expires at 01:00
  clock.set(kNewYear + minutes(44));
  EXPECT_EQ(key(), "ASIAONE");  // 16 minutes left: no call
  EXPECT_EQ(agent.seen().size(), 1u);

  next.set(200, "ASIATWO", "2026-01-01T02:00:00Z");
  clock.set(kNewYear + minutes(46));
  EXPECT_EQ(key(), "ASIATWO");  // 14 minutes left: fetched again
  EXPECT_EQ(agent.seen().size(), 2u);

  next.set(500, "", "");
  clock.set(kNewYear + minutes(106));
  EXPECT_EQ(key(), "ASIATWO");  // 14 minutes left and the agent fails: the current ones serve
  EXPECT_EQ(agent.seen().size(), 3u);
  clock.set(kNewYear + minutes(111));
  EXPECT_EQ(key(), "error: the AWS credentials from container credentials " + url +
                       " expire at 2026-01-01T02:00:00Z and refreshing them failed: container credentials " + url +
                       ": HTTP 500: boom");  // 9 minutes left: no longer
  EXPECT_EQ(agent.seen().size(), 4u);

  next.set(200, "ASIATHREE", "2026-01-01T03:00:00Z");
  EXPECT_EQ(key(), "ASIATHREE");
  next.set(200, "ASIASTALE", "2026-01-01T02:50:00Z");
  clock.set(kNewYear + minutes(171));
  EXPECT_EQ(key(), "error: the AWS credentials from container credentials " + url +
                       " expire at 2026-01-01T03:00:00Z and refreshing them failed: container credentials " + url +
                       " gave AWS credentials that expired at 2026-01-01T02:50:00Z");
}

TEST(Credentials, ImdsIsAskedForASessionTokenThenTheRoleThenItsCredentials) {
  AwsTestHome home;
  CredentialsServer imds([](const httplib::Request& request, httplib::Response& response) {
    if (request.method == "PUT" && request.path == "/latest/api/token") {
      if (request.get_header_value("X-aws-ec2-metadata-token-ttl-seconds") != "21600") {
        response.status = 400;
        return;
      }
      response.set_content("imds-session-token", "text/plain");
      return;
    }
    if (request.get_header_value("X-aws-ec2-metadata-token") != "imds-session-token") {
      response.status = 401;
      return;
    }
    if (request.path == "/latest/meta-data/iam/security-credentials/") {
      response.set_content("scalewright-node", "text/plain");
    } else if (request.path == "/latest/meta-data/iam/security-credentials/scalewright-node") {
      response.set_content(R"({"Code":"Success","LastUpdated":"2026-01-01T00:00:00Z","Type":"AWS-HMAC",)"
                           R"("AccessKeyId":"ASIAIMDS","SecretAccessKey":"imds-secret","Token":"imds-token",)"
                           R"("Expiration":"2026-01-01T06:00:00Z"})",
                           "text/plain");
    } else if (request.path == "/latest/meta-data/placement/region") {
      response.set_content("eu-west-1", "text/plain");
    } else {
      response.status = 404;
    }
  });
  SteppedClock clock(kNewYear);
  AwsEnvironment environment = home.environment({{"AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.address()}});
  auto chain = chain_of(environment, clock);
  ASSERT_NE(chain, nullptr);
  EXPECT_EQ(chain->source(), "IMDS at " + imds.address());
  EXPECT_EQ(keys_of(chain->credentials()), "ASIAIMDS/imds-secret/imds-token");

  auto shared = load_shared_config(environment);
  ASSERT_TRUE(shared.ok());
  auto settings = imds_settings(environment, *shared);
  ASSERT_TRUE(settings.ok()) << settings.error().message;
  auto client = ImdsClient::create(*settings);
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto region = region_from_imds(**client);
  ASSERT_TRUE(region.ok()) << region.error().message;
  EXPECT_EQ(*region, "eu-west-1");

  std::vector<std::string> lines;
  for (const auto& seen : imds.seen()) {
    lines.push_back(seen.line() + (seen.method == "GET" ? " token " + seen.header("X-aws-ec2-metadata-token") : ""));
  }
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "PUT /latest/api/token",
                       "GET /latest/meta-data/iam/security-credentials/ token imds-session-token",
                       "GET /latest/meta-data/iam/security-credentials/scalewright-node token imds-session-token",
                       "PUT /latest/api/token",
                       "GET /latest/meta-data/placement/region token imds-session-token",
                   }));
}

TEST(Credentials, ImdsWithoutSessionTokensIsAskedWithoutOneUnlessImdsV1IsDisabled) {
  AwsTestHome home;
  CredentialsServer imds([](const httplib::Request& request, httplib::Response& response) {
    if (request.method == "PUT" || request.has_header("X-aws-ec2-metadata-token")) {
      response.status = 404;  // an IMDS that predates session tokens
    } else if (request.path == "/latest/meta-data/iam/security-credentials/") {
      response.set_content("scalewright-node", "text/plain");
    } else {
      response.set_content(R"({"Code":"Success","AccessKeyId":"ASIAV1","SecretAccessKey":"v1-secret",)"
                           R"("Token":"v1-token","Expiration":"2026-01-01T06:00:00Z"})",
                           "text/plain");
    }
  });
  SteppedClock clock(kNewYear);
  auto chain = chain_of(home.environment({{"AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.address()}}), clock);
  ASSERT_NE(chain, nullptr);
  EXPECT_EQ(keys_of(chain->credentials()), "ASIAV1/v1-secret/v1-token");

  std::string error = error_of_chain(home.environment(
      {{"AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.address()}, {"AWS_EC2_METADATA_V1_DISABLED", "true"}}));
  const std::string ending = "; IMDS at " + imds.address() +
                             ": no session token (HTTP 404) and IMDSv1 is disabled (AWS_EC2_METADATA_V1_DISABLED)";
  EXPECT_TRUE(error.ends_with(ending)) << error;
}

TEST(Credentials, ImdsCredentialsAboutToExpireAreUsedForAWhileAsTheSdksDo) {
  // IMDS serving credentials with 12 minutes left (an IMDS outage): botocore's static stability keeps using them,
  // and asks again 5 minutes later.
  AwsTestHome home;
  NextAnswer next;
  next.set(200, "ASIAOLD", "2026-01-01T00:12:00Z");
  CredentialsServer imds([&next](const httplib::Request& request, httplib::Response& response) {
    std::lock_guard lock(next.mutex);
    if (request.method == "PUT") {
      response.set_content("t", "text/plain");
    } else if (request.path == "/latest/meta-data/iam/security-credentials/") {
      response.set_content("role", "text/plain");
    } else {
      response.set_content(R"({"Code":"Success","AccessKeyId":")" + next.access_key +
                               R"(","SecretAccessKey":"s","Token":"t","Expiration":")" + next.expiration + R"("})",
                           "text/plain");
    }
  });
  SteppedClock clock(kNewYear);
  auto chain = chain_of(home.environment({{"AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.address()}}), clock);
  ASSERT_NE(chain, nullptr);
  auto key = [&chain] {
    auto credentials = chain->credentials();
    return credentials ? credentials->access_key_id : "error: " + credentials.error().message;
  };
  EXPECT_EQ(key(), "ASIAOLD");  // taken to expire at 00:20
  clock.set(kNewYear + minutes(4));
  EXPECT_EQ(key(), "ASIAOLD");  // 16 minutes left by that reckoning: IMDS is not asked
  EXPECT_EQ(imds.seen().size(), 3u);
  next.set(200, "ASIANEW", "2026-01-01T06:00:00Z");
  clock.set(kNewYear + minutes(6));
  EXPECT_EQ(key(), "ASIANEW");
  EXPECT_EQ(imds.seen().size(), 6u);
}

}  // namespace
}  // namespace scalewright::cloud::aws
