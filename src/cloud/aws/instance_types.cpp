#include "cloud/aws/instance_types.h"

#include <algorithm>
#include <any>
#include <charconv>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "api/meta.h"
#include "cloud/aws/labels.h"
#include "data/csv_table.h"

namespace scalewright::cloud::aws {
namespace {

constexpr std::string_view kRegionsFile = "regions.csv";
constexpr std::string_view kZoneIdsFile = "zone-ids.csv";
constexpr std::string_view kOnDemandFile = "prices-on-demand.csv";
constexpr std::string_view kWindowsFile = "prices-on-demand-windows.csv";
constexpr std::string_view kSpotFile = "prices-spot-2022-05.csv";
constexpr std::string_view kInstanceTypesFile = "instance-types.csv";

// Reads typed fields of one row and keeps the first error, so a row is read in straight lines.
class RowReader {
 public:
  RowReader(const data::CsvTable& table, const data::CsvRow& row) : table_(table), row_(row) {}

  const std::string& text(std::size_t column) { return row_[column]; }
  std::string required_text(std::size_t column) { return keep(table_.text(row_, column), std::string()); }
  std::int64_t integer(std::size_t column) { return keep(table_.integer(row_, column), std::int64_t{0}); }
  std::optional<std::int64_t> optional_integer(std::size_t column) {
    return keep(table_.optional_integer(row_, column), std::optional<std::int64_t>());
  }
  double number(std::size_t column) { return keep(table_.number(row_, column), 0.0); }
  bool boolean(std::size_t column) { return keep(table_.boolean(row_, column), false); }
  // Records `why` against `column` when `ok` is false (and no earlier error is pending).
  void check(bool ok, std::size_t column, std::string_view why) {
    if (!ok && !error_) error_ = table_.error_at(row_, column, why);
  }
  const std::optional<Error>& error() const { return error_; }

 private:
  template <typename T>
  T keep(Result<T> result, T fallback) {
    if (result) return std::move(result).value();
    if (!error_) error_ = result.error();
    return fallback;
  }

  const data::CsvTable& table_;
  const data::CsvRow& row_;
  std::optional<Error> error_;
};

// Resolves header names to indices; the first missing one is the error.
class Columns {
 public:
  explicit Columns(const data::CsvTable& table) : table_(table) {}
  std::size_t operator()(std::string_view name) {
    Result<std::size_t> index = table_.column(name);
    if (index) return *index;
    if (!error_) error_ = index.error();
    return 0;
  }
  const std::optional<Error>& error() const { return error_; }

 private:
  const data::CsvTable& table_;
  std::optional<Error> error_;
};

Result<data::CsvTable> read_table(const std::filesystem::path& data_dir, std::string_view file) {
  return data::CsvTable::read(data_dir / file);
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

std::optional<Error> validate(const CatalogOptions& options) {
  auto fail = [](std::string message) { return std::optional<Error>(Error{std::move(message)}); };
  if (options.region.empty()) return fail("catalog options: region must not be empty");
  if (!(options.vm_memory_overhead_percent >= 0 && options.vm_memory_overhead_percent < 1)) {
    return fail(fmt::format("catalog options: vm_memory_overhead_percent {} is outside [0, 1)",
                            options.vm_memory_overhead_percent));
  }
  if (options.arm64_reserved_memory_mib < 0) return fail("catalog options: arm64_reserved_memory_mib is negative");
  if (options.ephemeral_storage_bytes <= 0) return fail("catalog options: ephemeral_storage_bytes must be positive");
  if (options.system_reserved.any_negative()) return fail("catalog options: system_reserved has a negative amount");
  if (options.max_pods_default <= 0) return fail("catalog options: max_pods_default must be positive");
  auto bad_fraction = [](double f) { return !(f > 0 && f <= 1); };
  if (options.spot_fraction && bad_fraction(*options.spot_fraction)) {
    return fail(fmt::format("catalog options: spot_fraction {} is outside (0, 1]", *options.spot_fraction));
  }
  for (const auto& [family, fraction] : options.spot_fraction_by_family) {
    if (bad_fraction(fraction)) {
      return fail(fmt::format("catalog options: spot_fraction_by_family[{}] {} is outside (0, 1]", family, fraction));
    }
  }
  return std::nullopt;
}

Result<std::string> region_code(const std::filesystem::path& data_dir, const std::string& region) {
  Result<data::CsvTable> table = read_table(data_dir, kRegionsFile);
  if (!table) return table.error();
  Columns columns(*table);
  const std::size_t region_column = columns("region");
  const std::size_t code_column = columns("region_code");
  if (columns.error()) return *columns.error();
  for (const data::CsvRow& row : table->rows()) {
    if (row[region_column] != region) continue;
    if (row[code_column].empty()) return table->error_at(row, code_column, "must not be empty");
    return row[code_column];
  }
  return Error{fmt::format("{}: unknown region \"{}\"", table->source(), region)};
}

// The zone IDs whose region code is `code`, deduplicated.
Result<std::vector<std::string>> region_zone_ids(const std::filesystem::path& data_dir, const std::string& code) {
  Result<data::CsvTable> table = read_table(data_dir, kZoneIdsFile);
  if (!table) return table.error();
  Columns columns(*table);
  const std::size_t code_column = columns("region_code");
  const std::size_t zone_column = columns("zone_id");
  if (columns.error()) return *columns.error();
  std::vector<std::string> ids;
  for (const data::CsvRow& row : table->rows()) {
    if (row[code_column] != code) continue;
    if (!row[zone_column].starts_with(code + "-")) {
      return table->error_at(row, zone_column, fmt::format("zone ID \"{}\" does not start with \"{}-\"",
                                                           row[zone_column], code));
    }
    if (std::find(ids.begin(), ids.end(), row[zone_column]) == ids.end()) ids.push_back(row[zone_column]);
  }
  return ids;
}

struct OnDemandPrices {
  std::unordered_map<std::string, double> by_type;
};

Result<OnDemandPrices> read_on_demand(const std::filesystem::path& data_dir, std::string_view file,
                                      const std::string& region) {
  Result<data::CsvTable> table = read_table(data_dir, file);
  if (!table) return table.error();
  Columns columns(*table);
  const std::size_t region_column = columns("region");
  const std::size_t type_column = columns("instance_type");
  const std::size_t price_column = columns("usd_per_hour");
  if (columns.error()) return *columns.error();
  OnDemandPrices prices;
  std::unordered_map<std::string, std::size_t> first_line;
  for (const data::CsvRow& row : table->rows()) {
    if (row[region_column] != region) continue;
    RowReader read(*table, row);
    std::string type = read.required_text(type_column);
    const double price = read.number(price_column);
    read.check(price > 0, price_column, "price must be positive");
    if (read.error()) return *read.error();
    auto [it, inserted] = first_line.emplace(type, row.line);
    if (!inserted) {
      return table->error_at(row, type_column,
                             fmt::format("second price for {} in {} (first on line {})", type, region, it->second));
    }
    prices.by_type.emplace(std::move(type), price);
  }
  return prices;
}

// One row of instance-types.csv that the region prices.
struct PricedType {
  std::string name;
  InstanceHardware hardware;
  double on_demand = 0;
  struct Observation {
    double price = 0;
    std::string observed_at;
  };
  std::vector<std::optional<Observation>> spot;  // by zone index
};

struct TypesRead {
  std::vector<PricedType> priced;  // sorted by name
  std::size_t rows = 0;
  std::vector<std::string> unpriced;
  std::unordered_set<std::string> names;
};

Result<TypesRead> read_instance_types(const std::filesystem::path& data_dir, const OnDemandPrices& prices,
                                      std::size_t zone_count, std::int64_t max_pods_default) {
  Result<data::CsvTable> table = read_table(data_dir, kInstanceTypesFile);
  if (!table) return table.error();
  Columns col(*table);
  const std::size_t name = col("name"), family = col("family"), generation = col("generation"), size = col("size"),
                    category = col("category"), vcpu = col("vcpu"), memory_mib = col("memory_mib"),
                    arch = col("arch"), gpu_count = col("gpu_count"), gpu_name = col("gpu_name"),
                    gpu_manufacturer = col("gpu_manufacturer"), gpu_memory_mib = col("gpu_memory_mib"),
                    max_pods = col("max_pods"), bare_metal = col("bare_metal"), burstable = col("burstable"),
                    local_nvme_gib = col("local_nvme_gib"), accelerator_name = col("accelerator_name"),
                    accelerator_manufacturer = col("accelerator_manufacturer"),
                    accelerator_count = col("accelerator_count"), efa_count = col("efa_count"),
                    hypervisor = col("hypervisor"), cpu_manufacturer = col("cpu_manufacturer"),
                    network_bandwidth_mbps = col("network_bandwidth_mbps");
  if (col.error()) return *col.error();

  TypesRead out;
  out.rows = table->rows().size();
  out.priced.reserve(prices.by_type.size());
  for (const data::CsvRow& row : table->rows()) {
    RowReader read(*table, row);
    PricedType type;
    type.name = read.required_text(name);
    InstanceHardware& hw = type.hardware;
    hw.family = read.required_text(family);
    hw.generation = read.optional_integer(generation);
    hw.size = read.required_text(size);
    hw.category = read.required_text(category);
    hw.vcpu = read.integer(vcpu);
    read.check(hw.vcpu > 0, vcpu, "must be positive");
    hw.memory_mib = read.integer(memory_mib);
    read.check(hw.memory_mib > 0, memory_mib, "must be positive");
    hw.arch = read.required_text(arch);
    read.check(hw.arch == "amd64" || hw.arch == "arm64", arch, "expected amd64 or arm64");
    hw.gpu_count = read.optional_integer(gpu_count).value_or(0);
    hw.gpu_name = read.text(gpu_name);
    hw.gpu_manufacturer = read.text(gpu_manufacturer);
    hw.gpu_memory_mib = read.optional_integer(gpu_memory_mib);
    hw.max_pods = read.optional_integer(max_pods).value_or(max_pods_default);
    read.check(hw.max_pods > 0, max_pods, "must be positive");
    hw.bare_metal = read.boolean(bare_metal);
    hw.burstable = read.boolean(burstable);
    hw.local_nvme_gib = read.optional_integer(local_nvme_gib);
    hw.accelerator_name = read.text(accelerator_name);
    hw.accelerator_manufacturer = read.text(accelerator_manufacturer);
    hw.accelerator_count = read.optional_integer(accelerator_count).value_or(0);
    hw.efa_count = read.optional_integer(efa_count).value_or(0);
    hw.hypervisor = read.text(hypervisor);
    hw.cpu_manufacturer = read.text(cpu_manufacturer);
    hw.network_bandwidth_mbps = read.optional_integer(network_bandwidth_mbps);
    read.check(hw.gpu_count >= 0 && hw.accelerator_count >= 0 && hw.efa_count >= 0, gpu_count,
               "device counts must not be negative");
    if (read.error()) return *read.error();
    if (!out.names.insert(type.name).second) {
      return table->error_at(row, name, fmt::format("instance type {} appears twice", type.name));
    }
    auto price = prices.by_type.find(type.name);
    if (price == prices.by_type.end()) {
      out.unpriced.push_back(std::move(type.name));
      continue;
    }
    type.on_demand = price->second;
    type.spot.resize(zone_count);
    out.priced.push_back(std::move(type));
  }
  auto by_name = [](const PricedType& a, const PricedType& b) { return a.name < b.name; };
  if (!std::is_sorted(out.priced.begin(), out.priced.end(), by_name)) {  // the file is kept sorted
    std::sort(out.priced.begin(), out.priced.end(), by_name);
  }
  return out;
}

// Keeps, per priced type and zone of the region, the latest spot observation.
std::optional<Error> read_spot(const std::filesystem::path& data_dir,
                               const std::unordered_map<std::string_view, std::size_t>& zone_index,
                               std::vector<PricedType>& priced) {
  Result<data::CsvTable> table = read_table(data_dir, kSpotFile);
  if (!table) return table.error();
  Columns columns(*table);
  const std::size_t zone_column = columns("zone_id");
  const std::size_t type_column = columns("instance_type");
  const std::size_t price_column = columns("usd_per_hour");
  const std::size_t time_column = columns("observed_at");
  if (columns.error()) return columns.error();

  std::unordered_map<std::string_view, std::size_t> type_index;
  type_index.reserve(priced.size());
  for (std::size_t i = 0; i < priced.size(); ++i) type_index.emplace(priced[i].name, i);

  for (const data::CsvRow& row : table->rows()) {
    auto zone = zone_index.find(row[zone_column]);
    if (zone == zone_index.end()) continue;  // another region
    auto type = type_index.find(row[type_column]);
    if (type == type_index.end()) continue;  // not priced on demand here, so not in the catalog
    RowReader read(*table, row);
    const double price = read.number(price_column);
    read.check(price > 0, price_column, "price must be positive");
    std::string observed_at = read.required_text(time_column);
    if (read.error()) return read.error();
    // ISO 8601 times in UTC compare correctly as text.
    std::optional<PricedType::Observation>& slot = priced[type->second].spot[zone->second];
    if (!slot || slot->observed_at < observed_at) slot = PricedType::Observation{price, std::move(observed_at)};
  }
  return std::nullopt;
}

SpotFractions derive_spot_fractions(const std::vector<PricedType>& priced) {
  SpotFractions fractions;
  std::map<std::string, std::vector<double>, std::less<>> by_family;
  std::vector<double> all;
  for (const PricedType& type : priced) {
    std::vector<double> ratios;
    for (const auto& observation : type.spot) {
      if (observation) ratios.push_back(observation->price / type.on_demand);
    }
    if (ratios.empty()) continue;
    const double type_ratio = median(std::move(ratios));
    by_family[type.hardware.family].push_back(type_ratio);
    all.push_back(type_ratio);
  }
  for (auto& [family, ratios] : by_family) fractions.by_family.emplace(family, median(std::move(ratios)));
  fractions.observed_types = all.size();
  fractions.region = median(std::move(all));
  return fractions;
}

std::optional<std::int64_t> zone_number(std::string_view zone_id) {
  const std::size_t at = zone_id.rfind("-az");
  if (at == std::string_view::npos) return std::nullopt;
  std::int64_t number = 0;
  const char* first = zone_id.data() + at + 3;
  const char* last = zone_id.data() + zone_id.size();
  auto [end, error] = std::from_chars(first, last, number);
  if (error != std::errc() || end != last) return std::nullopt;
  return number;
}

}  // namespace

std::optional<Error> check_region(const std::filesystem::path& data_dir, const std::string& region) {
  Result<std::string> code = region_code(data_dir, region);
  if (!code) return code.error();
  return std::nullopt;
}

AllocatableOptions allocatable_options(const CatalogOptions& options) {
  AllocatableOptions out;
  out.vm_memory_overhead_percent = options.vm_memory_overhead_percent;
  out.arm64_reserved_memory_mib = options.arm64_reserved_memory_mib;
  out.ephemeral_storage_bytes = options.ephemeral_storage_bytes;
  out.system_reserved = options.system_reserved;
  return out;
}

const CatalogData* catalog_data(const Catalog& catalog) {
  const auto* data = std::any_cast<std::shared_ptr<const CatalogData>>(&catalog.provider_options());
  return data != nullptr ? data->get() : nullptr;
}

const AllocatableOptions& allocatable_options(const Catalog& catalog) {
  static const AllocatableOptions defaults;
  const CatalogData* data = catalog_data(catalog);
  return data != nullptr ? data->allocatable : defaults;
}

double SpotFractions::for_family(std::string_view family) const {
  auto it = by_family.find(family);
  return it != by_family.end() ? it->second : region;
}

std::vector<Zone> name_zones(std::string_view region, std::vector<std::string> zone_ids) {
  std::sort(zone_ids.begin(), zone_ids.end(), [](const std::string& a, const std::string& b) {
    const auto na = zone_number(a);
    const auto nb = zone_number(b);
    if (na && nb && *na != *nb) return *na < *nb;
    return a < b;
  });
  std::vector<Zone> zones;
  zones.reserve(zone_ids.size());
  for (std::size_t i = 0; i < zone_ids.size(); ++i) {
    // Past 26 zones the letters would run out; no AWS region comes close.
    zones.push_back(Zone{fmt::format("{}{}", region, static_cast<char>('a' + i % 26)), std::move(zone_ids[i])});
  }
  return zones;
}

InstanceType make_instance_type(std::string name, InstanceHardware hardware, const AllocatableOptions& options,
                                std::string_view region) {
  InstanceType type;
  type.name = std::move(name);
  type.hardware = std::move(hardware);
  type.labels = instance_type_labels(type.name, type.hardware, region);
  compute_resources(type, options);
  return type;
}

void add_offerings(InstanceType& type, const std::vector<Zone>& zones, double on_demand_price, double spot_price) {
  for (const Zone& zone : zones) {
    type.offerings.push_back(
        Offering{zone.name, zone.zone_id, CapacityType::OnDemand, on_demand_price, PriceSource::OnDemandList, true});
    type.offerings.push_back(
        Offering{zone.name, zone.zone_id, CapacityType::Spot, spot_price, PriceSource::SpotEstimate, true});
  }
}

Result<Catalog> load_catalog(const std::filesystem::path& data_dir, const CatalogOptions& options) {
  if (auto invalid = validate(options)) return *invalid;

  Result<std::string> code = region_code(data_dir, options.region);
  if (!code) return code.error();
  Result<std::vector<std::string>> zone_ids = region_zone_ids(data_dir, *code);
  if (!zone_ids) return zone_ids.error();
  if (zone_ids->empty()) {
    return Error{fmt::format("{}: no zone IDs for region {} (region code {})",
                             (data_dir / kZoneIdsFile).string(), options.region, *code)};
  }
  std::vector<Zone> zones = name_zones(options.region, std::move(zone_ids).value());
  std::unordered_map<std::string_view, std::size_t> zone_index;
  for (std::size_t i = 0; i < zones.size(); ++i) zone_index.emplace(zones[i].zone_id, i);

  Result<OnDemandPrices> prices = read_on_demand(data_dir, kOnDemandFile, options.region);
  if (!prices) return prices.error();
  // Windows prices, where the data has them: without the file, no type is offered for Windows.
  OnDemandPrices windows;
  if (std::filesystem::exists(data_dir / kWindowsFile)) {
    Result<OnDemandPrices> read_windows = read_on_demand(data_dir, kWindowsFile, options.region);
    if (!read_windows) return read_windows.error();
    windows = std::move(*read_windows);
  }
  if (prices->by_type.empty()) {
    return Error{fmt::format("{}: no on-demand prices for region {}", (data_dir / kOnDemandFile).string(),
                             options.region)};
  }
  Result<TypesRead> read = read_instance_types(data_dir, *prices, zones.size(), options.max_pods_default);
  if (!read) return read.error();
  std::vector<PricedType>& priced = read->priced;
  if (auto error = read_spot(data_dir, zone_index, priced)) return *error;

  auto data = std::make_shared<CatalogData>();
  data->spot_fractions = derive_spot_fractions(priced);
  std::optional<std::string> note;
  // No spot observation in the region: no spot price is known, and none is made up.
  const bool spot_known = data->spot_fractions.observed_types > 0 || options.spot_fraction;
  if (!spot_known) {
    note = fmt::format("spot prices are not known for region {} ({} has no observation there): "
                       "its types are offered on demand only (spec.cloud.spotPriceFraction estimates them)",
                       options.region, kSpotFile);
  }
  data->stats.types_in_data = read->rows;
  data->stats.unpriced_types = std::move(read->unpriced);
  for (const auto& [type, price] : prices->by_type) {
    if (!read->names.contains(type)) ++data->stats.prices_without_type;
  }

  std::unordered_set<std::string_view> allowed(options.instance_types.begin(), options.instance_types.end());
  for (const std::string& name : options.instance_types) {
    if (!read->names.contains(name)) {
      return Error{fmt::format("catalog options: instance type {} is not in {}", name, kInstanceTypesFile)};
    }
    if (!prices->by_type.contains(name)) {
      return Error{fmt::format("catalog options: instance type {} has no on-demand price in {}", name,
                               options.region)};
    }
  }

  data->allocatable = allocatable_options(options);
  const AllocatableOptions& allocatable = data->allocatable;
  std::vector<InstanceType> types;
  types.reserve(allowed.empty() ? priced.size() : allowed.size());
  for (PricedType& source : priced) {
    if (!allowed.empty() && !allowed.contains(source.name)) continue;
    const std::string& family = source.hardware.family;
    double fraction = data->spot_fractions.for_family(family);
    if (options.spot_fraction) fraction = *options.spot_fraction;
    if (auto it = options.spot_fraction_by_family.find(family); it != options.spot_fraction_by_family.end()) {
      fraction = it->second;
    }
    InstanceType type = make_instance_type(std::move(source.name), std::move(source.hardware), allocatable,
                                           options.region);
    if (auto windows_price = windows.by_type.find(type.name); windows_price != windows.by_type.end()) {
      type.windows_on_demand = windows_price->second;
      ++data->stats.windows_priced;
    }
    type.offerings.reserve(zones.size() * 2);
    for (std::size_t z = 0; z < zones.size(); ++z) {
      type.offerings.push_back(Offering{zones[z].name, zones[z].zone_id, CapacityType::OnDemand, source.on_demand,
                                        PriceSource::OnDemandList, true});
      if (!spot_known) continue;
      const auto& observed = source.spot[z];
      const bool use_observed = options.use_spot_snapshot && observed.has_value();
      type.offerings.push_back(Offering{zones[z].name, zones[z].zone_id, CapacityType::Spot,
                                        use_observed ? observed->price : source.on_demand * fraction,
                                        use_observed ? PriceSource::SpotSnapshot : PriceSource::SpotEstimate, true});
      ++(use_observed ? data->stats.spot_from_snapshot : data->stats.spot_estimated);
    }
    types.push_back(std::move(type));
  }
  Catalog catalog = Catalog::from_instance_types(options.region, std::move(zones), std::move(types));
  if (note) catalog.add_note(std::move(*note));
  catalog.set_provider_options(std::shared_ptr<const CatalogData>(std::move(data)));
  return catalog;
}

namespace {

// Label keys interned once: a catalog builds some twenty labels for each of more than a thousand types.
struct LabelKeys {
  Symbol instance_type{well_known::instance_type}, arch{well_known::arch}, os{well_known::os},
      region{well_known::region}, category{aws::labels::instance_category}, family{aws::labels::instance_family},
      generation{aws::labels::instance_generation}, size{aws::labels::instance_size}, cpu{aws::labels::instance_cpu},
      memory{aws::labels::instance_memory}, hypervisor{aws::labels::instance_hypervisor},
      cpu_manufacturer{aws::labels::instance_cpu_manufacturer},
      network_bandwidth{aws::labels::instance_network_bandwidth}, local_nvme{aws::labels::instance_local_nvme},
      gpu_count{aws::labels::instance_gpu_count}, gpu_name{aws::labels::instance_gpu_name},
      gpu_manufacturer{aws::labels::instance_gpu_manufacturer}, gpu_memory{aws::labels::instance_gpu_memory},
      accelerator_count{aws::labels::instance_accelerator_count},
      accelerator_name{aws::labels::instance_accelerator_name},
      accelerator_manufacturer{aws::labels::instance_accelerator_manufacturer};
};

const LabelKeys& keys() {
  static const LabelKeys instance;
  return instance;
}

}  // namespace

Labels instance_type_labels(std::string_view name, const InstanceHardware& hw, std::string_view region) {
  const LabelKeys& k = keys();
  Labels labels;
  auto set = [&labels](Symbol key, std::string_view value) { labels.set(key, Symbol(value)); };
  auto set_number = [&set](Symbol key, std::int64_t value) { set(key, std::to_string(value)); };

  set(k.instance_type, name);
  set(k.arch, hw.arch);
  set(k.os, "linux");
  if (!region.empty()) set(k.region, region);
  if (!hw.category.empty()) set(k.category, hw.category);
  if (!hw.family.empty()) set(k.family, hw.family);
  if (hw.generation) set_number(k.generation, *hw.generation);
  if (!hw.size.empty()) set(k.size, hw.size);
  set_number(k.cpu, hw.vcpu);
  set_number(k.memory, hw.memory_mib);
  // Karpenter sets the hypervisor label even when EC2 reports none (bare metal): the value is then empty.
  set(k.hypervisor, hw.hypervisor);
  if (!hw.cpu_manufacturer.empty()) set(k.cpu_manufacturer, hw.cpu_manufacturer);
  if (hw.network_bandwidth_mbps) set_number(k.network_bandwidth, *hw.network_bandwidth_mbps);
  if (hw.local_nvme_gib) set_number(k.local_nvme, *hw.local_nvme_gib);
  if (hw.gpu_count > 0) {
    set_number(k.gpu_count, hw.gpu_count);
    if (!hw.gpu_name.empty()) set(k.gpu_name, hw.gpu_name);
    if (!hw.gpu_manufacturer.empty()) set(k.gpu_manufacturer, hw.gpu_manufacturer);
    if (hw.gpu_memory_mib) set_number(k.gpu_memory, *hw.gpu_memory_mib);
  }
  if (hw.accelerator_count > 0) {
    set_number(k.accelerator_count, hw.accelerator_count);
    if (!hw.accelerator_name.empty()) set(k.accelerator_name, hw.accelerator_name);
    if (!hw.accelerator_manufacturer.empty()) set(k.accelerator_manufacturer, hw.accelerator_manufacturer);
  }
  return labels;
}

std::string provider_id(std::string_view zone, std::string_view instance_id) {
  return fmt::format("aws:///{}/{}", zone, instance_id);
}

}  // namespace scalewright::cloud::aws
