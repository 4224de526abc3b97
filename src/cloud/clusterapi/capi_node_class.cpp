#include "cloud/clusterapi/capi_node_class.h"

#include <string>
#include <utility>

#include "kube/model_json.h"
#include "manifest/manifest.h"
#include "manifest/meta_decoder.h"
#include "manifest/selectors.h"

namespace scalewright::cloud::clusterapi {

Catalog ClusterApiNodeClass::shape(const Catalog& catalog) const {
  return Catalog::from_instance_types(catalog.region(), {}, {});
}

const manifest::KindRegistry& kinds_with_node_class() {
  static const manifest::KindRegistry kinds = [] {
    manifest::KindRegistry registry = manifest::KindRegistry::builtin();
    registry.add({std::string(kNodeClassGroup), std::string(kNodeClassKind), {"v1alpha1"},
                  [](const manifest::Field& object, const manifest::DecodeContext&, ManifestSet& out) {
                    ObjectMeta meta = manifest::decode_object_meta(object, manifest::Scope::Cluster);
                    manifest::Field spec = object.required_child("spec");
                    // Absent, as upstream's Go reads a nil selector: selects everything, like an empty one.
                    LabelSelector selector = manifest::maybe_label_selector(spec, "scalableResourceSelector")
                                                 .value_or(LabelSelector{});
                    out.node_classes.push_back(std::make_shared<const ClusterApiNodeClass>(std::move(meta),
                                                                                          std::move(selector)));
                  }});
    return registry;
  }();
  return kinds;
}

Result<std::shared_ptr<const ClusterApiNodeClass>> decode_node_class(const nlohmann::json& object) {
  const std::string name = object.value("metadata", nlohmann::json::object()).value("name", "");
  Result<ManifestSet> decoded =
      manifest::decode_manifests(kube::as_written(object).dump(), std::string(kNodeClassKind) + " " + name,
                                 kinds_with_node_class());
  if (!decoded) return decoded.error();
  if (decoded->node_classes.size() != 1) return Error{std::string(kNodeClassKind) + " " + name + ": not one"};
  auto node_class = std::dynamic_pointer_cast<const ClusterApiNodeClass>(decoded->node_classes.front());
  if (!node_class) return Error{std::string(kNodeClassKind) + " " + name + ": not a " + std::string(kNodeClassKind)};
  return node_class;
}

}  // namespace scalewright::cloud::clusterapi
