#include "controllers/ports.h"

#include <algorithm>

#include <fmt/format.h>

namespace scalewright::controllers {

namespace {

constexpr Duration kFirstRetry{1'000};
constexpr Duration kLongestRetry{300'000};

void try_terminate(cloud::CloudProvider& cloud, Clock& clock, EventRecorder& recorder, const std::string& instance_id,
                   Duration wait) {
  const cloud::CloudResult<cloud::Deleted> result = cloud.terminate(instance_id);
  if (cloud::deleted(result)) return;
  recorder.record({clock.now(), "terminate-failed",
                   fmt::format("instance {} not terminated ({}: {}); trying again in {}", instance_id,
                               cloud::to_string(result.error().error_class), result.error().message,
                               format_duration(wait))});
  clock.wake_at(clock.now() + wait, [&cloud, &clock, &recorder, instance_id, wait] {
    try_terminate(cloud, clock, recorder, instance_id, std::min(wait * 2, kLongestRetry));
  });
}

}  // namespace

void terminate_instance(cloud::CloudProvider& cloud, Clock& clock, EventRecorder& recorder, std::string instance_id) {
  if (instance_id.empty()) return;
  try_terminate(cloud, clock, recorder, instance_id, kFirstRetry);
}

void Controller::delete_node_and_instance(const std::string& node) {
  const state::NodeRecord* record = state_.find_node(node);
  std::string instance = record != nullptr ? record->instance_id : std::string();
  writer_.delete_node(node);
  terminate_instance(cloud_, clock_, writer_, std::move(instance));
}

}  // namespace scalewright::controllers
