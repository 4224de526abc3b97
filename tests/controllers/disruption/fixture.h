#pragma once
// The disruption controller's tests run it through fake ports. NodePool "default" has consolidateAfter 30 s (policy
// WhenEmpty, unless a fixture says otherwise); its nodes are Ready c.2xlarge instances the fake cloud started (i-1,
// i-2, ...). A test reconciles after each change, as the simulator does after every instant; the disruption passes
// are timers of the fake clock.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../fake_ports.h"
#include "api/instant.h"
#include "controllers/disruption/controller.h"

namespace scalewright::controllers::disruption_fixtures {

using namespace fakes;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Budget schedules read the wall clock: time 0 is Monday 2024-01-01, 00:00 UTC, as in the simulator.
constexpr std::chrono::sys_seconds kWallClockAtStart{std::chrono::sys_days{std::chrono::year{2024} / 1 / 1}};

class Disruption : public ::testing::Test, protected FakeCluster {
 protected:
  explicit Disruption(std::optional<IntOrPercent> budget = std::nullopt) {
    NodePool pool = provisioning::fixtures::make_nodepool("default");
    pool.consolidate_after = 30s;
    pool.consolidation_policy = ConsolidationPolicy::WhenEmpty;
    if (budget) pool.budgets = {DisruptionBudget{*budget, {}}};
    state.nodepool_applied(std::move(pool));
    writer.on_pod_terminated = [this](const std::string& node) { termination.pod_terminated(node); };
  }

  NodeNames names{7};
  NodeLifecycleController lifecycle{ports};
  TerminationController termination{ports};
  ProvisioningController provisioning{ports, names, lifecycle, {Duration(1'000), Duration(10'000)}};
  DisruptionController disruption{ports, termination, provisioning, kWallClockAtStart};

  // A PodDisruptionBudget "<app>" (maxUnavailable 0) over the pods labelled app=<app>: none may be evicted.
  void allow_no_eviction_of(const std::string& app) {
    PodDisruptionBudget pdb;
    pdb.meta.name = app;
    pdb.meta.namespace_ = "default";
    pdb.selector = LabelSelector{{provisioning::fixtures::requirement("app", SelectorOperator::In, {app})}};
    pdb.max_unavailable = IntOrPercent{0, false};
    state.pdb_applied(pdb);
  }

  // The NodePool's expireAfter and terminationGracePeriod.
  void expire(Duration expire_after, Duration termination_grace_period) {
    NodePool pool = *state.find_nodepool("default");
    pool.expire_after = expire_after;
    pool.termination_grace_period = termination_grace_period;
    state.nodepool_applied(std::move(pool));
  }

  // `node`, the only node deleted, is still there a moment before `at` and deleted at `at`.
  void expect_deleted_at(Instant at, const std::string& node) {
    clock.advance_to(at - 1ms);
    EXPECT_THAT(writer.calls_of("delete_node"), IsEmpty());
    clock.advance_to(at);
    EXPECT_THAT(writer.calls_of("delete_node"), ElementsAre(format_duration(since_start(at)) + " delete_node " + node));
  }

  // A pod of `cpu_milli` bound to `node` now.
  state::PodRecord& run_pod(const std::string& name, std::int64_t cpu_milli, const std::string& node) {
    state::PodRecord& pod = add_pod(state, clock, name, cpu_milli);
    bind_pod(state, clock, pod, node);
    return pod;
  }

  // The NodeClaim the test's replacement launched: "<time> node_launched <name> ...".
  std::string launched_node() const {
    std::vector<std::string> launched = writer.calls_of("node_launched");
    if (launched.size() != 1) return "";
    const std::string& call = launched.front();
    const std::size_t start = call.find("node_launched ") + 14;
    return call.substr(start, call.find(' ', start) - start);
  }
};

// Consolidation: NodePool "default" with WhenEmptyOrUnderutilized, consolidateAfter 30 s, no requirements. Its
// nodes are on-demand c.2xlarge ($0.40/h); a replacement may be spot (c.large $0.04/h is the cheapest).
class Consolidation : public Disruption {
 protected:
  Consolidation() {
    NodePool pool = *state.find_nodepool("default");
    pool.consolidation_policy = ConsolidationPolicy::WhenEmptyOrUnderutilized;
    state.nodepool_applied(std::move(pool));
  }
};

}  // namespace scalewright::controllers::disruption_fixtures
