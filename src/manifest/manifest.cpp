#include "manifest/manifest.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <utility>
#include <variant>

#include <yaml-cpp/yaml.h>

#include "api/escape.h"
#include "cloud/clusterapi/scalable_manifest.h"
#include "manifest/field.h"
#include "manifest/kind_registry.h"
#include "manifest/priority.h"
#include "manifest/yaml_stream.h"

namespace scalewright {
namespace manifest {
namespace {

// The API server keeps one object per kind, namespace and name, and which of two copies in the input should win is
// not obvious to its reader: the same object given twice is refused wherever the two are, in one file or two, for
// every kind alike, naming both places.
std::string given_twice(const std::string& key, const ObjectOrigin& first) {
  // The key is "Kind/namespace/name" (object_key): said as "Kind namespace/name", or "Kind name" without a namespace.
  const std::size_t kind_end = key.find('/');
  std::string object = key.substr(0, kind_end) + " " + key.substr(kind_end + 1);
  if (object[kind_end + 1] == '/') object.erase(kind_end + 1, 1);
  return object + " is given twice, first at " + first.at("") + " (an object may be given once)";
}

// A decoded file and where each pod and workload came from, for messages about what spans files.
struct DecodedFile {
  ManifestSet set;
  std::vector<ObjectOrigin> pods;
  std::vector<ObjectOrigin> workloads;

  std::optional<Error> append(DecodedFile&& other) {
    for (const auto& [key, origin] : other.set.origins) {
      if (auto first = set.origins.find(key); first != set.origins.end()) {
        return Error{origin.at("metadata.name") + ": " + given_twice(key, first->second)};
      }
    }
    set.append(std::move(other.set));
    std::move(other.pods.begin(), other.pods.end(), std::back_inserter(pods));
    std::move(other.workloads.begin(), other.workloads.end(), std::back_inserter(workloads));
    return std::nullopt;
  }
};

// "apps/v1" -> {"apps", "v1"}; "v1" -> {"", "v1"}.
std::pair<std::string, std::string> split_api_version(const std::string& api_version) {
  std::size_t slash = api_version.find('/');
  if (slash == std::string::npos) return {"", api_version};
  return {api_version.substr(0, slash), api_version.substr(slash + 1)};
}

std::string scalar_at(const YAML::Node& map, const char* key) {
  if (!map.IsDefined() || !map.IsMap()) return "";
  const YAML::Node value = map[key];
  return value.IsDefined() && value.IsScalar() ? value.Scalar() : "";
}

// "Deployment/web", "Pod" while the name is unknown, "" while the kind is: read leniently, for error lines, so with
// its control characters escaped (a name that is refused for holding one is named by this label).
std::string object_label(const YAML::Node& object) {
  std::string kind = scalar_at(object, "kind");
  if (kind.empty()) return "";
  std::string name = scalar_at(object["metadata"], "name");
  return escape_control(name.empty() ? kind : kind + "/" + name);
}

std::string expected_versions(const KindEntry& entry) {
  std::string expected;
  for (const std::string& version : entry.versions) {
    if (!expected.empty()) expected += ", ";
    expected += entry.group.empty() ? version : entry.group + "/" + version;
  }
  return expected;
}

// Decodes one document of a file: a single object, or a List of them.
class DocumentDecoder {
 public:
  DocumentDecoder(std::string_view source, int number, const KindRegistry& kinds, const ManifestLimits& limits,
                  FieldValidation validation, DecodedFile& out)
      : prefix_(std::string(source) + " doc " + std::to_string(number)),
        context_{std::filesystem::path(source).parent_path(), limits, validation},
        kinds_(kinds),
        out_(out) {}

  std::optional<Error> decode(const YamlDocument& document) {
    const FieldValidation validation = context_.validation;
    if (document.duplicate && validation != FieldValidation::Ignore) {
      Error duplicate = duplicate_key(document.root, *document.duplicate);
      if (validation == FieldValidation::Strict) return duplicate;
      out_.set.warnings.push_back(std::move(duplicate.message));
    }
    if (!document.root.IsDefined() || document.root.IsNull()) return std::nullopt;  // an empty document
    return decode_object(Field(document.root, "", validation == FieldValidation::Ignore ? nullptr : &tracker_));
  }

 private:
  // The API server refuses a field given twice (strict field validation, kubectl's default), and
  // which of the two would win is not obvious to the reader of the file. Named like any invalid field: the
  // object (the List item when it is in one) and the path within it.
  Error duplicate_key(const YAML::Node& root, const DuplicateKey& duplicate) const {
    YAML::Node object = root;
    std::size_t first = 0;
    const std::size_t* item = duplicate.path.size() > 2 ? std::get_if<std::size_t>(&duplicate.path[1]) : nullptr;
    if (item != nullptr && duplicate.path[0] == DuplicateKey::Segment(std::string("items")) &&
        scalar_at(root, "kind") == "List" && root["items"].IsSequence() && *item < root["items"].size()) {
      object = root["items"][*item];
      first = 2;
    }
    return Error{context(Field(object, "")) + ": " + describe_duplicate(duplicate, first)};
  }

  std::optional<Error> decode_object(const Field& object) {
    try {
      std::string kind = object.required_string("kind");
      std::string api_version = object.required_string("apiVersion");
      auto [group, version] = split_api_version(api_version);
      if (kind == "List" && group.empty()) return decode_list(object);
      const KindEntry* entry = kinds_.find(group, kind);
      if (entry == nullptr) {
        out_.set.warnings.push_back(prefix_ + ": skipped unknown kind " + kind + " (" + api_version + ")");
        return std::nullopt;
      }
      if (std::find(entry->versions.begin(), entry->versions.end(), version) == entry->versions.end()) {
        object.fail_at("apiVersion", "unsupported version " + quote(api_version) + " of " + kind + " (expected " +
                                         expected_versions(*entry) + ")");
      }
      add(object, *entry);
      return check_fields(object);
    } catch (const FieldError& error) {
      std::string path = error.path.empty() ? "" : error.path + ": ";
      return Error{context(object) + ": " + path + error.problem};
    } catch (const YAML::Exception& error) {  // a yaml-cpp surprise still names the object
      return Error{context(object) + ": " + error.what()};
    }
  }

  std::optional<Error> decode_list(const Field& list) {
    std::optional<Error> first;
    list.each("items", [&](const Field& item) {
      if (!first) first = decode_object(item);
    });
    if (first) return first;
    list.known({"items", "metadata"});  // each item checked as it was decoded; a List's metadata is the server's
    return check_fields(list);
  }

  // kubectl's field validation, --validate=strict by default: a field the kind does not have, or has not under
  // that name, is an error naming its path (`consolidateAftr: 30s` would otherwise be 0s); with warn, a warning
  // line; with ignore, nothing. A status is the server's to write: never looked into.
  std::optional<Error> check_fields(const Field& object) {
    if (context_.validation == FieldValidation::Ignore) return std::nullopt;
    object.known({"status"});
    const bool strict = context_.validation == FieldValidation::Strict;
    for (const std::string& path : object.unknown_fields(strict ? 1 : std::numeric_limits<std::size_t>::max())) {
      std::string message = context(object) + ": unknown field " + quote(path);
      if (strict) return Error{std::move(message)};
      out_.set.warnings.push_back(std::move(message));
    }
    return std::nullopt;
  }

  void add(const Field& object, const KindEntry& entry) {
    ManifestSet& set = out_.set;
    const std::size_t nodes = set.nodes.size(), pods = set.pods.size(), workloads = set.workloads.size();
    const std::size_t nodepools = set.nodepools.size(), scenarios = set.scenarios.size();
    const std::size_t hpas = set.horizontal_pod_autoscalers.size(), scaled = set.scaled_objects.size();
    const std::size_t cluster_autoscalers = set.cluster_autoscaler_deployments.size();
    const std::size_t node_classes = set.node_classes.size(), cluster_api = set.cluster_api_objects.size();
    const std::size_t budgets = set.pod_disruption_budgets.size(), classes = set.priority_classes.size();
    const std::size_t namespaces = set.namespaces.size(), config_maps = set.config_maps.size();
    const std::size_t warnings = set.warnings.size();
    entry.decode(object, context_, set);
    for (std::size_t i = warnings; i < set.warnings.size(); ++i) {
      set.warnings[i] = context(object) + ": " + set.warnings[i];
    }
    ObjectOrigin origin{context(object), object.path()};
    for (std::size_t i = pods; i < set.pods.size(); ++i) out_.pods.push_back(origin);
    for (std::size_t i = workloads; i < set.workloads.size(); ++i) out_.workloads.push_back(origin);
    auto record_key = [&](std::string key) {
      auto [first, inserted] = set.origins.emplace(std::move(key), origin);
      if (inserted) return;
      throw FieldError{object.child("metadata").path_of("name"), given_twice(first->first, first->second)};
    };
    auto record_one = [&](std::string_view kind, const ObjectMeta& meta) { record_key(object_key(kind, meta)); };
    auto record = [&](std::string_view kind, const auto& objects, std::size_t from) {
      for (std::size_t i = from; i < objects.size(); ++i) record_one(kind, objects[i].meta);
    };
    record("Node", set.nodes, nodes);
    record("Pod", set.pods, pods);
    for (std::size_t i = workloads; i < set.workloads.size(); ++i) {
      record_one(to_string(set.workloads[i].kind), set.workloads[i].meta);
    }
    record("PodDisruptionBudget", set.pod_disruption_budgets, budgets);
    record("PriorityClass", set.priority_classes, classes);
    record("Namespace", set.namespaces, namespaces);
    record("ConfigMap", set.config_maps, config_maps);
    record("NodePool", set.nodepools, nodepools);
    for (std::size_t i = node_classes; i < set.node_classes.size(); ++i) {
      const NodeClassReference ref = set.node_classes[i]->reference();
      record_key(object_key(ref.kind, "", ref.name));
    }
    for (std::size_t i = cluster_api; i < set.cluster_api_objects.size(); ++i) {
      const cloud::clusterapi::ScalableObject& scalable = *set.cluster_api_objects[i];
      record_key(object_key(cloud::clusterapi::to_string(scalable.kind), scalable.namespace_, scalable.name));
    }
    record("Scenario", set.scenarios, scenarios);
    record("HorizontalPodAutoscaler", set.horizontal_pod_autoscalers, hpas);
    record("ScaledObject", set.scaled_objects, scaled);
    record("Deployment", set.cluster_autoscaler_deployments, cluster_autoscalers);
  }

  std::string context(const Field& object) const {
    std::string label = object_label(object.node());
    return label.empty() ? prefix_ : prefix_ + " " + label;
  }

  std::string prefix_;  // "web.yaml doc 3"
  DecodeContext context_;
  FieldTracker tracker_;  // what the kind decoders asked of the document
  const KindRegistry& kinds_;
  DecodedFile& out_;
};

std::string size_text(std::uintmax_t bytes) {
  constexpr std::uintmax_t kMiB = 1024 * 1024;
  std::string text = std::to_string(bytes) + " bytes";
  if (bytes >= kMiB && bytes % kMiB == 0) text += " (" + std::to_string(bytes / kMiB) + " MiB)";
  return text;
}

Error too_large(std::string_view source, std::uintmax_t size, const ManifestLimits& limits,
                std::string_view noun = "manifest file") {
  return Error{std::string(source) + ": " + std::to_string(size) + " bytes is over the limit of " +
               size_text(limits.max_bytes) + " for a " + std::string(noun)};
}

Result<DecodedFile> decode_file(std::string_view text, std::string_view source, const KindRegistry& kinds,
                                const ManifestLimits& limits, FieldValidation validation) {
  if (text.size() > limits.max_bytes) return too_large(source, text.size(), limits);
  // One document's node tree at a time: the whole file's trees at once were most of the 4 GB of issue [5].
  YamlStream stream(text, std::string(source), limits.max_depth);
  DecodedFile out;
  for (int number = 1;; ++number) {
    Result<std::optional<YamlDocument>> document = stream.next();
    if (!document) return document.error();
    if (!*document) return out;
    DocumentDecoder decoder(source, number, kinds, limits, validation, out);
    if (std::optional<Error> error = decoder.decode(**document)) return *error;
  }
}

}  // namespace

Result<std::string> read_input_file(const std::filesystem::path& path, const ManifestLimits& limits,
                                    std::string_view noun, bool regular_only) {
  std::error_code ignored;
  const std::filesystem::file_status status = std::filesystem::status(path, ignored);
  if (std::filesystem::is_directory(status)) return Error{path.string() + ": cannot read: is a directory"};
  if (regular_only && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    return Error{path.string() + ": cannot read: not a regular file"};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path.string() + ": cannot read: " + std::strerror(errno)};
  std::error_code no_size;
  std::uintmax_t size = std::filesystem::is_regular_file(status) ? std::filesystem::file_size(path, no_size) : 0;
  if (no_size) size = 0;
  if (size > limits.max_bytes) return manifest::too_large(path.string(), size, limits, noun);
  std::string text;
  text.reserve(static_cast<std::size_t>(size));
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > limits.max_bytes) return manifest::too_large(path.string(), text.size(), limits, noun);
  }
  if (in.bad()) return Error{path.string() + ": cannot read: " + std::strerror(errno)};
  return text;
}

namespace {

Result<DecodedFile> load_file(const std::filesystem::path& path, const ManifestLimits& limits,
                              FieldValidation validation) {
  Result<std::string> text = read_input_file(path, limits, "manifest file", /*regular_only=*/false);
  if (!text) return text.error();
  return decode_file(*text, path.string(), KindRegistry::builtin(), limits, validation);
}

}  // namespace

Result<ManifestSet> decode_manifests(std::string_view text, std::string_view source, const KindRegistry& kinds,
                                     const ManifestLimits& limits, FieldValidation validation) {
  Result<DecodedFile> decoded = decode_file(text, source, kinds, limits, validation);
  if (!decoded) return decoded.error();
  return std::move(decoded->set);
}

}  // namespace manifest

void ManifestSet::append(ManifestSet&& other) {
  auto move_all = [](auto& to, auto& from) {
    std::move(from.begin(), from.end(), std::back_inserter(to));
    from.clear();
  };
  move_all(nodes, other.nodes);
  move_all(pods, other.pods);
  move_all(workloads, other.workloads);
  move_all(pod_disruption_budgets, other.pod_disruption_budgets);
  move_all(priority_classes, other.priority_classes);
  move_all(namespaces, other.namespaces);
  move_all(config_maps, other.config_maps);
  move_all(nodepools, other.nodepools);
  move_all(scenarios, other.scenarios);
  move_all(horizontal_pod_autoscalers, other.horizontal_pod_autoscalers);
  move_all(scaled_objects, other.scaled_objects);
  move_all(cluster_autoscaler_deployments, other.cluster_autoscaler_deployments);
  move_all(node_classes, other.node_classes);
  move_all(cluster_api_objects, other.cluster_api_objects);
  move_all(warnings, other.warnings);
  origins.merge(other.origins);  // keeps this set's entry where both have one
  other.origins.clear();
}

std::optional<FieldValidation> parse_field_validation(std::string_view text) {
  if (text == "strict" || text == "true") return FieldValidation::Strict;
  if (text == "warn") return FieldValidation::Warn;
  if (text == "ignore" || text == "false") return FieldValidation::Ignore;
  return std::nullopt;
}

std::string ObjectOrigin::at(std::string_view field) const {
  if (field.empty()) return path.empty() ? context : context + ": " + path;
  return context + ": " + (path.empty() ? std::string(field) : path + "." + std::string(field));
}

std::string ManifestSet::locate(std::string_view kind, const ObjectMeta& meta, std::string_view field) const {
  auto found = origins.find(object_key(kind, meta));
  if (found != origins.end()) return found->second.at(field);
  const std::string object = std::string(kind) + "/" + meta.name;
  return field.empty() ? object : object + ": " + std::string(field);
}

Result<ManifestSet> decode_manifests(std::string_view text, std::string_view source, const ManifestLimits& limits,
                                     FieldValidation validation) {
  return manifest::decode_manifests(text, source, manifest::KindRegistry::builtin(), limits, validation);
}

Result<ManifestSet> decode_applied(const std::string& apply_source, std::string_view source) {
  return decode_manifests(apply_source, source, ManifestLimits{}, FieldValidation::Ignore);
}

Result<ManifestSet> load_manifest_file(const std::filesystem::path& path, const ManifestLimits& limits,
                                       FieldValidation validation) {
  Result<manifest::DecodedFile> decoded = manifest::load_file(path, limits, validation);
  if (!decoded) return decoded.error();
  return std::move(decoded->set);
}

Result<std::vector<std::filesystem::path>> manifest_files_in(const std::filesystem::path& directory) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  // Every step with an error code: the throwing forms abort the process on an entry that cannot be resolved (a
  // symbolic link loop). Such an entry is kept as a file, and reading it says what is wrong, naming it.
  std::filesystem::directory_iterator it(directory, error), end;
  for (; !error && it != end; it.increment(error)) {
    const std::string extension = it->path().extension().string();
    std::error_code unresolved;
    if ((extension == ".yaml" || extension == ".yml" || extension == ".json") && !it->is_directory(unresolved)) {
      files.push_back(it->path());
    }
  }
  if (error) return Error{directory.string() + ": cannot read: " + error.message()};
  if (files.empty()) {
    return Error{directory.string() + ": no manifest files in this directory (it reads *.yaml, *.yml and *.json, "
                                      "not subdirectories)"};
  }
  // The directory's own order is arbitrary; by name, as kubectl reads them, gives the same run every time.
  std::sort(files.begin(), files.end(),
            [](const auto& a, const auto& b) { return a.filename().string() < b.filename().string(); });
  return files;
}

Result<ManifestSet> load_manifest_files(const std::vector<std::string>& paths, FieldValidation validation) {
  manifest::DecodedFile all;
  auto load = [&](const std::filesystem::path& path) -> std::optional<Error> {
    Result<manifest::DecodedFile> decoded = manifest::load_file(path, ManifestLimits{}, validation);
    if (!decoded) return decoded.error();
    return all.append(std::move(*decoded));
  };
  for (const std::string& path : paths) {
    std::error_code ignored;
    if (!std::filesystem::is_directory(path, ignored)) {
      if (std::optional<Error> error = load(path)) return *error;
      continue;
    }
    Result<std::vector<std::filesystem::path>> files = manifest_files_in(path);
    if (!files) return files.error();
    for (const std::filesystem::path& file : *files) {
      if (std::optional<Error> error = load(file)) return *error;
    }
  }
  if (std::optional<Error> error = manifest::resolve_pod_priorities(all.set, all.pods, all.workloads)) return *error;
  return std::move(all.set);
}

}  // namespace scalewright
