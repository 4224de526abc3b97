// Issue [13]: the catalog refresh `scalewright run` makes at start and every 12 h (catalog_from_account), for the
// full us-east-1 catalog, against the AWS emulator (moto behind botocore's judges, tests/cloud/aws/aws_emulator.h):
// moto's 1263 instance types (1246 with Karpenter's filters) in one DescribeInstanceTypes answer, their offerings
// per zone, moto's spot prices, and pricing:GetProducts, which moto lacks, stubbed from data/aws/'s us-east-1
// on-demand prices as the Price List API serves them (one JSON document per type, 100 to a page, shared tenancy
// then bare metal). It prints, per refresh, the wall time, this process's CPU time (the rest of the wall time is
// moto's and the emulator's, which serialise and judge the answers), and the peak RSS the refresh added above the
// RSS before it; the first refresh is also moto's first EC2 answers. Each later refresh is then taken into the
// first, as the controller takes a refresh into the catalog it holds, and the time that takes is printed: the
// engine's thread spends it. A plain program:
//
//   build/bench/account_catalog_bench [--refreshes N]
//
// Skips (exit 0, one line on stderr) when the emulator cannot run here (no python3 with moto and botocore).
#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "aws_emulator.h"
#include "cloud/aws/account_catalog.h"
#include "data/csv_table.h"
#include "process_memory.h"

namespace scalewright::bench {
namespace {

using cloud::aws::testing::AwsEmulator;
using Clock = std::chrono::steady_clock;

const std::filesystem::path kData = std::filesystem::path(SCALEWRIGHT_SOURCE_DIR) / "data/aws";
constexpr std::size_t kPage = 100;  // the Price List API's largest page, which Karpenter asks for

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// One Price List entry for a type, as GetProducts returns it (a JSON document in a string).
std::string price_list_entry(const std::string& type, const std::string& usd, bool metal) {
  const std::string sku = fmt::format("SKU{:08X}", std::hash<std::string>{}(type)&0xffffffffu);
  const nlohmann::json product = {
      {"product",
       {{"productFamily", metal ? "Compute Instance (bare metal)" : "Compute Instance"},
        {"sku", sku},
        {"attributes",
         {{"instanceType", type},
          {"regionCode", "us-east-1"},
          {"operatingSystem", "Linux"},
          {"tenancy", metal ? "Dedicated" : "Shared"},
          {"preInstalledSw", "NA"},
          {"capacitystatus", "Used"},
          {"marketoption", "OnDemand"}}}}},
      {"serviceCode", "AmazonEC2"},
      {"terms",
       {{"OnDemand",
         {{sku + ".JRTCKXETXF",
           {{"offerTermCode", "JRTCKXETXF"},
            {"sku", sku},
            {"priceDimensions",
             {{sku + ".JRTCKXETXF.6YS6EN2CT7",
               {{"unit", "Hrs"},
                {"description", fmt::format("${} per On Demand Linux {} Instance Hour", usd, type)},
                {"pricePerUnit", {{"USD", usd}}}}}}}}}}}}}};
  return product.dump();
}

// The GetProducts answers for us-east-1, as rules the emulator serves in order: shared-tenancy pages, then metal.
Result<std::vector<nlohmann::json>> price_list_rules() {
  Result<data::CsvTable> table = data::CsvTable::read(kData / "prices-on-demand.csv");
  if (!table) return table.error();
  Result<std::size_t> region = table->column("region");
  Result<std::size_t> type = table->column("instance_type");
  Result<std::size_t> price = table->column("usd_per_hour");
  if (!region || !type || !price) return Error{"prices-on-demand.csv: missing a column"};
  std::vector<std::string> shared, metal;
  for (const data::CsvRow& row : table->rows()) {
    if (row[*region] != "us-east-1") continue;
    const bool is_metal = row[*type].find("metal") != std::string::npos;
    (is_metal ? metal : shared).push_back(price_list_entry(row[*type], row[*price], is_metal));
  }
  std::vector<nlohmann::json> rules;
  for (const std::vector<std::string>* entries : {&shared, &metal}) {
    for (std::size_t at = 0; at < entries->size(); at += kPage) {
      nlohmann::json body = {
          {"FormatVersion", "aws_v1"},
          {"PriceList",
           std::vector<std::string>(entries->begin() + static_cast<long>(at),
                                    entries->begin() + static_cast<long>(std::min(at + kPage, entries->size())))}};
      if (at + kPage < entries->size()) body["NextToken"] = fmt::format("page-{}", at / kPage + 2);
      rules.push_back({{"kind", "stub"},
                       {"service", "pricing"},
                       {"action", "GetProducts"},
                       {"times", 1},
                       {"body", std::move(body)}});
    }
  }
  return rules;
}

std::unique_ptr<cloud::aws::AwsClient> make_client(const AwsEmulator& emulator, cloud::aws::ApiProtocol api) {
  auto made = cloud::aws::AwsClient::create(api, "us-east-1", emulator.endpoint(), [] {
    return Result<cloud::aws::Credentials>(cloud::aws::Credentials{cloud::aws::testing::kAwsEmulatorAccessKey,
                                                                   cloud::aws::testing::kAwsEmulatorSecret, ""});
  });
  if (!made) {
    std::cerr << "account_catalog_bench: " << made.error().message << "\n";
    std::exit(1);
  }
  return std::move(*made);
}

int run(int refreshes) {
  if (auto why = AwsEmulator::unavailable()) {
    std::cerr << "account_catalog_bench skipped: the AWS emulator cannot run here: " << *why << "\n";
    return 0;
  }
  auto emulator = AwsEmulator::start();
  if (!emulator) {
    std::cerr << "account_catalog_bench: the AWS emulator did not start: " << emulator.error().message << "\n";
    return 1;
  }
  Result<std::vector<nlohmann::json>> rules = price_list_rules();
  if (!rules) {
    std::cerr << "account_catalog_bench: " << rules.error().message << "\n";
    return 1;
  }
  auto ec2 = make_client(**emulator, cloud::aws::kEc2Protocol);
  auto pricing = make_client(**emulator, cloud::aws::kPricingProtocol);
  cloud::aws::CatalogOptions options;
  options.region = "us-east-1";

  fmt::print("catalog refresh from the account, us-east-1, against the AWS emulator (moto behind botocore's judges)\n");
  cloud::Catalog held;  // the first read, as a controller holds it; the later reads are taken into it
  for (int i = 1; i <= refreshes; ++i) {
    for (const nlohmann::json& rule : *rules) {
      if (std::string failed = (*emulator)->add_rule(rule); !failed.empty()) {
        std::cerr << "account_catalog_bench: " << failed << "\n";
        return 1;
      }
    }
    reset_peak_rss();
    const double rss_before = current_rss_mib();
    const double cpu_before = cpu_seconds();
    const Clock::time_point start = Clock::now();
    cloud::aws::CatalogSources sources;
    std::size_t types = 0, offerings = 0;
    double wall = 0, cpu = 0, peak_added = 0, take_ms = 0;
    cloud::CatalogUpdate update;
    {
      Result<cloud::Catalog> catalog = cloud::aws::catalog_from_account(*ec2, pricing.get(), kData, options, &sources);
      wall = std::chrono::duration<double>(Clock::now() - start).count();
      cpu = cpu_seconds() - cpu_before;
      peak_added = peak_rss_since_reset_mib() - rss_before;
      if (!catalog) {
        std::cerr << "account_catalog_bench: " << catalog.error().message << "\n";
        return 1;
      }
      types = catalog->size();
      for (const cloud::InstanceType& type : catalog->instance_types()) offerings += type.offerings.size();
      if (i == 1) {
        for (const std::string& note : catalog->notes()) fmt::print("  note: {}\n", note);
        held = std::move(*catalog);
      } else {
        // What the engine's thread spends taking a refresh in (Ec2Provider::refresh_catalog): the prices and
        // availability of every offering held, in place.
        const Clock::time_point taking = Clock::now();
        update = held.take_prices_from(*catalog);
        take_ms = std::chrono::duration<double, std::milli>(Clock::now() - taking).count();
      }
    }
    if (i == 1) {
      for (const cloud::aws::CatalogSource* source : {&sources.instance_types, &sources.zones, &sources.offerings,
                                                      &sources.spot_prices, &sources.on_demand_prices}) {
        fmt::print("  {}\n", source->describe());
      }
      fmt::print(
          "  {} types described; left out: {} without an on-demand price, {} offered in no zone; {} priced "
          "from data/aws\n",
          sources.types_described, sources.unpriced_types.size(), sources.unoffered_types.size(),
          sources.on_demand_from_data.size());
    }
    fmt::print(
        "refresh {}: {} types, {} offerings: wall {:.3f} s, this process's CPU {:.3f} s, peak RSS added "
        "{:.1f} MiB (RSS before {:.1f} MiB)\n",
        i, types, offerings, wall, cpu, peak_added, rss_before);
    if (i > 1) {
      fmt::print("  taken into the catalog held, in place: {:.2f} ms ({} prices changed, {} offerings withdrawn)\n",
                 take_ms, update.prices_changed, update.withdrawn);
    }
    if (!(*emulator)->problems().empty()) {
      for (const std::string& problem : (*emulator)->problems()) std::cerr << "emulator: " << problem << "\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace
}  // namespace scalewright::bench

int main(int argc, char** argv) {
  int refreshes = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--refreshes" && i + 1 < argc) {
      refreshes = std::max(1, std::atoi(argv[++i]));
    } else {
      std::cerr << "usage: account_catalog_bench [--refreshes N]\n";
      return 1;
    }
  }
  return scalewright::bench::run(refreshes);
}
