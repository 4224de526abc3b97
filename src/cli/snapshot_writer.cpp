#include "cli/snapshot_writer.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>

#include "api/ascii.h"
#include "cli/validation.h"
#include "manifest/priority.h"
#include "manifest/references.h"

namespace scalewright::cli {

using nlohmann::json;

namespace {

// The source name objects are decoded under, cut from the messages again (see problem_in).
constexpr std::string_view kSource = "snapshot";

// What is wrong with an object, from a message that names it ("snapshot doc 1 Pod/web: spec.x: ...", "Pod/web: ...")
// as a warning already does: "spec.x: ...".
std::string problem_in(std::string message, std::string_view kind, const json& object) {
  const std::string document = std::string(kSource) + " doc 1";
  if (message.starts_with(document)) message.erase(0, document.size() + (message.size() > document.size() ? 1 : 0));
  const std::string name = std::string(kind) + "/" + object.value("metadata", json::object()).value("name", "") + ": ";
  if (message.starts_with(name)) message.erase(0, name.size());
  return message;
}

std::string label_of(std::string_view kind, const json& object) {
  const json metadata = object.value("metadata", json::object());
  const std::string namespace_ = metadata.value("namespace", "");
  const std::string name = metadata.value("name", "");
  return std::string(kind) + " " + (namespace_.empty() ? name : namespace_ + "/" + name);
}

// The owner reference with controller: true, or null.
const json* controller_of(const json& object) {
  auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) return nullptr;
  auto owners = metadata->find("ownerReferences");
  if (owners == metadata->end() || !owners->is_array()) return nullptr;
  for (const json& owner : *owners) {
    if (owner.is_object() && owner.value("controller", false)) return &owner;
  }
  return nullptr;
}

bool controlled_by(const json& object, std::string_view kind) {
  const json* owner = controller_of(object);
  return owner != nullptr && owner->value("kind", "") == kind;
}

bool has_true_condition(const json& object, std::initializer_list<std::string_view> types) {
  const json& conditions = object.value("status", json::object()).value("conditions", json::array());
  return std::any_of(conditions.begin(), conditions.end(), [&](const json& c) {
    return c.is_object() && c.value("status", "") == "True" &&
           std::find(types.begin(), types.end(), c.value("type", "")) != types.end();
  });
}

void clean_metadata(json& metadata) {
  for (const char* key : {"managedFields", "resourceVersion", "uid", "creationTimestamp", "generation", "selfLink",
                          "deletionTimestamp", "deletionGracePeriodSeconds"}) {
    metadata.erase(key);
  }
  if (auto annotations = metadata.find("annotations"); annotations != metadata.end() && annotations->is_object()) {
    annotations->erase("kubectl.kubernetes.io/last-applied-configuration");
    if (annotations->empty()) metadata.erase(annotations);
  }
  // An owner's uid names an object of that cluster only; kind and name are what the simulator matches on.
  if (auto owners = metadata.find("ownerReferences"); owners != metadata.end() && owners->is_array()) {
    for (json& owner : *owners) {
      if (!owner.is_object()) continue;
      owner.erase("uid");
      owner.erase("blockOwnerDeletion");
    }
  }
}

// The token volume the ServiceAccount admission plugin adds to every pod (kube-api-access-<random>) and its mounts:
// the server's, not the user's, as kubectl-neat sees it.
void drop_service_account_volume(json& spec) {
  auto volumes = spec.find("volumes");
  if (volumes == spec.end() || !volumes->is_array()) return;
  std::vector<std::string> dropped;
  for (auto volume = volumes->begin(); volume != volumes->end();) {
    const std::string name = volume->value("name", "");
    if (name.starts_with("kube-api-access-") && volume->contains("projected")) {
      dropped.push_back(name);
      volume = volumes->erase(volume);
    } else {
      ++volume;
    }
  }
  if (volumes->empty()) spec.erase(volumes);
  if (dropped.empty()) return;
  for (const char* list : {"initContainers", "containers"}) {
    auto containers = spec.find(list);
    if (containers == spec.end() || !containers->is_array()) continue;
    for (json& container : *containers) {
      auto mounts = container.find("volumeMounts");
      if (mounts == container.end() || !mounts->is_array()) continue;
      std::erase_if(mounts->get_ref<json::array_t&>(), [&](const json& mount) {
        return std::find(dropped.begin(), dropped.end(), mount.value("name", "")) != dropped.end();
      });
      if (mounts->empty()) container.erase(mounts);
    }
  }
}

// A Node's status as the simulator reads it: capacity, allocatable, and the Ready condition without its times.
json node_status(const json& status) {
  json kept = json::object();
  for (const char* key : {"capacity", "allocatable"}) {
    if (status.contains(key)) kept[key] = status[key];
  }
  for (const json& condition : status.value("conditions", json::array())) {
    if (!condition.is_object() || condition.value("type", "") != "Ready") continue;
    json ready = {{"type", "Ready"}, {"status", condition.value("status", "Unknown")}};
    if (condition.contains("reason")) ready["reason"] = condition["reason"];
    kept["conditions"] = json::array({ready});
  }
  return kept;
}

// Whether a plain scalar `text` reads back as the same string: not empty, not a YAML 1.1 or 1.2 boolean or null,
// and not starting like a number (digits, a sign or a point: "8", "-1", ".5", also "1h" and "10Gi", which are
// strings either way but quoted like kubectl quotes them).
bool reads_back_as_string(std::string_view text) {
  if (text.empty()) return false;
  const std::string lower = ascii_lower(text);
  for (std::string_view word : {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"}) {
    if (lower == word) return false;
  }
  const unsigned char first = static_cast<unsigned char>(text[0]);
  if (std::isdigit(first)) return false;
  return !((first == '-' || first == '+' || first == '.') && text.size() > 1 &&
           (std::isdigit(static_cast<unsigned char>(text[1])) || text[1] == '.' || lower.substr(1, 3) == "inf" ||
            lower.substr(1, 3) == "nan"));
}

void emit_string(YAML::Emitter& out, const std::string& text) {
  if (!reads_back_as_string(text)) out << YAML::DoubleQuoted;
  out << text;  // yaml-cpp quotes on its own what a plain scalar cannot hold (": ", "#", newlines, ...)
}

void emit(YAML::Emitter& out, const json& value) {
  switch (value.type()) {
    case json::value_t::object:
      if (value.empty()) out << YAML::Flow;
      out << YAML::BeginMap;
      for (const auto& [key, item] : value.items()) {
        out << YAML::Key;
        emit_string(out, key);
        out << YAML::Value;
        emit(out, item);
      }
      out << YAML::EndMap;
      return;
    case json::value_t::array:
      if (value.empty()) out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const json& item : value) emit(out, item);
      out << YAML::EndSeq;
      return;
    case json::value_t::string:
      emit_string(out, value.get_ref<const std::string&>());
      return;
    case json::value_t::boolean:
      out << value.get<bool>();
      return;
    case json::value_t::number_integer:
      out << value.get<std::int64_t>();
      return;
    case json::value_t::number_unsigned:
      out << value.get<std::uint64_t>();
      return;
    case json::value_t::number_float:
      out << value.get<double>();
      return;
    default:
      out << YAML::Null;
      return;
  }
}

}  // namespace

json clean_object(json object, std::string_view api_version, std::string_view kind) {
  object["apiVersion"] = api_version;
  object["kind"] = kind;
  if (auto metadata = object.find("metadata"); metadata != object.end() && metadata->is_object()) {
    clean_metadata(*metadata);
  }
  if (kind == "Node") {
    object["status"] = node_status(object.value("status", json::object()));
  } else {
    object.erase("status");
  }
  if (kind == "Namespace") object.erase("spec");  // only its finalizers: the API server's, not the user's
  auto spec = object.find("spec");
  if (spec == object.end() || !spec->is_object()) return object;
  if (kind == "Pod") drop_service_account_volume(*spec);
  // A workload's pod template: the API server writes creationTimestamp: null into its metadata.
  if (auto pod_template = spec->find("template"); pod_template != spec->end() && pod_template->is_object()) {
    if (auto metadata = pod_template->find("metadata"); metadata != pod_template->end() && metadata->is_object()) {
      clean_metadata(*metadata);
    }
  }
  return object;
}

std::string to_yaml(const json& value) {
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out.SetNullFormat(YAML::LowerNull);  // "null", as kubectl writes it
  emit(out, value);
  return std::string(out.c_str()) + "\n";
}

std::string SnapshotWriter::skip_reason(std::string_view kind, const json& object) const {
  if (kind == "Pod") {
    const std::string phase = object.value("status", json::object()).value("phase", "");
    if (phase == "Succeeded" || phase == "Failed") return "pods that finished (Succeeded or Failed)";
    if (object.value("metadata", json::object()).contains("deletionTimestamp")) return "pods being deleted";
    if (controlled_by(object, "DaemonSet")) return "DaemonSet pods (the simulator places one on every node it takes)";
  } else if (kind == "ReplicaSet" && controlled_by(object, "Deployment")) {
    return "ReplicaSets of Deployments (the simulator counts their pods as the Deployment's)";
  } else if (kind == "Job") {
    if (has_true_condition(object, {"Complete", "Failed"})) return "Jobs that finished";
    if (object.value("spec", json::object()).value("suspend", false)) return "suspended Jobs (they run no pod)";
  } else if (kind == "HorizontalPodAutoscaler" && controlled_by(object, "ScaledObject")) {
    return "HorizontalPodAutoscalers KEDA made (the simulator makes its own for each ScaledObject)";
  } else if (kind == "PriorityClass") {
    const std::string name = object.value("metadata", json::object()).value("name", "");
    for (const PriorityClass& builtin : manifest::builtin_priority_classes()) {
      if (builtin.meta.name == name) return "built-in PriorityClasses (the simulator has them)";
    }
  }
  return "";
}

void SnapshotWriter::add(std::string_view api_version, std::string_view kind, json object) {
  if (std::string reason = skip_reason(kind, object); !reason.empty()) {
    ++omitted_[reason];
    return;
  }
  const std::string label = label_of(kind, object);
  json cleaned = clean_object(std::move(object), api_version, kind);
  if (kind == "Node") {
    std::string ready = "Unknown";
    for (const json& condition : cleaned["status"].value("conditions", json::array())) ready = condition["status"];
    if (ready != "True") {
      warnings_.push_back(label + " is not Ready (Ready " + ready + "): the simulator starts it Ready");
    }
  }
  std::string yaml = to_yaml(cleaned);
  // Decoded from the very text written, as `simulate` will read it.
  Result<ManifestSet> decoded = decode_manifests(yaml, kSource);
  std::string why = decoded ? problem(kind, *decoded) : decoded.error().message;
  if (!why.empty()) {
    warnings_.push_back(label + " left out: " + problem_in(std::move(why), kind, cleaned));
    return;
  }
  keep(kind, std::move(yaml), *decoded);
}

std::string SnapshotWriter::problem(std::string_view kind, ManifestSet& decoded) {
  if (!decoded.cluster_autoscaler_deployments.empty()) {
    return "it runs Cluster Autoscaler, whose Auto Scaling groups the Kubernetes API does not show (add this "
           "Deployment and the Scenario's spec.cloud.autoScalingGroups to simulate it)";
  }
  if (!decoded.pods.empty() || !decoded.workloads.empty()) {
    decoded.priority_classes = kept_.priority_classes;
    if (std::optional<Error> unknown = manifest::resolve_pod_priorities(decoded)) return unknown->message;
  }
  if (catalog_ != nullptr && !decoded.nodepools.empty()) {
    if (std::optional<Error> empty = check_nodepools(decoded, *catalog_)) return empty->message;
  }
  if (kind == "ScaledObject") {
    if (std::optional<Error> refused = check_scaled_objects(decoded, /*simulated=*/true)) return refused->message;
  }
  if (!decoded.horizontal_pod_autoscalers.empty() || !decoded.scaled_objects.empty()) {
    // Their targets among the workloads kept so far, by the rule `simulate` checks them with.
    kept_.horizontal_pod_autoscalers = decoded.horizontal_pod_autoscalers;
    kept_.scaled_objects = decoded.scaled_objects;
    std::optional<Error> dangling = check_references(kept_, nullptr);
    kept_.horizontal_pod_autoscalers.clear();
    kept_.scaled_objects.clear();
    if (dangling) return dangling->message;
  }
  return "";
}

void SnapshotWriter::keep(std::string_view kind, std::string yaml, const ManifestSet& decoded) {
  documents_[std::string(kind)].push_back(std::move(yaml));
  ++written_[std::string(kind)];
  if (kind == "PriorityClass") {
    kept_.priority_classes.insert(kept_.priority_classes.end(), decoded.priority_classes.begin(),
                                  decoded.priority_classes.end());
  }
  for (const Workload& w : decoded.workloads) {
    Workload target;  // what references are checked by: kind, namespace and name, without the pod template
    target.kind = w.kind;
    target.meta.name = w.meta.name;
    target.meta.namespace_ = w.meta.namespace_;
    kept_.workloads.push_back(std::move(target));
  }
}

std::string SnapshotWriter::finish(const std::vector<std::string>& header, const SnapshotScenario& scenario) const {
  std::string text;
  for (const std::string& line : header) text += line.empty() ? "#\n" : "# " + line + "\n";
  bool first = true;
  for (std::string_view kind : kSnapshotKinds) {
    auto documents = documents_.find(kind);
    if (documents == documents_.end()) continue;
    for (const std::string& document : documents->second) {
      if (!first) text += "---\n";
      first = false;
      text += document;
    }
  }
  if (!first) text += "---\n";
  text += "# The cluster as it was, for spec.duration. Add a timeline (scale, load, apply, delete, cordon) to ask\n"
          "# what happens after a change; README.md, `scalewright simulate`, says how.\n";
  const json document = {{"apiVersion", "scalewright.dev/v1alpha1"},
                         {"kind", "Scenario"},
                         {"metadata", {{"name", scenario.name}}},
                         {"spec", {{"duration", scenario.duration}, {"cloud", {{"region", scenario.region}}}}}};
  text += to_yaml(document);
  return text;
}

}  // namespace scalewright::cli
