#include "cloud/clusterapi/scalable_resource.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <limits>
#include <string_view>
#include <utility>

#include "api/ascii.h"
#include "manifest/names.h"

namespace scalewright::cloud::clusterapi {

using nlohmann::json;

std::string ClusterApiNodeGroup::id() const { return fmt::format("{}/{}/{}", to_string(kind), namespace_, name); }

bool ClusterApiNodeGroup::can_scale_from_zero() const { return capacity.cpu_milli() > 0 && capacity.memory() > 0; }

std::string string_at(const json& object, const json::json_pointer& pointer) {
  if (!object.contains(pointer)) return "";
  const json& value = object[pointer];
  return value.is_string() ? value.get<std::string>() : "";
}

namespace {

using Annotations = std::map<std::string, std::string>;

std::map<std::string, std::string> string_map(const json& object, const char* field) {
  std::map<std::string, std::string> out;
  if (!object.contains("metadata") || !object["metadata"].is_object()) return out;
  const json& metadata = object["metadata"];
  if (!metadata.contains(field) || !metadata[field].is_object()) return out;
  for (const auto& [key, value] : metadata[field].items()) {
    if (value.is_string()) out.emplace(key, value.get<std::string>());
  }
  return out;
}


// Decodes one object's annotations, each failure an Error naming the object and the annotation.
class AnnotationReader {
 public:
  AnnotationReader(std::string object, const Annotations& annotations)
      : object_(std::move(object)), annotations_(annotations) {}

  const std::string* find(std::string_view key) const {
    auto found = annotations_.find(std::string(key));
    return found == annotations_.end() ? nullptr : &found->second;
  }

  Error error(std::string_view key, std::string_view why) const {
    const std::string* value = find(key);
    return Error{fmt::format("{}: annotation {}=\"{}\": {}", object_, key, value ? *value : "", why)};
  }

  // A base-10 integer as Go's strconv.Atoi reads it (an optional sign, digits), within [0, int32 max]; absent or
  // empty: nullopt.
  Result<std::optional<std::int64_t>> count(std::string_view key, std::int64_t max) const {
    const std::string* value = find(key);
    if (value == nullptr || value->empty()) return std::optional<std::int64_t>{};
    std::string_view text = *value;
    if (text.front() == '+') text.remove_prefix(1);
    std::int64_t n = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
      return error(key, "not an integer");
    }
    if (n < 0) return error(key, "negative");
    if (n > max) return error(key, fmt::format("more than {}", max));
    return std::optional<std::int64_t>{n};
  }

  // A quantity in `resource`'s unit (milli for cpu); absent, empty or zero: nullopt, as CA leaves zero out.
  Result<std::optional<std::int64_t>> quantity(std::string_view key, Symbol resource) const {
    const std::string* value = find(key);
    if (value == nullptr || value->empty()) return std::optional<std::int64_t>{};
    Result<Quantity> parsed = Quantity::parse(*value);
    if (!parsed) return error(key, "not a quantity");
    if (parsed->negative()) return error(key, "negative");
    std::optional<std::int64_t> amount = exact_resource_amount(resource, *parsed);
    if (!amount) return error(key, "too large");
    if (*amount == 0) return std::optional<std::int64_t>{};
    return amount;
  }

 private:
  std::string object_;
  const Annotations& annotations_;
};

std::optional<Error> read_capacity(const AnnotationReader& reader, ClusterApiNodeGroup& group,
                                   const TemplateInfo* infrastructure) {
  namespace names = resource_names;
  if (infrastructure != nullptr) group.capacity = infrastructure->capacity;
  for (const auto& [key, resource] :
       {std::pair{capacity_keys::cpu, names::cpu()}, std::pair{capacity_keys::memory, names::memory()},
        std::pair{capacity_keys::ephemeral_disk, names::ephemeral_storage()}}) {
    auto amount = reader.quantity(key, resource);
    if (!amount) return amount.error();
    if (*amount) group.capacity.set(resource, **amount);
  }
  auto max_pods = reader.count(capacity_keys::max_pods, std::numeric_limits<std::int32_t>::max());
  if (!max_pods) return max_pods.error();
  if (max_pods->value_or(0) > 0) {
    group.capacity.set(names::pods(), **max_pods);
  } else if (group.capacity.get(names::pods()) == 0) {
    group.capacity.set(names::pods(), kDefaultMaxPods);
  }
  auto gpu_count = reader.count(capacity_keys::gpu_count, std::numeric_limits<std::int32_t>::max());
  if (!gpu_count) return gpu_count.error();
  const std::string* gpu_type = reader.find(capacity_keys::gpu_type);
  // As CA: a GPU only with both a type and a count above zero.
  if (gpu_type != nullptr && !gpu_type->empty() && gpu_count->value_or(0) > 0) {
    if (std::optional<std::string> problem = manifest::qualified_name_problem(*gpu_type)) {
      return reader.error(capacity_keys::gpu_type, "not a resource name: " + *problem);
    }
    group.capacity.set(Symbol(*gpu_type), **gpu_count);
  }
  return std::nullopt;
}

std::optional<Error> read_labels(const AnnotationReader& reader, ClusterApiNodeGroup& group) {
  const std::string* value = reader.find(capacity_keys::labels);
  if (value == nullptr) return std::nullopt;
  for (std::string_view item : split(*value, ',')) {
    if (item.empty()) continue;
    std::size_t equals = item.find('=');
    if (equals == std::string_view::npos) {
      return reader.error(capacity_keys::labels, fmt::format("\"{}\" is not key=value", item));
    }
    std::string_view key = item.substr(0, equals), label_value = item.substr(equals + 1);
    if (std::optional<std::string> problem = manifest::qualified_name_problem(key)) {
      return reader.error(capacity_keys::labels, fmt::format("label key \"{}\": {}", key, *problem));
    }
    if (std::optional<std::string> problem = manifest::label_value_problem(label_value)) {
      return reader.error(capacity_keys::labels, fmt::format("label value \"{}\": {}", label_value, *problem));
    }
    group.labels[std::string(key)] = std::string(label_value);
  }
  return std::nullopt;
}

// The labels Cluster API copies from a Machine to its Node (its "managed" labels), as CA keeps them for a template.
bool managed_label(std::string_view key) {
  const std::size_t slash = key.find('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view prefix = key.substr(0, slash);
  return prefix == "node-role.kubernetes.io" || prefix == "node-restriction.kubernetes.io" ||
         prefix.ends_with(".node-restriction.kubernetes.io") || prefix == "node.cluster.x-k8s.io" ||
         prefix.ends_with(".node.cluster.x-k8s.io");
}

void read_template(const json& object, ClusterApiNodeGroup& group) {
  const json::json_pointer labels_at("/spec/template/metadata/labels");
  if (object.contains(labels_at) && object[labels_at].is_object()) {
    for (const auto& [key, value] : object[labels_at].items()) {
      if (value.is_string() && managed_label(key)) group.labels[key] = value.get<std::string>();
    }
  }
  const json::json_pointer taints_at("/spec/template/spec/taints");
  if (object.contains(taints_at) && object[taints_at].is_array()) {
    for (const json& item : object[taints_at]) {
      if (!item.is_object()) continue;
      std::optional<TaintEffect> effect = parse_taint_effect(item.value("effect", ""));
      if (!effect || item.value("key", "").empty()) continue;  // the schema requires both
      group.taints.push_back({item.value("key", ""), item.value("value", ""), *effect});
    }
  }
  group.failure_domain = string_at(object, json::json_pointer("/spec/template/spec/failureDomain"));
  group.infrastructure = infrastructure_ref_of(object);
}

// KEY[=VALUE]:EFFECT, comma-separated. A bare KEY is a taint without an effect, which CA keeps and no scheduler
// acts on (only NoSchedule, PreferNoSchedule and NoExecute do), so it is left out here.
std::optional<Error> read_taints(const AnnotationReader& reader, ClusterApiNodeGroup& group) {
  const std::string* value = reader.find(capacity_keys::taints);
  if (value == nullptr) return std::nullopt;
  for (std::string_view item : split(*value, ',')) {
    if (item.empty()) continue;
    std::vector<std::string_view> parts = split(item, ':');
    std::vector<std::string_view> key_value = split(parts[0], '=');
    if (parts.size() > 2 || key_value.size() > 2) {
      return reader.error(capacity_keys::taints, fmt::format("\"{}\" is not KEY[=VALUE]:EFFECT", item));
    }
    Taint taint;
    taint.key = key_value[0];
    if (key_value.size() == 2) taint.value = key_value[1];
    if (std::optional<std::string> problem = manifest::qualified_name_problem(taint.key)) {
      return reader.error(capacity_keys::taints, fmt::format("taint key \"{}\": {}", taint.key, *problem));
    }
    if (std::optional<std::string> problem = manifest::label_value_problem(taint.value)) {
      return reader.error(capacity_keys::taints, fmt::format("taint value \"{}\": {}", taint.value, *problem));
    }
    if (parts.size() == 1) continue;
    std::optional<TaintEffect> effect = parse_taint_effect(parts[1]);
    if (!effect) {
      return reader.error(capacity_keys::taints, fmt::format("taint effect \"{}\" is not NoSchedule, "
                                                             "PreferNoSchedule or NoExecute",
                                                             parts[1]));
    }
    taint.effect = *effect;
    // The same key and effect twice: the later one wins, as CA merges them.
    std::erase_if(group.taints, [&](const Taint& t) { return t.key == taint.key && t.effect == taint.effect; });
    group.taints.push_back(std::move(taint));
  }
  return std::nullopt;
}

std::optional<Error> read_options(const AnnotationReader& reader, const Annotations& annotations,
                                  const std::string& prefix, GroupAutoscalingOptions& options) {
  for (const auto& [key, raw] : annotations) {
    if (key.size() <= prefix.size() || key.compare(0, prefix.size(), prefix) != 0) continue;
    std::string value = raw;  // CA lowercases the values ("10M" is ten minutes, not ten months)
    for (char& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // Names CA's clusterapi provider does not read are passed over, as CA does.
    if (std::optional<std::string> problem = nodegroups::read_group_option(
            std::string_view(key).substr(prefix.size()), value, nodegroups::kClusterApiGroupOptions, options)) {
      return reader.error(key, *problem);
    }
  }
  return std::nullopt;
}

}  // namespace

InfrastructureRef infrastructure_ref_of(const nlohmann::json& object) {
  InfrastructureRef ref;
  const json::json_pointer at("/spec/template/spec/infrastructureRef");
  if (!object.contains(at) || !object[at].is_object()) return ref;
  const json& found = object[at];
  ref.api_group = found.value("apiGroup", "");
  ref.api_version = found.value("apiVersion", "");
  if (ref.api_group.empty() && !ref.api_version.empty()) {
    const std::size_t slash = ref.api_version.find('/');
    ref.api_group = slash == std::string::npos ? "" : ref.api_version.substr(0, slash);
  }
  ref.kind = found.value("kind", "");
  ref.name = found.value("name", "");
  return ref;
}

Result<ClusterApiNodeGroup> read_scalable_resource(ScalableKind kind, const nlohmann::json& object,
                                                   const CapiKeys& keys, const TemplateInfo* infrastructure) {
  ClusterApiNodeGroup group;
  group.kind = kind;
  group.namespace_ = string_at(object, json::json_pointer("/metadata/namespace"));
  group.name = string_at(object, json::json_pointer("/metadata/name"));
  group.uid = string_at(object, json::json_pointer("/metadata/uid"));
  const std::string label = fmt::format("{} {}/{}", to_string(kind), group.namespace_, group.name);
  const Annotations annotations = string_map(object, "annotations");
  const std::map<std::string, std::string> labels = string_map(object, "labels");
  group.cluster_name = string_at(object, json::json_pointer("/spec/clusterName"));
  if (group.cluster_name.empty() && labels.contains(keys.cluster_name)) {
    group.cluster_name = labels.at(keys.cluster_name);
  }
  const json::json_pointer replicas_at("/spec/replicas");
  if (object.contains(replicas_at) && object[replicas_at].is_number_integer()) {
    group.replicas = object[replicas_at].get<std::int32_t>();
  }

  AnnotationReader reader(label, annotations);
  constexpr std::int64_t kMaxSize = std::numeric_limits<std::int32_t>::max();
  auto min_size = reader.count(keys.min_size, kMaxSize);
  if (!min_size) return min_size.error();
  auto max_size = reader.count(keys.max_size, kMaxSize);
  if (!max_size) return max_size.error();
  group.min_size = static_cast<std::int32_t>(min_size->value_or(0));
  group.max_size = static_cast<std::int32_t>(max_size->value_or(0));
  if (group.max_size < group.min_size) {
    if (!max_size->has_value()) {
      return Error{
          fmt::format("{}: annotation {} is missing while {}={}", label, keys.max_size, keys.min_size, group.min_size)};
    }
    return reader.error(keys.max_size, fmt::format("below {}={}", keys.min_size, group.min_size));
  }
  if (std::optional<Error> e = read_capacity(reader, group, infrastructure)) return *e;
  read_template(object, group);
  if (std::optional<Error> e = read_labels(reader, group)) return *e;
  if (std::optional<Error> e = read_taints(reader, group)) return *e;
  if (infrastructure != nullptr && !infrastructure->architecture.empty()) {
    group.labels.try_emplace("kubernetes.io/arch", infrastructure->architecture);
  }
  if (infrastructure != nullptr && !infrastructure->operating_system.empty()) {
    group.labels.try_emplace("kubernetes.io/os", infrastructure->operating_system);
  }
  if (const std::string* price = reader.find(kPriceAnnotation); price != nullptr && !price->empty()) {
    double parsed = 0;
    auto [end, ec] = std::from_chars(price->data(), price->data() + price->size(), parsed);
    if (ec != std::errc() || end != price->data() + price->size() || !(parsed >= 0)) {
      return reader.error(kPriceAnnotation, "not a price per hour (a number such as 0.192)");
    }
    group.price_per_hour = parsed;
  }
  if (std::optional<Error> e = read_options(reader, annotations, keys.options_prefix, group.options)) return *e;
  return group;
}

bool paused(const nlohmann::json& object, const CapiKeys& keys) {
  return string_map(object, "annotations").contains(keys.paused);
}

Decoded decode_scalable_resource(ScalableKind kind, const nlohmann::json& object, const CapiKeys& keys,
                                 const TemplateInfo* infrastructure) {
  if (kind == ScalableKind::MachineSet && object.contains(json::json_pointer("/metadata/ownerReferences"))) {
    for (const json& owner : object[json::json_pointer("/metadata/ownerReferences")]) {
      // A MachineDeployment's MachineSets scale with it: the MachineDeployment is the node group.
      if (owner.is_object() && owner.value("kind", "") == "MachineDeployment" && !owner.value("name", "").empty()) {
        return Skipped{.reason = "owned by MachineDeployment " + owner.value("name", ""), .owned = true};
      }
    }
  }
  if (paused(object, keys)) return Skipped{"paused (" + keys.paused + ")"};
  Result<ClusterApiNodeGroup> read = read_scalable_resource(kind, object, keys, infrastructure);
  if (!read) return read.error();
  ClusterApiNodeGroup& group = *read;
  if (group.max_size == 0) return Skipped{"no " + keys.max_size + " above 0"};
  // An empty group that could never grow again: CA leaves it out rather than show a group it cannot scale.
  if (group.replicas == 0 && !group.can_scale_from_zero()) {
    return Skipped{"at 0 replicas without the cpu and memory capacity annotations to scale from zero", true};
  }
  return std::move(group);
}

}  // namespace scalewright::cloud::clusterapi
