#pragma once
// The catalog of one region as the account sees it, for `scalewright run` on EC2 (issue 26): the instance types EC2
// describes (DescribeInstanceTypes, with Karpenter's filters), the zones the account names (DescribeAvailabilityZones),
// which zone offers which type (DescribeInstanceTypeOfferings), the spot price in effect per type and zone
// (DescribeSpotPriceHistory) and the on-demand prices (pricing:GetProducts), read as Karpenter's AWS provider reads
// them (research: aws-provider.md §1.1). Each source that is denied or fails gives way to data/aws/ and says so; the
// types are labelled and sized by the same rules as load_catalog's (make_instance_type), so the result is the same
// kind of Catalog and an EC2NodeClass shapes it the same way.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "api/result.h"
#include "cloud/aws/aws_client.h"
#include "cloud/aws/ec2_api.h"
#include "cloud/aws/instance_types.h"
#include "cloud/catalog.h"

namespace scalewright::cloud::aws {

// Where one part of the catalog came from: the account's answer, or data/aws/ and why.
struct CatalogSource {
  std::string what;  // "on-demand prices"
  std::string call;  // "pricing:GetProducts"
  // Why data/aws/ stands in: "pricing:GetProducts denied: AccessDeniedException: ... (HTTP 400, request id ...)";
  // nullopt when the account answered.
  std::optional<std::string> fallback;

  bool from_account() const { return !fallback.has_value(); }
  // "on-demand prices: pricing:GetProducts", or "on-demand prices: data/aws (pricing:GetProducts denied: ...)".
  std::string describe() const;
};

struct CatalogSources {
  CatalogSource instance_types{"instance types", "ec2:DescribeInstanceTypes", std::nullopt};
  CatalogSource zones{"zones", "ec2:DescribeAvailabilityZones", std::nullopt};
  CatalogSource offerings{"offerings", "ec2:DescribeInstanceTypeOfferings", std::nullopt};
  CatalogSource spot_prices{"spot prices", "ec2:DescribeSpotPriceHistory", std::nullopt};
  CatalogSource on_demand_prices{"on-demand prices", "pricing:GetProducts", std::nullopt};

  std::size_t types_described = 0;  // the types read (from the account, or from data/aws/ where it stood in)
  // Types the price list had no price for, priced from data/aws/ (Karpenter too keeps its static prices under the
  // fetched ones).
  std::vector<std::string> on_demand_from_data;
  std::vector<std::string> unpriced_types;   // no on-demand price in either: left out
  std::vector<std::string> unoffered_types;  // offered in none of the region's zones: left out
};

// Whether the Price List API has prices for `region`: not for the GovCloud regions (Karpenter skips them too); the
// caller then passes no pricing client and data/aws/ prices the types.
bool price_list_serves(std::string_view region);

// The region's catalog from the account. `ec2` is a client of the region's EC2 endpoint; `pricing` one of the Price
// List API endpoint that serves the region (pricing_region in endpoints.h), or null where there is none. `data_dir`
// is data/aws/, read for what the account does not give: each source that fails, the network bandwidth label
// (Karpenter takes it from a table of its own, as data/aws/ does), Windows prices, and the on-demand price of a type
// the price list lacks. A type with no on-demand price anywhere is left out, and a note says which. `options` as for
// load_catalog (the spot fractions apply only where data/aws/ stands in for the spot prices); when it names
// instance types, only those are asked for, and each must end up in the catalog. `now` is the moment whose spot
// prices are asked for. Fails when a source fails and data/aws/ cannot stand in (its region unknown there), or on
// options load_catalog refuses.
Result<Catalog> catalog_from_account(const AwsClient& ec2, const AwsClient* pricing,
                                     const std::filesystem::path& data_dir, const CatalogOptions& options = {},
                                     CatalogSources* sources = nullptr,
                                     std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

// The hardware facts of a type as Karpenter's AWS provider reads them from DescribeInstanceTypes (instancetype
// types.go): category and generation from the name (`m` and 5 of m5.large; u-6tb1's `-6tb` skipped), family and
// size from either side of the dot; GPU and accelerator labels lower-case, spaces as '-', when the type has one kind;
// Neuron devices (Inferentia, Trainium) as AWS accelerators; local NVMe as the total instance storage when it is
// NVMe; pods as the VPC CNI allows them on the default network card, ENIs × (IPv4 addresses per ENI − 1) + 2. The
// network bandwidth is the default card's baseline, which the caller replaces by Karpenter's table where it has one.
InstanceHardware hardware_of(const Ec2InstanceTypeInfo& info);

}  // namespace scalewright::cloud::aws
