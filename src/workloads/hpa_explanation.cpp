#include "workloads/hpa_explanation.h"

#include <fmt/format.h>

namespace scalewright::workloads {
namespace {

std::string explain_metric(const MetricReading& m, const Tolerances& tolerances) {
  if (!m.proposal) return fmt::format("{}: {}", m.name, m.error.empty() ? "no value" : m.error);
  std::string out = fmt::format("{} {} of {} target", m.name, m.current, m.target);
  if (m.usage_ratio) {
    out += fmt::format(": ratio {:.2f}, {} the tolerance {:.2f}–{:.2f}", *m.usage_ratio,
                       tolerances.within(*m.usage_ratio) ? "within" : "outside", 1.0 - tolerances.scale_down,
                       1.0 + tolerances.scale_up);
  }
  return out + fmt::format(", asks for {}", *m.proposal);
}

}  // namespace

std::string explain_hpa_decision(const HpaDecision& decision) {
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : "; ") + part; };
  for (const MetricReading& m : decision.metrics) add(explain_metric(m, decision.tolerances));
  if (!decision.recommended_replicas && !decision.reason.empty()) add(decision.reason);
  if (decision.recommended_replicas && decision.metrics.size() > 1) {
    add(fmt::format("the highest asks for {}", *decision.recommended_replicas));
  }
  if (!decision.stabilization_reason.empty()) {
    add(fmt::format("{} ({}): {}", decision.stabilization_reason, decision.stabilization_message,
                    decision.stabilized_replicas));
  }
  if (!decision.limit_reason.empty()) {
    add(fmt::format("{} ({}): {}", decision.limit_reason, decision.limit_message, decision.desired_replicas));
  }
  add(decision.rescale ? fmt::format("scaled {} → {}", decision.current_replicas, decision.desired_replicas)
                       : fmt::format("kept at {}", decision.current_replicas));
  return out;
}

}  // namespace scalewright::workloads
