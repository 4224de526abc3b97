#pragma once
// Karpenter's kinds: NodePool (karpenter.sh/v1, and v1beta1 which has the same shape for what we read) and the
// older Provisioner (karpenter.sh/v1alpha5) that the seed articles use, read into the same NodePool model.
#include <optional>

#include "api/duration.h"
#include "api/nodepool.h"
#include "manifest/field.h"

namespace scalewright::manifest {

NodePool decode_nodepool(const Field& object);
NodePool decode_provisioner(const Field& object);

// A duration field that may also say "Never" (nullopt). Absent gives `fallback`.
std::optional<Duration> duration_or_never(const Field& parent, std::string_view key, std::optional<Duration> fallback);
// A required duration field ("30s", "5m").
Duration required_duration(const Field& parent, std::string_view key);
std::optional<Duration> maybe_duration(const Field& parent, std::string_view key);

}  // namespace scalewright::manifest
