// NodePools on EC2 over the wire, against the AWS emulator (moto behind botocore's judges): an EC2NodeClass resolved
// as a user's account would resolve it (two subnets and a security group tagged karpenter.sh/discovery=demo, the
// al2023@latest alias through SSM's public parameter to AMIs registered here), a launch as one CreateFleet over its
// offerings cheapest first, insufficient capacity inside CreateFleet's 200 answer, identical launches merged, and
// instances listed, got and terminated.
//
// In moto's us-west-2 the default subnets are us-west-2a (zone id usw2-az2), 2b (usw2-az1), 2c (usw2-az3) and 2d
// (usw2-az4); the catalog, loaded from data/aws/, names its zones by id in order (usw2-az1 = us-west-2a), so the
// provider must rename them by id: m5.large's on-demand offering in usw2-az2 is the account's us-west-2a.
#include "cloud/aws/ec2_provider.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <set>
#include <thread>

#include "cloud/aws/ec2nodeclass_controller.h"
#include "cloud/aws/instance_types.h"
#include "emulator_fixture.h"
#include "manifest/manifest.h"

namespace scalewright::cloud::aws {
namespace {

const std::filesystem::path kData = std::filesystem::path(SCALEWRIGHT_SOURCE_DIR) / "data/aws";
const std::string kAliasX86 =
    "/aws/service/eks/optimized-ami/1.30/amazon-linux-2023/x86_64/standard/recommended/image_id";
const std::string kAliasArm =
    "/aws/service/eks/optimized-ami/1.30/amazon-linux-2023/arm64/standard/recommended/image_id";

const std::string kNodeClass = R"(apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  instanceProfile: KarpenterNodeInstanceProfile-demo
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  tags: {team: platform}
)";

class Ec2ProviderTest : public EmulatorTest {
 protected:
  void SetUp() override {
    EmulatorTest::SetUp();
    if (emulator_ == nullptr || HasFatalFailure() || IsSkipped()) return;
    ec2_ = client(kEc2Protocol, "us-west-2");
    ssm_ = client(kSsmProtocol, "us-west-2");
    Ec2Api api(*ec2_);
    // The account: the subnets of us-west-2a and 2b and the default security group tagged for discovery.
    auto subnets = api.describe_subnets({});
    ASSERT_TRUE(subnets.ok()) << subnets.error().describe();
    std::vector<std::string> tagged;
    for (const Ec2Subnet& s : *subnets) {
      if (s.zone == "us-west-2a" || s.zone == "us-west-2b") tagged.push_back(s.id);
      if (s.zone == "us-west-2a") subnet_a_ = s.id;
    }
    auto groups = api.describe_security_groups({{"group-name", {"default"}}});
    ASSERT_TRUE(groups.ok() && groups->size() == 1u);
    security_group_ = groups->front().id;
    tagged.push_back(security_group_);
    ASSERT_TRUE(api.create_tags(tagged, {{"karpenter.sh/discovery", "demo"}}).ok());
    // The AMIs the alias names, one per architecture, as SSM's public parameters hold them: two of the AL2023 images
    // moto has (its RegisterImage drops the architecture).
    auto images = api.describe_images({{"name", {"al2023-ami-minimal-*"}}}, {});
    ASSERT_TRUE(images.ok()) << images.error().describe();
    for (const Ec2Image& image : *images) {
      std::string& id = image.architecture == "arm64" ? ami_arm_ : ami_x86_;
      if (id.empty()) id = image.id;
    }
    ASSERT_FALSE(ami_x86_.empty() || ami_arm_.empty());
    ASSERT_EQ(emulator_->add_rule({{"kind", "ssm_parameter"}, {"name", kAliasX86}, {"value", ami_x86_}}), "");
    ASSERT_EQ(emulator_->add_rule({{"kind", "ssm_parameter"}, {"name", kAliasArm}, {"value", ami_arm_}}), "");

    CatalogOptions options;
    options.region = "us-west-2";
    options.instance_types = {"m5.large", "m5.xlarge", "m6g.large"};
    Result<Catalog> catalog = load_catalog(kData, options);
    ASSERT_TRUE(catalog.ok()) << catalog.error().message;
    Ec2ProviderOptions provider_options;
    provider_options.cluster = {"demo", "https://demo.eks.amazonaws.com", "Q0E=", "10.100.0.0/16", "1.30"};
    provider_ = std::make_unique<Ec2Provider>(*ec2_, *ssm_, std::move(*catalog), provider_options);
    iam_ = client(kIam, "us-east-1");  // global: signed for us-east-1
    profiles_ = std::make_unique<InstanceProfiles>(*iam_, "demo", "us-west-2");
    provider_->use_instance_profiles(profiles_.get());
    pool_.meta.name = "default";
    pool_.node_class = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  }

  static std::shared_ptr<const EC2NodeClass> node_class(const std::string& yaml) {
    Result<ManifestSet> set = decode_manifests(yaml, "nodeclass.yaml");
    EXPECT_TRUE(set.ok()) << (set ? "" : set.error().message);
    return std::dynamic_pointer_cast<const EC2NodeClass>(set->node_classes.at(0));
  }

  // The default class, resolved and in use.
  const Catalog& ready_catalog() {
    ResolvedNodeClass resolved = provider_->resolve(node_class(kNodeClass));
    EXPECT_TRUE(resolved.ready()) << resolved.why_not_ready();
    provider_->set_node_class(std::move(resolved));
    auto types = provider_->instance_types(pool_);
    EXPECT_TRUE(types.ok()) << (types ? "" : types.error().message);
    return **types;
  }

  // A NodeClaim's request for m5.large and m5.xlarge on demand in both zones, cheapest first.
  CreateRequest on_demand_request(const Catalog& catalog, const std::string& name) {
    return request_of(catalog, name, CapacityType::OnDemand);
  }

  // The same of one capacity type.
  CreateRequest request_of(const Catalog& catalog, const std::string& name, CapacityType capacity_type) {
    CreateRequest request;
    request.name = name;
    for (const char* type : {"m5.large", "m5.xlarge"}) {
      for (const Offering& o : catalog.find(type)->offerings) {
        if (o.capacity_type == capacity_type) request.offerings.push_back({catalog.find(type), &o});
      }
    }
    request.labels.set(Symbol("karpenter.sh/nodepool"), Symbol("default"));
    request.node_class = pool_.node_class;
    return request;
  }

  std::vector<Ec2Instance> instances() {
    auto found = Ec2Api(*ec2_).describe_instances({{"instance-state-name", {"running"}}});
    EXPECT_TRUE(found.ok());
    return found ? *found : std::vector<Ec2Instance>{};
  }

  // The CreateLaunchTemplate calls' parameters, in order.
  std::vector<nlohmann::json> launch_templates_created() const {
    std::vector<nlohmann::json> made;
    for (const testing::EmulatedCall& call : emulator_->calls()) {
      if (call.action == "CreateLaunchTemplate") made.push_back(call.params);
    }
    return made;
  }

  // The tag specification at `prefix` ("TagSpecification.1") of `params`: its resource type, then its tags as
  // "key=value", in order.
  static std::vector<std::string> tag_specification(const nlohmann::json& params, const std::string& prefix) {
    std::vector<std::string> out = {params.value(prefix + ".ResourceType", "(none)")};
    for (int i = 1; params.contains(prefix + ".Tag." + std::to_string(i) + ".Key"); ++i) {
      const std::string tag = prefix + ".Tag." + std::to_string(i);
      out.push_back(params.value(tag + ".Key", "") + "=" + params.value(tag + ".Value", ""));
    }
    return out;
  }

  static std::string describe(const LaunchOption& o) {
    return o.instance_type->name + " " + o.offering->zone + " " + std::string(to_string(o.offering->capacity_type));
  }

  std::unique_ptr<AwsClient> ec2_;
  std::unique_ptr<AwsClient> ssm_;
  std::unique_ptr<AwsClient> iam_;
  std::unique_ptr<InstanceProfiles> profiles_;
  std::unique_ptr<Ec2Provider> provider_;
  NodePool pool_;
  std::string subnet_a_, security_group_, ami_x86_, ami_arm_;
};

TEST_F(Ec2ProviderTest, ANodeClassResolvesItsSubnetsGroupsAndAmisAndShapesTheCatalogToItsZones) {
  ResolvedNodeClass resolved = provider_->resolve(node_class(kNodeClass));
  ASSERT_TRUE(resolved.ready()) << resolved.why_not_ready();
  std::vector<std::string> zones;
  for (const Ec2Subnet& s : resolved.subnets) zones.push_back(s.zone + "=" + s.zone_id);
  std::sort(zones.begin(), zones.end());
  EXPECT_EQ(zones, (std::vector<std::string>{"us-west-2a=usw2-az2", "us-west-2b=usw2-az1"}));
  ASSERT_EQ(resolved.security_groups.size(), 1u);
  EXPECT_EQ(resolved.security_groups[0].id, security_group_);
  ASSERT_EQ(resolved.amis.size(), 2u);
  EXPECT_EQ(resolved.amis[0].architecture + "=" + resolved.amis[0].id, "arm64=" + ami_arm_);
  EXPECT_EQ(resolved.amis[1].architecture + "=" + resolved.amis[1].id, "x86_64=" + ami_x86_);

  provider_->set_node_class(std::move(resolved));
  auto types = provider_->instance_types(pool_);
  ASSERT_TRUE(types.ok()) << types.error().message;
  ASSERT_EQ((*types)->size(), 3u);  // m6g.large (arm64) has its AMI too
  const InstanceType* m5 = (*types)->find("m5.large");
  ASSERT_NE(m5, nullptr);
  std::vector<std::string> offered;
  for (const Offering& o : m5->offerings)
    offered.push_back(o.zone + "/" + o.zone_id + " " + std::string(to_string(o.capacity_type)));
  std::sort(offered.begin(), offered.end());
  EXPECT_EQ(offered, (std::vector<std::string>{"us-west-2a/usw2-az2 on-demand", "us-west-2a/usw2-az2 spot",
                                               "us-west-2b/usw2-az1 on-demand", "us-west-2b/usw2-az1 spot"}));
}

// The class resolved again as before (its 5-minute resync) keeps its catalog: the engine holds pointers into it,
// so a new one each time would be kept for good. The account's catalog read again (every 12 h) reprices it in place,
// at the engine's next call, and launches order their overrides by the new prices.
TEST_F(Ec2ProviderTest, TheCatalogReadAgainRepricesTheClassesCatalogInPlaceAndAResyncKeepsIt) {
  const Catalog& catalog = ready_catalog();
  EXPECT_EQ(&ready_catalog(), &catalog);
  const InstanceType* m5 = catalog.find("m5.large");
  ASSERT_NE(m5, nullptr);
  const Offering* m5_b = m5->offering("us-west-2b", CapacityType::OnDemand);  // usw2-az1
  const Offering* xl_spot_a = catalog.find("m5.xlarge")->offering("us-west-2a", CapacityType::Spot);  // usw2-az2
  ASSERT_TRUE(m5_b != nullptr && xl_spot_a != nullptr);
  EXPECT_DOUBLE_EQ(m5_b->price_per_hour, 0.096);

  // Read again: m5.large on demand in usw2-az1 at 0.11 $/h, m5.xlarge no longer offered as spot in usw2-az2.
  std::vector<InstanceType> types = provider_->catalog().instance_types();
  for (InstanceType& type : types) {
    for (Offering& o : type.offerings) {
      if (type.name == "m5.large" && o.zone_id == "usw2-az1" && o.capacity_type == CapacityType::OnDemand) {
        o.price_per_hour = 0.11;
      }
    }
    if (type.name == "m5.xlarge") {
      std::erase_if(type.offerings,
                    [](const Offering& o) { return o.zone_id == "usw2-az2" && o.capacity_type == CapacityType::Spot; });
    }
  }
  provider_->refresh_catalog(
      Catalog::from_instance_types("us-west-2", provider_->catalog().zones(), std::move(types)));
  EXPECT_DOUBLE_EQ(m5_b->price_per_hour, 0.096);  // not before the engine asks again

  auto again = provider_->instance_types(pool_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, &catalog);
  EXPECT_DOUBLE_EQ(m5_b->price_per_hour, 0.11);
  EXPECT_FALSE(xl_spot_a->available);
  EXPECT_TRUE(catalog.find("m5.xlarge")->offering("us-west-2b", CapacityType::Spot)->available);
  const Offering* base = provider_->catalog().find("m5.large")->offering("us-west-2a", CapacityType::OnDemand);
  ASSERT_NE(base, nullptr);  // the data's us-west-2a is usw2-az1
  EXPECT_EQ(base->zone_id, "usw2-az1");
  EXPECT_DOUBLE_EQ(base->price_per_hour, 0.11);

  // m5.large in us-west-2a (0.096 $/h) first, then in us-west-2b at its new price, then m5.xlarge.
  auto created = provider_->create(on_demand_request(catalog, "default-rep01"));
  ASSERT_TRUE(created.ok()) << created.error().message;
  nlohmann::json fleet;
  for (const testing::EmulatedCall& call : emulator_->calls()) {
    if (call.action == "CreateFleet") fleet = call.params;
  }
  const std::string o = "LaunchTemplateConfigs.1.Overrides.";
  EXPECT_EQ(fleet[o + "1.SubnetId"], subnet_a_);
  EXPECT_EQ(fleet[o + "1.Priority"], "0.096");
  EXPECT_EQ(fleet[o + "2.InstanceType"], "m5.large");
  EXPECT_EQ(fleet[o + "2.Priority"], "0.11");
  EXPECT_EQ(fleet[o + "3.InstanceType"], "m5.xlarge");
}

TEST_F(Ec2ProviderTest, ALaunchIsOneCreateFleetOverItsOfferingsCheapestFirstTaggedAsKarpenterTagsIt) {
  const Catalog& catalog = ready_catalog();
  const CreateRequest request = on_demand_request(catalog, "default-abc12");
  auto created = provider_->create(request);
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_EQ(describe(created->launched), "m5.large us-west-2a on-demand");  // moto launches the first override
  EXPECT_TRUE(created->unavailable.empty());
  EXPECT_EQ(created->instance.provider_id, "aws:///us-west-2a/" + created->instance.id);
  EXPECT_EQ(created->instance.node_name, "default-abc12");

  EXPECT_EQ(emulator_->count("ec2", "CreateFleet"), 1);
  EXPECT_EQ(emulator_->count("ec2", "CreateLaunchTemplate"), 1);
  nlohmann::json fleet;
  std::string template_name;
  for (const testing::EmulatedCall& call : emulator_->calls()) {
    if (call.action == "CreateFleet") fleet = call.params;
    if (call.action == "CreateLaunchTemplate") template_name = call.params.value("LaunchTemplateName", "");
  }
  EXPECT_EQ(fleet["Type"], "instant");
  EXPECT_EQ(fleet["TargetCapacitySpecification.DefaultTargetCapacityType"], "on-demand");
  EXPECT_EQ(fleet["TargetCapacitySpecification.TotalTargetCapacity"], "1");
  EXPECT_EQ(fleet["OnDemandOptions.AllocationStrategy"], "lowest-price");
  EXPECT_EQ(fleet["LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName"], template_name);
  EXPECT_TRUE(template_name.starts_with("karpenter.k8s.aws/"));
  // m5.large (0.096 $/h in us-west-2) in both zones, then m5.xlarge (0.192 $/h), each in its zone's subnet.
  const std::string o = "LaunchTemplateConfigs.1.Overrides.";
  EXPECT_EQ(fleet[o + "1.InstanceType"], "m5.large");
  EXPECT_EQ(fleet[o + "2.InstanceType"], "m5.large");
  EXPECT_EQ(fleet[o + "3.InstanceType"], "m5.xlarge");
  EXPECT_EQ(fleet[o + "4.InstanceType"], "m5.xlarge");
  EXPECT_FALSE(fleet.contains(o + "5.InstanceType"));
  EXPECT_EQ(fleet[o + "1.SubnetId"], subnet_a_);
  EXPECT_EQ(fleet[o + "1.ImageId"], ami_x86_);
  EXPECT_EQ(fleet[o + "1.Priority"], "0.096");
  EXPECT_EQ(fleet[o + "3.Priority"], "0.192");

  const std::vector<Ec2Instance> running = instances();
  ASSERT_EQ(running.size(), 1u);
  const Ec2Instance& instance = running[0];
  EXPECT_EQ(instance.id, created->instance.id);
  EXPECT_EQ(instance.instance_type, "m5.large");
  EXPECT_EQ(instance.image_id, ami_x86_);
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"team", "platform"},
                                                        {"kubernetes.io/cluster/demo", "owned"},
                                                        {"karpenter.sh/nodepool", "default"},
                                                        {"eks:eks-cluster-name", "demo"},
                                                        {"karpenter.k8s.aws/ec2nodeclass", "default"},
                                                        {"karpenter.sh/nodeclaim", "default-abc12"},
                                                        {"Name", "default-abc12"}}) {
    EXPECT_EQ(instance.tag(key), value) << key;
  }
  // The template tags the instance's network interfaces as the instance, for IAM to require the cluster's tags on
  // them; an on-demand launch makes no spot request, so it tags none. The template itself is tagged so too.
  const std::vector<nlohmann::json> made = launch_templates_created();
  ASSERT_EQ(made.size(), 1u);
  const std::vector<std::string> launch_tags = {"team=platform", "kubernetes.io/cluster/demo=owned",
                                                "karpenter.sh/nodepool=default", "eks:eks-cluster-name=demo",
                                                "karpenter.k8s.aws/ec2nodeclass=default"};
  std::vector<std::string> expected = {"network-interface"};
  expected.insert(expected.end(), launch_tags.begin(), launch_tags.end());
  EXPECT_EQ(tag_specification(made[0], "LaunchTemplateData.TagSpecification.1"), expected);
  EXPECT_FALSE(made[0].contains("LaunchTemplateData.TagSpecification.2.ResourceType"));
  expected[0] = "launch-template";
  EXPECT_EQ(tag_specification(made[0], "TagSpecification.1"), expected);
  EXPECT_FALSE(made[0].contains("TagSpecification.2.ResourceType"));
  // A second launch of the same shape reuses the template it made.
  ASSERT_TRUE(provider_->create(on_demand_request(catalog, "default-def34")).ok());
  EXPECT_EQ(emulator_->count("ec2", "CreateLaunchTemplate"), 1);

  // The class deleted: its templates go (found by the class's and the cluster's tags); the instances stay theirs.
  ASSERT_FALSE(provider_->delete_launch_templates("default").has_value());
  EXPECT_EQ(emulator_->count("ec2", "DeleteLaunchTemplate"), 1);
  EXPECT_TRUE(Ec2Api(*ec2_).launch_templates_tagged({{"tag:karpenter.k8s.aws/ec2nodeclass", {"default"}}})->empty());
  EXPECT_EQ(instances().size(), 2u);
}

// Karpenter's templates differ by capacity type: a spot launch's also tags the spot request EC2 makes for the
// instance, so an on-demand launch and a spot launch of the same class make a template each.
TEST_F(Ec2ProviderTest, ASpotLaunchHasATemplateOfItsOwnThatTagsItsSpotRequests) {
  const Catalog& catalog = ready_catalog();
  auto spot = provider_->create(request_of(catalog, "default-spot1", CapacityType::Spot));
  ASSERT_TRUE(spot.ok()) << spot.error().message;
  EXPECT_EQ(describe(spot->launched), "m5.large us-west-2a spot");
  auto on_demand = provider_->create(on_demand_request(catalog, "default-abc12"));
  ASSERT_TRUE(on_demand.ok()) << on_demand.error().message;
  EXPECT_EQ(describe(on_demand->launched), "m5.large us-west-2a on-demand");

  const std::vector<nlohmann::json> made = launch_templates_created();
  ASSERT_EQ(made.size(), 2u);
  const std::vector<std::string> tags = {"team=platform", "kubernetes.io/cluster/demo=owned",
                                         "karpenter.sh/nodepool=default", "eks:eks-cluster-name=demo",
                                         "karpenter.k8s.aws/ec2nodeclass=default"};
  auto spec = [&](const std::string& type) {
    std::vector<std::string> out = {type};
    out.insert(out.end(), tags.begin(), tags.end());
    return out;
  };
  const std::string d = "LaunchTemplateData.TagSpecification.";
  EXPECT_EQ(tag_specification(made[0], d + "1"), spec("network-interface"));
  EXPECT_EQ(tag_specification(made[0], d + "2"), spec("spot-instances-request"));
  EXPECT_FALSE(made[0].contains(d + "3.ResourceType"));
  EXPECT_EQ(tag_specification(made[1], d + "1"), spec("network-interface"));
  EXPECT_FALSE(made[1].contains(d + "2.ResourceType"));
  // Alike in all else (AMI, profile, groups, user data): two names, and each launch names its own.
  EXPECT_EQ(made[0].value("LaunchTemplateData.ImageId", ""), made[1].value("LaunchTemplateData.ImageId", ""));
  EXPECT_EQ(made[0].value("LaunchTemplateData.UserData", ""), made[1].value("LaunchTemplateData.UserData", ""));
  const std::string spot_template = made[0].value("LaunchTemplateName", "");
  const std::string on_demand_template = made[1].value("LaunchTemplateName", "");
  EXPECT_NE(spot_template, on_demand_template);
  std::vector<std::string> fleets;
  for (const testing::EmulatedCall& call : emulator_->calls()) {
    if (call.action != "CreateFleet") continue;
    fleets.push_back(call.params.value("TargetCapacitySpecification.DefaultTargetCapacityType", "") + " " +
                     call.params.value("LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName", ""));
  }
  EXPECT_EQ(fleets, (std::vector<std::string>{"spot " + spot_template, "on-demand " + on_demand_template}));
  // Each shape launched again makes nothing new.
  ASSERT_TRUE(provider_->create(request_of(catalog, "default-spot2", CapacityType::Spot)).ok());
  ASSERT_TRUE(provider_->create(on_demand_request(catalog, "default-def34")).ok());
  EXPECT_EQ(emulator_->count("ec2", "CreateLaunchTemplate"), 2);
}

TEST_F(Ec2ProviderTest, AnOfferingWithoutCapacityIsSkippedInTheSameCallAndReportedUnavailable) {
  const Catalog& catalog = ready_catalog();
  ASSERT_EQ(
      emulator_->add_rule(
          {{"kind", "insufficient_capacity"},
           {"offerings", {{{"instance_type", "m5.large"}, {"zone", "us-west-2a"}, {"capacity_type", "on-demand"}}}}}),
      "");
  auto created = provider_->create(on_demand_request(catalog, "default-abc12"));
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_EQ(describe(created->launched), "m5.large us-west-2b on-demand");
  ASSERT_EQ(created->unavailable.size(), 1u);
  EXPECT_EQ(describe(created->unavailable[0]), "m5.large us-west-2a on-demand");
  EXPECT_EQ(emulator_->count("ec2", "CreateFleet"), 1);
}

TEST_F(Ec2ProviderTest, NoCapacityForAnyOfferingIsInsufficientCapacityNamingEachAndLaunchesNothing) {
  const Catalog& catalog = ready_catalog();
  ASSERT_EQ(emulator_->add_rule({{"kind", "insufficient_capacity"}, {"offerings", {{{"capacity_type", "on-demand"}}}}}),
            "");
  auto created = provider_->create(on_demand_request(catalog, "default-abc12"));
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().error_class, ErrorClass::InsufficientCapacity);
  std::vector<std::string> unavailable;
  for (const LaunchOption& o : created.error().unavailable) unavailable.push_back(describe(o));
  std::sort(unavailable.begin(), unavailable.end());
  EXPECT_EQ(unavailable,
            (std::vector<std::string>{"m5.large us-west-2a on-demand", "m5.large us-west-2b on-demand",
                                      "m5.xlarge us-west-2a on-demand", "m5.xlarge us-west-2b on-demand"}));
  EXPECT_TRUE(instances().empty());
}

TEST_F(Ec2ProviderTest, IdenticalLaunchesMadeAtOnceAreOneCreateFleetForAsManyInstances) {
  const Catalog& catalog = ready_catalog();
  // The template exists first, so that the three launches reach the batch together.
  ASSERT_TRUE(provider_->create(on_demand_request(catalog, "warm-up")).ok());
  std::vector<CloudResult<Created>> results(3, CloudError{});
  std::vector<std::thread> launches;
  for (int i = 0; i < 3; ++i) {
    launches.emplace_back(
        [&, i] { results[i] = provider_->create(on_demand_request(catalog, "claim-" + std::to_string(i))); });
  }
  for (std::thread& t : launches) t.join();
  std::set<std::string> ids;
  for (const auto& result : results) {
    ASSERT_TRUE(result.ok()) << result.error().message;
    ids.insert(result->instance.id);
  }
  EXPECT_EQ(ids.size(), 3u);
  EXPECT_EQ(emulator_->count("ec2", "CreateFleet"), 2);  // the warm-up's, and one for the three
  EXPECT_EQ(provider_->fleet_calls(), 2u);
  int asked = 0;
  for (const testing::EmulatedCall& call : emulator_->calls()) {
    if (call.action == "CreateFleet")
      asked = std::max(asked, std::stoi(call.params.value("TargetCapacitySpecification.TotalTargetCapacity", "0")));
  }
  EXPECT_EQ(asked, 3);
}

// Launches made at once that need the same launch template: the first looks it up and makes it, the others wait for
// it rather than each look it up and make it.
TEST_F(Ec2ProviderTest, LaunchesMadeAtOnceMakeTheirLaunchTemplateOnce) {
  const Catalog& catalog = ready_catalog();
  std::vector<CloudResult<Created>> results(3, CloudError{});
  std::vector<std::thread> launches;
  for (int i = 0; i < 3; ++i) {
    launches.emplace_back(
        [&, i] { results[i] = provider_->create(on_demand_request(catalog, "claim-" + std::to_string(i))); });
  }
  for (std::thread& t : launches) t.join();
  for (const auto& result : results) ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(emulator_->count("ec2", "DescribeLaunchTemplates"), 1);
  EXPECT_EQ(emulator_->count("ec2", "CreateLaunchTemplate"), 1);
}

// A launch template no launch used for 5 minutes is deleted, also one an earlier run left (counted from when it is
// first seen); another cluster's stays. The next launch that needs a deleted one makes it again.
TEST_F(Ec2ProviderTest, LaunchTemplatesUnusedForFiveMinutesAreDeletedAndMadeAgainWhenNeeded) {
  const Catalog& catalog = ready_catalog();
  Ec2Api api(*ec2_);
  const std::string earlier = "karpenter.k8s.aws/earlier-run", other = "karpenter.k8s.aws/other-cluster";
  const LaunchTemplateData data{ami_x86_, "KarpenterNodeInstanceProfile-demo", {security_group_}, "#!/bin/bash", {}, {},
                                std::nullopt, false};
  ASSERT_TRUE(api.create_launch_template(earlier, data, {{"eks:eks-cluster-name", "demo"}}).ok());
  ASSERT_TRUE(api.create_launch_template(other, data, {{"eks:eks-cluster-name", "other"}}).ok());
  auto templates = [&] {
    auto names = api.launch_templates_tagged({{"tag-key", {"eks:eks-cluster-name"}}});
    EXPECT_TRUE(names.ok());
    std::set<std::string> out;
    if (names) out.insert(names->begin(), names->end());
    return out;
  };

  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(provider_->create(on_demand_request(catalog, "default-lt001")).ok());
  std::string launched;
  for (const testing::EmulatedCall& call : emulator_->calls()) {
    const std::string name = call.params.value("LaunchTemplateName", "");
    if (call.action == "CreateLaunchTemplate" && name != earlier && name != other) launched = name;
  }
  ASSERT_TRUE(launched.starts_with("karpenter.k8s.aws/")) << launched;
  ASSERT_EQ(templates(), (std::set<std::string>{launched, earlier, other}));

  // A minute on: the launched one was used a minute ago, the earlier run's is first seen now.
  ASSERT_FALSE(provider_->delete_idle_launch_templates(start + std::chrono::minutes(1)).has_value());
  EXPECT_EQ(emulator_->count("ec2", "DeleteLaunchTemplate"), 0);
  // 5.5 minutes after its launch the launched one goes; the earlier run's has been seen for 4.5 only.
  ASSERT_FALSE(provider_->delete_idle_launch_templates(start + std::chrono::seconds(330)).has_value());
  EXPECT_EQ(templates(), (std::set<std::string>{earlier, other}));
  ASSERT_FALSE(provider_->delete_idle_launch_templates(start + std::chrono::seconds(390)).has_value());
  EXPECT_EQ(templates(), (std::set<std::string>{other}));
  EXPECT_EQ(emulator_->count("ec2", "DeleteLaunchTemplate"), 2);

  // The next launch looks its template up and makes it again, under the same name.
  ASSERT_TRUE(provider_->create(on_demand_request(catalog, "default-lt002")).ok());
  EXPECT_EQ(emulator_->count("ec2", "CreateLaunchTemplate"), 4);  // two by the test, two by the launches
  EXPECT_EQ(templates(), (std::set<std::string>{launched, other}));
}

TEST_F(Ec2ProviderTest, InstancesAreListedGotAndTerminatedByTheirTags) {
  const Catalog& catalog = ready_catalog();
  auto created = provider_->create(on_demand_request(catalog, "default-abc12"));
  ASSERT_TRUE(created.ok()) << created.error().message;
  const std::string id = created->instance.id;
  auto listed = provider_->list();
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(listed->front().node_name, "default-abc12");
  EXPECT_EQ(listed->front().provider_id, "aws:///us-west-2a/" + id);
  EXPECT_EQ(listed->front().instance_type->name, "m5.large");
  EXPECT_EQ(provider_->get(id)->offering.zone, "us-west-2a");

  EXPECT_TRUE(provider_->terminate(id).ok());
  EXPECT_EQ(provider_->get(id).error().error_class, ErrorClass::NotFound);
  EXPECT_TRUE(provider_->list()->empty());
  // Asked again (its node consolidated away, then its NodeClaim finalized, by name when its node is forgotten), it
  // is gone, with no second call.
  EXPECT_EQ(provider_->terminate(id).error().error_class, ErrorClass::NotFound);
  EXPECT_EQ(provider_->terminate("default-abc12").error().error_class, ErrorClass::NotFound);
  EXPECT_EQ(emulator_->count("ec2", "TerminateInstances"), 1);
  // A restarted controller names a NodeClaim's instance by its providerID, or by the NodeClaim's name: the instance
  // tagged with it.
  auto second = provider_->create(on_demand_request(catalog, "default-def34"));
  auto third = provider_->create(on_demand_request(catalog, "default-ghi56"));
  ASSERT_TRUE(second.ok() && third.ok());
  Ec2Provider restarted(*ec2_, *ssm_, provider_->catalog(),
                        {{"demo", "https://demo.eks.amazonaws.com", "Q0E=", "10.100.0.0/16", "1.30"}});
  EXPECT_TRUE(restarted.terminate(second->instance.provider_id).ok());
  EXPECT_TRUE(restarted.terminate("default-ghi56").ok());
  EXPECT_EQ(restarted.terminate("default-ghi56").error().error_class, ErrorClass::NotFound);
  EXPECT_EQ(restarted.terminate("default-none").error().error_class, ErrorClass::NotFound);
  EXPECT_TRUE(instances().empty());
  std::vector<std::string> terminated;
  for (const testing::EmulatedCall& call : emulator_->calls()) {
    if (call.action == "TerminateInstances") terminated.push_back(call.params.value("InstanceId.1", ""));
  }
  EXPECT_EQ(terminated, (std::vector<std::string>{id, second->instance.id, third->instance.id}));
  EXPECT_EQ(provider_->terminate("i-0123456789abcdef0").error().error_class, ErrorClass::NotFound);
}

// A class naming a role (as Karpenter's users write them) gets an instance profile of its own holding that role, which
// its instances launch with; the class deleted, the profile goes.
TEST_F(Ec2ProviderTest, ARoleGetsAnInstanceProfileOfItsOwnWhichItsInstancesLaunchWith) {
  FormParams role;
  role.add("RoleName", "KarpenterNodeRole-demo")
      .add("AssumeRolePolicyDocument",
           R"({"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},)"
           R"("Action":"sts:AssumeRole"}]})");
  ASSERT_TRUE(iam_->query("CreateRole", role).ok());
  std::string yaml = kNodeClass;
  const std::string profile_line = "instanceProfile: KarpenterNodeInstanceProfile-demo";
  yaml.replace(yaml.find(profile_line), profile_line.size(), "role: KarpenterNodeRole-demo");
  ResolvedNodeClass resolved = provider_->resolve(node_class(yaml));
  ASSERT_TRUE(resolved.ready()) << resolved.why_not_ready();
  const std::string profile = profiles_->name_for("default");
  EXPECT_EQ(resolved.instance_profile, profile);
  EXPECT_TRUE(profile.starts_with("demo_") && profile.size() == 5 + 16) << profile;
  FormParams get;
  get.add("InstanceProfileName", profile);
  auto held = iam_->query("GetInstanceProfile", get);
  ASSERT_TRUE(held.ok()) << held.error().describe();
  auto roles = list_items(held->result.child("InstanceProfile"), "Roles");
  ASSERT_EQ(roles.size(), 1u);
  EXPECT_EQ(child_text(roles[0], "RoleName"), "KarpenterNodeRole-demo");
  // Resolved again (every few minutes), nothing more is asked of IAM.
  const int iam_calls = answers("GetInstanceProfile") + answers("CreateInstanceProfile");
  provider_->set_node_class(provider_->resolve(node_class(yaml)));
  EXPECT_EQ(answers("GetInstanceProfile") + answers("CreateInstanceProfile"), iam_calls);

  auto types = provider_->instance_types(pool_);
  ASSERT_TRUE(types.ok()) << types.error().message;
  ASSERT_TRUE(provider_->create(on_demand_request(**types, "default-abc12")).ok());
  for (const testing::EmulatedCall& call : emulator_->calls()) {
    if (call.action == "CreateLaunchTemplate") {
      EXPECT_EQ(call.params.value("LaunchTemplateData.IamInstanceProfile.Name", ""), profile);
    }
  }
  EXPECT_FALSE(provider_->delete_instance_profile("default").has_value());
  auto gone = iam_->query("GetInstanceProfile", get);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().code, "NoSuchEntity");
}

// Drift as Karpenter's AWS provider finds it: an instance whose image, security groups or subnet its class no longer
// resolves to has drifted (AMIDrift first, then SecurityGroupDrift, then SubnetDrift); one as the class resolves is
// not. A pass over every claim describes the cluster's instances once, and again after a launch.
// An instance carries the hash of its class's spec from its launch; once the class's spec is another (a new
// userData, say: the controller hashes it), the instance drifted: NodeClassDrift, before what the selectors resolve
// to is looked at. One launched before instances were tagged is not judged by it.
TEST_F(Ec2ProviderTest, AnInstanceLaunchedFromAnotherSpecOfItsClassDriftsAsNodeClassDrift) {
  auto set_class = [&](const std::string& spec_hash) {
    ResolvedNodeClass resolved = provider_->resolve(node_class(kNodeClass));
    resolved.spec_hash = spec_hash;
    provider_->set_node_class(std::move(resolved));
    auto types = provider_->instance_types(pool_);
    EXPECT_TRUE(types.ok());
    return *types;
  };
  const Catalog* catalog = set_class("");
  auto untagged = provider_->create(on_demand_request(*catalog, "default-old01"));
  catalog = set_class("0123456789abcdef");
  auto tagged = provider_->create(on_demand_request(*catalog, "default-new01"));
  ASSERT_TRUE(untagged.ok() && tagged.ok());
  for (const Ec2Instance& instance : instances()) {
    EXPECT_EQ(instance.tag("karpenter.k8s.aws/ec2nodeclass-hash"),
              instance.id == tagged->instance.id ? "0123456789abcdef" : "")
        << instance.id;
  }
  const ClaimedInstance old_claim{"default-old01", untagged->instance.id, &pool_, nullptr};
  const ClaimedInstance new_claim{"default-new01", tagged->instance.id, &pool_, nullptr};
  EXPECT_EQ(*provider_->is_drifted(new_claim), "");
  set_class("fedcba9876543210");
  EXPECT_EQ(*provider_->is_drifted(new_claim), "NodeClassDrift");
  EXPECT_EQ(*provider_->is_drifted(old_claim), "");
}

TEST_F(Ec2ProviderTest, AnInstanceDriftsFromANewAmiSecurityGroupOrSubnetOfItsClassAndAPassDescribesOnce) {
  const Catalog& catalog = ready_catalog();
  std::vector<ClaimedInstance> claims;
  for (const char* name : {"default-abc12", "default-def34", "default-ghi56"}) {
    auto created = provider_->create(on_demand_request(catalog, name));
    ASSERT_TRUE(created.ok()) << created.error().message;
    claims.push_back({name, created->instance.id, &pool_, nullptr});
  }
  // A NodeClaim of an earlier run names its instance by its providerID.
  claims[2].instance_id = "aws:///us-west-2a/" + claims[2].instance_id;
  // As launched: m5.large in us-west-2a's subnet from the x86_64 AMI, in the default group (the emulator gives a
  // fleet's instances their launch template's groups, as EC2 does).
  for (const Ec2Instance& instance : instances()) {
    EXPECT_EQ(instance.image_id, ami_x86_);
    EXPECT_EQ(instance.subnet_id, subnet_a_);
    EXPECT_EQ(instance.security_group_ids, std::vector<std::string>{security_group_});
  }
  std::string subnet_b, other_x86;
  auto subnets = Ec2Api(*ec2_).describe_subnets({{"availability-zone", {"us-west-2b"}}});
  auto images = Ec2Api(*ec2_).describe_images({{"name", {"al2023-ami-minimal-*"}}}, {});
  ASSERT_TRUE(subnets.ok() && images.ok());
  for (const Ec2Subnet& s : *subnets) subnet_b = s.id;
  for (const Ec2Image& image : *images) {
    if (image.architecture == "x86_64" && image.id != ami_x86_) other_x86 = image.id;
  }
  ASSERT_FALSE(subnet_b.empty() || other_x86.empty());

  // Each claim's reason, and how many DescribeInstances the pass made.
  auto pass = [&](const std::vector<ClaimedInstance>& asked) {
    const int before = emulator_->count("ec2", "DescribeInstances");
    std::vector<std::string> reasons;
    for (const ClaimedInstance& claim : asked) {
      CloudResult<std::string> reason = provider_->is_drifted(claim);
      reasons.push_back(reason ? *reason : "error: " + reason.error().message);
    }
    return std::pair(reasons, emulator_->count("ec2", "DescribeInstances") - before);
  };
  using Pass = std::pair<std::vector<std::string>, int>;
  const std::vector<std::string> none(3, "");
  auto all = [](const std::string& reason) { return std::vector<std::string>(3, reason); };
  auto resolve = [&](const std::string& from, const std::string& to) {
    std::string yaml = kNodeClass;
    if (!from.empty()) yaml.replace(yaml.find(from), from.size(), to);
    return provider_->set_node_class(provider_->resolve(node_class(yaml)));
  };
  const std::string ami_term = "amiSelectorTerms: [{alias: al2023@latest}]";
  const std::string subnet_term = "subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]";

  // As the class resolves: none drifted, and one call for the three (an instance of no claim's is none either).
  std::vector<ClaimedInstance> with_unknown = claims;
  with_unknown.push_back({"default-xyz00", "i-0123456789abcdef0", &pool_, nullptr});
  EXPECT_EQ(pass(with_unknown), Pass(std::vector<std::string>(4, ""), 1));
  // Resolved again to the same (the 5-minute resync): no change.
  EXPECT_FALSE(resolve("", ""));

  // Another AMI: AMIDrift, also where the subnet changed too (the AMI is looked at first).
  const std::string other_ami = "amiFamily: AL2023\n  amiSelectorTerms: [{id: " + other_x86 + "}]";
  EXPECT_TRUE(resolve(ami_term, other_ami));
  EXPECT_EQ(pass(claims).first, all("AMIDrift"));
  std::string yaml = kNodeClass;
  yaml.replace(yaml.find(ami_term), ami_term.size(), other_ami);
  yaml.replace(yaml.find(subnet_term), subnet_term.size(), "subnetSelectorTerms: [{id: " + subnet_b + "}]");
  EXPECT_TRUE(provider_->set_node_class(provider_->resolve(node_class(yaml))));
  EXPECT_EQ(pass(claims).first, all("AMIDrift"));

  // A security group added to those the class selects: SecurityGroupDrift (the set is no longer the instances').
  EXPECT_TRUE(resolve("", ""));
  EXPECT_EQ(pass(claims).first, none);
  FormParams group;
  group.add("GroupName", "nodes-extra").add("GroupDescription", "more for the nodes");
  auto made = ec2_->query("CreateSecurityGroup", group);
  ASSERT_TRUE(made.ok()) << made.error().describe();
  const std::string extra = child_text(made->result, "groupId");
  ASSERT_TRUE(Ec2Api(*ec2_).create_tags({extra}, {{"karpenter.sh/discovery", "demo"}}).ok());
  EXPECT_TRUE(resolve("", ""));
  EXPECT_EQ(pass(claims).first, all("SecurityGroupDrift"));

  // Only us-west-2b's subnet (the groups named by id, the default one alone): SubnetDrift.
  const std::string group_term = "securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]";
  yaml = kNodeClass;
  yaml.replace(yaml.find(subnet_term), subnet_term.size(), "subnetSelectorTerms: [{id: " + subnet_b + "}]");
  yaml.replace(yaml.find(group_term), group_term.size(), "securityGroupSelectorTerms: [{id: " + security_group_ + "}]");
  EXPECT_TRUE(provider_->set_node_class(provider_->resolve(node_class(yaml))));
  EXPECT_EQ(pass(claims).first, all("SubnetDrift"));

  // A node launched from the class as it is now is not drifted; the launch made the next pass describe again, once.
  auto types = provider_->instance_types(pool_);
  ASSERT_TRUE(types.ok()) << types.error().message;
  auto launched = provider_->create(on_demand_request(**types, "default-jkl78"));
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  EXPECT_EQ(launched->launched.offering->zone, "us-west-2b");
  std::vector<ClaimedInstance> with_new = claims;
  with_new.push_back({"default-jkl78", launched->instance.id, &pool_, nullptr});
  EXPECT_EQ(pass(with_new), Pass({"SubnetDrift", "SubnetDrift", "SubnetDrift", ""}, 1));

  // A class that is not ready, or a NodePool naming a class of another kind: not drifted now, nothing described.
  EXPECT_TRUE(resolve(subnet_term, "subnetSelectorTerms: [{tags: {karpenter.sh/discovery: nowhere}}]"));
  EXPECT_EQ(pass(claims), Pass(none, 0));
  NodePool other = pool_;
  other.node_class = {"example.com", "OtherNodeClass", "default"};
  EXPECT_EQ(provider_->is_drifted({"default-abc12", claims[0].instance_id, &other, nullptr}).value(), "");

  // EC2 refusing the call: an error (the engine takes the node as not drifted now), not "not drifted".
  Ec2Provider restarted(*ec2_, *ssm_, provider_->catalog(),
                        {{"demo", "https://demo.eks.amazonaws.com", "Q0E=", "10.100.0.0/16", "1.30"}});
  restarted.set_node_class(provider_->resolve(node_class(kNodeClass)));
  ASSERT_EQ(emulator_->add_rule({{"kind", "error"},
                                 {"service", "ec2"},
                                 {"action", "DescribeInstances"},
                                 {"status", 403},
                                 {"code", "UnauthorizedOperation"},
                                 {"message", "You are not authorized to perform this operation."}}),
            "");
  CloudResult<std::string> refused = restarted.is_drifted(claims[0]);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().error_class, ErrorClass::Unauthorized);
}

// An API server that takes every write (the status patches and Events of the EC2NodeClass controller).
class AcceptingApiServer {
 public:
  AcceptingApiServer() {
    auto accept = [](const httplib::Request&, httplib::Response& res) { res.set_content("{}", "application/json"); };
    server_.Patch(".*", accept);
    server_.Post(".*", accept);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~AcceptingApiServer() {
    server_.stop();
    thread_.join();
  }
  std::string address() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

// The EC2NodeClass controller tells the loop of a class that is new, resolves to something else, has a new spec or
// went; not of one resolved again to the same (its 5-minute resync), nor of its own status write coming back.
TEST_F(Ec2ProviderTest, TheNodeClassControllerReportsAClassThatResolvesToSomethingElseOnly) {
  AcceptingApiServer server;
  kube::ClusterConfig config;
  config.server = server.address();
  auto client = kube::ApiClient::create(config);
  ASSERT_TRUE(client.ok()) << client.error().message;
  std::vector<std::string> changes;
  {
    kube::EventSink events(*client, "karpenter.k8s.aws", "test");
    Ec2NodeClassController controller(*client, *provider_, events);
    controller.report_changes_to([&](std::string name) { changes.push_back(std::move(name)); });
    nlohmann::json object = {
        {"apiVersion", "karpenter.k8s.aws/v1"},
        {"kind", "EC2NodeClass"},
        {"metadata", {{"name", "default"}, {"generation", 1}, {"uid", "u-1"}}},
        {"spec",
         {{"amiSelectorTerms", {{{"alias", "al2023@latest"}}}},
          {"instanceProfile", "KarpenterNodeInstanceProfile-demo"},
          {"subnetSelectorTerms", {{{"tags", {{"karpenter.sh/discovery", "demo"}}}}}},
          {"securityGroupSelectorTerms", {{{"tags", {{"karpenter.sh/discovery", "demo"}}}}}}}}};
    controller.watched("ADDED", object);
    EXPECT_EQ(changes.size(), 1u);  // new
    nlohmann::json with_status = object;
    with_status["status"] = {{"amis", nlohmann::json::array()}};
    controller.watched("MODIFIED", with_status);
    EXPECT_EQ(changes.size(), 1u);  // its own status write
    controller.watched("MODIFIED", object);
    EXPECT_EQ(changes.size(), 1u);  // resolved again to the same

    FormParams group;
    group.add("GroupName", "nodes-extra").add("GroupDescription", "more for the nodes");
    auto made = ec2_->query("CreateSecurityGroup", group);
    ASSERT_TRUE(made.ok()) << made.error().describe();
    ASSERT_TRUE(Ec2Api(*ec2_).create_tags({child_text(made->result, "groupId")}, {{"karpenter.sh/discovery", "demo"}})
                    .ok());
    controller.watched("MODIFIED", object);
    EXPECT_EQ(changes.size(), 2u);  // a second security group

    object["metadata"]["generation"] = 2;
    object["spec"]["tags"] = {{"team", "data"}};
    controller.watched("MODIFIED", object);
    EXPECT_EQ(changes.size(), 3u);  // a new spec, resolved to the same

    controller.watched("DELETED", object);
    EXPECT_EQ(changes.size(), 4u);  // gone
    controller.watched("DELETED", object);
    EXPECT_EQ(changes.size(), 4u);
  }
  EXPECT_EQ(changes, std::vector<std::string>(4, "default"));
}

// A message without the request id an answer carried (each call's is new).
std::string without_request_id(std::string message) {
  if (auto at = message.find(", request id"); at != std::string::npos) message.erase(at, message.find(')', at) - at);
  return message;
}

// Each link a node class resolves through can fail; the class is then not Ready, says which condition and why, and
// nothing launches from it.
TEST_F(Ec2ProviderTest, ANodeClassThatDoesNotResolveIsNotReadySaysWhyAndLaunchesNothing) {
  struct Case {
    std::string from, to;  // a replacement in the default class
    nlohmann::json rule;   // a fault, or null
    std::string why;
  };
  const std::vector<Case> cases = {
      {"subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]",
       "subnetSelectorTerms: [{tags: {karpenter.sh/discovery: nowhere}}]", nullptr,
       "SubnetsReady: SubnetSelector did not match any Subnets"},
      {"alias: al2023@latest", "alias: al2023@v20240101", nullptr,
       "AMIsReady: alias al2023@v20240101 resolves to no AMI: SSM parameter /aws/service/eks/optimized-ami/1.30/"
       "amazon-linux-2023/arm64/standard/amazon-eks-node-al2023-arm64-standard-1.30-v20240101/image_id not found"},
      {"",
       "",
       {{"kind", "error"},
        {"service", "ec2"},
        {"action", "DescribeSecurityGroups"},
        {"status", 403},
        {"code", "UnauthorizedOperation"},
        {"message", "You are not authorized to perform this operation."}},
       "SecurityGroupsReady: ec2 DescribeSecurityGroups: UnauthorizedOperation: You are not authorized to perform "
       "this operation. (HTTP 403)"},
      // A role IAM does not have: its profile is made, and cannot hold it.
      {"instanceProfile: KarpenterNodeInstanceProfile-demo", "role: KarpenterNodeRole-demo", nullptr,
       "InstanceProfileReady: iam AddRoleToInstanceProfile: NoSuchEntity: "},
  };
  for (const Case& c : cases) {
    std::string yaml = kNodeClass;
    if (!c.from.empty()) yaml.replace(yaml.find(c.from), c.from.size(), c.to);
    if (!c.rule.is_null()) {
      ASSERT_EQ(emulator_->add_rule(c.rule), "");
    }
    ResolvedNodeClass resolved = provider_->resolve(node_class(yaml));
    EXPECT_FALSE(resolved.ready()) << c.why;
    const bool prefix = c.why.ends_with(": ");  // the rest is the service's own wording
    const std::string why = without_request_id(resolved.why_not_ready());
    EXPECT_EQ(prefix ? why.substr(0, c.why.size()) : why, c.why);
    provider_->set_node_class(std::move(resolved));
    auto types = provider_->instance_types(pool_);
    ASSERT_FALSE(types.ok());
    EXPECT_EQ(types.error().error_class, ErrorClass::NodeClassNotReady);
    EXPECT_EQ(without_request_id(types.error().message), "EC2NodeClass default is not ready: " + why);
    ASSERT_EQ(emulator_->reset(), "");  // the rules go; the account's tags with them, but nothing else is asked
    SetUp();
  }
  EXPECT_EQ(emulator_->count("ec2", "CreateFleet"), 0);
}

}  // namespace
}  // namespace scalewright::cloud::aws
