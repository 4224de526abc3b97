#include "config/priority_expander.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

namespace scalewright::config {

using nodegroups::PriorityConfig;
using nodegroups::PriorityTier;

namespace {

Result<PriorityConfig> parse_priority_node(const YAML::Node& root) {
  if (!root.IsMap()) return Error{"priority expander: priorities must be a map of integer priority to regex list"};
  PriorityConfig config;
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    std::int64_t priority = 0;
    auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), priority);
    if (ec != std::errc() || end != key.data() + key.size()) {
      return Error{"priority expander: priority \"" + key + "\" is not an integer"};
    }
    const YAML::Node& list = entry.second;
    if (!list.IsSequence()) {
      return Error{"priority expander: priority " + key + " must hold a list of regexes"};
    }
    PriorityTier tier;
    tier.priority = priority;
    for (const auto& item : list) {
      if (!item.IsScalar()) return Error{"priority expander: priority " + key + " holds a non-string entry"};
      try {
        tier.regexes.emplace_back(item.Scalar(), std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        return Error{"priority expander: priority " + key + ": invalid regex \"" + item.Scalar() + "\": " + e.what()};
      }
      tier.patterns.push_back(item.Scalar());
    }
    config.tiers.push_back(std::move(tier));
  }
  std::stable_sort(config.tiers.begin(), config.tiers.end(),
                   [](const PriorityTier& a, const PriorityTier& b) { return a.priority > b.priority; });
  return config;
}

}  // namespace

Result<PriorityConfig> parse_priority_config(std::string_view text) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return Error{"priority expander: cannot parse priorities: " + std::string(e.what())};
  }
  // A whole ConfigMap: read data.priorities, itself YAML text.
  if (root.IsMap() && root["kind"] && root["kind"].IsScalar()) {
    if (root["kind"].Scalar() != "ConfigMap") {
      return Error{"priority expander: expected a ConfigMap, got kind " + root["kind"].Scalar()};
    }
    const YAML::Node data = root["data"];
    if (!data || !data.IsMap() || !data["priorities"] || !data["priorities"].IsScalar()) {
      return Error{"priority expander: ConfigMap has no data.priorities"};
    }
    return parse_priority_config(data["priorities"].Scalar());
  }
  try {
    return parse_priority_node(root);
  } catch (const YAML::Exception& e) {
    return Error{"priority expander: cannot read priorities: " + std::string(e.what())};
  }
}

Result<std::optional<nodegroups::PriorityConfig>> priority_expander_config(
    const std::vector<std::string>& expanders, const std::optional<std::string>& priorities) {
  const bool priority_expander = std::find(expanders.begin(), expanders.end(), "priority") != expanders.end();
  if (!priorities || !priority_expander) return std::optional<nodegroups::PriorityConfig>();
  Result<nodegroups::PriorityConfig> parsed = parse_priority_config(*priorities);
  if (!parsed) {
    return Error{fmt::format("--expander: {} (the priority expander reads ConfigMap kube-system/{}, data.priorities)",
                             parsed.error().message, nodegroups::kPriorityConfigMap)};
  }
  return std::optional<nodegroups::PriorityConfig>(std::move(*parsed));
}

}  // namespace scalewright::config
