#pragma once
// AWS's instance types, as Karpenter's AWS provider knows them: the catalog of one region loaded at run time from
// data/aws/ (see data/aws/README.md): every type with an on-demand price in the region, its zones, and an on-demand
// and a spot offering per zone; each type labelled as Karpenter's AWS provider labels a node (labels.h) and its
// resources computed by the EKS formula (allocatable.h). The engine reads the neutral cloud::Catalog it fills.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/labels.h"
#include "api/resources.h"
#include "api/result.h"
#include "cloud/aws/allocatable.h"
#include "cloud/catalog.h"
#include "cloud/instance_type.h"

namespace scalewright::cloud::aws {

struct CatalogOptions {
  std::string region = "us-east-1";
  // See AllocatableOptions for what these mean.
  double vm_memory_overhead_percent = 0.075;
  std::int64_t arm64_reserved_memory_mib = 64;
  std::int64_t ephemeral_storage_bytes = std::int64_t{20} << 30;
  ResourceList system_reserved;
  // Pods per node where the data has no max_pods value.
  std::int64_t max_pods_default = 110;

  // Spot prices: the 2022-05 snapshot where it has the zone and type, otherwise on-demand × a fraction. The
  // fraction is derived per family from the snapshot unless overridden here (per family first, then for all).
  bool use_spot_snapshot = true;  // false: every spot price is an estimate
  std::optional<double> spot_fraction;
  std::map<std::string, double, std::less<>> spot_fraction_by_family;

  // When not empty, only these types (each must exist and be priced in the region).
  std::vector<std::string> instance_types;
};

AllocatableOptions allocatable_options(const CatalogOptions& options);

// spot ÷ on-demand, as derived from the snapshot for one region.
struct SpotFractions {
  // Per family with at least one observed type: the median over its observed types of each type's median
  // (over zones) spot ÷ on-demand ratio.
  std::map<std::string, double, std::less<>> by_family;
  // The median over every observed type in the region; used for families without an observation.
  double region = 0;
  std::size_t observed_types = 0;

  double for_family(std::string_view family) const;
};

struct CatalogStats {
  std::size_t types_in_data = 0;             // rows of instance-types.csv
  std::size_t windows_priced = 0;            // types with a Windows on-demand price in the region
  std::vector<std::string> unpriced_types;   // in the data, no on-demand price in the region: left out
  std::size_t prices_without_type = 0;       // priced in the region, not in instance-types.csv
  std::size_t spot_from_snapshot = 0;        // spot offerings priced from an observation
  std::size_t spot_estimated = 0;            // spot offerings priced as on-demand × fraction
};

// What load_catalog derived and skipped, and the options its types' resources were computed with: kept with the
// catalog it loaded (Catalog::provider_options), where an EC2NodeClass finds the options to shape the types again.
struct CatalogData {
  AllocatableOptions allocatable;
  SpotFractions spot_fractions;
  CatalogStats stats;
};
// The data of a catalog load_catalog loaded, or of one an EC2NodeClass shaped from it; null for explicit types.
const CatalogData* catalog_data(const Catalog& catalog);
// The options `catalog`'s types were computed with: load_catalog's, or the defaults for explicit types.
const AllocatableOptions& allocatable_options(const Catalog& catalog);

// Reads regions.csv, zone-ids.csv, prices-on-demand.csv, prices-on-demand-windows.csv (when there is one),
// prices-spot-2022-05.csv and instance-types.csv from `data_dir`. Errors name the file, line and column at fault,
// or the option that is out of range. A region with no on-demand price, or no zone ID, is refused naming it; one
// with no spot observation and no `spot_fraction` has no spot offerings, and a note says so (no price is made up).
Result<Catalog> load_catalog(const std::filesystem::path& data_dir, const CatalogOptions& options = {});
// Whether regions.csv in `data_dir` knows `region`: nullopt, or `<file>: unknown region "<region>"` (or why the
// file could not be read). The simulate command asks first, to name the Scenario's field in its error.
std::optional<Error> check_region(const std::filesystem::path& data_dir, const std::string& region);

// Zone names for a region's zone IDs: sorted by the number after "-az", then named <region>a, <region>b, ...
// Real AWS accounts map names to IDs differently (the mapping is shuffled per account).
std::vector<Zone> name_zones(std::string_view region, std::vector<std::string> zone_ids);

// An instance type with labels, capacity, overhead and allocatable filled in from its hardware, no offerings.
InstanceType make_instance_type(std::string name, InstanceHardware hardware, const AllocatableOptions& options = {},
                                std::string_view region = "");

// Appends an on-demand and a spot offering per zone at the given prices.
void add_offerings(InstanceType& type, const std::vector<Zone>& zones, double on_demand_price, double spot_price);

// The labels Karpenter's AWS provider puts on a node of this type (zone and capacity type come from the
// offering a node is launched from). `region` is added as topology.kubernetes.io/region when not empty.
Labels instance_type_labels(std::string_view name, const InstanceHardware& hardware, std::string_view region);

// The providerID of an EC2 instance's node, as the AWS cloud controller writes it: "aws:///us-east-1a/i-0abc...".
std::string provider_id(std::string_view zone, std::string_view instance_id);

}  // namespace scalewright::cloud::aws
