// Where each AWS service is: the region's precedence, the endpoint URL's (AWS_ENDPOINT_URL_<SERVICE>,
// AWS_ENDPOINT_URL, the profile's services section, the profile's endpoint_url, the default), turning them off, the
// Price List API's few regions and China's domain.
#include "cloud/aws/endpoints.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "aws_config_files.h"

namespace scalewright::cloud::aws {
namespace {

using aws_testing::AwsTestHome;

constexpr char kEndpointsConfig[] = R"([default]
region = eu-west-1
[profile local]
endpoint_url = http://127.0.0.1:4000
services = local
[services local]
ec2 =
  endpoint_url = http://127.0.0.1:5000
[profile ignoring]
endpoint_url = http://127.0.0.1:4000
ignore_configured_endpoint_urls = true
[profile broken]
services = nowhere
)";

TEST(Endpoints, EachServiceResolvesInBotocoresOrder) {
  AwsTestHome home;
  home.write(".aws/config", kEndpointsConfig);
  const std::string config = home.path() + "/.aws/config";
  struct Case {
    AwsService service;
    std::string region;
    std::map<std::string, std::string> variables;
    std::string url;
    std::string signing_region;
    std::string source;
  };
  const std::vector<Case> cases = {
      {kEc2, "us-west-2", {}, "https://ec2.us-west-2.amazonaws.com", "us-west-2", "default"},
      {kEc2,
       "us-west-2",
       {{"AWS_ENDPOINT_URL_EC2", "http://127.0.0.1:1000/"},
        {"AWS_ENDPOINT_URL", "http://127.0.0.1:2000"},
        {"AWS_PROFILE", "local"}},
       "http://127.0.0.1:1000",
       "us-west-2",
       "AWS_ENDPOINT_URL_EC2"},
      // The environment's global URL comes before the config file's service-specific one (botocore's order).
      {kEc2,
       "us-west-2",
       {{"AWS_ENDPOINT_URL", "http://127.0.0.1:2000"}, {"AWS_PROFILE", "local"}},
       "http://127.0.0.1:2000",
       "us-west-2",
       "AWS_ENDPOINT_URL"},
      {kEc2,
       "us-west-2",
       {{"AWS_PROFILE", "local"}},
       "http://127.0.0.1:5000",
       "us-west-2",
       "ec2's endpoint_url in [services local] of " + config},
      {kAutoScaling,
       "us-west-2",
       {{"AWS_PROFILE", "local"}},
       "http://127.0.0.1:4000",
       "us-west-2",
       "endpoint_url of profile local in " + config},
      {kAutoScaling,
       "us-west-2",
       {{"AWS_ENDPOINT_URL_EC2", "http://127.0.0.1:1000"}},
       "https://autoscaling.us-west-2.amazonaws.com",
       "us-west-2",
       "default"},
      {kSqs,
       "us-east-1",
       {{"AWS_ENDPOINT_URL_SQS", "https://sqs.example.com"}},
       "https://sqs.example.com",
       "us-east-1",
       "AWS_ENDPOINT_URL_SQS"},
      {kAutoScaling,
       "us-east-1",
       {{"AWS_ENDPOINT_URL_AUTO_SCALING", "http://127.0.0.1:3000"}},
       "http://127.0.0.1:3000",
       "us-east-1",
       "AWS_ENDPOINT_URL_AUTO_SCALING"},
      // Turned off: only the default is left, the variable over the profile's setting.
      {kEc2,
       "us-west-2",
       {{"AWS_PROFILE", "local"},
        {"AWS_ENDPOINT_URL_EC2", "http://127.0.0.1:1000"},
        {"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "TRUE"}},
       "https://ec2.us-west-2.amazonaws.com",
       "us-west-2",
       "default"},
      {kEc2, "us-west-2", {{"AWS_PROFILE", "ignoring"}}, "https://ec2.us-west-2.amazonaws.com", "us-west-2", "default"},
      {kEc2,
       "us-west-2",
       {{"AWS_PROFILE", "ignoring"}, {"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "false"}},
       "http://127.0.0.1:4000",
       "us-west-2",
       "endpoint_url of profile ignoring in " + config},
      // The Price List API answers in three regions (and China's), each request signed for the endpoint's region.
      {kPricing, "us-west-2", {}, "https://api.pricing.us-east-1.amazonaws.com", "us-east-1", "default"},
      {kPricing, "eu-west-1", {}, "https://api.pricing.eu-central-1.amazonaws.com", "eu-central-1", "default"},
      {kPricing, "ap-northeast-1", {}, "https://api.pricing.ap-south-1.amazonaws.com", "ap-south-1", "default"},
      {kPricing, "ca-central-1", {}, "https://api.pricing.us-east-1.amazonaws.com", "us-east-1", "default"},
      {kPricing, "cn-north-1", {}, "https://api.pricing.cn-northwest-1.amazonaws.com.cn", "cn-northwest-1", "default"},
      {kPricing,
       "eu-west-1",
       {{"AWS_ENDPOINT_URL", "http://127.0.0.1:2000"}},
       "http://127.0.0.1:2000",
       "eu-central-1",
       "AWS_ENDPOINT_URL"},
      {kEc2, "cn-north-1", {}, "https://ec2.cn-north-1.amazonaws.com.cn", "cn-north-1", "default"},
      // IAM is global: one endpoint per partition, signed for its first region.
      {kIam, "eu-west-1", {}, "https://iam.amazonaws.com", "us-east-1", "default"},
      {kIam, "cn-northwest-1", {}, "https://iam.amazonaws.com.cn", "cn-north-1", "default"},
      {kSts, "us-west-2", {}, "https://sts.us-west-2.amazonaws.com", "us-west-2", "default"},
      {kSsm, "eu-west-1", {}, "https://ssm.eu-west-1.amazonaws.com", "eu-west-1", "default"},
  };
  for (const Case& c : cases) {
    auto environment = home.environment(c.variables);
    auto shared = load_shared_config(environment);
    ASSERT_TRUE(shared.ok()) << shared.error().message;
    auto endpoint = resolve_endpoint(c.service, c.region, environment, *shared);
    ASSERT_TRUE(endpoint.ok()) << c.service.service_id << " " << c.url << ": " << endpoint.error().message;
    EXPECT_EQ(endpoint->url, c.url) << c.service.service_id << " " << c.source;
    EXPECT_EQ(endpoint->signing_region, c.signing_region) << c.url;
    EXPECT_EQ(endpoint->source, c.source) << c.url;
  }
}

TEST(Endpoints, AnUnusableEndpointOrRegionIsRefusedNamingItsSource) {
  AwsTestHome home;
  home.write(".aws/config", kEndpointsConfig);
  const std::string config = home.path() + "/.aws/config";
  struct Case {
    std::string region;
    std::map<std::string, std::string> variables;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"us-west-2",
       {{"AWS_ENDPOINT_URL_EC2", "127.0.0.1:5000"}},
       "AWS_ENDPOINT_URL_EC2 \"127.0.0.1:5000\" must start with https:// or http://"},
      {"us-west-2", {{"AWS_ENDPOINT_URL", "http:///path"}}, "AWS_ENDPOINT_URL \"http:///path\" has no host"},
      {"us-west-2",
       {{"AWS_PROFILE", "broken"}},
       "profile broken in " + config + " names services nowhere, but " + config + " has no [services nowhere] section"},
      {"", {}, "no AWS region to find EC2's endpoint in: set AWS_REGION, or region in the profile"},
      {"us west 2", {}, "AWS region \"us west 2\" is not a region name (letters, digits and hyphens)"},
  };
  for (const Case& c : cases) {
    auto environment = home.environment(c.variables);
    auto shared = load_shared_config(environment);
    ASSERT_TRUE(shared.ok()) << shared.error().message;
    auto endpoint = resolve_endpoint(kEc2, c.region, environment, *shared);
    ASSERT_FALSE(endpoint.ok()) << c.error;
    EXPECT_EQ(endpoint.error().message, c.error);
  }
}

TEST(Endpoints, TheRegionComesFromAwsRegionThenAwsDefaultRegionThenTheProfile) {
  AwsTestHome home;
  home.write(".aws/config", kEndpointsConfig);
  struct Case {
    std::map<std::string, std::string> variables;
    std::optional<std::string> region;
    std::string source;
  };
  const std::vector<Case> cases = {
      {{{"AWS_REGION", "ap-southeast-2"}, {"AWS_DEFAULT_REGION", "us-east-2"}}, "ap-southeast-2", "AWS_REGION"},
      {{{"AWS_DEFAULT_REGION", "us-east-2"}}, "us-east-2", "AWS_DEFAULT_REGION"},
      {{}, "eu-west-1", "profile default in " + home.path() + "/.aws/config"},
      {{{"AWS_PROFILE", "local"}}, std::nullopt, ""},
  };
  for (const Case& c : cases) {
    auto environment = home.environment(c.variables);
    auto shared = load_shared_config(environment);
    ASSERT_TRUE(shared.ok()) << shared.error().message;
    std::optional<ResolvedSetting> region = resolve_region(environment, *shared);
    ASSERT_EQ(region.has_value(), c.region.has_value()) << c.source;
    if (region) {
      EXPECT_EQ(region->value, *c.region);
      EXPECT_EQ(region->source, c.source);
    }
  }
}

TEST(Endpoints, UrlsSplitIntoTheTransportsBaseAndThePath) {
  struct Case {
    std::string url;
    std::string base;
    std::string path;
    std::string host;
  };
  const std::vector<Case> cases = {
      {"https://sts.us-east-1.amazonaws.com", "https://sts.us-east-1.amazonaws.com", "/",
       "sts.us-east-1.amazonaws.com"},
      {"http://127.0.0.1:5000/moto", "http://127.0.0.1:5000", "/moto", "127.0.0.1"},
      {"http://[fd00:ec2::23]/v1/credentials", "http://[fd00:ec2::23]", "/v1/credentials", "fd00:ec2::23"},
      {"http://169.254.170.2?id=1", "http://169.254.170.2", "/?id=1", "169.254.170.2"},
  };
  for (const Case& c : cases) {
    auto split = split_url(c.url, "url");
    ASSERT_TRUE(split.ok()) << split.error().message;
    EXPECT_EQ(split->base, c.base);
    EXPECT_EQ(split->path, c.path);
    EXPECT_EQ(split->host, c.host);
  }
}

}  // namespace
}  // namespace scalewright::cloud::aws
