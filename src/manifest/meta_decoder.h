#pragma once
// metadata, and the taints and tolerations nodes and pods share.
#include <cstdint>
#include <optional>
#include <string_view>

#include "api/meta.h"
#include "manifest/field.h"

namespace scalewright::manifest {

enum class Scope { Namespaced, Cluster };

// The object's metadata: name (required), namespace ("default" when a namespaced object leaves it out; always
// empty for cluster-scoped kinds), uid, labels, annotations, ownerReferences, deletionTimestamp.
ObjectMeta decode_object_meta(const Field& object, Scope scope);

// Labels of a mapping (metadata.labels, nodeSelector).
Labels decode_labels(const Field& parent, std::string_view key);

// "2024-03-01T12:00:00Z", "2024-03-01T12:00:00.5+02:00" -> seconds since the epoch (fractions dropped).
std::optional<std::int64_t> parse_rfc3339(std::string_view text);

Taint decode_taint(const Field& taint);
// operator defaults to Equal; Exists takes no value; an empty key needs Exists; tolerationSeconds needs
// NoExecute.
Toleration decode_toleration(const Field& toleration);

}  // namespace scalewright::manifest
