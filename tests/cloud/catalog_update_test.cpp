// A catalog read again takes the new prices into the catalog in use, in place (the engine holds pointers to its
// types and offerings), and says what changed: Catalog::take_prices_from and Catalog::same_shape.
#include <gtest/gtest.h>

#include "api/resources.h"
#include "cloud/catalog.h"

namespace scalewright::cloud {
namespace {

Offering offering(std::string zone, std::string zone_id, CapacityType capacity_type, double price,
                  PriceSource source = PriceSource::OnDemandList) {
  return {std::move(zone), std::move(zone_id), capacity_type, price, source, true};
}

InstanceType type(std::string name, std::vector<Offering> offerings) {
  InstanceType t;
  t.name = std::move(name);
  t.offerings = std::move(offerings);
  return t;
}

const std::vector<Zone> kZones = {{"us-east-1a", "use1-az1"}, {"us-east-1b", "use1-az2"}};

// m5.large on demand and spot in both zones, c5.large on demand in us-east-1a.
Catalog held() {
  return Catalog::from_instance_types(
      "us-east-1", kZones,
      {type("m5.large", {offering("us-east-1a", "use1-az1", CapacityType::OnDemand, 0.096),
                         offering("us-east-1a", "use1-az1", CapacityType::Spot, 0.04, PriceSource::SpotSnapshot),
                         offering("us-east-1b", "use1-az2", CapacityType::OnDemand, 0.096),
                         offering("us-east-1b", "use1-az2", CapacityType::Spot, 0.05, PriceSource::SpotEstimate)}),
       type("c5.large", {offering("us-east-1a", "use1-az1", CapacityType::OnDemand, 0.085)})});
}

TEST(CatalogUpdate, TakesNewPricesInPlaceWithdrawsWhatIsGoneAndCountsWhatItCannotTake) {
  Catalog catalog = held();
  const InstanceType* m5 = catalog.find("m5.large");
  const Offering* spot_b = &m5->offerings[3];
  // Read again: m5.large's spot price in use1-az2 observed (0.05 estimated -> 0.031 observed), its spot offering in
  // use1-az1 gone, on demand unchanged; c5.large now also in use1-az2 (a new offering); r5.large new.
  const Catalog fresh = Catalog::from_instance_types(
      "us-east-1", kZones,
      {type("m5.large", {offering("us-east-1a", "use1-az1", CapacityType::OnDemand, 0.096),
                         offering("us-east-1b", "use1-az2", CapacityType::OnDemand, 0.096),
                         offering("us-east-1b", "use1-az2", CapacityType::Spot, 0.031, PriceSource::SpotSnapshot)}),
       type("c5.large", {offering("us-east-1a", "use1-az1", CapacityType::OnDemand, 0.085),
                         offering("us-east-1b", "use1-az2", CapacityType::OnDemand, 0.085)}),
       type("r5.large", {offering("us-east-1a", "use1-az1", CapacityType::OnDemand, 0.126)})});

  const CatalogUpdate update = catalog.take_prices_from(fresh);
  EXPECT_EQ(update.prices_changed, 1u);
  EXPECT_EQ(update.withdrawn, 1u);
  EXPECT_EQ(update.restored, 0u);
  EXPECT_EQ(update.new_offerings, 1u);
  EXPECT_EQ(update.new_types, 1u);
  EXPECT_TRUE(update.changed());

  // The same objects, changed in place; nothing added.
  ASSERT_EQ(catalog.find("m5.large"), m5);
  ASSERT_EQ(&m5->offerings[3], spot_b);
  EXPECT_DOUBLE_EQ(spot_b->price_per_hour, 0.031);
  EXPECT_EQ(spot_b->price_source, PriceSource::SpotSnapshot);
  EXPECT_TRUE(spot_b->available);
  EXPECT_FALSE(m5->offerings[1].available);  // us-east-1a spot: withdrawn
  EXPECT_DOUBLE_EQ(m5->offerings[1].price_per_hour, 0.04);
  EXPECT_EQ(catalog.size(), 2u);
  EXPECT_EQ(catalog.find("c5.large")->offerings.size(), 1u);
  EXPECT_EQ(catalog.find("r5.large"), nullptr);

  // Read once more with the spot offering back: restored, and nothing else changes.
  const CatalogUpdate again = catalog.take_prices_from(held());
  EXPECT_EQ(again.restored, 1u);
  EXPECT_EQ(again.withdrawn, 0u);
  EXPECT_EQ(again.prices_changed, 1u);  // use1-az2's spot back to the estimate of 0.05
  EXPECT_TRUE(m5->offerings[1].available);
  EXPECT_DOUBLE_EQ(spot_b->price_per_hour, 0.05);
  EXPECT_FALSE(catalog.take_prices_from(held()).changed());
}

TEST(CatalogUpdate, MatchesOfferingsByZoneIdWhereBothHaveOne) {
  // A catalog shaped for an account names use1-az1 "us-east-1b": its offerings still take use1-az1's prices.
  Catalog renamed = Catalog::from_instance_types(
      "us-east-1", {{"us-east-1b", "use1-az1"}},
      {type("c5.large", {offering("us-east-1b", "use1-az1", CapacityType::OnDemand, 0.085)})});
  Catalog fresh = Catalog::from_instance_types(
      "us-east-1", kZones,
      {type("c5.large", {offering("us-east-1a", "use1-az1", CapacityType::OnDemand, 0.09),
                         offering("us-east-1b", "use1-az2", CapacityType::OnDemand, 0.07)})});
  const CatalogUpdate update = renamed.take_prices_from(fresh);
  EXPECT_EQ(update.prices_changed, 1u);
  EXPECT_DOUBLE_EQ(renamed.find("c5.large")->offerings[0].price_per_hour, 0.09);
  EXPECT_EQ(renamed.find("c5.large")->offerings[0].zone, "us-east-1b");
}

TEST(CatalogUpdate, SameShapeIgnoresPricesButNotResourcesOrOfferings) {
  Catalog repriced = held();
  Catalog fresh = Catalog::from_instance_types(
      "us-east-1", kZones, {type("c5.large", {offering("us-east-1a", "use1-az1", CapacityType::OnDemand, 0.2)})});
  repriced.take_prices_from(fresh);  // m5.large's offerings all withdrawn, c5.large at 0.2
  EXPECT_TRUE(held().same_shape(repriced));

  std::vector<InstanceType> types = held().instance_types();
  types[0].allocatable.set(resource_names::cpu(), 1930);  // millicores
  EXPECT_FALSE(held().same_shape(Catalog::from_instance_types("us-east-1", kZones, types)));
  types = held().instance_types();
  types[1].offerings.pop_back();
  EXPECT_FALSE(held().same_shape(Catalog::from_instance_types("us-east-1", kZones, types)));
  EXPECT_FALSE(held().same_shape(Catalog::from_instance_types("us-east-1", {kZones[0]}, held().instance_types())));
}

}  // namespace
}  // namespace scalewright::cloud
