#include "controllers/ports.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

namespace scalewright::controllers {

namespace {

constexpr Duration kFirstRetry{1'000};
constexpr Duration kLongestRetry{300'000};

// Calls `remove` until it is done (it went through, or found nothing to remove), waiting `wait` after a refusal,
// then twice as long each time up to kLongestRetry. `what`: "instance i-1 not terminated", as the line says it.
void remove_until_done(Clock& clock, EventRecorder& recorder, std::string what,
                       std::function<cloud::CloudResult<cloud::Deleted>()> remove, Duration wait) {
  const cloud::CloudResult<cloud::Deleted> result = remove();
  if (cloud::deleted(result)) return;
  recorder.record({clock.now(), "terminate-failed",
                   fmt::format("{} ({}: {}); trying again in {}", what, cloud::to_string(result.error().error_class),
                               result.error().message, format_duration(wait))});
  clock.wake_at(clock.now() + wait, [&clock, &recorder, what = std::move(what), remove = std::move(remove), wait] {
    remove_until_done(clock, recorder, what, remove, std::min(wait * 2, kLongestRetry));
  });
}

}  // namespace

void terminate_instance(cloud::CloudProvider& cloud, Clock& clock, EventRecorder& recorder, std::string instance_id) {
  if (instance_id.empty()) return;
  std::string what = fmt::format("instance {} not terminated", instance_id);
  remove_until_done(clock, recorder, std::move(what), [&cloud, id = std::move(instance_id)] { return cloud.terminate(id); },
                    kFirstRetry);
}

void delete_group_instance(cloud::NodeGroupProvider& groups, Clock& clock, EventRecorder& recorder, std::string group,
                           std::string instance_id) {
  if (instance_id.empty()) return;
  std::string what = fmt::format("instance {} of node group {} not deleted", instance_id, group);
  remove_until_done(
      clock, recorder, std::move(what),
      [&groups, group = std::move(group), id = std::move(instance_id)] { return groups.delete_nodes(group, {id}); },
      kFirstRetry);
}

void Controller::delete_node_and_instance(const std::string& node) {
  const state::NodeRecord* record = state_.find_node(node);
  if (record == nullptr) {
    writer_.delete_node(node);
    return;
  }
  std::string instance = record->instance_id;
  std::string group = record->node_group;
  writer_.delete_node(node);
  if (group.empty()) {
    terminate_instance(cloud_, clock_, writer_, std::move(instance));
  } else {
    delete_group_instance(node_groups_, clock_, writer_, std::move(group), std::move(instance));
  }
}

}  // namespace scalewright::controllers
