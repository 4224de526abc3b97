#pragma once
// Leader election over a coordination.k8s.io/v1 Lease, after client-go's tools/leaderelection: one candidate holds
// the Lease and renews it every retry period; the others take it over only once it has gone unrenewed for a lease
// duration by their own clock (the time they last saw the record change, never the holder's timestamps), and a
// leader that cannot renew within the renew deadline stops leading before anyone else may start.
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "api/result.h"
#include "kube/api_client.h"

namespace scalewright::kube {

using LeaseClock = std::function<std::chrono::system_clock::time_point()>;

struct LeaderElectionConfig {
  std::string lease_namespace = "default";
  std::string lease_name;                      // "scalewright-leader"
  std::string identity;                        // unique per candidate: default_identity()
  std::chrono::seconds lease_duration{15};     // how long followers wait after the last change they saw
  std::chrono::seconds renew_deadline{10};     // how long the leader keeps trying to renew before it steps down
  std::chrono::seconds retry_period{2};        // between attempts
  double jitter_factor = 1.2;                  // acquire attempts wait retry_period * (1 + U[0, jitter_factor))
  bool release_on_stop = true;                 // run(): release the Lease when should_stop ends a leadership
};

// Checks what client-go checks: names set, lease_duration > renew_deadline > jitter_factor * retry_period > 0.
std::optional<Error> validate(const LeaderElectionConfig& config);

// "<hostname>_<pid>".
std::string default_identity();

class LeaderElector {
 public:
  using TimePoint = std::chrono::system_clock::time_point;

  // Fails when validate(config) does.
  static Result<LeaderElector> create(ApiClient api, LeaderElectionConfig config,
                                      LeaseClock clock = &std::chrono::system_clock::now);

  // One round at time now: GET the Lease, create it when absent, else take it over or renew it when we may.
  // true: we lead until now + renew_deadline at least; false: another candidate holds it (or won a 409 race).
  // Any other API failure is the error.
  KubeResult<bool> try_acquire_or_renew(TimePoint now);
  // The same round on a Lease already read (its resourceVersion is what the update is conditional on).
  KubeResult<bool> try_acquire_or_renew(const nlohmann::json& lease, TimePoint now);

  // When leading: update the Lease to holderIdentity "" and leaseDurationSeconds 1 so a successor takes over at
  // once. true when released, false when we were not the leader (nothing sent).
  KubeResult<bool> release(TimePoint now);

  // Blocks: tries to acquire every retry period (jittered) until it leads, calls on_started_leading, renews every
  // retry period, and calls on_stopped_leading once leadership ends (renewals failing past the renew deadline,
  // another holder seen, or should_stop). Returns when should_stop() is true (checked at least every 100 ms), or
  // after a leadership is lost. The callbacks run on this thread: on_started_leading must return promptly.
  void run(const std::function<bool()>& should_stop, const std::function<void()>& on_started_leading,
           const std::function<void()>& on_stopped_leading);

  // Whether the last record we saw or wrote names us as the holder.
  bool is_leader() const;
  const nlohmann::json& observed_spec() const { return observed_spec_; }
  const LeaderElectionConfig& config() const { return config_; }
  std::string lease_path() const;

 private:
  LeaderElector(ApiClient api, LeaderElectionConfig config, LeaseClock clock);
  void observe(const nlohmann::json& spec, TimePoint now);
  // Sleeps up to duration in slices, returning early (true) once should_stop() is.
  bool sleep_unless_stopped(std::chrono::milliseconds duration, const std::function<bool()>& should_stop) const;

  ApiClient api_;
  LeaderElectionConfig config_;
  LeaseClock clock_;
  nlohmann::json observed_spec_;  // the Lease spec last seen or written; null before the first round
  TimePoint observed_time_{};     // OUR time when observed_spec_ last changed
};

}  // namespace scalewright::kube
