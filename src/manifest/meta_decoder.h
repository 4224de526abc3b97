#pragma once
// metadata, and the taints and tolerations nodes and pods share.
#include <cstdint>
#include <map>
#include <string>
#include <optional>
#include <string_view>

#include "api/meta.h"
#include "manifest/field.h"

namespace scalewright::manifest {

enum class Scope { Namespaced, Cluster };
// Which of the API server's name rules an object's name follows: a DNS-1123 subdomain (most kinds) or label
// (Namespace).
enum class NameRule { Subdomain, Label };

// The object's metadata: name (required, by `rule`), namespace ("default" when a namespaced object leaves it out;
// always empty for cluster-scoped kinds; a DNS-1123 label), uid, labels, annotations, ownerReferences,
// deletionTimestamp.
ObjectMeta decode_object_meta(const Field& object, Scope scope, NameRule rule = NameRule::Subdomain);

// The fields of ObjectMeta Scalewright does not read (generateName, resourceVersion, managedFields, ...): upstream's,
// so never unknown to strict field validation.
void known_meta_fields(const Field& metadata);

// Labels of a mapping (metadata.labels, nodeSelector): keys and values by the API server's rules.
Labels decode_labels(const Field& parent, std::string_view key);
// metadata.annotations: keys by the label key rule, 256 KiB at most in all.
std::map<std::string, std::string> decode_annotations(const Field& metadata);
// `value`, read at parent.key, as a label key (a taint's key, a topologyKey); fails naming the field otherwise.
void check_label_key(const Field& parent, std::string_view key, std::string_view value);
// `value`, read at parent.key, as a label value (a taint's value).
void check_label_value(const Field& parent, std::string_view key, std::string_view value);

// "2024-03-01T12:00:00Z", "2024-03-01T12:00:00.5+02:00" -> seconds since the epoch (fractions dropped).
std::optional<std::int64_t> parse_rfc3339(std::string_view text);
// parent.key as an RFC 3339 time, in seconds since the epoch; nullopt when absent, fails naming the field otherwise.
std::optional<std::int64_t> read_timestamp(const Field& parent, std::string_view key);

Taint decode_taint(const Field& taint);
// operator defaults to Equal; Exists takes no value; an empty key needs Exists; tolerationSeconds needs
// NoExecute.
Toleration decode_toleration(const Field& toleration);

}  // namespace scalewright::manifest
