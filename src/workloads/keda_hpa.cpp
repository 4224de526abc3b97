// The HorizontalPodAutoscaler KEDA generates for a ScaledObject (controllers/keda/hpa.go), out of keda.cpp so that
// no file of KEDA's logic is over 600 lines.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>

#include "api/labels.h"
#include "api/saturating.h"
#include "workloads/keda.h"
#include "workloads/keda_triggers.h"

namespace scalewright::workloads {

using detail::quantity_value;
using detail::to_milli;
using detail::using_modifiers;

namespace {

// The composite metric replaces the triggers' metrics only when the target is a positive number (hpa.go).
bool composite_in_hpa(const ScaledObject& so) {
  return using_modifiers(so) && so.scaling_modifiers->target.has_value() &&
         quantity_value(*so.scaling_modifiers->target) > 0 &&
         so.scaling_modifiers->metric_type.value_or(MetricTarget::Type::AverageValue) !=
             MetricTarget::Type::Utilization;
}

LabelSelector owner_selector(const ScaledObject& so) {
  LabelSelector selector;
  LabelRequirement requirement;
  requirement.key = Symbol(kScaledObjectNameLabel);
  requirement.op = SelectorOperator::In;
  requirement.values.push_back(Symbol(so.meta.name));
  selector.requirements.push_back(requirement);
  return selector;
}

int metric_type_order(MetricSpec::Type type) {
  // KEDA sorts by the type's name: ContainerResource < External < Object < Pods < Resource.
  switch (type) {
    case MetricSpec::Type::ContainerResource:
      return 0;
    case MetricSpec::Type::External:
      return 1;
    case MetricSpec::Type::Object:
      return 2;
    case MetricSpec::Type::Pods:
      return 3;
    case MetricSpec::Type::Resource:
      return 4;
  }
  return 5;
}

}  // namespace

HorizontalPodAutoscaler keda_hpa(const ScaledObject& so) {
  HorizontalPodAutoscaler hpa;
  hpa.meta.name = keda_hpa_name(so);
  hpa.meta.namespace_ = so.meta.namespace_;
  // A label value has at most 63 characters and must end alphanumeric.
  std::string label_name = hpa.meta.name;
  if (label_name.size() > 63) {
    label_name.resize(63);
    while (!label_name.empty() && !std::isalnum(static_cast<unsigned char>(label_name.back()))) label_name.pop_back();
  }
  hpa.meta.labels.set(Symbol("app.kubernetes.io/name"), Symbol(label_name));
  hpa.meta.labels.set(Symbol("app.kubernetes.io/part-of"), Symbol(so.meta.name));
  hpa.meta.labels.set(Symbol("app.kubernetes.io/managed-by"), Symbol("keda-operator"));
  for (const auto& [k, v] : so.meta.labels) hpa.meta.labels.set(k, v);
  hpa.meta.annotations = so.meta.annotations;
  hpa.meta.owner_references.push_back({"keda.sh/v1alpha1", "ScaledObject", so.meta.name, so.meta.uid, true});

  hpa.scale_target_ref = so.scale_target_ref;
  if (hpa.scale_target_ref.kind.empty()) hpa.scale_target_ref.kind = "Deployment";
  if (hpa.scale_target_ref.api_version.empty()) hpa.scale_target_ref.api_version = "apps/v1";
  hpa.min_replicas = so.min_replica_count && *so.min_replica_count > 0 ? *so.min_replica_count : 1;
  hpa.max_replicas = so.max_replica_count.value_or(kDefaultMaxReplicaCount);
  hpa.behavior = so.hpa_behavior;

  bool composite = composite_in_hpa(so);
  for (std::size_t i = 0; i < so.triggers.size(); ++i) {
    Result<KedaTrigger> t = keda_trigger(so, i);
    if (!t) continue;
    MetricSpec spec;
    if (t->kind == KedaTrigger::Kind::Resource) {
      spec.type = t->container.empty() ? MetricSpec::Type::Resource : MetricSpec::Type::ContainerResource;
      spec.resource = t->type;
      spec.container = t->container;
      spec.target.type = t->target_type;
      if (t->target_type == MetricTarget::Type::Utilization) {
        spec.target.average_utilization = saturate_cast<std::int32_t>(t->target);
      } else {
        spec.target.average_value = t->average_value;
      }
    } else {
      if (composite) continue;  // replaced by the composite metric below
      spec.type = MetricSpec::Type::External;
      spec.metric.name = t->metric_name;
      spec.metric.selector = owner_selector(so);
      spec.target.type = t->target_type;
      // GetMetricTargetMili: the threshold in thousandths.
      Quantity q = Quantity::from_milli(to_milli(t->target));
      if (t->target_type == MetricTarget::Type::Value) {
        spec.target.value = q;
      } else {
        spec.target.average_value = q;
      }
    }
    hpa.metrics.push_back(spec);
  }
  std::stable_sort(hpa.metrics.begin(), hpa.metrics.end(), [](const MetricSpec& a, const MetricSpec& b) {
    return metric_type_order(a.type) < metric_type_order(b.type);
  });
  if (composite) {
    const ScalingModifiers& sm = *so.scaling_modifiers;
    MetricSpec spec;
    spec.type = MetricSpec::Type::External;
    spec.metric.name = std::string(kCompositeMetricName);
    spec.metric.selector = owner_selector(so);
    spec.target.type = sm.metric_type.value_or(MetricTarget::Type::AverageValue);
    Quantity q = Quantity::from_milli(to_milli(quantity_value(*sm.target)));
    if (spec.target.type == MetricTarget::Type::Value) {
      spec.target.value = q;
    } else {
      spec.target.average_value = q;
    }
    hpa.metrics.push_back(spec);  // after the resource metrics, as hpa.go appends it
  }
  return hpa;
}

}  // namespace scalewright::workloads
