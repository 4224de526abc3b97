#pragma once
// The workload autoscalers as controllers: the HPA controller syncs every HorizontalPodAutoscaler every 15 s
// (kube-controller-manager's --horizontal-pod-autoscaler-sync-period), from the first metrics scrape on; KEDA polls
// each ScaledObject when it is due. What they decide is carried out through the scale subresource.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/instant.h"
#include "controllers/ports.h"
#include "controllers/workload_autoscaler_loop.h"
#include "state/cluster_state.h"

namespace scalewright::controllers {

// The cluster as the autoscalers observe it, read from the cluster state: a workload's scale subresource, and the
// pods a selector matches with their readiness (NotReady on a node that stopped reporting).
class StateAutoscalingView : public AutoscalingView {
 public:
  explicit StateAutoscalingView(const state::ClusterState& state) : state_(state) {}
  std::optional<ScaleTarget> scale_target(const std::string& namespace_,
                                          const CrossVersionObjectReference& ref) const override;
  std::vector<ObservedPod> pods(const std::string& namespace_, const LabelSelector& selector) const override;

 private:
  const state::ClusterState& state_;
};

class WorkloadAutoscalerController : private Controller {
 public:
  static constexpr Duration kHpaSyncPeriod{15'000};

  WorkloadAutoscalerController(const Ports& ports, const AutoscalingMetrics& metrics,
                               std::chrono::sys_seconds wall_clock_at_start)
      : Controller(ports), view_(state_), autoscaling_(metrics, wall_clock_at_start) {}

  // Takes on the autoscalers observed since the last look (HPAs first, then ScaledObjects, each in the order
  // applied) and sets KEDA's next poll.
  void reconcile();
  // Metrics were scraped: the HPA controller syncs one period after the first scrape, and every period after.
  void metrics_scraped();

  // The autoscalers' tallies, brought up to `now`.
  std::vector<AutoscalerSummary> summary(Instant now);
  std::vector<AutoscalerReading> readings() const { return autoscaling_.readings(view_); }

 private:
  // Sets KEDA's next poll, when a ScaledObject is due and none is set.
  void schedule_poll();
  void sync_hpas();
  void poll();
  void apply(const std::vector<ScaleChange>& changes, AutoscalingNotes& notes);

  StateAutoscalingView view_;
  WorkloadAutoscalerLoop autoscaling_;
  std::size_t hpas_seen_ = 0;  // of the state's hpas(), those taken on
  std::uint64_t scaled_object_changes_seen_ = 0;
  std::map<std::string, std::uint64_t> scaled_objects_taken_on_;  // key -> the revision taken on
  std::optional<std::pair<Instant, TimerId>> poll_timer_;         // the next KEDA poll set, when and which timer
  bool sync_scheduled_ = false;
};

}  // namespace scalewright::controllers
