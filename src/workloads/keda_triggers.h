#pragma once
// What KEDA reads from a ScaledObject's spec and triggers that both its halves (the operator's poll and the metrics
// adapter) and the HPA it generates need, internal to the keda*.cpp files.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

#include "api/autoscaling.h"
#include "api/duration.h"
#include "api/instant.h"
#include "workloads/keda.h"

namespace scalewright::workloads::detail {

// Go's strconv.ParseInt: the whole text must be a whole number.
std::optional<std::int64_t> parse_int(std::string_view text);
double quantity_value(const Quantity& q);
std::int64_t to_milli(double value);
bool is_resource_trigger(const ScaledObjectTrigger& t);
// Whether scalingModifiers says anything: then the formula, not each trigger, decides.
bool using_modifiers(const ScaledObject& so);
TriggerReading read_value(const ScaledObject& so, const KedaTrigger& trigger, const TriggerReader& reader,
                          std::chrono::sys_seconds wall_clock, Instant now);

}  // namespace scalewright::workloads::detail
