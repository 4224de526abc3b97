#include "nodegroups/backoff.h"

#include <algorithm>
#include <utility>

namespace scalewright::nodegroups {

NodeGroupBackoff::NodeGroupBackoff(Duration initial, Duration max, Duration reset_timeout)
    : initial_(initial), max_(max), reset_timeout_(reset_timeout) {}

NodeGroupBackoff::NodeGroupBackoff(const AutoscalerOptions& options)
    : NodeGroupBackoff(options.initial_node_group_backoff, options.max_node_group_backoff,
                       options.node_group_backoff_reset_timeout) {}

Instant NodeGroupBackoff::record_failure(const std::string& group, Instant now, std::string error_code) {
  Duration duration = initial_;
  auto it = entries_.find(group);
  // A history older than the reset timeout counts as none, whether or not remove_stale ran in between.
  if (it != entries_.end() && !stale(it->second, now)) {
    duration = it->second.until < now ? std::min(2 * it->second.duration, max_) : it->second.duration;
  }
  BackoffEntry entry{duration, now + duration, now, std::move(error_code)};
  entries_[group] = std::move(entry);
  return now + duration;
}

void NodeGroupBackoff::record_success(const std::string& group) { entries_.erase(group); }

bool NodeGroupBackoff::is_backed_off(const std::string& group, Instant now) const {
  auto it = entries_.find(group);
  return it != entries_.end() && it->second.until > now;
}

std::optional<BackoffEntry> NodeGroupBackoff::entry(const std::string& group) const {
  auto it = entries_.find(group);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

void NodeGroupBackoff::remove_stale(Instant now) {
  std::erase_if(entries_, [&](const auto& kv) { return stale(kv.second, now); });
}

}  // namespace scalewright::nodegroups
