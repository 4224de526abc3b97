// The catalog read from the account, against the AWS emulator (moto behind botocore's judges; pricing:GetProducts,
// which moto lacks, stubbed with Price List documents). Three types keep moto's answers small: m5.large, m6g.large
// (arm64) and g4dn.xlarge (one NVIDIA T4).
//
// What moto's us-east-1 holds, which the expectations below follow: its zones are named us-east-1a = use1-az6,
// 1b = use1-az1, 1c = use1-az2, 1d = use1-az4, 1e = use1-az3, 1f = use1-az5 (data/aws/ names them by id in order,
// use1-az1 = us-east-1a: the account's names must win); the three types are offered in 1a, 1b, 1c, 1d and 1f, not
// 1e; every spot price is 0.00001. data/aws/ has m5.large at 0.096 on demand, g4dn.xlarge at 0.526, and observed
// m5.large's spot price in use1-az2 (0.0424) and use1-az4 (0.0416).
#include "cloud/aws/account_catalog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "emulator_fixture.h"

namespace scalewright::cloud::aws {
namespace {

const std::filesystem::path kAwsData = std::filesystem::path(SCALEWRIGHT_SOURCE_DIR) / "data/aws";
const std::vector<std::string> kFewTypes = {"g4dn.xlarge", "m5.large", "m6g.large"};
constexpr std::int64_t kMebibyte = std::int64_t{1} << 20;

// One Price List entry as GetProducts returns it: a JSON document in a string.
std::string price_list_entry(const std::string& type, const std::string& usd) {
  const nlohmann::json product = {
      {"product", {{"productFamily", "Compute Instance"}, {"attributes", {{"instanceType", type}}}}},
      {"terms",
       {{"OnDemand",
         {{"SKU.JRTCKXETXF",
           {{"priceDimensions",
             {{"SKU.JRTCKXETXF.6YS6EN2CT7", {{"unit", "Hrs"}, {"pricePerUnit", {{"USD", usd}}}}}}}}}}}}}};
  return product.dump();
}

nlohmann::json price_stub(const nlohmann::json& body, std::optional<int> times = std::nullopt) {
  nlohmann::json rule = {{"kind", "stub"}, {"service", "pricing"}, {"action", "GetProducts"}, {"body", body}};
  if (times) rule["times"] = *times;
  return rule;
}

// "us-east-1c spot 0.0424": an offering as the expectations spell it.
std::map<std::string, double> offered_prices(const InstanceType& type, CapacityType capacity_type) {
  std::map<std::string, double> out;
  for (const Offering& o : type.offerings) {
    if (o.capacity_type == capacity_type) out[o.zone] = o.price_per_hour;
  }
  return out;
}

class AccountCatalogTest : public EmulatorTest {
 protected:
  void SetUp() override {
    EmulatorTest::SetUp();
    if (emulator_ == nullptr || HasFatalFailure() || IsSkipped()) return;
    ec2_ = client(kEc2Protocol, "us-east-1");
    pricing_ = client(kPricingProtocol, "us-east-1");
    options_.instance_types = kFewTypes;
  }

  // The price list for the types: m5.large and m6g.large on two pages, bare metal none.
  void stub_prices() {
    ASSERT_EQ(emulator_->add_rule(price_stub({{"FormatVersion", "aws_v1"},
                                              {"PriceList", {price_list_entry("m5.large", "0.2000000000")}},
                                              {"NextToken", "page-2"}},
                                             1)),
              "");
    ASSERT_EQ(emulator_->add_rule(price_stub(
                  {{"FormatVersion", "aws_v1"}, {"PriceList", {price_list_entry("m6g.large", "0.1500000000")}}}, 1)),
              "");
    ASSERT_EQ(emulator_->add_rule(price_stub({{"FormatVersion", "aws_v1"}, {"PriceList", nlohmann::json::array()}})),
              "");
  }

  std::unique_ptr<AwsClient> ec2_;
  std::unique_ptr<AwsClient> pricing_;
  CatalogOptions options_;
};

TEST_F(AccountCatalogTest, TypesZonesOfferingsAndPricesComeFromTheAccount) {
  stub_prices();
  CatalogSources sources;
  Result<Catalog> catalog = catalog_from_account(*ec2_, pricing_.get(), kAwsData, options_, &sources);
  ASSERT_TRUE(catalog.ok()) << catalog.error().message;
  for (const CatalogSource* source :
       {&sources.instance_types, &sources.zones, &sources.offerings, &sources.spot_prices, &sources.on_demand_prices}) {
    EXPECT_TRUE(source->from_account()) << source->describe();
  }

  // The account's own zone names.
  EXPECT_EQ(catalog->zones(), (std::vector<Zone>{{"us-east-1a", "use1-az6"},
                                                 {"us-east-1b", "use1-az1"},
                                                 {"us-east-1c", "use1-az2"},
                                                 {"us-east-1d", "use1-az4"},
                                                 {"us-east-1e", "use1-az3"},
                                                 {"us-east-1f", "use1-az5"}}));

  // Hardware read from DescribeInstanceTypes: the same facts, labels and resources as data/aws/ gives.
  Result<Catalog> data = load_catalog(kAwsData, options_);
  ASSERT_TRUE(data.ok()) << data.error().message;
  ASSERT_EQ(catalog->size(), 3u);
  for (const std::string& name : kFewTypes) {
    SCOPED_TRACE(name);
    const InstanceType* got = catalog->find(name);
    const InstanceType* want = data->find(name);
    ASSERT_NE(got, nullptr);
    ASSERT_NE(want, nullptr);
    const InstanceHardware& g = got->hardware;
    const InstanceHardware& w = want->hardware;
    EXPECT_EQ(g.category, w.category);
    EXPECT_EQ(g.family, w.family);
    EXPECT_EQ(g.generation, w.generation);
    EXPECT_EQ(g.size, w.size);
    EXPECT_EQ(g.vcpu, w.vcpu);
    EXPECT_EQ(g.memory_mib, w.memory_mib);
    EXPECT_EQ(g.arch, w.arch);
    EXPECT_EQ(g.max_pods, w.max_pods);
    EXPECT_EQ(g.gpu_count, w.gpu_count);
    EXPECT_EQ(g.gpu_name, w.gpu_name);
    EXPECT_EQ(g.gpu_manufacturer, w.gpu_manufacturer);
    EXPECT_EQ(g.gpu_memory_mib, w.gpu_memory_mib);
    EXPECT_EQ(g.accelerator_count, w.accelerator_count);
    EXPECT_EQ(g.efa_count, w.efa_count);
    EXPECT_EQ(g.local_nvme_gib, w.local_nvme_gib);
    EXPECT_EQ(g.hypervisor, w.hypervisor);
    EXPECT_EQ(g.cpu_manufacturer, w.cpu_manufacturer);
    EXPECT_EQ(g.network_bandwidth_mbps, w.network_bandwidth_mbps);
    EXPECT_EQ(g.bare_metal, w.bare_metal);
    EXPECT_EQ(g.burstable, w.burstable);
    EXPECT_TRUE(got->labels == want->labels);
    EXPECT_EQ(got->capacity.to_string(), want->capacity.to_string());
    EXPECT_EQ(got->overhead.to_string(), want->overhead.to_string());
    EXPECT_EQ(got->allocatable.to_string(), want->allocatable.to_string());
    EXPECT_EQ(got->windows_on_demand, want->windows_on_demand);
  }
  // By hand, m5.large: 2 vCPUs, 8192 MiB, 3 ENIs of 10 addresses: 3 × 9 + 2 = 29 pods. Allocatable cpu
  // 2000m − (60m + 10m); memory 8192 − ceil(7.5 %) = 7577 MiB, less 11 × 29 + 255 = 574 MiB kube-reserved and
  // 100 MiB eviction: 6903 MiB.
  const InstanceType& m5 = *catalog->find("m5.large");
  EXPECT_EQ(m5.hardware.vcpu, 2);
  EXPECT_EQ(m5.hardware.memory_mib, 8192);
  EXPECT_EQ(m5.hardware.max_pods, 29);
  EXPECT_EQ(m5.allocatable.cpu_milli(), 1930);
  EXPECT_EQ(m5.allocatable.memory(), 6903 * kMebibyte);
  EXPECT_EQ(m5.allocatable.pods(), 29);

  // Offered where the account offers them (not us-east-1e); on demand at the price list's price, spot at
  // DescribeSpotPriceHistory's; g4dn.xlarge, which the price list lacks, at data/aws/'s price, said in a note.
  auto all_at = [](double price) {
    return std::map<std::string, double>{{"us-east-1a", price},
                                         {"us-east-1b", price},
                                         {"us-east-1c", price},
                                         {"us-east-1d", price},
                                         {"us-east-1f", price}};
  };
  EXPECT_EQ(offered_prices(m5, CapacityType::OnDemand), all_at(0.2));
  EXPECT_EQ(offered_prices(m5, CapacityType::Spot), all_at(0.00001));
  EXPECT_EQ(offered_prices(*catalog->find("m6g.large"), CapacityType::OnDemand), all_at(0.15));
  EXPECT_EQ(offered_prices(*catalog->find("g4dn.xlarge"), CapacityType::OnDemand), all_at(0.526));
  EXPECT_EQ(m5.offering("us-east-1a", CapacityType::Spot)->price_source, PriceSource::SpotSnapshot);
  EXPECT_EQ(m5.offering("us-east-1a", CapacityType::Spot)->zone_id, "use1-az6");
  EXPECT_EQ(sources.on_demand_from_data, std::vector<std::string>{"g4dn.xlarge"});
  EXPECT_EQ(catalog->notes(), std::vector<std::string>{"on-demand prices of 1 instance types from data/aws "
                                                       "(pricing:GetProducts has none for them): g4dn.xlarge"});
  // Provider options as load_catalog sets them, for an EC2NodeClass to shape the types.
  ASSERT_NE(catalog_data(*catalog), nullptr);
  EXPECT_EQ(catalog_data(*catalog)->allocatable.vm_memory_overhead_percent, 0.075);

  // The calls as Karpenter makes them: GetProducts followed page to page, shared tenancy then bare metal.
  std::vector<testing::EmulatedCall> products;
  for (const testing::EmulatedCall& call : emulator_->calls()) {
    if (call.action == "GetProducts") products.push_back(call);
  }
  ASSERT_EQ(products.size(), 3u);
  EXPECT_FALSE(products[0].params.contains("NextToken"));
  EXPECT_EQ(products[1].params.value("NextToken", ""), "page-2");
  auto filter = [](const nlohmann::json& params, const std::string& field) {
    for (const nlohmann::json& f : params["Filters"]) {
      if (f["Field"] == field) return f["Value"].get<std::string>();
    }
    return std::string();
  };
  EXPECT_EQ(filter(products[0].params, "regionCode"), "us-east-1");
  EXPECT_EQ(filter(products[0].params, "tenancy"), "Shared");
  EXPECT_EQ(filter(products[2].params, "productFamily"), "Compute Instance (bare metal)");
  EXPECT_EQ(emulator_->count("ec2", "DescribeInstanceTypes"), 1);
  EXPECT_EQ(emulator_->count("ec2", "DescribeSpotPriceHistory"), 1);
}

TEST_F(AccountCatalogTest, EachSourceThatFailsGivesWayToTheDataAndSaysWhy) {
  const nlohmann::json denied_ec2 = {{"kind", "error"},
                                     {"service", "ec2"},
                                     {"status", 403},
                                     {"code", "UnauthorizedOperation"},
                                     {"message", "You are not authorized to perform this operation."}};
  struct Case {
    std::string name;
    nlohmann::json rule;  // null: none
    bool pricing = true;  // false: no Price List endpoint serves the region
    bool price_stub = true;
    std::string note;  // how the catalog's note opens
    // m5.large's prices by zone as expected
    std::map<std::string, double> on_demand;
    std::map<std::string, double> spot;
  };
  const std::map<std::string, double> account_spot = {{"us-east-1a", 0.00001},
                                                      {"us-east-1b", 0.00001},
                                                      {"us-east-1c", 0.00001},
                                                      {"us-east-1d", 0.00001},
                                                      {"us-east-1f", 0.00001}};
  const std::map<std::string, double> listed = {
      {"us-east-1a", 0.2}, {"us-east-1b", 0.2}, {"us-east-1c", 0.2}, {"us-east-1d", 0.2}, {"us-east-1f", 0.2}};
  const std::map<std::string, double> data_on_demand = {{"us-east-1a", 0.096},
                                                        {"us-east-1b", 0.096},
                                                        {"us-east-1c", 0.096},
                                                        {"us-east-1d", 0.096},
                                                        {"us-east-1f", 0.096}};
  nlohmann::json denied_types = denied_ec2;
  denied_types["action"] = "DescribeInstanceTypes";
  nlohmann::json denied_spot = denied_ec2;
  denied_spot["action"] = "DescribeSpotPriceHistory";
  const std::vector<Case> cases = {
      {"DescribeInstanceTypes denied", denied_types, true, true,
       "instance types: data/aws (ec2:DescribeInstanceTypes denied: UnauthorizedOperation: You are not authorized "
       "to perform this operation. (HTTP 403",
       listed, account_spot},
      // data/aws/'s observations where it has them (use1-az2 is the account's us-east-1c, use1-az4 its 1d), its
      // estimates elsewhere.
      {"DescribeSpotPriceHistory denied",
       denied_spot,
       true,
       true,
       "spot prices: data/aws (ec2:DescribeSpotPriceHistory denied: UnauthorizedOperation: You are not authorized "
       "to perform this operation. (HTTP 403",
       listed,
       {}},
      {"GetProducts denied",
       {{"kind", "error"},
        {"service", "pricing"},
        {"action", "GetProducts"},
        {"status", 400},
        {"code", "AccessDeniedException"},
        {"message", "User is not authorized to perform: pricing:GetProducts"}},
       true,
       false,
       "on-demand prices: data/aws (pricing:GetProducts denied: AccessDeniedException: User is not authorized to "
       "perform: pricing:GetProducts (HTTP 400",
       data_on_demand,
       account_spot},
      // moto itself answers HTTP 500: a transient error, tried three times.
      {"GetProducts not served", nullptr, true, false,
       "on-demand prices: data/aws (pricing:GetProducts failed: ", data_on_demand, account_spot},
      {"no pricing endpoint", nullptr, false, false,
       "on-demand prices: data/aws (no Price List API endpoint serves us-east-1)", data_on_demand, account_spot},
  };
  Result<Catalog> data = load_catalog(kAwsData, options_);
  ASSERT_TRUE(data.ok()) << data.error().message;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_EQ(emulator_->reset(), "");
    if (!c.rule.is_null()) {
      ASSERT_EQ(emulator_->add_rule(c.rule), "");
    }
    if (c.price_stub) stub_prices();
    CatalogSources sources;
    Result<Catalog> catalog =
        catalog_from_account(*ec2_, c.pricing ? pricing_.get() : nullptr, kAwsData, options_, &sources);
    ASSERT_TRUE(catalog.ok()) << catalog.error().message;
    ASSERT_FALSE(catalog->notes().empty());
    EXPECT_EQ(catalog->notes().front().rfind(c.note, 0), 0u) << catalog->notes().front();
    const InstanceType* m5 = catalog->find("m5.large");
    ASSERT_NE(m5, nullptr);
    EXPECT_EQ(offered_prices(*m5, CapacityType::OnDemand), c.on_demand);
    if (!c.spot.empty()) {
      EXPECT_EQ(offered_prices(*m5, CapacityType::Spot), c.spot);
    } else {
      EXPECT_EQ(m5->offering("us-east-1c", CapacityType::Spot)->price_per_hour, 0.0424);
      EXPECT_EQ(m5->offering("us-east-1c", CapacityType::Spot)->price_source, PriceSource::SpotSnapshot);
      EXPECT_EQ(m5->offering("us-east-1d", CapacityType::Spot)->price_per_hour, 0.0416);
      // Elsewhere the estimate data/aws/ makes for that zone ID: us-east-1a is use1-az6.
      const Offering* estimated =
          data->find("m5.large")->offering(data->find_zone_by_id("use1-az6")->name, CapacityType::Spot);
      ASSERT_NE(estimated, nullptr);
      EXPECT_EQ(m5->offering("us-east-1a", CapacityType::Spot)->price_per_hour, estimated->price_per_hour);
    }
    if (c.name == "DescribeInstanceTypes denied") {
      EXPECT_FALSE(sources.instance_types.from_account());
      for (const std::string& name : kFewTypes) {
        EXPECT_EQ(catalog->find(name)->allocatable.to_string(), data->find(name)->allocatable.to_string()) << name;
      }
    }
    // The other sources still from the account: the account's zone names.
    EXPECT_EQ(catalog->find_zone("us-east-1a")->zone_id, "use1-az6");
  }
}

TEST_F(AccountCatalogTest, ANamedTypeWithNoOnDemandPriceAnywhereIsRefused) {
  // trn2.3xlarge is in moto's catalog, not in data/aws/: with no price in the price list, it has none at all, and
  // no price is made up for it.
  stub_prices();
  options_.instance_types = {"m5.large", "trn2.3xlarge"};
  Result<Catalog> named = catalog_from_account(*ec2_, pricing_.get(), kAwsData, options_);
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.error().message, "catalog options: instance type trn2.3xlarge has no on-demand price in us-east-1");
}

}  // namespace
}  // namespace scalewright::cloud::aws
