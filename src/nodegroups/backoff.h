#pragma once
// Cluster Autoscaler's per-group backoff after a failed scale-up (utils/backoff, exponential): a group whose new
// nodes did not register within --max-node-provision-time, or whose cloud call failed, is left out of scale-up
// for --initial-node-group-backoff-duration (5 min), doubling on each later failure up to
// --max-node-group-backoff-duration (30 min); --node-group-backoff-reset-timeout (3 h) without a failure forgets
// the history. Time comes in as a value (an Instant of the caller's clock).
#include <map>
#include <optional>
#include <string>

#include "api/duration.h"
#include "api/instant.h"
#include "nodegroups/options.h"

namespace scalewright::nodegroups {

struct BackoffEntry {
  Duration duration{0};      // the length of the current (or last) backoff
  Instant until{};           // backed off while now < until
  Instant last_failure{};    // when the last failure was recorded
  std::string error_code;    // what failed ("timeout", or the cloud's error code), for status and logs
};

class NodeGroupBackoff {
 public:
  NodeGroupBackoff(Duration initial, Duration max, Duration reset_timeout);
  explicit NodeGroupBackoff(const AutoscalerOptions& options);

  // A scale-up of `group` failed at `now`. Returns when the backoff ends. A failure while the group is still
  // backed off (several scale-ups failing together) keeps the current duration instead of doubling it.
  Instant record_failure(const std::string& group, Instant now, std::string error_code = "");
  // The group's scale-up succeeded: its history is dropped, as upstream's RemoveBackoff does.
  void record_success(const std::string& group);
  bool is_backed_off(const std::string& group, Instant now) const;
  std::optional<BackoffEntry> entry(const std::string& group) const;
  // Drops entries whose last failure is older than the reset timeout (upstream's RemoveStaleBackoffData).
  void remove_stale(Instant now);

 private:
  bool stale(const BackoffEntry& entry, Instant now) const { return entry.last_failure + reset_timeout_ < now; }

  Duration initial_;
  Duration max_;
  Duration reset_timeout_;
  std::map<std::string, BackoffEntry> entries_;
};

}  // namespace scalewright::nodegroups
