// Credentials from a web-identity token file (IRSA), as a pod on EKS gets them: the chain asks moto's STS
// (AssumeRoleWithWebIdentity, unsigned) for temporary keys, and an EC2 call signed with them passes the emulator's
// signature check, session token included (the emulator learns the keys STS hands out through it).
#include <gtest/gtest.h>

#include "aws_config_files.h"
#include "cloud/aws/credentials.h"
#include "cloud/aws/ec2_api.h"
#include "cloud/aws/shared_config.h"
#include "emulator_fixture.h"

namespace scalewright::cloud::aws {
namespace {

using WebIdentity = EmulatorTest;

TEST_F(WebIdentity, TemporaryKeysFromStsSignCallsThatPassTheSignatureCheck) {
  aws_testing::AwsTestHome home;
  const std::string token = home.write("token", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQifQ.c2ln");
  const AwsEnvironment environment = home.environment({{"AWS_WEB_IDENTITY_TOKEN_FILE", token},
                                                       {"AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/scalewright"},
                                                       {"AWS_ROLE_SESSION_NAME", "scalewright-test"},
                                                       {"AWS_REGION", "us-west-2"},
                                                       {"AWS_ENDPOINT_URL", emulator_->endpoint()}});
  auto shared = load_shared_config(environment);
  ASSERT_TRUE(shared.ok()) << shared.error().message;
  auto chain = default_credentials_chain(environment, *shared);  // moto's Expiration is an hour from its real now
  ASSERT_TRUE(chain.ok()) << chain.error().message;
  auto credentials = (*chain)->credentials();
  ASSERT_TRUE(credentials.ok()) << credentials.error().message;
  EXPECT_TRUE(credentials->access_key_id.starts_with("ASIA")) << credentials->access_key_id;  // temporary keys
  ASSERT_FALSE(credentials->session_token.empty());
  ASSERT_EQ(emulator_->count("sts", "AssumeRoleWithWebIdentity"), 1);
  EXPECT_EQ(emulator_->calls().front().params.value("WebIdentityToken", ""),
            "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQifQ.c2ln");

  // The keys sign as the chain gives them: the emulator learnt them from STS's answer, and checks the signature and
  // the token.
  auto ec2 = AwsClient::create(kEc2Protocol, "us-west-2", emulator_->endpoint(),
                               [provider = *chain] { return provider->credentials(); });
  ASSERT_TRUE(ec2.ok()) << ec2.error().message;
  auto subnets = Ec2Api(**ec2).describe_subnets({});
  ASSERT_TRUE(subnets.ok()) << subnets.error().describe();
  EXPECT_EQ(subnets->size(), 4u);                                      // moto's default subnet per zone of us-west-2
  EXPECT_EQ(emulator_->count("sts", "AssumeRoleWithWebIdentity"), 1);  // the cached keys, not asked again
}

}  // namespace
}  // namespace scalewright::cloud::aws
