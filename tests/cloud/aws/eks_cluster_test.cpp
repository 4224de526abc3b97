// What nodes join the cluster with, over the wire against the AWS emulator (moto's EKS behind botocore's judges, which
// find a rest-json request's operation by its method and path and check that botocore would send the same): EKS's
// DescribeCluster gives the endpoint, the CA and the service CIDR; each flag given wins over it; with every flag given
// it is not asked; denied, or of a cluster EKS does not have, the kubeconfig's server and CA and 10.100.0.0/16 serve.
#include "cloud/aws/eks_cluster.h"

#include <gtest/gtest.h>

#include "emulator_fixture.h"

namespace scalewright::cloud::aws {
namespace {

class EksClusterTest : public EmulatorTest {
 protected:
  void SetUp() override {
    EmulatorTest::SetUp();
    if (emulator_ == nullptr || HasFatalFailure() || IsSkipped()) return;
    eks_ = client(kEks, "us-west-2");
    // The cluster as EKS has it (moto makes up its endpoint and CA; the service CIDR is ours).
    const nlohmann::json create = {
        {"name", "demo"},
        {"roleArn", "arn:aws:iam::123456789012:role/eks-cluster"},
        {"resourcesVpcConfig", {{"subnetIds", {"subnet-1", "subnet-2"}}}},
        {"kubernetesNetworkConfig", {{"serviceIpv4Cidr", "10.96.0.0/16"}}},
    };
    auto created = eks_->rest_json("CreateCluster", "POST", "/clusters", create);
    ASSERT_TRUE(created.ok()) << created.error().describe();
    endpoint_ = (*created)["cluster"].value("endpoint", "");
    certificate_authority_ = (*created)["cluster"]["certificateAuthority"].value("data", "");
    ASSERT_TRUE(endpoint_.starts_with("https://")) << created->dump();
    ASSERT_FALSE(certificate_authority_.empty()) << created->dump();
    // The controller's kubeconfig in a pod: the in-cluster service, and its CA ("CA", base64 "Q0E=").
    kube_.base_url = "https://kubernetes.default.svc:443";
    kube_.certificate_authority = "CA";
  }

  std::unique_ptr<AwsClient> eks_;
  std::string endpoint_, certificate_authority_;
  net::HttpEndpoint kube_;
};

TEST_F(EksClusterTest, DescribeClusterGivesTheEndpointTheCaAndTheServiceCidr) {
  auto described = describe_cluster(*eks_, "demo");
  ASSERT_TRUE(described.ok()) << described.error().describe();
  EXPECT_EQ(described->endpoint, endpoint_);
  EXPECT_EQ(described->certificate_authority, certificate_authority_);
  EXPECT_EQ(described->service_cidr, "10.96.0.0/16");
  ASSERT_EQ(emulator_->count("eks", "DescribeCluster"), 1);
  EXPECT_EQ(emulator_->calls().back().params, (nlohmann::json{{"name", "demo"}}));
}

// A name the path must percent-encode ("not here" is /clusters/not%20here, signed as /clusters/not%2520here): botocore
// reads the same name back and agrees with the signature; EKS has no such cluster.
TEST_F(EksClusterTest, AClusterEksDoesNotHaveIsResourceNotFound) {
  auto described = describe_cluster(*eks_, "not here");
  ASSERT_FALSE(described.ok());
  EXPECT_EQ(described.error().code, "ResourceNotFoundException");
  EXPECT_EQ(described.error().status, 404);
  EXPECT_EQ(emulator_->calls().back().params, (nlohmann::json{{"name", "not here"}}));
}

TEST_F(EksClusterTest, NodesJoinWithWhatDescribeClusterSaysWhereNoFlagSaysOtherwise) {
  JoinSettings join = join_settings("demo", {}, *eks_, kube_);
  EXPECT_TRUE(join.described);
  EXPECT_FALSE(join.describe_failed.has_value());
  EXPECT_EQ(join.cluster.name, "demo");
  EXPECT_EQ(join.cluster.endpoint, endpoint_);
  EXPECT_EQ(join.cluster.certificate_authority, certificate_authority_);
  EXPECT_EQ(join.cluster.service_cidr, "10.96.0.0/16");
  EXPECT_EQ(emulator_->count("eks", "DescribeCluster"), 1);

  // The flags given win; the one not given is still EKS's.
  join = join_settings("demo", {"https://flag.example", "RkxBRw==", ""}, *eks_, kube_);
  EXPECT_EQ(join.cluster.endpoint, "https://flag.example");
  EXPECT_EQ(join.cluster.certificate_authority, "RkxBRw==");
  EXPECT_EQ(join.cluster.service_cidr, "10.96.0.0/16");
  EXPECT_EQ(emulator_->count("eks", "DescribeCluster"), 2);

  // Every flag given: EKS is not asked.
  join = join_settings("demo", {"https://flag.example", "RkxBRw==", "172.20.0.0/16"}, *eks_, kube_);
  EXPECT_FALSE(join.described);
  EXPECT_FALSE(join.describe_failed.has_value());
  EXPECT_EQ(join.cluster.service_cidr, "172.20.0.0/16");
  EXPECT_EQ(emulator_->count("eks", "DescribeCluster"), 2);
}

TEST_F(EksClusterTest, DeniedOrUnknownToEksTheKubeconfigAndTheDefaultCidrServeAndTheErrorSaysWhy) {
  ASSERT_EQ(emulator_->add_rule({{"kind", "error"},
                                 {"service", "eks"},
                                 {"action", "DescribeCluster"},
                                 {"times", 1},
                                 {"status", 403},
                                 {"code", "AccessDeniedException"},
                                 {"message", "User is not authorized to perform: eks:DescribeCluster"}}),
            "");
  JoinSettings join = join_settings("demo", {}, *eks_, kube_);
  EXPECT_FALSE(join.described);
  ASSERT_TRUE(join.describe_failed.has_value());
  EXPECT_EQ(join.describe_failed->code, "AccessDeniedException");
  EXPECT_EQ(join.describe_failed->status, 403);
  EXPECT_TRUE(join.describe_failed->describe().starts_with(
      "eks DescribeCluster: AccessDeniedException: User is not authorized to perform: eks:DescribeCluster (HTTP 403"))
      << join.describe_failed->describe();
  EXPECT_EQ(join.cluster.endpoint, "https://kubernetes.default.svc:443");
  EXPECT_EQ(join.cluster.certificate_authority, "Q0E=");
  EXPECT_EQ(join.cluster.service_cidr, "10.100.0.0/16");

  // A flag still wins over the fallback.
  join = join_settings("other", {"", "", "172.20.0.0/16"}, *eks_, kube_);
  ASSERT_TRUE(join.describe_failed.has_value());
  EXPECT_EQ(join.describe_failed->code, "ResourceNotFoundException");
  EXPECT_EQ(join.cluster.endpoint, "https://kubernetes.default.svc:443");
  EXPECT_EQ(join.cluster.certificate_authority, "Q0E=");
  EXPECT_EQ(join.cluster.service_cidr, "172.20.0.0/16");
  EXPECT_EQ(emulator_->count("eks", "DescribeCluster"), 2);
}

}  // namespace
}  // namespace scalewright::cloud::aws
