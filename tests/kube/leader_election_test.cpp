// Leader election over a Lease: the election rules against the real API server (the RealApiServer suite's control
// plane), driven with injected times instead of sleeping.
#include "kube/leader_election.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "api/timestamp.h"
#include "real_apiserver.h"
#include "replay_server.h"

namespace scalewright::kube {
namespace {

using nlohmann::json;
using std::chrono::seconds;
using std::chrono::system_clock;
using testing::RealApiServer;

TEST(LeaderElectionConfig, ValidatesLikeClientGo) {
  LeaderElectionConfig config{.lease_name = "l", .identity = "me"};
  EXPECT_FALSE(validate(config).has_value());  // the defaults: 15 s, 10 s, 2 s
  config.renew_deadline = seconds(15);
  EXPECT_TRUE(validate(config).has_value());
  config.renew_deadline = seconds(2);
  EXPECT_TRUE(validate(config).has_value());  // not above 1.2 * retry period
  config = {.lease_name = "l", .identity = ""};
  EXPECT_TRUE(validate(config).has_value());
  EXPECT_FALSE(default_identity().empty());
}

LeaderElector elector(const ApiClient& api, const std::string& name, const std::string& identity) {
  LeaderElectionConfig config{.lease_namespace = "default", .lease_name = name, .identity = identity};
  auto created = LeaderElector::create(api, config);
  EXPECT_TRUE(created.ok()) << created.error().message;
  return std::move(created).value();
}

// The default namespace may appear a moment after the API server: the first round may fail with NotFound.
KubeResult<bool> first_round(LeaderElector& e, system_clock::time_point now) {
  for (int attempt = 0;; ++attempt) {
    auto r = e.try_acquire_or_renew(now);
    if (r.ok() || !r.error().is_not_found() || attempt == 40) return r;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

// Whether e leads after a round at now; a round that fails is a test failure (and does not lead).
bool leads_after_round(LeaderElector& e, system_clock::time_point now) {
  auto r = e.try_acquire_or_renew(now);
  EXPECT_TRUE(r.ok()) << r.error().describe();
  return r.ok() && *r;
}

// The Lease's spec as the server has it now.
json spec_of(const ApiClient& api, const LeaderElector& e) {
  auto lease = api.get(e.lease_path());
  EXPECT_TRUE(lease.ok()) << lease.error().describe();
  return lease.ok() ? (*lease)["spec"] : json();
}

// A fresh Lease with two candidates, a_1 and b_2: a created it at t0 and leads.
struct TwoCandidates {
  ApiClient api;
  LeaderElector a;
  LeaderElector b;
  system_clock::time_point t0;
};

std::optional<TwoCandidates> a_leads(const ApiClient& api, const std::string& name) {
  TwoCandidates c{api, elector(api, name, "a_1"), elector(api, name, "b_2"), system_clock::now()};
  auto first = first_round(c.a, c.t0);
  EXPECT_TRUE(first.ok()) << first.error().describe();
  if (!first.ok() || !*first) return std::nullopt;
  return c;
}

TEST_F(RealApiServer, LeaderElectionFirstCreatesTheLeaseSecondFollows) {
  auto candidates = a_leads(client(config_), unique_name("lease"));
  ASSERT_TRUE(candidates.has_value());
  auto& [api, a, b, t0] = *candidates;
  EXPECT_TRUE(a.is_leader());
  EXPECT_FALSE(leads_after_round(b, t0));
  EXPECT_FALSE(b.is_leader());
  EXPECT_EQ(spec_of(api, a), json({{"holderIdentity", "a_1"},
                                   {"leaseDurationSeconds", 15},
                                   {"acquireTime", format_micro_time(t0)},
                                   {"renewTime", format_micro_time(t0)},
                                   {"leaseTransitions", 0}}));
  // The leader renews: renewTime moves, acquireTime and leaseTransitions stay.
  EXPECT_TRUE(leads_after_round(a, t0 + seconds(2)));
  json spec = spec_of(api, a);
  EXPECT_EQ(spec["renewTime"], format_micro_time(t0 + seconds(2)));
  EXPECT_EQ(spec["acquireTime"], format_micro_time(t0));
  EXPECT_EQ(spec["leaseTransitions"], 0);
}

TEST_F(RealApiServer, LeaderElectionFollowerTakesOverOnlyAfterExpiryByItsOwnClock) {
  auto candidates = a_leads(client(config_), unique_name("lease"));
  ASSERT_TRUE(candidates.has_value());
  auto& [api, a, b, t0] = *candidates;
  // b's clock runs an hour behind a's: the remote renewTime must not matter, only when b saw the record change.
  auto b0 = t0 - std::chrono::hours(1);
  EXPECT_FALSE(leads_after_round(b, b0));
  // a stops renewing. At +14 s by b's clock the lease has not expired yet for b; at +16 s it has.
  EXPECT_FALSE(leads_after_round(b, b0 + seconds(14)));
  EXPECT_TRUE(leads_after_round(b, b0 + seconds(16)));
  EXPECT_TRUE(b.is_leader());
  json spec = spec_of(api, a);
  EXPECT_EQ(spec["holderIdentity"], "b_2");
  EXPECT_EQ(spec["leaseTransitions"], 1);
  EXPECT_EQ(spec["acquireTime"], format_micro_time(b0 + seconds(16)));
  // a comes back: it sees b as the holder, does not lead, and does not release b's lease.
  EXPECT_FALSE(leads_after_round(a, t0 + seconds(17)));
  EXPECT_FALSE(a.is_leader());
  auto released = a.release(t0 + seconds(17));
  ASSERT_TRUE(released.ok());
  EXPECT_FALSE(*released);
}

TEST_F(RealApiServer, LeaderElectionReleaseHandsOverAtOnce) {
  auto candidates = a_leads(client(config_), unique_name("lease"));
  ASSERT_TRUE(candidates.has_value());
  auto& [api, a, b, t0] = *candidates;
  EXPECT_FALSE(leads_after_round(b, t0 + seconds(1)));
  auto released = a.release(t0 + seconds(2));
  ASSERT_TRUE(released.ok()) << released.error().describe();
  EXPECT_TRUE(*released);
  EXPECT_FALSE(a.is_leader());
  json spec = spec_of(api, a);
  EXPECT_EQ(spec["holderIdentity"], "");
  EXPECT_EQ(spec["leaseDurationSeconds"], 1);
  // b's next try, well within a's 15 s: it takes over.
  EXPECT_TRUE(leads_after_round(b, t0 + seconds(3)));
  spec = spec_of(api, a);
  EXPECT_EQ(spec["holderIdentity"], "b_2");
  EXPECT_EQ(spec["leaseDurationSeconds"], 15);
  EXPECT_EQ(spec["leaseTransitions"], 1);
}

TEST_F(RealApiServer, LeaderElectionStaleResourceVersionExactlyOneWins) {
  auto candidates = a_leads(client(config_), unique_name("lease"));
  ASSERT_TRUE(candidates.has_value());
  auto& [api, a, b, t0] = *candidates;
  LeaderElector c = elector(api, a.config().lease_name, "c_3");
  ASSERT_TRUE(*a.release(t0));
  // b and c read the same released Lease (same resourceVersion) and both update with it.
  auto lease = api.get(a.lease_path());
  ASSERT_TRUE(lease.ok());
  auto by_b = b.try_acquire_or_renew(*lease, t0 + seconds(1));
  auto by_c = c.try_acquire_or_renew(*lease, t0 + seconds(1));
  ASSERT_TRUE(by_b.ok()) << by_b.error().describe();
  ASSERT_TRUE(by_c.ok()) << by_c.error().describe();
  EXPECT_TRUE(*by_b);
  EXPECT_FALSE(*by_c);  // the server answered 409
  EXPECT_TRUE(b.is_leader());
  EXPECT_FALSE(c.is_leader());
  // The same stale update again, by hand: the server's answer is 409 Conflict.
  json stale = *lease;
  stale["spec"]["holderIdentity"] = "c_3";
  auto conflict = api.update(a.lease_path(), stale);
  ASSERT_FALSE(conflict.ok());
  EXPECT_TRUE(conflict.error().is_conflict()) << conflict.error().describe();
  EXPECT_EQ(spec_of(api, a)["holderIdentity"], "b_2");
  // c, on its next round, sees b's fresh record and follows.
  EXPECT_FALSE(leads_after_round(c, t0 + seconds(2)));
}

// run() on its own thread and its own client, renewing every second; the lease (30 s) and renew deadline (20 s) are
// long enough that a loaded machine (the sanitizer build) never makes it step down by a late renewal.
struct Running {
  std::atomic<bool> stop{false};
  std::atomic<int> started{0};
  std::atomic<int> stopped{0};
  std::thread thread;

  Running(ApiClient api, const std::string& name, const std::string& identity) {
    LeaderElectionConfig election{.lease_namespace = "default",
                                  .lease_name = name,
                                  .identity = identity,
                                  .lease_duration = seconds(30),
                                  .renew_deadline = seconds(20),
                                  .retry_period = seconds(1),
                                  .jitter_factor = 0.5};
    auto created = LeaderElector::create(std::move(api), election);
    EXPECT_TRUE(created.ok()) << created.error().message;
    thread = std::thread([this, e = std::move(created).value()]() mutable {
      e.run([this] { return stop.load(); }, [this] { ++started; }, [this] { ++stopped; });
    });
  }
  ~Running() { finish(); }
  void finish() {
    stop = true;
    if (thread.joinable()) thread.join();
  }
  // Waits up to 20 s for the counter to reach 1.
  static bool reaches_one(const std::atomic<int>& counter) {
    for (int i = 0; i < 200 && counter.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return counter.load() == 1;
  }
};

TEST_F(RealApiServer, LeaderElectionRunLeadsAndReleasesOnStop) {
  std::string name = unique_name("lease");
  ApiClient api = client(config_);
  {
    Running running(client(config_), name, "runner_1");
    ASSERT_TRUE(Running::reaches_one(running.started));
    EXPECT_EQ(running.stopped, 0);
    // It renews: within 20 s the Lease's renewTime moves past its acquireTime, held by the same runner.
    const std::string path = "/apis/coordination.k8s.io/v1/namespaces/default/leases/" + name;
    KubeResult<json> lease = api.get(path);
    for (int i = 0; i < 200 && lease.ok() && (*lease)["spec"]["renewTime"] == (*lease)["spec"]["acquireTime"]; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      lease = api.get(path);
    }
    ASSERT_TRUE(lease.ok());
    EXPECT_EQ((*lease)["spec"]["holderIdentity"], "runner_1");
    EXPECT_NE((*lease)["spec"]["renewTime"], (*lease)["spec"]["acquireTime"]);
    EXPECT_EQ(running.stopped, 0);
    running.finish();
    EXPECT_EQ(running.started, 1);
    EXPECT_EQ(running.stopped, 1);
  }
  auto lease = api.get("/apis/coordination.k8s.io/v1/namespaces/default/leases/" + name);
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ((*lease)["spec"]["holderIdentity"], "");
  EXPECT_EQ((*lease)["spec"]["leaseDurationSeconds"], 1);
}

TEST_F(RealApiServer, LeaderElectionRunStopsLeadingOnceAnotherHolderIsSeen) {
  std::string name = unique_name("lease");
  ApiClient api = client(config_);
  Running running(client(config_), name, "runner_1");
  ASSERT_TRUE(Running::reaches_one(running.started));
  // Someone else writes the Lease (as after our renewals had failed and it expired for them).
  std::string path = "/apis/coordination.k8s.io/v1/namespaces/default/leases/" + name;
  for (int attempt = 0; attempt < 10; ++attempt) {
    auto lease = api.get(path);
    ASSERT_TRUE(lease.ok());
    (*lease)["spec"]["holderIdentity"] = "usurper_2";
    auto updated = api.update(path, *lease);
    if (updated.ok()) break;
    ASSERT_TRUE(updated.error().is_conflict()) << updated.error().describe();
  }
  // The runner notices on its next renewal and steps down without waiting for its renew deadline.
  ASSERT_TRUE(Running::reaches_one(running.stopped));
  EXPECT_EQ(running.started, 1);
}

// The leader's renewals fail (the API server answers 500) for longer than its renew deadline: it steps down by
// itself, so that it stops acting before its Lease can expire for the others, and sends no release it could not
// know to be safe. Lease 3 s, renew deadline 2 s, retry 1 s; the Lease clock moves 1 s at each reading: acquired at
// t0, leading from t0+1, failed renewals at t0+2, t0+3 (2 s: not yet past) and t0+4 (3 s: past), then down.
TEST(LeaderElection, LeaderStepsDownOnceRenewalsFailPastTheRenewDeadline) {
  testing::ReplayServer server;
  const std::string lease_path = "/apis/coordination.k8s.io/v1/namespaces/default/leases/renew-fails";
  const system_clock::time_point t0 = system_clock::now();
  server.expect({{"request", {{"method", "GET"}, {"path", lease_path}, {"headers", json::object()}, {"body", nullptr}}},
                 {"response",
                  {{"status", 404},
                   {"headers", {{"Content-Type", "application/json"}}},
                   {"body", {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"}, {"reason", "NotFound"},
                             {"code", 404}}}}}});
  const json spec = {{"holderIdentity", "runner_1"}, {"leaseDurationSeconds", 3},
                     {"acquireTime", format_micro_time(t0)}, {"renewTime", format_micro_time(t0)},
                     {"leaseTransitions", 0}};
  server.expect({{"request",
                  {{"method", "POST"},
                   {"path", "/apis/coordination.k8s.io/v1/namespaces/default/leases"},
                   {"headers", {{"Content-Type", "application/json"}}},
                   {"body", testing::ReplayServer::kAnyBody}}},
                 {"response",
                  {{"status", 201},
                   {"headers", {{"Content-Type", "application/json"}}},
                   {"body", {{"apiVersion", "coordination.k8s.io/v1"}, {"kind", "Lease"},
                             {"metadata", {{"name", "renew-fails"}, {"namespace", "default"}, {"resourceVersion", "7"}}},
                             {"spec", spec}}}}}});
  ClusterConfig config;
  config.server = server.address();
  auto api = ApiClient::create(config);
  ASSERT_TRUE(api.ok()) << api.error().message;
  LeaderElectionConfig election{.lease_namespace = "default",
                                .lease_name = "renew-fails",
                                .identity = "runner_1",
                                .lease_duration = seconds(3),
                                .renew_deadline = seconds(2),
                                .retry_period = seconds(1),
                                .jitter_factor = 0.5};
  int readings = 0;
  auto elector = LeaderElector::create(std::move(api).value(), election, [&] { return t0 + seconds(readings++); });
  ASSERT_TRUE(elector.ok()) << elector.error().message;

  std::atomic<bool> stop{false};
  std::atomic<int> started{0};
  std::atomic<int> stopped{0};
  std::thread running([&, e = std::move(elector).value()]() mutable {
    e.run([&] { return stop.load(); }, [&] { ++started; }, [&] { ++stopped; });
  });
  const bool stepped_down = Running::reaches_one(stopped);
  stop = true;
  running.join();
  EXPECT_TRUE(stepped_down);
  EXPECT_EQ(started, 1);
  EXPECT_EQ(stopped, 1);
  // Exactly three renewals were tried after the Lease was created, and nothing else (no release).
  EXPECT_EQ(server.served(), 2);
  const std::string renewal = "unexpected request GET " + lease_path;
  EXPECT_EQ(server.problems(), (std::vector<std::string>{renewal, renewal, renewal}));
}

}  // namespace
}  // namespace scalewright::kube
