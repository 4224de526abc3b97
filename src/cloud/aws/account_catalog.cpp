#include "cloud/aws/account_catalog.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <any>
#include <cctype>
#include <cmath>
#include <ctime>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace scalewright::cloud::aws {
namespace {

// Karpenter's lowerKabobCase: "Radeon Pro V520" -> "radeon-pro-v520".
std::string label_value(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = c == ' ' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::int64_t device_count(const std::vector<Ec2InstanceTypeInfo::Device>& devices) {
  std::int64_t count = 0;
  for (const auto& device : devices) count += device.count;
  return count;
}

// The category and generation Karpenter reads from a name with ^([a-z]+)(-[0-9]+tb)?([0-9]+).*\. : letters, an
// optional "-<n>tb" (u-6tb1), digits, and a dot after them somewhere.
void name_parts(std::string_view name, InstanceHardware& hw) {
  const std::size_t dot = name.find('.');
  if (dot != std::string_view::npos && name.find('.', dot + 1) == std::string_view::npos) {
    hw.family = std::string(name.substr(0, dot));
    hw.size = std::string(name.substr(dot + 1));
  }
  if (dot == std::string_view::npos) return;
  std::size_t at = 0;
  while (at < dot && std::islower(static_cast<unsigned char>(name[at]))) ++at;
  if (at == 0) return;
  const std::string category(name.substr(0, at));
  std::size_t digits = at;
  if (digits < dot && name[digits] == '-') {  // "-6tb" then the generation's digits, or no match
    std::size_t tb = digits + 1;
    while (tb < dot && std::isdigit(static_cast<unsigned char>(name[tb]))) ++tb;
    if (tb > digits + 1 && name.substr(tb, 2) == "tb") digits = tb + 2;
  }
  std::size_t end = digits;
  while (end < dot && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
  if (end == digits) return;
  hw.category = category;
  hw.generation = std::stoll(std::string(name.substr(digits, end - digits)));
}

std::string fallback_reason(const AwsError& error) {
  const bool denied =
      error.code == "UnauthorizedOperation" || error.code.starts_with("AccessDenied") || error.status == 403;
  std::string detail = error.describe();
  // describe() opens with "<service> <action>: ", which the call's name says already.
  const std::string opening = fmt::format("{} {}: ", error.service, error.action);
  if (detail.starts_with(opening)) detail.erase(0, opening.size());
  return fmt::format("{}:{} {}: {}", error.service, error.action, denied ? "denied" : "failed", detail);
}

// "a, b, c and 12 more"
std::string some_names(const std::vector<std::string>& names, std::size_t shown = 10) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > shown) out += fmt::format(" and {} more", names.size() - shown);
  return out;
}

std::string iso8601(std::chrono::system_clock::time_point at) {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(at)));
}

// One type as the catalog is built from it.
struct Described {
  std::string name;
  InstanceHardware hardware;
  bool on_demand = true;  // the usage classes EC2 lists for it
  bool spot = true;
};

}  // namespace

std::string CatalogSource::describe() const {
  if (!fallback) return fmt::format("{}: {}", what, call);
  return fmt::format("{}: data/aws ({})", what, *fallback);
}

bool price_list_serves(std::string_view region) { return !region.starts_with("us-gov-"); }

InstanceHardware hardware_of(const Ec2InstanceTypeInfo& info) {
  InstanceHardware hw;
  name_parts(info.name, hw);
  hw.vcpu = info.vcpu;
  hw.memory_mib = info.memory_mib;
  // The first architecture Kubernetes has a name for (Karpenter's getArchitecture).
  hw.arch.clear();
  for (const std::string& arch : info.architectures) {
    if (arch == "x86_64" || arch == "arm64") {
      hw.arch = arch == "x86_64" ? "amd64" : "arm64";
      break;
    }
  }
  if (!info.gpus.empty()) {
    hw.gpu_count = device_count(info.gpus);
    hw.gpu_manufacturer = label_value(info.gpus.front().manufacturer);
    if (info.gpus.size() == 1) {  // Karpenter labels a type's GPUs only when they are of one kind
      hw.gpu_name = label_value(info.gpus.front().name);
      hw.gpu_memory_mib = info.gpus.front().memory_mib;
    }
  }
  if (!info.neuron_devices.empty()) {
    hw.accelerator_name = label_value(info.neuron_devices.front().name);
    hw.accelerator_manufacturer = "aws";
    hw.accelerator_count = device_count(info.neuron_devices);
  } else if (info.inference_accelerators.size() == 1) {
    hw.accelerator_name = label_value(info.inference_accelerators.front().name);
    hw.accelerator_manufacturer = label_value(info.inference_accelerators.front().manufacturer);
    hw.accelerator_count = info.inference_accelerators.front().count;
  }
  hw.efa_count = info.efa_interfaces;
  hw.local_nvme_gib = info.instance_storage_gb;
  hw.hypervisor = info.hypervisor;
  hw.cpu_manufacturer = label_value(info.processor_manufacturer);
  if (info.default_card_baseline_gbps) {
    hw.network_bandwidth_mbps = std::llround(*info.default_card_baseline_gbps * 1000);
  }
  hw.bare_metal = info.bare_metal;
  hw.burstable = info.burstable;
  // The VPC CNI uses the default network card only (Karpenter's ENILimitedPods, no ENIs reserved).
  hw.max_pods = info.default_card_enis > 0 ? info.default_card_enis * (info.ipv4_per_eni - 1) + 2 : 0;
  return hw;
}

Result<Catalog> catalog_from_account(const AwsClient& ec2_client, const AwsClient* pricing,
                                     const std::filesystem::path& data_dir, const CatalogOptions& options,
                                     CatalogSources* sources_out, std::chrono::system_clock::time_point now) {
  CatalogSources sources;
  const std::string& region = options.region;

  // data/aws/: what stands in for a source that fails, and the facts the account does not give.
  CatalogOptions data_options = options;
  data_options.instance_types.clear();
  Result<Catalog> data = load_catalog(data_dir, data_options);
  if (!data && data.error().message.starts_with("catalog options")) return data.error();
  const Catalog* data_catalog = data ? &*data : nullptr;
  const CatalogData* data_facts = data_catalog ? catalog_data(*data_catalog) : nullptr;
  // Fails the whole catalog when data/aws/ must stand in and cannot.
  auto need_data = [&](const CatalogSource& source) -> std::optional<Error> {
    if (data_catalog) return std::nullopt;
    return Error{fmt::format("{}, and data/aws/ cannot stand in: {}", *source.fallback, data.error().message)};
  };

  Ec2Api ec2(ec2_client);
  const std::vector<std::string>& wanted = options.instance_types;
  std::unordered_set<std::string_view> allowed(wanted.begin(), wanted.end());

  // Zones, as this account names them.
  std::vector<Zone> zones;
  if (AwsResult<std::vector<Ec2Zone>> answered = ec2.describe_availability_zones(); answered && !answered->empty()) {
    for (const Ec2Zone& zone : *answered) zones.push_back(Zone{zone.name, zone.id});
    std::sort(zones.begin(), zones.end(), [](const Zone& a, const Zone& b) { return a.name < b.name; });
  } else {
    sources.zones.fallback =
        answered ? std::string("ec2:DescribeAvailabilityZones answered no zone") : fallback_reason(answered.error());
    if (auto error = need_data(sources.zones)) return *error;
    zones = data_catalog->zones();
  }

  // Instance types.
  std::vector<Described> described;
  if (AwsResult<std::vector<Ec2InstanceTypeInfo>> answered = ec2.describe_instance_types(wanted); answered) {
    described.reserve(answered->size());
    for (const Ec2InstanceTypeInfo& info : *answered) {
      Described type{info.name, hardware_of(info), false, false};
      if (type.hardware.arch.empty()) continue;  // neither x86_64 nor arm64: the filters keep these out already
      for (const std::string& usage : info.usage_classes) {
        type.on_demand |= usage == "on-demand";
        type.spot |= usage == "spot";
      }
      // Karpenter labels network bandwidth from a table of its own (zz_generated.bandwidth.go), which data/aws/
      // carries; the card's baseline serves for types the table lacks.
      if (const InstanceType* known = data_catalog ? data_catalog->find(info.name) : nullptr) {
        type.hardware.network_bandwidth_mbps = known->hardware.network_bandwidth_mbps;
      }
      described.push_back(std::move(type));
    }
  } else {
    sources.instance_types.fallback = fallback_reason(answered.error());
    if (auto error = need_data(sources.instance_types)) return *error;
    for (const InstanceType& type : data_catalog->instance_types()) {
      if (allowed.empty() || allowed.contains(type.name)) described.push_back({type.name, type.hardware, true, true});
    }
  }
  std::sort(described.begin(), described.end(), [](const Described& a, const Described& b) { return a.name < b.name; });
  sources.types_described = described.size();

  // Which zones offer which type.
  std::unordered_map<std::string, std::set<std::string, std::less<>>> offered;
  if (AwsResult<std::vector<Ec2TypeOffering>> answered = ec2.describe_instance_type_offerings(wanted); answered) {
    for (Ec2TypeOffering& offering : *answered) offered[offering.instance_type].insert(std::move(offering.zone));
  } else {
    sources.offerings.fallback = fallback_reason(answered.error());  // every zone offers every type, as in data/aws
  }

  // Spot prices in effect now: the latest row per type and zone.
  struct SpotRow {
    double price = 0;
    std::string timestamp;
  };
  std::unordered_map<std::string, std::unordered_map<std::string, SpotRow>> spot;
  if (AwsResult<std::vector<Ec2SpotPrice>> answered = ec2.describe_spot_price_history(wanted, iso8601(now));
      answered && !answered->empty()) {
    for (Ec2SpotPrice& row : *answered) {
      if (!(row.price > 0)) continue;
      SpotRow& slot = spot[row.instance_type][row.zone];
      // ISO 8601 times in UTC compare correctly as text.
      if (slot.timestamp.empty() || slot.timestamp < row.timestamp) slot = SpotRow{row.price, std::move(row.timestamp)};
    }
  } else {
    // Karpenter, too, keeps its earlier prices when the answer has none ("no spot pricing found").
    sources.spot_prices.fallback =
        answered ? std::string("ec2:DescribeSpotPriceHistory answered no price") : fallback_reason(answered.error());
    if (auto error = need_data(sources.spot_prices)) return *error;
  }

  // On-demand prices.
  std::map<std::string, double, std::less<>> on_demand;
  if (pricing == nullptr) {
    sources.on_demand_prices.fallback = fmt::format("no Price List API endpoint serves {}", region);
  } else if (AwsResult<std::map<std::string, double, std::less<>>> answered = on_demand_prices(*pricing, region);
             !answered) {
    sources.on_demand_prices.fallback = fallback_reason(answered.error());
  } else if (answered->empty()) {
    sources.on_demand_prices.fallback = "pricing:GetProducts answered no price";
  } else {
    on_demand = std::move(*answered);
  }
  if (sources.on_demand_prices.fallback) {
    if (auto error = need_data(sources.on_demand_prices)) return *error;
  }

  // The spot fraction load_catalog would estimate a type's spot price with, where data/aws/ stands in.
  const bool spot_known =
      data_facts != nullptr && (data_facts->spot_fractions.observed_types > 0 || options.spot_fraction);
  auto spot_fraction = [&](const std::string& family) {
    double fraction = data_facts->spot_fractions.for_family(family);
    if (options.spot_fraction) fraction = *options.spot_fraction;
    if (auto it = options.spot_fraction_by_family.find(family); it != options.spot_fraction_by_family.end()) {
      fraction = it->second;
    }
    return fraction;
  };

  auto facts = std::make_shared<CatalogData>();
  facts->allocatable = allocatable_options(options);
  if (data_facts != nullptr) {
    facts->spot_fractions = data_facts->spot_fractions;
    facts->stats.types_in_data = data_facts->stats.types_in_data;
  }
  std::vector<InstanceType> types;
  types.reserve(described.size());
  for (Described& source : described) {
    const InstanceType* known = data_catalog ? data_catalog->find(source.name) : nullptr;
    std::optional<double> price;
    if (auto it = on_demand.find(source.name); it != on_demand.end()) price = it->second;
    if (!price && known != nullptr && !known->offerings.empty()) {
      price = known->offerings.front().price_per_hour;  // every zone has the type's one list price
      if (sources.on_demand_prices.from_account()) sources.on_demand_from_data.push_back(source.name);
    }
    if (!price) {
      sources.unpriced_types.push_back(source.name);
      continue;
    }
    InstanceType type =
        make_instance_type(std::move(source.name), std::move(source.hardware), facts->allocatable, region);
    if (known != nullptr && known->windows_on_demand) {
      type.windows_on_demand = known->windows_on_demand;
      ++facts->stats.windows_priced;
    }
    const auto zones_of_type = offered.find(type.name);
    const auto spot_of_type = spot.find(type.name);
    for (const Zone& zone : zones) {
      if (sources.offerings.from_account() &&
          (zones_of_type == offered.end() || !zones_of_type->second.contains(zone.name))) {
        continue;
      }
      if (source.on_demand) {
        type.offerings.push_back(
            Offering{zone.name, zone.zone_id, CapacityType::OnDemand, *price, PriceSource::OnDemandList, true});
      }
      if (!source.spot) continue;
      if (sources.spot_prices.from_account()) {
        if (spot_of_type == spot.end()) continue;
        auto row = spot_of_type->second.find(zone.name);
        if (row == spot_of_type->second.end()) continue;  // no price there: no spot offering, as in Karpenter
        type.offerings.push_back(
            Offering{zone.name, zone.zone_id, CapacityType::Spot, row->second.price, PriceSource::SpotSnapshot, true});
        ++facts->stats.spot_from_snapshot;
        continue;
      }
      // data/aws/ stands in: its price for this zone ID (observed or estimated), else the estimate load_catalog makes.
      const Offering* from_data = nullptr;
      if (known != nullptr) {
        for (const Offering& o : known->offerings) {
          if (o.capacity_type == CapacityType::Spot && o.zone_id == zone.zone_id) from_data = &o;
        }
      }
      if (from_data != nullptr) {
        type.offerings.push_back(Offering{zone.name, zone.zone_id, CapacityType::Spot, from_data->price_per_hour,
                                          from_data->price_source, true});
      } else if (spot_known) {
        type.offerings.push_back(Offering{zone.name, zone.zone_id, CapacityType::Spot,
                                          *price * spot_fraction(type.hardware.family), PriceSource::SpotEstimate,
                                          true});
      } else {
        continue;
      }
      ++(type.offerings.back().price_source == PriceSource::SpotSnapshot ? facts->stats.spot_from_snapshot
                                                                         : facts->stats.spot_estimated);
    }
    if (type.offerings.empty()) {
      sources.unoffered_types.push_back(type.name);
      continue;
    }
    types.push_back(std::move(type));
  }
  facts->stats.unpriced_types = sources.unpriced_types;

  for (const std::string& name : wanted) {
    auto has = [&name](const std::vector<std::string>& list) {
      return std::find(list.begin(), list.end(), name) != list.end();
    };
    if (std::any_of(types.begin(), types.end(), [&name](const InstanceType& t) { return t.name == name; })) continue;
    const char* why = has(sources.unpriced_types)    ? "has no on-demand price"
                      : has(sources.unoffered_types) ? "is offered in none of its zones"
                                                     : "is not described by the account";
    return Error{fmt::format("catalog options: instance type {} {} in {}", name, why, region)};
  }

  Catalog catalog = Catalog::from_instance_types(region, std::move(zones), std::move(types));
  for (const CatalogSource* source :
       {&sources.instance_types, &sources.zones, &sources.offerings, &sources.spot_prices, &sources.on_demand_prices}) {
    if (!source->from_account()) catalog.add_note(source->describe());
  }
  if (!sources.spot_prices.from_account() && !spot_known) {
    catalog.add_note(
        fmt::format("spot prices are not known for region {}: its types are offered on demand only", region));
  }
  if (!sources.on_demand_from_data.empty()) {
    catalog.add_note(
        fmt::format("on-demand prices of {} instance types from data/aws (pricing:GetProducts has none "
                    "for them): {}",
                    sources.on_demand_from_data.size(), some_names(sources.on_demand_from_data)));
  }
  if (!sources.unpriced_types.empty()) {
    catalog.add_note(
        fmt::format("{} instance types left out: no on-demand price in {}: {}", sources.unpriced_types.size(),
                    sources.on_demand_prices.from_account() ? "pricing:GetProducts or data/aws" : "data/aws",
                    some_names(sources.unpriced_types)));
  }
  catalog.set_provider_options(std::shared_ptr<const CatalogData>(std::move(facts)));
  if (sources_out != nullptr) *sources_out = std::move(sources);
  return catalog;
}

}  // namespace scalewright::cloud::aws
