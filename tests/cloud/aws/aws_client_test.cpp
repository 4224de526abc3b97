// The AWS wire client against a real HTTP server on 127.0.0.1 that answers as AWS's services do: what a request looks
// like on the wire in each protocol (form, JSON or rest-json, signed, with its Host), how each protocol's answer and
// error are read, and the SDKs' standard retry mode (which errors are retried, how often, and the retry quota).
#include "cloud/aws/aws_client.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>

namespace scalewright::cloud::aws {
namespace {

using nlohmann::json;

class FakeService {
 public:
  explicit FakeService(httplib::Server::Handler handler) {
    server_.Get(".*", handler);  // rest-json's paths
    server_.Post(".*", std::move(handler));
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeService() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

CredentialsSource fixed_credentials() {
  return [] { return Result<Credentials>(Credentials{"AKIDEXAMPLE", "secret", "session"}); };
}

AwsClientOptions no_waiting() {
  AwsClientOptions options;
  options.backoff =
      net::Backoff{std::chrono::milliseconds(0), std::chrono::milliseconds(0), 2.0, net::Backoff::Jitter::Full};
  return options;
}

std::unique_ptr<AwsClient> client_for(const FakeService& service, ApiProtocol api,
                                      AwsClientOptions options = no_waiting()) {
  auto client = AwsClient::create(api, "us-west-2", service.url() + "/", fixed_credentials(), std::move(options));
  EXPECT_TRUE(client.ok()) << (client ? "" : client.error().message);
  return std::move(*client);
}

TEST(AwsClient, AQueryCallIsSignedFormEncodedAndItsResultRead) {
  httplib::Request seen;
  FakeService service([&](const httplib::Request& request, httplib::Response& response) {
    seen = request;
    response.set_content(
        "<DescribeAutoScalingGroupsResponse xmlns=\"http://autoscaling.amazonaws.com/doc/2011-01-01/\">"
        "<DescribeAutoScalingGroupsResult><AutoScalingGroups><member><AutoScalingGroupName>a b</AutoScalingGroupName>"
        "</member></AutoScalingGroups></DescribeAutoScalingGroupsResult>"
        "<ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata></DescribeAutoScalingGroupsResponse>",
        "text/xml");
  });
  auto client = client_for(service, kAutoScalingProtocol);
  FormParams params;
  params.add_list("AutoScalingGroupNames.member", {"a b"});
  params.add_filter(Protocol::Query, "tag-key", {"k8s.io/cluster-autoscaler/enabled"});
  auto answer = client->query("DescribeAutoScalingGroups", params);
  ASSERT_TRUE(answer.ok()) << answer.error().describe();

  EXPECT_EQ(seen.body,
            "Action=DescribeAutoScalingGroups&Version=2011-01-01&AutoScalingGroupNames.member.1=a%20b"
            "&Filters.member.1.Name=tag-key&Filters.member.1.Values.member.1=k8s.io%2Fcluster-autoscaler%2Fenabled");
  EXPECT_EQ(seen.get_header_value("Content-Type"), "application/x-www-form-urlencoded; charset=utf-8");
  EXPECT_EQ(seen.get_header_value("Host"), "127.0.0.1:" + service.url().substr(service.url().rfind(':') + 1));
  EXPECT_EQ(seen.get_header_value("X-Amz-Security-Token"), "session");
  const std::string authorization = seen.get_header_value("Authorization");
  EXPECT_TRUE(authorization.starts_with("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")) << authorization;
  EXPECT_NE(authorization.find("/us-west-2/autoscaling/aws4_request, SignedHeaders="
                               "content-type;host;x-amz-date;x-amz-security-token, Signature="),
            std::string::npos)
      << authorization;

  EXPECT_EQ(answer->request_id, "req-1");
  auto groups = list_items(answer->result, "AutoScalingGroups");
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(child_text(groups[0], "AutoScalingGroupName"), "a b");
}

TEST(AwsClient, AnEc2CallsListsAndFiltersAreNumberedAsEc2WantsThem) {
  httplib::Request seen;
  FakeService service([&](const httplib::Request& request, httplib::Response& response) {
    seen = request;
    response.set_content(
        "<DescribeSubnetsResponse><requestId>r-2</requestId><subnetSet><item><subnetId>subnet-1"
        "</subnetId></item><item><subnetId>subnet-2</subnetId></item></subnetSet>"
        "</DescribeSubnetsResponse>",
        "text/xml");
  });
  auto client = client_for(service, kEc2Protocol);
  FormParams params;
  params.add_filter(Protocol::Ec2, "tag:karpenter.sh/discovery", {"demo"});
  params.add_filter(Protocol::Ec2, "subnet-id", {"subnet-1", "subnet-2"});
  auto answer = client->query("DescribeSubnets", params);
  ASSERT_TRUE(answer.ok()) << answer.error().describe();
  EXPECT_EQ(seen.body,
            "Action=DescribeSubnets&Version=2016-11-15&Filter.1.Name=tag%3Akarpenter.sh%2Fdiscovery"
            "&Filter.1.Value.1=demo&Filter.2.Name=subnet-id&Filter.2.Value.1=subnet-1&Filter.2.Value.2=subnet-2");
  EXPECT_EQ(answer->request_id, "r-2");
  std::vector<std::string> ids;
  for (const pugi::xml_node& subnet : list_items(answer->result, "subnetSet")) {
    ids.push_back(child_text(subnet, "subnetId"));
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"subnet-1", "subnet-2"}));
}

TEST(AwsClient, AJsonCallNamesItsTargetAndReadsItsAnswer) {
  httplib::Request seen;
  FakeService service([&](const httplib::Request& request, httplib::Response& response) {
    seen = request;
    response.set_content(R"({"Parameter":{"Name":"/p","Value":"ami-1"}})", "application/x-amz-json-1.1");
  });
  auto client = client_for(service, kSsmProtocol);
  auto answer = client->json("GetParameter", json{{"Name", "/p"}});
  ASSERT_TRUE(answer.ok()) << answer.error().describe();
  EXPECT_EQ(seen.get_header_value("X-Amz-Target"), "AmazonSSM.GetParameter");
  EXPECT_EQ(seen.get_header_value("Content-Type"), "application/x-amz-json-1.1");
  EXPECT_EQ(json::parse(seen.body), (json{{"Name", "/p"}}));
  EXPECT_NE(seen.get_header_value("Authorization")
                .find("SignedHeaders=content-type;host;x-amz-date;"
                      "x-amz-security-token;x-amz-target"),
            std::string::npos);
  EXPECT_EQ((*answer)["Parameter"]["Value"], "ami-1");
}

// Each protocol's error document, as its service writes it, read into the same code, message and request id.
TEST(AwsClient, EachProtocolsErrorIsReadWithItsCodeMessageAndRequestId) {
  struct Case {
    ApiProtocol api;
    int status;
    std::string body;
    std::string request_id_header;
    std::string described;
  };
  const std::vector<Case> cases = {
      {kEc2Protocol, 400,
       "<Response><Errors><Error><Code>InvalidLaunchTemplateName.NotFoundException</Code><Message>no such template"
       "</Message></Error></Errors><RequestID>ec2-req</RequestID></Response>",
       "", "ec2 Call: InvalidLaunchTemplateName.NotFoundException: no such template (HTTP 400, request id ec2-req)"},
      {kAutoScalingProtocol, 400,
       "<ErrorResponse><Error><Type>Sender</Type><Code>ValidationError</Code><Message>bad size</Message></Error>"
       "<RequestId>as-req</RequestId></ErrorResponse>",
       "", "autoscaling Call: ValidationError: bad size (HTTP 400, request id as-req)"},
      {kSsmProtocol, 400, R"({"__type":"com.amazonaws.ssm#ParameterNotFound","message":"gone"})", "ssm-req",
       "ssm Call: ParameterNotFound: gone (HTTP 400, request id ssm-req)"},
      {kSqsProtocol, 403, "<html><body>Forbidden</body></html>", "",
       "sqs Call: <html><body>Forbidden</body></html> (HTTP 403)"},
  };
  for (const Case& c : cases) {
    FakeService service([&](const httplib::Request&, httplib::Response& response) {
      response.status = c.status;
      if (!c.request_id_header.empty()) response.set_header("x-amzn-RequestId", c.request_id_header);
      response.set_content(c.body, "text/xml");
    });
    auto client = client_for(service, c.api);
    const AwsError error = c.api.protocol == Protocol::Ec2 || c.api.protocol == Protocol::Query
                               ? client->query("Call", FormParams()).error()
                               : client->json("Call", json::object()).error();
    EXPECT_EQ(error.describe(), c.described);
    EXPECT_EQ(error.attempts, 1) << "a client error is not retried: " << c.described;
  }
}

// EKS's DescribeCluster: the operation in the method and the path, the cluster's name percent-encoded in it, no body.
TEST(AwsClient, ARestJsonGetIsSignedWithItsEncodedPathAndItsAnswerRead) {
  httplib::Request seen;
  FakeService service([&](const httplib::Request& request, httplib::Response& response) {
    seen = request;
    response.set_header("x-amzn-RequestId", "eks-1");
    response.set_content(R"({"cluster":{"name":"a b/c","endpoint":"https://ABC.gr7.us-west-2.eks.amazonaws.com"}})",
                         "application/json");
  });
  auto client = client_for(service, kEks);
  auto answer = client->rest_json("DescribeCluster", "GET", "/clusters/" + uri_encode("a b/c", false), nullptr);
  ASSERT_TRUE(answer.ok()) << answer.error().describe();
  EXPECT_EQ(seen.method, "GET");
  EXPECT_EQ(seen.target, "/clusters/a%20b%2Fc");
  EXPECT_EQ(seen.body, "");
  EXPECT_FALSE(seen.has_header("Content-Type"));
  EXPECT_FALSE(seen.has_header("X-Amz-Target"));
  EXPECT_NE(seen.get_header_value("Authorization")
                .find("/us-west-2/eks/aws4_request, SignedHeaders=host;x-amz-date;x-amz-security-token, Signature="),
            std::string::npos)
      << seen.get_header_value("Authorization");
  EXPECT_EQ((*answer)["cluster"]["endpoint"], "https://ABC.gr7.us-west-2.eks.amazonaws.com");
}

// rest-json names an error's code in the x-amzn-ErrorType header (what follows a colon is not the code), which wins
// over the body; without it, in the body's "code" or "__type" (namespace dropped). The message is the body's.
TEST(AwsClient, ARestJsonErrorIsNamedByItsHeaderElseByItsBody) {
  struct Case {
    int status;
    std::string error_type_header;
    std::string body;
    std::string described;
  };
  const std::vector<Case> cases = {
      {404, "ResourceNotFoundException:http://internal.amazon.com/coral/com.amazon.coral.service/",
       R"({"message":"No cluster found for name: demo."})",
       "eks DescribeCluster: ResourceNotFoundException: No cluster found for name: demo. (HTTP 404, request id r-1)"},
      {400, "InvalidParameterException", R"({"__type":"ClientException","message":"bad name"})",
       "eks DescribeCluster: InvalidParameterException: bad name (HTTP 400, request id r-1)"},
      {403, "", R"({"__type":"com.amazonaws.eks#AccessDeniedException","Message":"not authorized"})",
       "eks DescribeCluster: AccessDeniedException: not authorized (HTTP 403, request id r-1)"},
      {400, "", R"({"code":"ClientException","message":"m"})",
       "eks DescribeCluster: ClientException: m (HTTP 400, request id r-1)"},
      {404, "ResourceNotFoundException", "",
       "eks DescribeCluster: ResourceNotFoundException (HTTP 404, request id r-1)"},
  };
  for (const Case& c : cases) {
    FakeService service([&](const httplib::Request&, httplib::Response& response) {
      response.status = c.status;
      response.set_header("x-amzn-RequestId", "r-1");
      if (!c.error_type_header.empty()) response.set_header("x-amzn-ErrorType", c.error_type_header);
      response.set_content(c.body, "application/json");
    });
    auto client = client_for(service, kEks);
    const AwsError error = client->rest_json("DescribeCluster", "GET", "/clusters/demo", nullptr).error();
    EXPECT_EQ(error.describe(), c.described);
    EXPECT_EQ(error.attempts, 1) << "a client error is not retried: " << c.described;
  }
}

// A rest-json call with a body (CreateCluster: POST /clusters) sends and signs it as JSON.
TEST(AwsClient, ARestJsonBodyIsSentAsJson) {
  httplib::Request seen;
  FakeService service([&](const httplib::Request& request, httplib::Response& response) {
    seen = request;
    response.set_content(R"({"cluster":{"name":"demo"}})", "application/json");
  });
  auto client = client_for(service, kEks);
  auto answer = client->rest_json("CreateCluster", "POST", "/clusters", json{{"name", "demo"}});
  ASSERT_TRUE(answer.ok()) << answer.error().describe();
  EXPECT_EQ(seen.method, "POST");
  EXPECT_EQ(seen.target, "/clusters");
  EXPECT_EQ(seen.get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(json::parse(seen.body), (json{{"name", "demo"}}));
  EXPECT_NE(seen.get_header_value("Authorization").find("SignedHeaders=content-type;host;x-amz-date;"),
            std::string::npos);
}

TEST(AwsClient, ThrottlingAndServerErrorsAreRetriedUpToThreeAttemptsAndClientErrorsNot) {
  std::atomic<int> calls = 0;
  std::atomic<int> fail_first = 2;
  std::string code = "RequestLimitExceeded";
  int status = 503;
  FakeService service([&](const httplib::Request&, httplib::Response& response) {
    if (++calls <= fail_first) {
      response.status = status;
      response.set_content("<Response><Errors><Error><Code>" + code +
                               "</Code><Message>m</Message></Error></Errors>"
                               "<RequestID>r</RequestID></Response>",
                           "text/xml");
      return;
    }
    response.set_content("<DescribeInstancesResponse><requestId>ok</requestId></DescribeInstancesResponse>",
                         "text/xml");
  });
  std::vector<std::string> retried;
  AwsClientOptions options = no_waiting();
  options.before_retry = [&](const AwsError& error, std::chrono::milliseconds) { retried.push_back(error.code); };
  auto client = client_for(service, kEc2Protocol, options);

  // Throttled twice, then answered: the third attempt succeeds.
  auto answer = client->query("DescribeInstances", FormParams());
  ASSERT_TRUE(answer.ok()) << answer.error().describe();
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(retried, (std::vector<std::string>{"RequestLimitExceeded", "RequestLimitExceeded"}));

  // Throttled every time: three attempts, then the error, saying how many.
  calls = 0;
  fail_first = 100;
  auto throttled = client->query("DescribeInstances", FormParams());
  ASSERT_FALSE(throttled.ok());
  EXPECT_EQ(calls, 3);
  EXPECT_TRUE(throttled.error().throttled());
  EXPECT_EQ(throttled.error().describe(),
            "ec2 DescribeInstances: RequestLimitExceeded: m (HTTP 503, request id r) after 3 attempts");

  // A 500 is transient: retried too.
  calls = 0;
  fail_first = 1;
  code = "InternalError";
  status = 500;
  EXPECT_TRUE(client->query("DescribeInstances", FormParams()).ok());
  EXPECT_EQ(calls, 2);

  // The request's own fault: sent once.
  calls = 0;
  fail_first = 100;
  code = "InvalidParameterValue";
  status = 400;
  EXPECT_EQ(client->query("DescribeInstances", FormParams()).error().attempts, 1);
  EXPECT_EQ(calls, 1);
}

TEST(AwsClient, NoAnswerIsRetriedAndSaysWhereItFailed) {
  int port = 0;
  {
    FakeService closed([](const httplib::Request&, httplib::Response&) {});
    port = std::stoi(closed.url().substr(closed.url().rfind(':') + 1));
  }  // nothing listens there any more
  auto client = AwsClient::create(kEc2Protocol, "us-west-2", "http://127.0.0.1:" + std::to_string(port),
                                  fixed_credentials(), no_waiting());
  ASSERT_TRUE(client.ok());
  auto answer = (*client)->query("DescribeInstances", FormParams());
  ASSERT_FALSE(answer.ok());
  EXPECT_FALSE(answer.error().answered());
  EXPECT_EQ(answer.error().attempts, 3);
  EXPECT_TRUE(answer.error().describe().starts_with("ec2 DescribeInstances: POST http://127.0.0.1:"))
      << answer.error().describe();
}

// 500 tokens, 5 per retry: an outage is retried until the quota is spent, then each call is sent once; a success
// pays back.
TEST(AwsClient, TheRetryQuotaStopsRetryingOnceSpent) {
  std::atomic<bool> failing = true;
  std::atomic<int> calls = 0;
  FakeService service([&](const httplib::Request&, httplib::Response& response) {
    ++calls;
    if (failing) {
      response.status = 503;
      response.set_content("<Response><Errors><Error><Code>Unavailable</Code></Error></Errors></Response>", "text/xml");
    } else {
      response.set_content("<R/>", "text/xml");
    }
  });
  auto client = client_for(service, kEc2Protocol);
  // 50 failing calls of 3 attempts take 2 retries each: 100 retries, 500 tokens.
  for (int i = 0; i < 50; ++i) EXPECT_EQ(client->query("Call", FormParams()).error().attempts, 3);
  EXPECT_EQ(calls, 150);
  calls = 0;
  const AwsError spent = client->query("Call", FormParams()).error();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(spent.describe(), "ec2 Call: Unavailable: not retried: the client's retry quota is spent (HTTP 503)");
  // A first attempt that succeeds pays 1 token back: enough for no retry (5); 5 successes pay for one.
  failing = false;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(client->query("Call", FormParams()).ok());
  failing = true;
  calls = 0;
  EXPECT_EQ(client->query("Call", FormParams()).error().attempts, 2);
  EXPECT_EQ(calls, 2);
}

TEST(AwsClient, CredentialsThatCannotBeHadFailTheCallWithoutSendingIt) {
  std::atomic<int> calls = 0;
  FakeService service([&](const httplib::Request&, httplib::Response&) { ++calls; });
  auto client = AwsClient::create(kEc2Protocol, "us-west-2", service.url(),
                                  [] { return Result<Credentials>(Error{"no link of the chain had any"}); });
  ASSERT_TRUE(client.ok());
  const AwsError error = (*client)->query("DescribeInstances", FormParams()).error();
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(error.attempts, 1);
  EXPECT_EQ(error.describe(), "ec2 DescribeInstances: no credentials: no link of the chain had any");
}

}  // namespace
}  // namespace scalewright::cloud::aws
