#include "manifest/scenario_decoder.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "data/csv_table.h"

#include "manifest/manifest.h"
#include "manifest/meta_decoder.h"
#include "manifest/nodepool_decoder.h"
#include "manifest/yaml_stream.h"
#include "config/cluster_autoscaler_flags.h"

namespace scalewright::manifest {
namespace {

double decode_rate(const Field& parent, std::string_view key) {
  Field f = parent.child(key);
  if (!f.present()) return 0;
  double rate = 0;
  try {
    rate = f.node().as<double>();
  } catch (const YAML::Exception&) {
    f.fail("expected a number between 0 and 1, got " + f.describe());
  }
  if (rate < 0 || rate > 1) f.fail("must be between 0 and 1, got " + f.as_string());
  return rate;
}

// The most requests per second a load step may offer: about what the largest CDN serves worldwide at its peak. The
// served requests add up in the counter http_requests_total, a double as Prometheus keeps it, which counts single
// requests exactly up to 2^53 (9.0e15): at this rate, for a simulated year (3.2e15). A rate like 1e308 made the
// counter and the cpu usage infinite, and every HPA and KEDA ratio read from them NaN.
constexpr double kMaxRequestsPerSecond = 1e8;

// Why a rate read from a load step (a field, or a CSV cell) is refused; nullopt when it is one.
std::optional<std::string> rps_problem(double value, std::string_view text) {
  if (!std::isfinite(value) || value < 0) return "must be a number of at least 0, got " + std::string(text);
  if (value > kMaxRequestsPerSecond) {
    return "must be at most 100000000 requests per second (1e8, the most a load step may offer), got " +
           std::string(text);
  }
  return std::nullopt;
}

// A rate (requests per second) or amplitude: a finite number, not negative, at most kMaxRequestsPerSecond.
double decode_rps(const Field& parent, std::string_view key) {
  Field f = parent.child(key);
  if (!f.present()) parent.fail_at(key, "required");
  double value = 0;
  try {
    value = f.node().as<double>();
  } catch (const YAML::Exception&) {
    f.fail("expected a number, got " + f.describe());
  }
  if (std::optional<std::string> problem = rps_problem(value, f.as_string())) f.fail(*problem);
  return value;
}

Duration positive_duration(const Field& parent, std::string_view key) {
  Duration d = required_duration(parent, key);
  if (d.count() <= 0) parent.fail_at(key, "must be positive");
  return d;
}

// The CSV text of `csv:`. A CSV with a point has at least two lines (the header, a row), so a value on one line
// cannot be one: it is the path of a CSV file, relative to the scenario file's folder, read as a manifest file is
// (at most the same size) and only when it is a regular file. The returned name is the one CSV errors are reported
// under (the file's path, or "csv").
std::pair<std::string, std::string> csv_text(const Field& csv, const DecodeContext& context) {
  std::string value = csv.as_string();
  if (value.find('\n') != std::string::npos) return {std::move(value), "csv"};
  const std::filesystem::path path = context.directory / value;  // an absolute value stays as it is
  Result<std::string> text = read_input_file(path, context.limits, "CSV file", /*regular_only=*/true);
  if (!text) csv.fail("CSV file " + text.error().message);
  return {std::move(*text), path.string()};
}

// Points of a load curve from CSV (columns "after" and "requestsPerSecond"), read through libcsv.
std::vector<std::pair<Duration, double>> decode_csv_points(const Field& csv, const DecodeContext& context) {
  auto [text, name] = csv_text(csv, context);
  Result<data::CsvTable> table = data::CsvTable::parse(text, name);
  if (!table) csv.fail(table.error().message);
  Result<std::size_t> after = table->column("after");
  Result<std::size_t> rps = table->column("requestsPerSecond");
  if (!after) csv.fail(after.error().message);
  if (!rps) csv.fail(rps.error().message);
  std::vector<std::pair<Duration, double>> points;
  for (const data::CsvRow& row : table->rows()) {
    Result<Duration> at = parse_duration(row[*after]);
    if (!at) csv.fail(table->error_at(row, *after, at.error().message).message);
    Result<double> value = table->number(row, *rps);
    if (!value) csv.fail(value.error().message);
    if (std::optional<std::string> problem = rps_problem(*value, row[*rps])) {
      csv.fail(table->error_at(row, *rps, *problem).message);
    }
    points.emplace_back(*at, *value);
  }
  return points;
}

// One of requestsPerSecond, ramp, step, sine, points or csv: the load from this step on.
LoadShape decode_load_shape(const Field& load, const DecodeContext& context) {
  LoadShape shape;
  int shapes = 0;
  if (load.has("requestsPerSecond")) {
    ++shapes;
    shape.kind = LoadShape::Kind::Constant;
    shape.requests_per_second = decode_rps(load, "requestsPerSecond");
  }
  // ramp: {from, to, over} and step: {from, to, after}: two rates and the time between them.
  for (const auto& [key, kind, duration_key] : {std::tuple{"ramp", LoadShape::Kind::Ramp, "over"},
                                                std::tuple{"step", LoadShape::Kind::Step, "after"}}) {
    if (!load.has(key)) continue;
    ++shapes;
    Field change = load.child(key);
    shape.kind = kind;
    shape.from = decode_rps(change, "from");
    shape.to = decode_rps(change, "to");
    shape.over = positive_duration(change, duration_key);
  }
  if (load.has("sine")) {
    ++shapes;
    Field sine = load.child("sine");
    shape.kind = LoadShape::Kind::Sine;
    shape.mean = decode_rps(sine, "mean");
    shape.amplitude = decode_rps(sine, "amplitude");
    shape.period = positive_duration(sine, "period");
  }
  if (load.has("points") || load.has("csv")) {
    shapes += load.has("points") && load.has("csv") ? 2 : 1;
    shape.kind = LoadShape::Kind::Points;
    if (load.has("csv")) {
      shape.points = decode_csv_points(load.child("csv"), context);
    } else {
      load.each("points", [&](const Field& point) {
        shape.points.emplace_back(required_duration(point, "after"), decode_rps(point, "requestsPerSecond"));
      });
    }
    if (shape.points.empty()) load.fail_at(load.has("csv") ? "csv" : "points", "needs at least one point");
    for (std::size_t i = 1; i < shape.points.size(); ++i) {
      if (shape.points[i].first <= shape.points[i - 1].first) {
        load.fail_at(load.has("csv") ? "csv" : "points", "points must be in increasing time order");
      }
    }
  }
  if (shapes != 1) load.fail("needs exactly one of requestsPerSecond, ramp, step, sine, points, csv");
  return shape;
}

std::optional<LoadCost> decode_load_cost(const Field& load) {
  if (!load.has("cpuPerRequest") && !load.has("idleCpu") && !load.has("memory")) return std::nullopt;
  LoadCost cost;
  auto non_negative = [&](std::string_view key) -> std::optional<Quantity> {
    std::optional<Quantity> q = load.quantity(key);
    if (q && q->negative()) load.fail_at(key, "must not be negative");
    return q;
  };
  auto exact = [&](std::string_view key, const Quantity& q, bool milli) {
    std::optional<std::int64_t> amount = milli ? q.exact_milli_value() : q.exact_value();
    if (!amount) load.fail_at(key, out_of_range(q, milli));
    return *amount;
  };
  if (auto q = non_negative("cpuPerRequest")) cost.cpu_per_request_milli = exact("cpuPerRequest", *q, true);
  if (auto q = non_negative("idleCpu")) cost.idle_cpu_milli = exact("idleCpu", *q, true);
  if (auto q = non_negative("memory")) cost.memory_bytes = exact("memory", *q, false);
  return cost;
}

// One of cloud.autoScalingGroups: a Cluster Autoscaler node group as AWS describes it.
CloudNodeGroup decode_auto_scaling_group(const Field& f) {
  CloudNodeGroup group;
  group.name = f.required_string("name");
  group.instance_type = f.required_string("instanceType");
  group.zones = f.strings("zones");
  group.capacity_type = f.optional_string("capacityType", group.capacity_type);
  if (group.capacity_type != "on-demand" && group.capacity_type != "spot") {
    f.fail_at("capacityType", "unknown capacity type " + quote(group.capacity_type) + " (expected on-demand, spot)");
  }
  group.min_size = f.optional_int32("minSize", 0);
  if (group.min_size < 0) f.fail_at("minSize", "must not be negative");
  group.max_size = f.optional_int32("maxSize", 0);
  if (group.max_size < group.min_size) f.fail_at("maxSize", "must not be less than minSize");
  // AWS starts a group without a desired capacity at its minimum.
  group.desired_capacity = f.optional_int32("desiredCapacity", group.min_size);
  if (group.desired_capacity < group.min_size || group.desired_capacity > group.max_size) {
    f.fail_at("desiredCapacity", "must be between minSize (" + std::to_string(group.min_size) + ") and maxSize (" +
                                     std::to_string(group.max_size) + "), got " +
                                     std::to_string(group.desired_capacity));
  }
  for (auto& [key, value] : f.string_map("tags")) group.tags[key] = value;
  return group;
}

// The `at` of a timeline step or fault, an instant measured from the run's start: the run ends at spec.duration, so
// a later one would never happen.
Instant time_within(const Field& parent, Duration end) {
  const Duration at = required_duration(parent, "at");
  if (at > end) {
    parent.fail_at("at", format_duration(at) + " is after the end of the scenario (spec.duration " +
                             format_duration(end) + ")");
  }
  return Instant(at);
}

CloudSpec decode_cloud(const Field& cloud, Duration end) {
  CloudSpec spec;
  spec.region = cloud.optional_string("region", spec.region);
  spec.instance_types = cloud.strings("instanceTypes");
  Field latency = cloud.child("launchLatency");
  spec.launch_latency_min = maybe_duration(latency, "min").value_or(spec.launch_latency_min);
  spec.launch_latency_max = maybe_duration(latency, "max").value_or(spec.launch_latency_max);
  if (spec.launch_latency_max < spec.launch_latency_min) latency.fail_at("max", "must not be less than min");
  if (cloud.has("spotPriceFraction")) {
    double f = decode_rate(cloud, "spotPriceFraction");
    if (f <= 0) cloud.fail_at("spotPriceFraction", "must be above 0");
    spec.spot_price_fraction = f;
  }
  Field faults = cloud.child("faults");
  spec.faults.insufficient_capacity_rate = decode_rate(faults, "insufficientCapacityRate");
  spec.faults.never_ready_rate = decode_rate(faults, "neverReadyRate");
  faults.each("insufficientCapacity", [&](const Field& w) {
    InsufficientCapacityWindow window;
    window.at = time_within(w, end);
    window.duration = required_duration(w, "duration");
    window.instance_type = w.optional_string("instanceType");
    window.zone = w.optional_string("zone");
    window.capacity_type = w.optional_string("capacityType");
    if (!window.capacity_type.empty() && window.capacity_type != "spot" && window.capacity_type != "on-demand") {
      w.fail_at("capacityType", "unknown capacity type " + quote(window.capacity_type) + " (expected spot, on-demand)");
    }
    spec.faults.insufficient_capacity.push_back(std::move(window));
  });
  faults.each("spotInterruptions", [&](const Field& s) {
    SpotInterruptionEvent event;
    event.at = time_within(s, end);
    event.count = s.optional_int32("count", 1);
    if (event.count < 1) s.fail_at("count", "must be at least 1");
    spec.faults.spot_interruptions.push_back(event);
  });
  std::vector<Field> failure_groups;  // checked against the Auto Scaling groups, decoded below
  faults.each("nodeFailures", [&](const Field& f) {
    NodeFailureEvent event;
    event.at = time_within(f, end);
    event.count = f.optional_int32("count", 1);
    if (event.count < 1) f.fail_at("count", "must be at least 1");
    event.node_group = f.optional_string("nodeGroup");
    event.nodepool = f.optional_string("nodePool");
    if (!event.node_group.empty()) failure_groups.push_back(f.child("nodeGroup"));
    spec.faults.node_failures.push_back(std::move(event));
  });
  faults.each("prometheusOutages", [&](const Field& o) {
    spec.faults.prometheus_outages.push_back({time_within(o, end), positive_duration(o, "duration")});
  });
  spec.node_groups = decode_auto_scaling_groups(cloud.child("autoScalingGroups"));
  for (const Field& group : failure_groups) {
    const std::string name = group.as_string();
    if (std::none_of(spec.node_groups.begin(), spec.node_groups.end(),
                     [&](const CloudNodeGroup& g) { return g.name == name; })) {
      group.fail("no Auto Scaling group " + quote(name) + " in spec.cloud.autoScalingGroups");
    }
  }
  return spec;
}

// spec.clusterAutoscaler: CA's flags, parsed now so that a bad flag fails the load at the element that holds it.
ClusterAutoscalerSpec decode_cluster_autoscaler(const Field& ca) {
  ClusterAutoscalerSpec spec;
  std::vector<Field> elements;
  ca.each("args", [&](const Field& arg) {
    spec.args.push_back(arg.as_string());
    elements.push_back(arg);
  });
  std::size_t at = elements.size();
  Result<nodegroups::AutoscalerOptions> parsed = config::parse_autoscaler_flags(spec.args, &at);
  if (!parsed) {
    if (at < elements.size()) elements[at].fail(parsed.error().message);
    ca.fail_at("args", parsed.error().message);
  }
  return spec;
}

ObjectReference decode_reference(const Field& f, std::initializer_list<std::string_view> kinds) {
  ObjectReference ref;
  ref.kind = f.required_string("kind");
  if (std::find(kinds.begin(), kinds.end(), ref.kind) == kinds.end()) {
    std::string expected;
    for (std::string_view k : kinds) expected += (expected.empty() ? "" : ", ") + std::string(k);
    f.fail_at("kind", "unsupported kind " + quote(ref.kind) + " (expected " + expected + ")");
  }
  ref.name = f.required_string("name");
  ref.namespace_ = f.optional_string("namespace", "default");
  return ref;
}

// The objects of an apply step, as YAML documents, checked now so a scenario never fails halfway through (their
// fields by the scenario's own --validate, so they are not looked into again here).
std::string decode_apply(const Field& step, const DecodeContext& context, std::vector<std::string>& warnings) {
  Field objects = step.child("apply");
  step.known({"apply"});
  if (!objects.node().IsSequence()) objects.fail("expected a list of objects, got " + objects.describe());
  std::string text;
  for (const auto& object : objects.node()) {
    YAML::Emitter out;
    out << object;
    text += "---\n";
    text += out.c_str();
    text += "\n";
  }
  Result<ManifestSet> decoded = scalewright::decode_manifests(text, "apply", context.limits, context.validation);
  if (!decoded) objects.fail(decoded.error().message);
  for (const std::string& warning : decoded->warnings) warnings.push_back(objects.path() + ": " + warning);
  return text;
}

TimelineStep decode_step(const Field& step, const DecodeContext& context, std::vector<std::string>& warnings) {
  TimelineStep out;
  out.at = Instant(required_duration(step, "at"));
  int actions = 0;
  if (step.has("scale")) {
    ++actions;
    out.action = TimelineStep::Action::Scale;
    Field scale = step.child("scale");
    out.target = decode_reference(scale, {"Deployment", "ReplicaSet", "StatefulSet", "Job", "NodePool"});
    std::optional<std::int32_t> replicas = scale.maybe_int32("replicas");
    if (!replicas) scale.fail_at("replicas", "required");
    if (*replicas < 0) scale.fail_at("replicas", "must not be negative");
    out.replicas = *replicas;
  }
  if (step.has("delete")) {
    ++actions;
    out.action = TimelineStep::Action::Delete;
    out.target = decode_reference(step.child("delete"), {"Deployment", "ReplicaSet", "StatefulSet", "Job", "DaemonSet",
                                                         "Pod", "Node", "NodePool"});
  }
  if (step.has("apply")) {
    ++actions;
    out.action = TimelineStep::Action::Apply;
    out.apply_source = decode_apply(step, context, warnings);
  }
  if (step.has("load")) {
    ++actions;
    out.action = TimelineStep::Action::Load;
    Field load = step.child("load");
    out.target = decode_reference(load, {"Deployment", "ReplicaSet", "StatefulSet"});
    out.load = decode_load_shape(load, context);
    out.cost = decode_load_cost(load);
  }
  for (const auto& [key, action] : {std::pair{"cordon", TimelineStep::Action::Cordon},
                                    std::pair{"uncordon", TimelineStep::Action::Uncordon}}) {
    if (!step.has(key)) continue;
    ++actions;
    out.action = action;
    out.node = step.child(key).required_string("node");
  }
  if (actions != 1) step.fail("needs exactly one of scale, apply, delete, cordon, uncordon, load");
  return out;
}

}  // namespace

std::vector<CloudNodeGroup> decode_auto_scaling_groups(const Field& list) {
  std::vector<CloudNodeGroup> groups;
  list.items([&](const Field& g) {
    CloudNodeGroup group = decode_auto_scaling_group(g);
    for (const CloudNodeGroup& other : groups) {
      if (other.name == group.name) g.fail_at("name", "duplicate Auto Scaling group " + quote(group.name));
    }
    groups.push_back(std::move(group));
  });
  return groups;
}

Result<std::vector<CloudNodeGroup>> load_auto_scaling_groups(const std::filesystem::path& file) {
  const std::string where = file.string();
  // Read as a manifest file is: capped, one document's node tree, no key twice, no field the format does not have.
  const ManifestLimits limits;
  Result<std::string> text = read_input_file(file, limits, "file", /*regular_only=*/false);
  if (!text) return text.error();
  YamlStream stream(*text, where, limits.max_depth);
  Result<std::optional<YamlDocument>> document = stream.next();
  if (!document) return document.error();
  const YAML::Node root_node = *document ? (*document)->root : YAML::Node();
  if (*document && (*document)->duplicate) return Error{where + ": " + describe_duplicate(*(*document)->duplicate)};
  try {
    FieldTracker tracker;
    const Field root(root_node, "", &tracker);
    if (!root.has("autoScalingGroups")) return Error{where + ": autoScalingGroups: required (a list of groups)"};
    std::vector<CloudNodeGroup> groups = decode_auto_scaling_groups(root.child("autoScalingGroups"));
    if (std::vector<std::string> unknown = root.unknown_fields(1); !unknown.empty()) {
      return Error{where + ": unknown field " + quote(unknown.front())};
    }
    return groups;
  } catch (const FieldError& error) {
    return Error{where + ": " + (error.path.empty() ? "" : error.path + ": ") + error.problem};
  } catch (const YAML::Exception& error) {
    return Error{where + ": " + error.what()};
  }
}

Scenario decode_scenario(const Field& object, const DecodeContext& context, std::vector<std::string>& warnings) {
  Scenario scenario;
  scenario.meta = decode_object_meta(object, Scope::Cluster);
  Field spec = object.required_child("spec");
  scenario.duration = maybe_duration(spec, "duration").value_or(scenario.duration);
  if (scenario.duration.count() <= 0) spec.fail_at("duration", "must be positive");
  if (std::optional<std::int64_t> seed = spec.maybe_int64("seed")) {
    if (*seed < 0) spec.fail_at("seed", "must not be negative");  // it would wrap to 18446744073709551615
    scenario.seed = static_cast<std::uint64_t>(*seed);
  }
  scenario.cloud = decode_cloud(spec.child("cloud"), scenario.duration);
  Field batching = spec.child("provisioning");
  scenario.batching.idle = maybe_duration(batching, "batchIdleDuration").value_or(scenario.batching.idle);
  scenario.batching.max = maybe_duration(batching, "batchMaxDuration").value_or(scenario.batching.max);
  // Karpenter's gates by the chart's names (settings.featureGates); upstream's others are accepted, not acted on.
  Field gates = batching.child("featureGates");
  gates.known({"spotToSpotConsolidation", "reservedCapacity", "nodeOverlay", "staticCapacity", "capacityBuffer"});
  scenario.feature_gates.node_repair = gates.optional_bool("nodeRepair", scenario.feature_gates.node_repair);
  spec.each("timeline", [&](const Field& step) {
    TimelineStep decoded = decode_step(step, context, warnings);
    time_within(step, scenario.duration);
    decoded.index = scenario.timeline.size();
    scenario.timeline.push_back(std::move(decoded));
  });
  if (spec.has("clusterAutoscaler")) {
    scenario.cluster_autoscaler = decode_cluster_autoscaler(spec.child("clusterAutoscaler"));
  }
  std::stable_sort(scenario.timeline.begin(), scenario.timeline.end(),
                   [](const TimelineStep& a, const TimelineStep& b) { return a.at < b.at; });
  return scenario;
}

}  // namespace scalewright::manifest
