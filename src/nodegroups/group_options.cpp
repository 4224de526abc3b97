#include "nodegroups/group_options.h"

#include <algorithm>
#include <array>
#include <charconv>

namespace scalewright::nodegroups {

namespace {

constexpr std::array<GroupOption, 7> kEveryGroupOption{
    GroupOption::ScaleDownUtilizationThreshold, GroupOption::ScaleDownGpuUtilizationThreshold,
    GroupOption::ScaleDownUnneededTime,         GroupOption::ScaleDownUnreadyTime,
    GroupOption::MaxNodeProvisionTime,          GroupOption::MaxNodeStartupTime,
    GroupOption::IgnoreDaemonSetsUtilization,
};

// A fraction from 0 to 1 as Go's strconv.ParseFloat reads it (an optional sign, decimal or exponent notation).
std::optional<std::string> read_fraction(std::string_view value, std::optional<double>& out) {
  std::string_view digits = value;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);  // ParseFloat takes "+0.5"; from_chars not
  double parsed = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), parsed);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) return "not a number";
  // Written so that NaN ("nan" parses) is refused too.
  if (!(parsed >= 0 && parsed <= 1)) return "not between 0 and 1";
  out = parsed;
  return std::nullopt;
}

std::optional<std::string> read_duration(std::string_view value, std::optional<Duration>& out) {
  Result<Duration> parsed = parse_duration(value);
  if (!parsed) return "not a duration (\"10m\", \"1h30m\")";
  if (parsed->count() < 0) return "negative";
  out = *parsed;
  return std::nullopt;
}

// strconv.ParseBool's spellings, which CA's AWS provider reads the option with.
std::optional<std::string> read_bool(std::string_view value, std::optional<bool>& out) {
  constexpr std::array<std::string_view, 6> yes{"1", "t", "T", "TRUE", "true", "True"};
  constexpr std::array<std::string_view, 6> no{"0", "f", "F", "FALSE", "false", "False"};
  if (std::find(yes.begin(), yes.end(), value) != yes.end()) {
    out = true;
  } else if (std::find(no.begin(), no.end(), value) != no.end()) {
    out = false;
  } else {
    return "not true or false";
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(GroupOption option) {
  switch (option) {
    case GroupOption::ScaleDownUtilizationThreshold: return "scaledownutilizationthreshold";
    case GroupOption::ScaleDownGpuUtilizationThreshold: return "scaledowngpuutilizationthreshold";
    case GroupOption::ScaleDownUnneededTime: return "scaledownunneededtime";
    case GroupOption::ScaleDownUnreadyTime: return "scaledownunreadytime";
    case GroupOption::MaxNodeProvisionTime: return "maxnodeprovisiontime";
    case GroupOption::MaxNodeStartupTime: return "maxnodestartuptime";
    case GroupOption::IgnoreDaemonSetsUtilization: return "ignoredaemonsetsutilization";
  }
  return "";
}

std::optional<std::string> read_group_option(std::string_view name, std::string_view value,
                                             std::span<const GroupOption> reads, GroupAutoscalingOptions& options) {
  auto named = std::find_if(kEveryGroupOption.begin(), kEveryGroupOption.end(),
                            [&](GroupOption option) { return to_string(option) == name; });
  // An empty value sets nothing, as an absent one.
  if (value.empty() || named == kEveryGroupOption.end()) return std::nullopt;
  if (std::find(reads.begin(), reads.end(), *named) == reads.end()) return std::nullopt;
  switch (*named) {
    case GroupOption::ScaleDownUtilizationThreshold:
      return read_fraction(value, options.scale_down_utilization_threshold);
    case GroupOption::ScaleDownGpuUtilizationThreshold:
      return read_fraction(value, options.scale_down_gpu_utilization_threshold);
    case GroupOption::ScaleDownUnneededTime: return read_duration(value, options.scale_down_unneeded_time);
    case GroupOption::ScaleDownUnreadyTime: return read_duration(value, options.scale_down_unready_time);
    case GroupOption::MaxNodeProvisionTime: return read_duration(value, options.max_node_provision_time);
    case GroupOption::MaxNodeStartupTime: return read_duration(value, options.max_node_startup_time);
    case GroupOption::IgnoreDaemonSetsUtilization: return read_bool(value, options.ignore_daemonsets_utilization);
  }
  return std::nullopt;
}

}  // namespace scalewright::nodegroups
