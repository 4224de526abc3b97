#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixtures.h"
#include "provisioning/launch_explanation.h"
#include "provisioning/provisioner.h"

namespace scalewright::provisioning {
namespace {

using namespace fixtures;

NewNodeClaim claim_of(const cloud::Catalog& catalog, const std::vector<std::string>& names) {
  NewNodeClaim claim;
  claim.nodepool = "default";
  for (const std::string& name : names) claim.instance_types.push_back(catalog.find(name));
  return claim;
}

void mark_spot(UnavailableOfferings& unavailable, const std::vector<std::string>& names, Instant until) {
  for (const std::string& name : names) {
    for (const char* zone : {"zone-a", "zone-b"}) unavailable.mark({name, zone, cloud::CapacityType::Spot}, until);
  }
}

TEST(ChooseOffering, CheapestSpotBeforeOnDemand) {
  const cloud::Catalog catalog = make_catalog();
  const NewNodeClaim claim = claim_of(catalog, {"c.2xlarge", "c.xlarge"});
  auto choice = choose_offering(claim, UnavailableOfferings{}, Instant{});
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->instance_type->name, "c.xlarge");
  EXPECT_EQ(choice->offering->capacity_type, cloud::CapacityType::Spot);
  EXPECT_EQ(choice->offering->zone, "zone-a");  // same price in both zones: the first zone by name
  EXPECT_DOUBLE_EQ(choice->offering->price_per_hour, 0.08);
}

TEST(ChooseOffering, FallsBackToOnDemandWhenSpotIsMarkedUnavailable) {
  const cloud::Catalog catalog = make_catalog();
  const NewNodeClaim claim = claim_of(catalog, {"c.2xlarge", "c.xlarge"});
  UnavailableOfferings unavailable;
  mark_spot(unavailable, {"c.2xlarge", "c.xlarge"}, Instant(Duration(180'000)));
  auto choice = choose_offering(claim, unavailable, Instant(Duration(60'000)));
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->instance_type->name, "c.xlarge");
  EXPECT_EQ(choice->offering->capacity_type, cloud::CapacityType::OnDemand);
  EXPECT_DOUBLE_EQ(choice->offering->price_per_hour, 0.20);
}

TEST(ChooseOffering, SpotFromAnotherTypeStillBeatsOnDemand) {
  const cloud::Catalog catalog = make_catalog();
  const NewNodeClaim claim = claim_of(catalog, {"c.2xlarge", "c.xlarge"});
  UnavailableOfferings unavailable;
  mark_spot(unavailable, {"c.xlarge"}, Instant(Duration(180'000)));
  auto choice = choose_offering(claim, unavailable, Instant{});
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->instance_type->name, "c.2xlarge");
  EXPECT_EQ(choice->offering->capacity_type, cloud::CapacityType::Spot);
}

TEST(ChooseOffering, UnavailableExpiresAfterItsTime) {
  const cloud::Catalog catalog = make_catalog();
  const NewNodeClaim claim = claim_of(catalog, {"c.xlarge"});
  UnavailableOfferings unavailable;
  mark_spot(unavailable, {"c.xlarge"}, Instant(Duration(180'000)));
  EXPECT_TRUE(unavailable.unavailable({"c.xlarge", "zone-a", cloud::CapacityType::Spot}, Instant(Duration(179'999))));
  EXPECT_FALSE(unavailable.unavailable({"c.xlarge", "zone-a", cloud::CapacityType::Spot}, Instant(Duration(180'000))));
  auto choice = choose_offering(claim, unavailable, Instant(Duration(180'000)));
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->offering->capacity_type, cloud::CapacityType::Spot);
}

TEST(ChooseOffering, HonoursTheClaimsZoneAndCapacityType) {
  const cloud::Catalog catalog = make_catalog();
  NewNodeClaim claim = claim_of(catalog, {"c.xlarge"});
  claim.requirements.add(std::string(well_known::zone), ValueSet::of({"zone-b"}));
  claim.requirements.add("karpenter.sh/capacity-type", ValueSet::of({"on-demand"}));
  auto choice = choose_offering(claim, UnavailableOfferings{}, Instant{});
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->offering->zone, "zone-b");
  EXPECT_EQ(choice->offering->capacity_type, cloud::CapacityType::OnDemand);
}

TEST(ChooseOffering, NothingLeftIsNullopt) {
  const cloud::Catalog catalog = make_catalog();
  NewNodeClaim claim = claim_of(catalog, {"c.xlarge"});
  claim.requirements.add("karpenter.sh/capacity-type", ValueSet::of({"spot"}));
  UnavailableOfferings unavailable;
  mark_spot(unavailable, {"c.xlarge"}, Instant(Duration(180'000)));
  EXPECT_FALSE(choose_offering(claim, unavailable, Instant{}).has_value());
}

TEST(ChooseOffering, EqualPricesGoByTypeNameThenZone) {
  std::vector<cloud::Zone> z = zones(2);
  std::vector<cloud::InstanceType> types{make_type("b.large", "amd64", 2, 4, 0.10, 0.05, z),
                                         make_type("a.large", "amd64", 2, 4, 0.10, 0.05, z)};
  const cloud::Catalog catalog = cloud::Catalog::from_instance_types("test-region", z, std::move(types));
  const NewNodeClaim claim = claim_of(catalog, {"b.large", "a.large"});
  auto choice = choose_offering(claim, UnavailableOfferings{}, Instant{});
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->instance_type->name, "a.large");
  EXPECT_EQ(choice->offering->zone, "zone-a");
}

TEST(LaunchExplainer, SaysWhatExplainLaunchSaysForEachClaimAsMarksComeAndLapse) {
  const cloud::Catalog catalog = make_catalog();
  const NewNodeClaim claim = claim_of(catalog, {"c.2xlarge", "c.xlarge"});
  UnavailableOfferings unavailable;
  LaunchExplainer explainer;
  const auto both_say = [&](const std::string& purpose, Instant now) {
    const std::optional<LaunchChoice> choice = choose_offering(claim, unavailable, now);
    EXPECT_TRUE(choice);
    const std::string expected = explain_launch(claim, *choice, purpose, unavailable, now);
    EXPECT_EQ(explainer.explain(claim, *choice, purpose, unavailable, now), expected);
    return expected;
  };
  const std::string first = both_say("pod default/a", Instant{});
  EXPECT_THAT(first, testing::HasSubstr("launched c.xlarge zone-a spot $0.0800/h"));
  EXPECT_THAT(both_say("pod default/b", Instant{}), testing::HasSubstr("for pod default/b,"));
  // A mark changes the offering taken and what the cheaper ones are said to lack; its lapse, the time alone.
  unavailable.mark({"c.xlarge", "zone-a", cloud::CapacityType::Spot}, Instant(Duration(180'000)));
  EXPECT_THAT(both_say("pod default/c", Instant(Duration(60'000))),
              testing::HasSubstr("launched c.xlarge zone-b spot $0.0800/h"));
  EXPECT_EQ(both_say("pod default/a", Instant(Duration(200'000))), first);
}

}  // namespace
}  // namespace scalewright::provisioning
