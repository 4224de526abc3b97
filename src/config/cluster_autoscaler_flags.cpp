#include "config/cluster_autoscaler_flags.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include <CLI/CLI.hpp>

#include "api/duration.h"

namespace scalewright::config {
namespace {

std::string in_quotes(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// A problem with a value; empty when the value was taken.
using Problem = std::optional<std::string>;

template <typename Int>
std::optional<Int> to_integer(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);  // Go's strconv accepts a leading '+'
  Int value{};
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> to_double(std::string_view text) {
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

// strconv.ParseBool's spellings, which pflag's boolean flags accept.
std::optional<bool> to_bool(std::string_view text) {
  static const std::set<std::string_view> yes{"1", "t", "T", "TRUE", "true", "True"};
  static const std::set<std::string_view> no{"0", "f", "F", "FALSE", "false", "False"};
  if (yes.count(text)) return true;
  if (no.count(text)) return false;
  return std::nullopt;
}

// Setters for one flag's value: they write into the options or say what is wrong with the value.
Problem set_int32(std::string_view text, std::int32_t& out) {
  std::optional<std::int32_t> v = to_integer<std::int32_t>(text);
  if (!v) return in_quotes(text) + " is not an integer";
  if (*v < 0) return "must not be negative, got " + std::string(text);
  out = *v;
  return std::nullopt;
}

Problem set_bool(std::string_view text, bool& out) {
  std::optional<bool> v = to_bool(text);
  if (!v) return in_quotes(text) + " is not a boolean (expected true or false)";
  out = *v;
  return std::nullopt;
}

Problem set_duration(std::string_view text, Duration& out) {
  Result<Duration> d = parse_duration(text);
  if (!d) return d.error().message;
  if (d->count() < 0) return "must not be negative, got " + std::string(text);
  out = *d;
  return std::nullopt;
}

// A number from 0 to `max`: a fraction (max 1) or a percentage (max 100).
Problem set_bounded(std::string_view text, double& out, int max) {
  std::optional<double> v = to_double(text);
  if (!v) return in_quotes(text) + " is not a number";
  if (*v < 0 || *v > max) return "must be between 0 and " + std::to_string(max) + ", got " + std::string(text);
  out = *v;
  return std::nullopt;
}

// MIN:MAX as --cores-total and --memory-total write it.
Problem set_min_max(std::string_view text, std::int64_t& min, std::int64_t& max) {
  std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return in_quotes(text) + " is not MIN:MAX";
  std::optional<std::int64_t> lo = to_integer<std::int64_t>(text.substr(0, colon));
  std::optional<std::int64_t> hi = to_integer<std::int64_t>(text.substr(colon + 1));
  if (!lo) return in_quotes(text) + ": min " + in_quotes(text.substr(0, colon)) + " is not an integer";
  if (!hi) return in_quotes(text) + ": max " + in_quotes(text.substr(colon + 1)) + " is not an integer";
  if (*lo < 0) return in_quotes(text) + ": min must not be negative";
  if (*hi < *lo) return in_quotes(text) + ": max must not be less than min";
  min = *lo;
  max = *hi;
  return std::nullopt;
}

Problem set_expanders(std::string_view text, std::vector<std::string>& out) {
  // Upstream's, and Scalewright's least-cost (see expander.h).
  static const std::set<std::string_view> known{"random",   "most-pods",   "least-waste", "price",
                                                "priority", "least-nodes", "grpc",        "least-cost"};
  std::vector<std::string> chain;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = text.find(',', start);
    std::string_view name = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    if (!known.count(name)) {
      return "unknown expander " + in_quotes(name) + " (expected random, most-pods, least-waste, price, priority, "
             "least-nodes, grpc, least-cost)";
    }
    chain.emplace_back(name);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  out = std::move(chain);
  return std::nullopt;
}

struct FlagSpec {
  std::string_view name;
  bool boolean = false;
  bool repeated = false;  // every occurrence is applied, in order; otherwise the last one wins, as in pflag
  std::function<Problem(std::string_view, AutoscalerOptions&)> apply;
};

const std::vector<FlagSpec>& known_flags() {
  using O = AutoscalerOptions;
  auto int32 = [](std::int32_t O::*field) {
    return [field](std::string_view v, O& o) { return set_int32(v, o.*field); };
  };
  auto boolean = [](bool O::*field) { return [field](std::string_view v, O& o) { return set_bool(v, o.*field); }; };
  auto duration = [](Duration O::*field) {
    return [field](std::string_view v, O& o) { return set_duration(v, o.*field); };
  };
  auto fraction = [](double O::*field) {
    return [field](std::string_view v, O& o) { return set_bounded(v, o.*field, 1); };
  };
  auto percentage = [](double O::*field) {
    return [field](std::string_view v, O& o) { return set_bounded(v, o.*field, 100); };
  };
  static const std::vector<FlagSpec> flags{
      {"nodes", false, true,
       [](std::string_view v, O& o) -> Problem {
         Result<StaticNodeGroup> g = parse_nodes_flag(v);
         if (!g) return g.error().message;
         o.nodes.push_back(*g);
         return std::nullopt;
       }},
      {"node-group-auto-discovery", false, true,
       [](std::string_view v, O& o) -> Problem {
         // DISCOVERER:SPEC; the spec is the provider's to read (asg:tag=... on AWS).
         const std::size_t colon = v.find(':');
         if (colon == 0 || colon == std::string_view::npos || colon + 1 == v.size()) {
           return in_quotes(v) + ": expected DISCOVERER:SPEC (asg:tag=KEY[=VALUE],... on AWS)";
         }
         o.auto_discovery.emplace_back(v);
         return std::nullopt;
       }},
      {"cloud-provider", false, false,
       [](std::string_view v, O& o) -> Problem {
         o.cloud_provider = v;
         return std::nullopt;
       }},
      {"balancing-ignore-label", false, true,
       [](std::string_view v, O& o) -> Problem {
         o.balancing_ignore_labels.emplace_back(v);
         return std::nullopt;
       }},
      {"expander", false, false, [](std::string_view v, O& o) { return set_expanders(v, o.expanders); }},
      {"scan-interval", false, false,
       [](std::string_view v, O& o) -> Problem {
         if (Problem p = set_duration(v, o.scan_interval)) return p;
         if (o.scan_interval.count() == 0) return "must be positive";
         return std::nullopt;
       }},
      {"max-nodes-total", false, false, int32(&O::max_nodes_total)},
      {"cores-total", false, false,
       [](std::string_view v, O& o) { return set_min_max(v, o.cores_total_min, o.cores_total_max); }},
      {"memory-total", false, false,
       [](std::string_view v, O& o) { return set_min_max(v, o.memory_total_min_gib, o.memory_total_max_gib); }},
      {"balance-similar-node-groups", true, false, boolean(&O::balance_similar_node_groups)},
      {"new-pod-scale-up-delay", false, false, duration(&O::new_pod_scale_up_delay)},
      {"max-node-provision-time", false, false, duration(&O::max_node_provision_time)},
      {"initial-node-group-backoff-duration", false, false, duration(&O::initial_node_group_backoff)},
      {"max-node-group-backoff-duration", false, false, duration(&O::max_node_group_backoff)},
      {"node-group-backoff-reset-timeout", false, false, duration(&O::node_group_backoff_reset_timeout)},
      {"max-nodes-per-scaleup", false, false, int32(&O::max_nodes_per_scaleup)},
      {"scale-down-enabled", true, false, boolean(&O::scale_down_enabled)},
      {"scale-down-unready-enabled", true, false, boolean(&O::scale_down_unready_enabled)},
      {"scale-down-utilization-threshold", false, false, fraction(&O::scale_down_utilization_threshold)},
      {"scale-down-gpu-utilization-threshold", false, false, fraction(&O::scale_down_gpu_utilization_threshold)},
      {"scale-down-unneeded-time", false, false, duration(&O::scale_down_unneeded_time)},
      {"scale-down-unready-time", false, false, duration(&O::scale_down_unready_time)},
      {"scale-down-delay-after-add", false, false, duration(&O::scale_down_delay_after_add)},
      {"scale-down-delay-after-delete", false, false,
       [](std::string_view v, O& o) -> Problem {
         Duration d{0};
         if (Problem p = set_duration(v, d)) return p;
         o.scale_down_delay_after_delete = d;
         return std::nullopt;
       }},
      {"scale-down-delay-after-failure", false, false, duration(&O::scale_down_delay_after_failure)},
      {"skip-nodes-with-local-storage", true, false, boolean(&O::skip_nodes_with_local_storage)},
      {"skip-nodes-with-system-pods", true, false, boolean(&O::skip_nodes_with_system_pods)},
      // The contract has a field for it, so it is read rather than ignored.
      {"skip-nodes-with-custom-controller-pods", true, false, boolean(&O::skip_nodes_with_custom_controller_pods)},
      {"ignore-daemonsets-utilization", true, false, boolean(&O::ignore_daemonsets_utilization)},
      {"ignore-mirror-pods-utilization", true, false, boolean(&O::ignore_mirror_pods_utilization)},
      {"max-scale-down-parallelism", false, false, int32(&O::max_scale_down_parallelism)},
      {"max-drain-parallelism", false, false, int32(&O::max_drain_parallelism)},
      {"max-graceful-termination-sec", false, false,
       [](std::string_view v, O& o) -> Problem {
         std::int32_t seconds = 0;
         if (Problem p = set_int32(v, seconds)) return p;
         o.max_graceful_termination = Duration(std::int64_t{seconds} * 1000);
         return std::nullopt;
       }},
      {"max-empty-bulk-delete", false, false, int32(&O::max_empty_bulk_delete)},
      {"max-pod-eviction-time", false, false, duration(&O::max_pod_eviction_time)},
      {"ok-total-unready-count", false, false, int32(&O::ok_total_unready_count)},
      {"max-total-unready-percentage", false, false, percentage(&O::max_total_unready_percentage)},
  };
  return flags;
}

// CA flags that take no value and that Scalewright accepts without acting on.
const std::vector<std::string_view>& ignored_boolean_flags() {
  static const std::vector<std::string_view> names{
      "add-dir-header", "alsologtostderr", "async-node-groups", "aws-use-static-instance-list",
      "bulk-mig-instances-listing-enabled", "clusterapi-cloud-config-authoritative", "cordon-node-before-terminating",
      "daemonset-eviction-for-empty-nodes", "daemonset-eviction-for-occupied-nodes", "debugging-snapshot-enabled",
      "emit-per-nodegroup-metrics", "enable-dynamic-resource-allocation", "enable-proactive-scaleup",
      "enable-provisioning-requests", "enforce-node-group-min-size", "force-delete-unregistered-nodes", "force-ds",
      "frequent-loops-enabled", "leader-elect",
      "logtostderr", "node-autoprovisioning-enabled", "one-output", "parallel-drain", "parallel-scale-up",
      "profiling", "record-duplicated-events", "regional", "scale-down-delay-type-local", "scale-up-from-zero",
      "skip-headers", "skip-log-headers", "write-status-configmap"};
  return names;
}

// CA flags that take a value and that Scalewright accepts without acting on.
const std::vector<std::string_view>& ignored_value_flags() {
  static const std::vector<std::string_view> names{
      "address", "balancing-label", "cloud-config", "cluster-name",
      "drain-priority-config", "estimator", "expendable-pods-priority-cutoff", "feature-gates", "gpu-total",
      "grpc-expander-cert", "grpc-expander-url", "ignore-taint", "kube-api-content-type", "kube-client-burst",
      "kube-client-qps", "kubeconfig", "kubernetes", "leader-elect-lease-duration", "leader-elect-renew-deadline",
      "leader-elect-resource-lock", "leader-elect-resource-name", "leader-elect-resource-namespace",
      "leader-elect-retry-period", "log-backtrace-at", "log-dir", "log-file", "log-file-max-size",
      "log-flush-frequency", "max-allocatable-difference-ratio", "max-autoprovisioned-node-group-count",
      "max-bulk-soft-taint-count", "max-bulk-soft-taint-time", "max-failing-time", "max-free-difference-ratio",
      "max-inactivity", "max-node-startup-time", "max-nodegroup-binpacking-duration",
      "memory-difference-ratio", "min-replica-count", "namespace",
      "node-delete-delay-after-taint", "node-deletion-batcher-interval", "node-deletion-delay-timeout",
      "node-info-cache-expire-time", "provisioning-request-initial-backoff-time",
      "provisioning-request-max-backoff-cache-size", "provisioning-request-max-backoff-time",
      "scale-down-candidates-pool-min-count", "scale-down-candidates-pool-ratio",
      "scale-down-non-empty-candidates-count", "scale-down-simulation-timeout", "startup-taint",
      "status-config-map-name", "status-taint", "stderrthreshold", "unremovable-node-recheck-timeout", "user-agent",
      "v", "vmodule"};
  return names;
}

// The flag name of an argument ("--nodes=1:2:a" → "nodes"), empty for anything that is not a flag.
std::string_view flag_name(std::string_view arg) {
  if (arg.size() < 3 || arg.substr(0, 2) != "--") return {};
  arg.remove_prefix(2);
  return arg.substr(0, arg.find('='));
}

bool takes_value(std::string_view name) {
  for (const FlagSpec& f : known_flags()) {
    if (f.name == name) return !f.boolean;
  }
  return std::find(ignored_value_flags().begin(), ignored_value_flags().end(), name) != ignored_value_flags().end();
}

// The element of `args` that gave flag `name` the value `value` (any value when nullopt); the last one, since a
// flag given twice keeps its last value.
std::optional<std::size_t> locate(const std::vector<std::string>& args, std::string_view name,
                                  std::optional<std::string_view> value = std::nullopt) {
  std::optional<std::size_t> found;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (flag_name(args[i]) != name) continue;
    std::string_view arg = args[i];
    std::size_t eq = arg.find('=');
    std::optional<std::string_view> given;
    if (eq != std::string_view::npos) {
      given = arg.substr(eq + 1);
    } else if (takes_value(name) && i + 1 < args.size()) {
      given = args[i + 1];
    }
    if (!value || given == value) found = i;
  }
  return found;
}

}  // namespace

const std::vector<std::string_view>& ignored_autoscaler_flags() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> all = ignored_boolean_flags();
    all.insert(all.end(), ignored_value_flags().begin(), ignored_value_flags().end());
    std::sort(all.begin(), all.end());
    return all;
  }();
  return names;
}

Result<StaticNodeGroup> parse_nodes_flag(std::string_view value) {
  auto fail = [&](const std::string& why) {
    return Error{in_quotes(value) + ": " + why + " (expected MIN:MAX:NAME)"};
  };
  std::size_t first = value.find(':');
  std::size_t second = first == std::string_view::npos ? first : value.find(':', first + 1);
  if (second == std::string_view::npos) return fail("needs three parts");
  std::string_view min_text = value.substr(0, first);
  std::string_view max_text = value.substr(first + 1, second - first - 1);
  StaticNodeGroup group;
  group.name = std::string(value.substr(second + 1));
  std::optional<std::int32_t> min = to_integer<std::int32_t>(min_text);
  std::optional<std::int32_t> max = to_integer<std::int32_t>(max_text);
  if (!min) return fail("min size " + in_quotes(min_text) + " is not an integer");
  if (!max) return fail("max size " + in_quotes(max_text) + " is not an integer");
  if (*min < 0) return fail("min size must not be negative");
  if (*max < *min) return fail("max size must not be less than min size");
  if (group.name.empty()) return fail("the group name is empty");
  group.min_size = *min;
  group.max_size = *max;
  return group;
}

Result<AutoscalerOptions> parse_autoscaler_flags(const std::vector<std::string>& given, std::size_t* failed_arg) {
  // The binary's path comes first in a container's `command`.
  std::size_t offset = 0;
  if (!given.empty() && (given[0] == "cluster-autoscaler" || ends_with(given[0], "/cluster-autoscaler"))) offset = 1;
  // Go's flag package also takes one dash ("-v=4"); CLI11 wants two for long names.
  std::vector<std::string> args;
  for (std::size_t i = offset; i < given.size(); ++i) {
    const std::string& a = given[i];
    bool single_dash = a.size() > 1 && a[0] == '-' && std::isalpha(static_cast<unsigned char>(a[1]));
    args.push_back(single_dash ? "-" + a : a);
  }
  auto fail = [&](std::optional<std::size_t> at, std::string message) -> Result<AutoscalerOptions> {
    if (failed_arg != nullptr && at) *failed_arg = *at + offset;
    return Error{std::move(message)};
  };

  CLI::App app{"cluster-autoscaler"};
  app.allow_extras();
  app.set_help_flag();  // CA has no --help worth honouring here; "--help" is an unknown flag
  std::map<std::string_view, std::vector<std::string>> values;
  auto add = [&](std::string_view name, bool boolean) {
    std::string long_name = "--" + std::string(name);
    CLI::Option* option =
        boolean ? app.add_flag(long_name, values[name]) : app.add_option(long_name, values[name]);
    option->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)->allow_extra_args(false);
  };
  for (const FlagSpec& f : known_flags()) add(f.name, f.boolean);
  for (std::string_view name : ignored_boolean_flags()) add(name, true);
  for (std::string_view name : ignored_value_flags()) add(name, false);

  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes its vector back to front
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    // CLI11 starts its messages with the option's name: "--nodes: 1 required TEXT missing".
    const std::string message = e.what();
    const std::string head = message.substr(0, message.find(':'));  // flag_name views into it: keep it alive
    std::string_view name = flag_name(head);
    if (!name.empty()) return fail(locate(args, name), "flag --" + std::string(name) + ": needs a value");
    return fail(std::nullopt, "flags: " + message);
  }
  std::vector<std::string> extras = app.remaining();
  if (!extras.empty()) {
    const std::string& first = extras.front();
    std::optional<std::size_t> at;
    for (std::size_t i = 0; i < args.size() && !at; ++i) {
      if (args[i] == first) at = i;
    }
    if (first.size() > 1 && first[0] == '-') {
      return fail(at, "unknown flag " + first.substr(0, first.find('=')));
    }
    return fail(at, "unexpected argument " + in_quotes(first) + " (flags are --name=value)");
  }

  AutoscalerOptions options;
  for (const FlagSpec& f : known_flags()) {
    const std::vector<std::string>& given_values = values[f.name];
    if (given_values.empty()) continue;
    const std::size_t first = f.repeated ? 0 : given_values.size() - 1;
    for (std::size_t i = first; i < given_values.size(); ++i) {
      if (Problem problem = f.apply(given_values[i], options)) {
        return fail(locate(args, f.name, given_values[i]), "flag --" + std::string(f.name) + ": " + *problem);
      }
    }
  }
  // What was ignored, in the order given, each once.
  for (const std::string& arg : args) {
    std::string_view name = flag_name(arg);
    if (name.empty() || values[name].empty()) continue;
    const auto& ignored = ignored_autoscaler_flags();
    if (!std::binary_search(ignored.begin(), ignored.end(), name)) continue;
    std::string flag = "--" + std::string(name);
    if (std::find(options.ignored_flags.begin(), options.ignored_flags.end(), flag) == options.ignored_flags.end()) {
      options.ignored_flags.push_back(std::move(flag));
    }
  }
  return options;
}

}  // namespace scalewright::config
