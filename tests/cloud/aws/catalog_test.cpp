#include "cloud/aws/instance_types.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>

#include "api/meta.h"
#include "cloud/aws/labels.h"
#include "data/csv_table.h"
#include "cloud/testdata.h"
#include "units.h"

namespace scalewright::cloud {
namespace {

// AWS's catalog and formula, under test here, are provider aws's.
using aws::CatalogOptions;
using aws::SpotFractions;
using aws::add_offerings;
using aws::catalog_data;
using aws::load_catalog;
using aws::make_instance_type;
using aws::name_zones;

const std::filesystem::path kSourceDir(SCALEWRIGHT_SOURCE_DIR);
const std::filesystem::path kData = kSourceDir / "data/aws";

const Catalog& us_east_1() {
  static const Catalog catalog = [] {
    Result<Catalog> loaded = load_catalog(kData);
    if (!loaded) throw std::runtime_error(loaded.error().message);
    return std::move(loaded).value();
  }();
  return catalog;
}

std::string label(const InstanceType& type, std::string_view key) {
  const Symbol* value = type.labels.find(Symbol(key));
  return value ? value->string() : "<absent>";
}

const InstanceType& type(std::string_view name) {
  const InstanceType* found = us_east_1().find(name);
  if (!found) throw std::runtime_error("no instance type " + std::string(name));
  return *found;
}

double spot(std::string_view name, std::string_view zone) {
  const Offering* offering = type(name).offering(zone, CapacityType::Spot);
  if (!offering) throw std::runtime_error("no spot offering");
  return offering->price_per_hour;
}

TEST(Catalog, KeepsTypesPricedInTheRegionAndCountsTheRest) {
  const Catalog& catalog = us_east_1();
  // 1404 rows; 1367 us-east-1 prices, one of them (cr1.8xlarge) for a type not in the data: 1366 types.
  EXPECT_EQ(catalog_data(catalog)->stats.types_in_data, 1404u);
  EXPECT_EQ(catalog.size(), 1366u);
  EXPECT_EQ(catalog_data(catalog)->stats.unpriced_types.size(), 38u);
  EXPECT_EQ(catalog_data(catalog)->stats.prices_without_type, 1u);
  EXPECT_EQ(catalog.find("mac1.metal"), nullptr);  // no Linux on-demand price
  EXPECT_NE(catalog.find("m5.large"), nullptr);
  EXPECT_EQ(catalog.region(), "us-east-1");
}

TEST(Catalog, NamesUsEast1ZonesInZoneIdOrder) {
  const std::vector<Zone> expected = {
      {"us-east-1a", "use1-az1"}, {"us-east-1b", "use1-az2"}, {"us-east-1c", "use1-az3"},
      {"us-east-1d", "use1-az4"}, {"us-east-1e", "use1-az5"}, {"us-east-1f", "use1-az6"},
  };
  EXPECT_EQ(us_east_1().zones(), expected);
  EXPECT_EQ(us_east_1().find_zone_by_id("use1-az4")->name, "us-east-1d");
}

TEST(Catalog, ZoneNamesSortTheNumberNotTheText) {
  std::vector<Zone> zones = name_zones("xx-test-1", {"xt1-az10", "xt1-az2", "xt1-az1"});
  ASSERT_EQ(zones.size(), 3u);
  EXPECT_EQ(zones[0], (Zone{"xx-test-1a", "xt1-az1"}));
  EXPECT_EQ(zones[1], (Zone{"xx-test-1b", "xt1-az2"}));
  EXPECT_EQ(zones[2], (Zone{"xx-test-1c", "xt1-az10"}));
}

TEST(Catalog, M6gLargeCarriesKarpentersLabels) {
  const InstanceType& m6g = type("m6g.large");
  EXPECT_EQ(label(m6g, well_known::instance_type), "m6g.large");
  EXPECT_EQ(label(m6g, well_known::arch), "arm64");
  EXPECT_EQ(label(m6g, well_known::os), "linux");
  EXPECT_EQ(label(m6g, well_known::region), "us-east-1");
  EXPECT_EQ(label(m6g, aws::labels::instance_category), "m");
  EXPECT_EQ(label(m6g, aws::labels::instance_family), "m6g");
  EXPECT_EQ(label(m6g, aws::labels::instance_generation), "6");
  EXPECT_EQ(label(m6g, aws::labels::instance_size), "large");
  EXPECT_EQ(label(m6g, aws::labels::instance_cpu), "2");
  EXPECT_EQ(label(m6g, aws::labels::instance_memory), "8192");
  EXPECT_EQ(label(m6g, aws::labels::instance_hypervisor), "nitro");
  EXPECT_EQ(label(m6g, aws::labels::instance_cpu_manufacturer), "aws");
  EXPECT_EQ(label(m6g, aws::labels::instance_network_bandwidth), "750");
  EXPECT_EQ(label(m6g, aws::labels::instance_gpu_count), "<absent>");
  EXPECT_EQ(label(m6g, aws::labels::instance_local_nvme), "<absent>");
}

TEST(Catalog, GpuAndNvmeTypesCarryTheirLabelsAndResources) {
  const InstanceType& p4d = type("p4d.24xlarge");
  EXPECT_EQ(label(p4d, aws::labels::instance_gpu_count), "8");
  EXPECT_EQ(label(p4d, aws::labels::instance_gpu_name), "a100");
  EXPECT_EQ(label(p4d, aws::labels::instance_gpu_manufacturer), "nvidia");
  EXPECT_EQ(label(p4d, aws::labels::instance_gpu_memory), "40960");
  EXPECT_EQ(label(p4d, aws::labels::instance_local_nvme), "8000");
  EXPECT_EQ(p4d.capacity.get(Symbol("nvidia.com/gpu")), 8);
  EXPECT_EQ(p4d.capacity.get(Symbol("vpc.amazonaws.com/efa")), 4);
  EXPECT_EQ(p4d.capacity.pods(), 737);
  // Bare metal: EC2 reports no hypervisor and Karpenter labels it with an empty value.
  EXPECT_EQ(label(type("c5.metal"), aws::labels::instance_hypervisor), "");
}

TEST(Catalog, T3MicroRunsFourPods) {
  // ENI-limited: 2 ENIs × (2 IPv4 addresses − 1) + 2 = 4.
  EXPECT_EQ(type("t3.micro").capacity.pods(), 4);
  EXPECT_EQ(type("t3.micro").allocatable.pods(), 4);
}

TEST(Catalog, EveryTypeHasAnOnDemandAndASpotOfferingPerZone) {
  for (const InstanceType& t : us_east_1().instance_types()) {
    ASSERT_EQ(t.offerings.size(), 12u) << t.name;
  }
  const Offering* od = type("m5.large").offering("us-east-1a", CapacityType::OnDemand);
  ASSERT_NE(od, nullptr);
  EXPECT_EQ(od->zone_id, "use1-az1");
  EXPECT_DOUBLE_EQ(od->price_per_hour, 0.096);  // prices-on-demand.csv: us-east-1,m5.large,0.096
  EXPECT_EQ(catalog_data(us_east_1())->stats.spot_from_snapshot + catalog_data(us_east_1())->stats.spot_estimated, 1366u * 6);
}

TEST(Catalog, SpotPriceComesFromTheSnapshotWhereItHasOne) {
  // prices-spot-2022-05.csv: use1-az2,m5.large,0.0424 and use1-az4,m5.large,0.0416.
  EXPECT_DOUBLE_EQ(spot("m5.large", "us-east-1b"), 0.0424);
  EXPECT_DOUBLE_EQ(spot("m5.large", "us-east-1d"), 0.0416);
  EXPECT_EQ(type("m5.large").offering("us-east-1b", CapacityType::Spot)->price_source, PriceSource::SpotSnapshot);
  // Two rows for c4.8xlarge in use1-az4 (0.4935 at 18:50, 0.5014 at 23:45): the later one wins.
  EXPECT_DOUBLE_EQ(spot("c4.8xlarge", "us-east-1d"), 0.5014);
}

TEST(Catalog, SpotPriceFallsBackToTheFamilyFraction) {
  // Family c1 has one observed type, c1.xlarge (on-demand 0.52): 0.1228 in az1, 0.1525 in az6, 0.113 in az4.
  // Ratios 0.2362, 0.2933, 0.2173: the median is 0.1228 / 0.52, and that is the family's fraction.
  const double c1 = 0.1228 / 0.52;
  EXPECT_DOUBLE_EQ(catalog_data(us_east_1())->spot_fractions.for_family("c1"), c1);
  // c1.xlarge has no row for use1-az2, c1.medium (0.13 on demand) has none at all.
  EXPECT_DOUBLE_EQ(spot("c1.xlarge", "us-east-1b"), 0.52 * c1);
  EXPECT_DOUBLE_EQ(spot("c1.medium", "us-east-1a"), 0.13 * c1);
  EXPECT_EQ(type("c1.medium").offering("us-east-1a", CapacityType::Spot)->price_source, PriceSource::SpotEstimate);
  // Family t1 has t1.micro only (0.02): 0.0021 and 0.0024, an even count, so the mean of the two: 0.1125.
  EXPECT_NEAR(catalog_data(us_east_1())->spot_fractions.for_family("t1"), 0.1125, 1e-12);
}

TEST(Catalog, FamilyWithoutObservationsUsesTheRegionMedian) {
  const SpotFractions& fractions = catalog_data(us_east_1())->spot_fractions;
  EXPECT_EQ(fractions.by_family.count("c7i"), 0u);  // c7i is newer than the snapshot
  EXPECT_EQ(fractions.observed_types, 433u);
  EXPECT_GT(fractions.region, 0.3);  // data/aws/README.md: median about 0.37-0.38
  EXPECT_LT(fractions.region, 0.45);
  EXPECT_DOUBLE_EQ(spot("c7i.large", "us-east-1a"), 0.08925 * fractions.region);
}

TEST(Catalog, SpotFractionCanBeOverridden) {
  CatalogOptions options;
  options.instance_types = {"m5.large", "c1.medium"};
  options.spot_fraction = 0.5;
  options.spot_fraction_by_family = {{"c1", 0.25}};
  options.use_spot_snapshot = false;
  Result<Catalog> catalog = load_catalog(kData, options);
  ASSERT_TRUE(catalog.ok()) << catalog.error().message;
  ASSERT_EQ(catalog->size(), 2u);
  EXPECT_DOUBLE_EQ(catalog->find("m5.large")->offering("us-east-1b", CapacityType::Spot)->price_per_hour, 0.048);
  EXPECT_DOUBLE_EQ(catalog->find("c1.medium")->offering("us-east-1b", CapacityType::Spot)->price_per_hour, 0.0325);
}

TEST(Catalog, AllowListNamesMustExistAndBePriced) {
  CatalogOptions options;
  options.instance_types = {"m5.huge"};
  EXPECT_EQ(load_catalog(kData, options).error().message,
            "catalog options: instance type m5.huge is not in instance-types.csv");
  options.instance_types = {"mac1.metal"};
  EXPECT_EQ(load_catalog(kData, options).error().message,
            "catalog options: instance type mac1.metal has no on-demand price in us-east-1");
}

TEST(Catalog, RegionsWithoutZonesOrPricesAreErrors) {
  CatalogOptions options;
  options.region = "us-gov-west-1";
  EXPECT_NE(load_catalog(kData, options).error().message.find("no zone IDs for region us-gov-west-1"),
            std::string::npos);
  options.region = "mars-north-1";
  EXPECT_NE(load_catalog(kData, options).error().message.find("unknown region \"mars-north-1\""),
            std::string::npos);
}

TEST(Catalog, EveryCommercialRegionLoadsWithItsZonesAndPrices) {
  // Counted from the data files: the types priced in the region that instance-types.csv has, the zone IDs of the
  // region's code, the types with a Windows price too, and m5.large's Linux and Windows prices.
  struct Case {
    std::string region;
    std::size_t types;
    std::size_t zones;
    std::size_t windows_priced;
    double m5_large;
    double m5_large_windows;
    bool spot_known;
  };
  const Case cases[] = {
      {"us-east-1", 1366, 6, 923, 0.096, 0.188, true},
      {"eu-west-1", 1038, 3, 721, 0.107, 0.199, true},
      {"us-west-2", 1292, 4, 929, 0.096, 0.188, true},
      // No spot observation in the region: on demand only, and a note says why.
      {"af-south-1", 456, 3, 323, 0.127, 0.219, false},
  };
  for (const Case& c : cases) {
    CatalogOptions options;
    options.region = c.region;
    Result<Catalog> catalog = load_catalog(kData, options);
    ASSERT_TRUE(catalog.ok()) << c.region << ": " << catalog.error().message;
    EXPECT_EQ(catalog->size(), c.types) << c.region;
    EXPECT_EQ(catalog->zones().size(), c.zones) << c.region;
    EXPECT_EQ(catalog->zones()[0].name, c.region + "a");
    EXPECT_EQ(catalog_data(*catalog)->stats.windows_priced, c.windows_priced) << c.region;
    const InstanceType* m5 = catalog->find("m5.large");
    ASSERT_NE(m5, nullptr) << c.region;
    EXPECT_EQ(m5->offering(c.region + "a", CapacityType::OnDemand)->price_per_hour, c.m5_large) << c.region;
    EXPECT_EQ(m5->windows_on_demand, c.m5_large_windows) << c.region;
    EXPECT_EQ(m5->offering(c.region + "a", CapacityType::Spot) != nullptr, c.spot_known) << c.region;
    EXPECT_EQ(catalog->notes().empty(), c.spot_known) << c.region;
  }
  CatalogOptions af;
  af.region = "af-south-1";
  EXPECT_EQ(load_catalog(kData, af)->notes(),
            std::vector<std::string>{"spot prices are not known for region af-south-1 (prices-spot-2022-05.csv has no "
                                     "observation there): its types are offered on demand only "
                                     "(spec.cloud.spotPriceFraction estimates them)"});
}

TEST(Catalog, MalformedPriceIsAnErrorNamingFileLineAndColumn) {
  Result<Catalog> catalog = load_catalog(kTestdata / "bad-catalog");
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.error().message, (kTestdata / "bad-catalog/prices-on-demand.csv").string() +
                                         ":3: column 3 \"usd_per_hour\": expected a number, found \"0.19x\"");
}

TEST(Catalog, MissingDataFileIsAnError) {
  Result<Catalog> catalog = load_catalog(kTestdata / "no-such-dir");
  ASSERT_FALSE(catalog.ok());
  EXPECT_NE(catalog.error().message.find("regions.csv: cannot open"), std::string::npos) << catalog.error().message;
}

TEST(Catalog, MadeFromExplicitTypes) {
  const std::vector<Zone> zones = {{"test-1a", "t1-az1"}, {"test-1b", "t1-az2"}};
  InstanceHardware hw;
  hw.family = "m5";
  hw.vcpu = 2;
  hw.memory_mib = 8192;
  hw.max_pods = 29;
  InstanceType small = make_instance_type("small", hw);
  add_offerings(small, zones, 0.1, 0.03);
  hw.vcpu = 8;
  InstanceType big = make_instance_type("big", hw);
  Catalog catalog = Catalog::from_instance_types("test-1", zones, {small, big});
  ASSERT_EQ(catalog.size(), 2u);
  EXPECT_EQ(catalog.instance_types()[0].name, "big");  // sorted by name
  EXPECT_EQ(catalog.find("small")->allocatable.memory(), 6903 * kMi);
  EXPECT_EQ(catalog.find("small")->cheapest(CapacityType::Spot), 0.03);
  EXPECT_EQ(catalog.find("big")->cheapest(CapacityType::Spot), std::nullopt);
  EXPECT_EQ(catalog.find("medium"), nullptr);
}

// Every catalog type whose figures Karpenter publishes (karpenter_alloc_* columns) against our formulas. The
// known differences, with why, are listed in data/aws/README.md; today there are none.
TEST(Catalog, AllocatableAgreesWithKarpentersPublishedFigures) {
  Result<data::CsvTable> table = data::CsvTable::read(kData / "instance-types.csv");
  ASSERT_TRUE(table.ok()) << table.error().message;
  const std::size_t name = table->column("name").value();
  const std::size_t cpu = table->column("karpenter_alloc_cpu_millicores").value();
  const std::size_t memory = table->column("karpenter_alloc_memory_mib").value();
  const std::size_t pods = table->column("karpenter_pods").value();
  const std::set<std::string> known_differences = {};

  std::size_t compared = 0;
  std::set<std::string> differing;
  for (const data::CsvRow& row : table->rows()) {
    const InstanceType* t = us_east_1().find(row[name]);
    if (t == nullptr || row[cpu].empty()) continue;
    ++compared;
    const bool same = t->allocatable.cpu_milli() == table->integer(row, cpu).value() &&
                      t->allocatable.memory() == table->integer(row, memory).value() * kMi &&
                      t->allocatable.pods() == table->integer(row, pods).value();
    if (!same) differing.insert(row[name]);
  }
  // 1366 catalog types, 21 of them (p2, p3, g3, f1, u-*tb1, ...) not on Karpenter's current page.
  EXPECT_EQ(compared, 1345u);
  EXPECT_EQ(differing, known_differences);
}

// Without Karpenter's 64 MiB Graviton reservation every arm64 type would be off by 64 − ceil-difference = 59 MiB.
TEST(Catalog, WithoutTheGravitonReservationArm64TypesDifferBy59Mebibytes) {
  Result<data::CsvTable> table = data::CsvTable::read(kData / "instance-types.csv");
  ASSERT_TRUE(table.ok());
  CatalogOptions options;
  options.arm64_reserved_memory_mib = 0;
  Result<Catalog> catalog = load_catalog(kData, options);
  ASSERT_TRUE(catalog.ok());
  const std::size_t name = table->column("name").value();
  const std::size_t memory = table->column("karpenter_alloc_memory_mib").value();
  std::map<std::int64_t, std::size_t> by_difference;
  std::size_t arm64_differing = 0;
  for (const data::CsvRow& row : table->rows()) {
    const InstanceType* t = catalog->find(row[name]);
    if (t == nullptr || row[memory].empty()) continue;
    const std::int64_t difference = t->allocatable.memory() / kMi - table->integer(row, memory).value();
    if (difference == 0) continue;
    ++by_difference[difference];
    if (t->hardware.arch == "arm64") ++arm64_differing;
  }
  EXPECT_EQ(by_difference, (std::map<std::int64_t, std::size_t>{{59, 396}}));
  EXPECT_EQ(arm64_differing, 396u);
}

}  // namespace
}  // namespace scalewright::cloud
