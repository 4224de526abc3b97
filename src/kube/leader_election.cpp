#include "kube/leader_election.h"

#include <unistd.h>

#include <climits>
#include <cstdio>
#include <random>
#include <thread>
#include <utility>

#include "api/timestamp.h"

namespace scalewright::kube {

using nlohmann::json;
using std::chrono::duration_cast;
using std::chrono::milliseconds;
using std::chrono::system_clock;

std::optional<Error> validate(const LeaderElectionConfig& config) {
  if (config.lease_name.empty()) return Error{"leader election: the lease name is empty"};
  if (config.lease_namespace.empty()) return Error{"leader election: the lease namespace is empty"};
  if (config.identity.empty()) return Error{"leader election: the identity is empty"};
  if (config.retry_period.count() <= 0) return Error{"leader election: the retry period must be positive"};
  if (config.jitter_factor < 0) return Error{"leader election: the jitter factor must not be negative"};
  if (config.lease_duration <= config.renew_deadline)
    return Error{"leader election: the lease duration must be greater than the renew deadline"};
  if (static_cast<double>(config.renew_deadline.count()) <=
      config.jitter_factor * static_cast<double>(config.retry_period.count()))
    return Error{"leader election: the renew deadline must be greater than jitter factor * retry period"};
  return std::nullopt;
}

std::string default_identity() {
  char host[HOST_NAME_MAX + 1] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') std::snprintf(host, sizeof host, "unknown");
  return std::string(host) + "_" + std::to_string(::getpid());
}

Result<LeaderElector> LeaderElector::create(ApiClient api, LeaderElectionConfig config, LeaseClock clock) {
  if (auto error = validate(config)) return *error;
  if (!clock) return Error{"leader election: no clock"};
  return LeaderElector(std::move(api), std::move(config), std::move(clock));
}

LeaderElector::LeaderElector(ApiClient api, LeaderElectionConfig config, LeaseClock clock)
    : api_(std::move(api)), config_(std::move(config)), clock_(std::move(clock)) {}

std::string LeaderElector::lease_path() const {
  return "/apis/coordination.k8s.io/v1/namespaces/" + config_.lease_namespace + "/leases/" + config_.lease_name;
}

bool LeaderElector::is_leader() const {
  return observed_spec_.is_object() && observed_spec_.value("holderIdentity", std::string()) == config_.identity;
}

void LeaderElector::observe(const json& spec, TimePoint now) {
  if (spec != observed_spec_) {
    observed_spec_ = spec;
    observed_time_ = now;
  }
}

KubeResult<bool> LeaderElector::try_acquire_or_renew(TimePoint now) {
  auto lease = api_.get(lease_path());
  if (lease.ok()) return try_acquire_or_renew(*lease, now);
  if (!lease.error().is_not_found()) return lease.error();
  std::string stamp = format_micro_time(now);
  json spec = {{"holderIdentity", config_.identity},
               {"leaseDurationSeconds", config_.lease_duration.count()},
               {"acquireTime", stamp},
               {"renewTime", stamp},
               {"leaseTransitions", 0}};
  json object = {{"apiVersion", "coordination.k8s.io/v1"},
                 {"kind", "Lease"},
                 {"metadata", {{"name", config_.lease_name}, {"namespace", config_.lease_namespace}}},
                 {"spec", spec}};
  auto created = api_.create(
      "/apis/coordination.k8s.io/v1/namespaces/" + config_.lease_namespace + "/leases", object);
  if (!created.ok()) {
    if (created.error().code == 409) return false;  // AlreadyExists: another candidate created it first
    return created.error();
  }
  observed_spec_ = created->value("spec", spec);
  observed_time_ = now;
  return true;
}

KubeResult<bool> LeaderElector::try_acquire_or_renew(const json& lease, TimePoint now) {
  json old_spec = lease.value("spec", json::object());
  observe(old_spec, now);
  std::string holder = old_spec.value("holderIdentity", std::string());
  bool leading = holder == config_.identity;
  if (!holder.empty() && !leading) {
    // The holder's lease duration as written in the record, counted from when WE saw the record change.
    auto duration = std::chrono::seconds(old_spec.value("leaseDurationSeconds", config_.lease_duration.count()));
    if (observed_time_ + duration > now) return false;
  }
  std::string stamp = format_micro_time(now);
  json spec = old_spec;
  spec["holderIdentity"] = config_.identity;
  spec["leaseDurationSeconds"] = config_.lease_duration.count();
  spec["renewTime"] = stamp;
  if (leading) {
    if (!spec.contains("acquireTime")) spec["acquireTime"] = stamp;
    if (!spec.contains("leaseTransitions")) spec["leaseTransitions"] = 0;
  } else {
    spec["acquireTime"] = stamp;
    spec["leaseTransitions"] = old_spec.value("leaseTransitions", 0) + 1;
  }
  json object = lease;  // keeps metadata.resourceVersion: the update is conditional on what we read
  object["spec"] = spec;
  auto updated = api_.update(lease_path(), object);
  if (!updated.ok()) {
    if (updated.error().is_conflict()) return false;  // someone else wrote first
    return updated.error();
  }
  observed_spec_ = updated->value("spec", spec);
  observed_time_ = now;
  return true;
}

KubeResult<bool> LeaderElector::release(TimePoint now) {
  if (!is_leader()) return false;
  auto lease = api_.get(lease_path());
  if (!lease.ok()) return lease.error();
  json spec = lease->value("spec", json::object());
  if (spec.value("holderIdentity", std::string()) != config_.identity) {
    observe(spec, now);  // someone else took it already: nothing to release
    return false;
  }
  std::string stamp = format_micro_time(now);
  spec["holderIdentity"] = "";
  spec["leaseDurationSeconds"] = 1;
  spec["acquireTime"] = stamp;
  spec["renewTime"] = stamp;
  json object = *lease;
  object["spec"] = spec;
  auto updated = api_.update(lease_path(), object);
  if (!updated.ok()) return updated.error();
  observed_spec_ = updated->value("spec", spec);
  observed_time_ = now;
  return true;
}

bool LeaderElector::sleep_unless_stopped(milliseconds duration, const std::function<bool()>& should_stop) const {
  auto until = std::chrono::steady_clock::now() + duration;
  for (;;) {
    if (should_stop()) return true;
    auto left = until - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) return false;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(left, milliseconds(100)));
  }
}

void LeaderElector::run(const std::function<bool()>& should_stop, const std::function<void()>& on_started_leading,
                        const std::function<void()>& on_stopped_leading) {
  std::mt19937_64 random{std::random_device{}()};
  std::uniform_real_distribution<double> uniform(0.0, config_.jitter_factor);
  auto retry = duration_cast<milliseconds>(config_.retry_period);

  // Acquire: every retry period, jittered, until we lead.
  for (;;) {
    if (should_stop()) return;
    auto acquired = try_acquire_or_renew(clock_());
    if (acquired.ok() && *acquired) break;
    auto wait = milliseconds(static_cast<long long>(static_cast<double>(retry.count()) * (1.0 + uniform(random))));
    if (sleep_unless_stopped(wait, should_stop)) return;
  }
  TimePoint last_renewed = clock_();
  on_started_leading();

  // Renew every retry period; step down once renewals have failed for longer than the renew deadline (before the
  // lease can expire for the others), or at once when the record names another holder.
  for (;;) {
    if (sleep_unless_stopped(retry, should_stop)) {
      on_stopped_leading();
      if (config_.release_on_stop) (void)release(clock_());
      return;
    }
    TimePoint now = clock_();
    auto renewed = try_acquire_or_renew(now);
    if (renewed.ok() && *renewed) {
      last_renewed = now;
      continue;
    }
    if (!is_leader() || now - last_renewed > config_.renew_deadline) {
      on_stopped_leading();
      return;
    }
  }
}

}  // namespace scalewright::kube
