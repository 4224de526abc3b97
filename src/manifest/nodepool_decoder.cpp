#include "manifest/nodepool_decoder.h"

#include <algorithm>
#include <limits>

#include "api/integer.h"
#include "cloud/aws/ec2nodeclass.h"

#include "manifest/meta_decoder.h"
#include "manifest/pod_decoder.h"
#include "manifest/selectors.h"

namespace scalewright::manifest {
namespace {

// Labels Karpenter does not let a NodePool require: they name one node, or Karpenter sets them itself.
bool restricted_requirement_key(std::string_view key) {
  return key == well_known::hostname || key == karpenter_labels::nodepool || key == "karpenter.sh/provisioner-name";
}

NodePoolRequirement decode_nodepool_requirement(const Field& r) {
  NodePoolRequirement out;
  out.requirement = decode_node_requirement(r);
  if (restricted_requirement_key(out.requirement.key.str())) {
    r.fail_at("key", "label " + quote(out.requirement.key.str()) + " is restricted: Karpenter sets it on every node");
  }
  out.min_values = r.maybe_int32("minValues");
  if (out.min_values && (*out.min_values < 1 || *out.min_values > 50)) {
    r.fail_at("minValues", "must be between 1 and 50, got " + std::to_string(*out.min_values));
  }
  // Karpenter's CEL rule on requirements: an In requirement cannot ask for more distinct values than it lists.
  const std::vector<Symbol>& values = out.requirement.values;
  if (out.min_values && out.requirement.op == SelectorOperator::In &&
      values.size() < static_cast<std::size_t>(*out.min_values)) {
    r.fail_at("minValues", "requirements with 'minValues' must have at least that many values specified in the "
                           "'values' field (minValues " + std::to_string(*out.min_values) + ", " +
                               std::to_string(values.size()) + " values)");
  }
  return out;
}

// requirements[]: each one decoded, then refused when it leaves some key no value that every requirement so far
// allows (In [amd64] then NotIn [amd64]): no node could ever carry labels that satisfy them all.
std::vector<NodePoolRequirement> decode_requirements(const Field& parent) {
  std::vector<NodePoolRequirement> out;
  RequirementSet so_far;
  parent.each("requirements", [&](const Field& r) {
    NodePoolRequirement requirement = decode_nodepool_requirement(r);
    const std::string key(requirement.requirement.key.str());
    const ValueSet* before = so_far.find(key);
    const std::string before_text = before ? before->to_string() : "";
    so_far.add(requirement.requirement);
    const ValueSet* after = so_far.find(key);
    if (before && after->is_empty() && !after->allows_absent()) {
      r.fail(key + " " + ValueSet::from(requirement.requirement).to_string() +
             " contradicts the requirements before it (" + key + " " + before_text + "): no node can have them all");
    }
    out.push_back(std::move(requirement));
  });
  return out;
}

void decode_limits(const Field& limits, NodePool& pool) {
  pool.limits = decode_resource_list(limits);
  limits.entries([&](const std::string& name, const Field&) { pool.limited_resources.emplace_back(name); });
}

std::int32_t decode_pool_weight(const Field& spec) {
  std::optional<std::int32_t> weight = spec.maybe_int32("weight");
  if (weight && (*weight < 1 || *weight > 100)) spec.fail_at("weight", "must be between 1 and 100, got " + std::to_string(*weight));
  return weight.value_or(0);
}

std::vector<Taint> decode_taints(const Field& parent, std::string_view key) {
  std::vector<Taint> taints;
  parent.each(key, [&](const Field& t) { taints.push_back(decode_taint(t)); });
  return taints;
}

// A string in Karpenter's schema ("10%", "5"), read once here so the disruption loop works with numbers.
IntOrPercent decode_budget_nodes(const Field& b) {
  const std::string n = b.optional_string("nodes", "10%");
  const bool percent = !n.empty() && n.back() == '%';
  const std::string_view digits = std::string_view(n).substr(0, n.size() - (percent ? 1 : 0));
  const bool all_digits =
      !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  std::optional<std::int64_t> value = all_digits ? parse_integer(digits) : std::nullopt;
  if (!value || *value > (percent ? 100 : std::numeric_limits<std::int32_t>::max())) {
    b.fail_at("nodes", "expected a number of nodes or a percentage, got " + quote(n));
  }
  return IntOrPercent{static_cast<std::int32_t>(*value), percent};
}

std::vector<std::string> decode_budget_reasons(const Field& b) {
  std::vector<std::string> reasons;
  b.each("reasons", [&](const Field& r) {
    std::string name = r.as_string();
    if (!parse_disruption_reason(name)) {
      r.fail("unknown disruption reason " + quote(name) + " (expected Empty, Drifted, Underutilized)");
    }
    reasons.push_back(std::move(name));
  });
  return reasons;
}

// Karpenter's CRD takes hours and minutes only ("8h", "30m", "1h30m", and the "0s" Go appends when it prints one):
// a schedule fires on whole minutes.
bool hours_and_minutes(std::string_view text) {
  if (text.ends_with("0s")) text.remove_suffix(2);
  bool any = false;
  for (char unit : {'h', 'm'}) {
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == 0 || digits == text.size() || text[digits] != unit) continue;
    text.remove_prefix(digits + 1);
    any = true;
  }
  return any && text.empty();
}

std::optional<BudgetWindow> decode_budget_window(const Field& b) {
  const std::optional<std::string> schedule = b.maybe_string("schedule");
  const std::optional<std::string> duration = b.maybe_string("duration");
  if (!schedule && !duration) return std::nullopt;
  // Karpenter's CRD: "'schedule' must be set with 'duration'", and the other way round.
  if (!duration) b.fail_at("duration", "required when schedule is set");
  if (!schedule) b.fail_at("schedule", "required when duration is set");
  Result<CronSchedule> cron = CronSchedule::parse(*schedule);
  if (!cron) b.fail_at("schedule", cron.error().message);
  Result<Duration> length = parse_duration(*duration);
  if (!length || !hours_and_minutes(*duration)) {
    b.fail_at("duration", "expected hours and minutes such as \"8h\", \"30m\" or \"1h30m\", got " + quote(*duration));
  }
  return BudgetWindow{std::move(*cron), *length};
}

// The fields of a NodePool's schema, by version, that Scalewright does not read: v1's static `replicas`; v1beta1's
// kubelet settings, resource requests and nodeClassRef.apiVersion, which belong to the node class in v1, and its
// disruption.expireAfter. A field the version does not have is unknown, as the API server's CRD schema says.
void known_nodepool_fields(const Field& object, const Field& spec, const Field& tmpl) {
  spec.known({"replicas"});
  if (object.optional_string("apiVersion") != "karpenter.sh/v1beta1") return;
  Field node_spec = tmpl.child("spec");
  node_spec.known({"kubelet", "resources"});
  node_spec.child("nodeClassRef").known({"apiVersion"});
  spec.child("disruption").known({"expireAfter"});
}

}  // namespace

std::optional<Duration> maybe_duration(const Field& parent, std::string_view key) {
  std::optional<std::string> text = parent.maybe_string(key);
  if (!text) return std::nullopt;
  Result<Duration> d = parse_duration(*text);
  if (!d) parent.fail_at(key, d.error().message);
  if (d->count() < 0) parent.fail_at(key, "must not be negative");
  return *d;
}

Duration required_duration(const Field& parent, std::string_view key) {
  std::optional<Duration> d = maybe_duration(parent, key);
  if (!d) parent.fail_at(key, "required");
  return *d;
}

std::optional<Duration> duration_or_never(const Field& parent, std::string_view key, std::optional<Duration> fallback) {
  std::optional<std::string> text = parent.maybe_string(key);
  if (!text) return fallback;
  if (*text == "Never") return std::nullopt;
  return maybe_duration(parent, key);
}

namespace {

// spec.replicas, with Karpenter's CRD rules for a static NodePool: at least 0, no limit but limits.nodes, no weight.
// Its consolidationPolicy and consolidateAfter are ignored, as Karpenter ignores them.
void decode_replicas(const Field& spec, NodePool& pool) {
  pool.replicas = spec.maybe_int64("replicas");
  if (!pool.replicas) return;
  if (*pool.replicas < 0) spec.fail_at("replicas", "must be at least 0, got " + std::to_string(*pool.replicas));
  for (Symbol r : pool.limited_resources) {
    if (r != nodes_resource()) {
      spec.child("limits").fail_at(r.str(), "only 'limits.nodes' is supported on static NodePools");
    }
  }
  if (spec.has("weight")) spec.fail_at("weight", "'weight' is not supported on static NodePools");
}

NodeClassReference decode_node_class(const Field& ref) {
  NodeClassReference out{ref.optional_string("group"), ref.optional_string("kind"), ref.optional_string("name")};
  // The CRD's pattern ^[^/]*$: a group, not an apiVersion.
  if (out.group.find('/') != std::string::npos) {
    ref.fail_at("group", "must be an API group without a version (the CRD's pattern ^[^/]*$), got " + quote(out.group));
  }
  return out;
}

// v1beta1's nodeClassRef names an apiVersion; Karpenter's conversion keeps its group, and takes the provider's
// node class (EC2NodeClass for AWS, the simulated cloud's) where apiVersion or kind is left out.
NodeClassReference v1beta1_node_class(const Field& ref) {
  if (!ref.present()) return {};
  const std::string api_version = ref.optional_string("apiVersion");
  return {api_version.empty() ? std::string(cloud::aws::kGroup) : api_version.substr(0, api_version.find('/')),
          ref.optional_string("kind", cloud::aws::kKind), ref.optional_string("name")};
}

// v1beta1's consolidation, as its CRD checks it and Karpenter's conversion to v1 reads it: WhenUnderutilized (its
// name for WhenEmptyOrUnderutilized, and its default) takes no consolidateAfter but Never and converts to 0s;
// WhenEmpty needs one.
void convert_v1beta1_consolidation(const Field& disruption, NodePool& pool) {
  const std::string policy = disruption.optional_string("consolidationPolicy", "WhenUnderutilized");
  const std::optional<std::string> after = disruption.maybe_string("consolidateAfter");
  if (policy == "WhenUnderutilized") {
    if (after && *after != "Never") {
      disruption.fail_at("consolidateAfter", "cannot be combined with consolidationPolicy=WhenUnderutilized");
    }
    pool.consolidate_after = Duration(0);
  } else if (policy == "WhenEmpty" && !after) {
    disruption.fail_at("consolidateAfter", "must be specified with consolidationPolicy=WhenEmpty");
  }
}

}  // namespace

NodePool decode_nodepool(const Field& object) {
  NodePool pool;
  pool.meta = decode_object_meta(object, Scope::Cluster);
  Field spec = object.required_child("spec");
  Field tmpl = spec.required_child("template");
  known_nodepool_fields(object, spec, tmpl);
  pool.template_labels = decode_labels(tmpl.child("metadata"), "labels");
  pool.template_annotations = decode_annotations(tmpl.child("metadata"));
  Field node_spec = tmpl.child("spec");
  pool.taints = decode_taints(node_spec, "taints");
  pool.startup_taints = decode_taints(node_spec, "startupTaints");
  pool.requirements = decode_requirements(node_spec);
  const bool v1beta1 = object.optional_string("apiVersion") == "karpenter.sh/v1beta1";
  pool.node_class = v1beta1 ? v1beta1_node_class(node_spec.child("nodeClassRef"))
                            : decode_node_class(node_spec.child("nodeClassRef"));
  pool.termination_grace_period = maybe_duration(node_spec, "terminationGracePeriod");

  Field disruption = spec.child("disruption");
  // v1beta1 kept expireAfter under disruption; Karpenter's conversion to v1 moves it to the template's spec.
  pool.expire_after = duration_or_never(v1beta1 ? disruption : node_spec, "expireAfter", pool.expire_after);
  pool.consolidation_policy = disruption.choice(
      "consolidationPolicy", "consolidation policy",
      {{"WhenEmpty", ConsolidationPolicy::WhenEmpty},
       {"WhenEmptyOrUnderutilized", ConsolidationPolicy::WhenEmptyOrUnderutilized},
       {"Balanced", ConsolidationPolicy::Balanced},
       {"WhenUnderutilized", ConsolidationPolicy::WhenEmptyOrUnderutilized}},  // v1beta1's name
      pool.consolidation_policy);
  pool.consolidate_after = duration_or_never(disruption, "consolidateAfter", pool.consolidate_after);
  if (v1beta1) convert_v1beta1_consolidation(disruption, pool);
  if (disruption.has("budgets")) {
    pool.budgets.clear();
    disruption.each("budgets", [&](const Field& b) {
      DisruptionBudget budget;
      budget.nodes = decode_budget_nodes(b);
      budget.reasons = decode_budget_reasons(b);
      budget.window = decode_budget_window(b);
      pool.budgets.push_back(std::move(budget));
    });
  }
  decode_limits(spec.child("limits"), pool);
  pool.weight = decode_pool_weight(spec);
  decode_replicas(spec, pool);
  return pool;
}

// v1alpha5: requirements, labels and taints sit directly under spec; emptiness is ttlSecondsAfterEmpty.
NodePool decode_provisioner(const Field& object) {
  NodePool pool;
  pool.meta = decode_object_meta(object, Scope::Cluster);
  Field spec = object.required_child("spec");
  spec.known({"annotations", "kubeletConfiguration", "provider", "providerRef"});
  pool.template_labels = decode_labels(spec, "labels");
  pool.taints = decode_taints(spec, "taints");
  pool.startup_taints = decode_taints(spec, "startupTaints");
  pool.requirements = decode_requirements(spec);
  decode_limits(spec.child("limits").child("resources"), pool);
  pool.weight = decode_pool_weight(spec);
  const bool consolidation = spec.child("consolidation").optional_bool("enabled", false);
  std::optional<std::int64_t> ttl_empty = spec.maybe_int64("ttlSecondsAfterEmpty");
  if (consolidation && ttl_empty) spec.fail_at("ttlSecondsAfterEmpty", "cannot be set together with consolidation.enabled");
  if (ttl_empty && *ttl_empty < 0) spec.fail_at("ttlSecondsAfterEmpty", "must not be negative");
  if (consolidation) {
    pool.consolidation_policy = ConsolidationPolicy::WhenEmptyOrUnderutilized;
    pool.consolidate_after = Duration(0);
  } else {
    pool.consolidation_policy = ConsolidationPolicy::WhenEmpty;
    pool.consolidate_after = ttl_empty ? std::optional<Duration>(Duration(*ttl_empty * 1000)) : std::nullopt;
  }
  std::optional<std::int64_t> ttl_expired = spec.maybe_int64("ttlSecondsUntilExpired");
  pool.expire_after = ttl_expired ? std::optional<Duration>(Duration(*ttl_expired * 1000)) : std::nullopt;
  return pool;
}

}  // namespace scalewright::manifest
