// The Event objects the controller posts (events.k8s.io/v1), as the API server takes them.
#include "kube/event_sink.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace scalewright::kube {
namespace {

TEST(EventObject, ANoteOverOneKilobyteIsCutAtACharacterBoundary) {
  // 1,020 ASCII bytes, then "→" (3 bytes) across the 1,021-byte cut: it goes whole, not half, so the JSON stays
  // valid UTF-8.
  EventRecord event{{"autoscaling/v2", "HorizontalPodAutoscaler", "shop", "web", ""}, "Normal", "SuccessfulRescale",
                    "Scale", std::string(1020, 'x') + "→" + std::string(100, 'y')};
  const nlohmann::json object = event_object(event, "scalewright", "pod-1", std::chrono::system_clock::time_point{});
  EXPECT_EQ(object["note"].get<std::string>(), std::string(1020, 'x') + "...");
  EXPECT_NO_THROW(static_cast<void>(object.dump()));
  EXPECT_EQ(object["regarding"]["namespace"], "shop");
  EXPECT_EQ(object["metadata"]["namespace"], "shop");

  event.note = std::string(1024, 'z');  // at the limit: kept whole
  EXPECT_EQ(event_object(event, "scalewright", "pod-1", {})["note"].get<std::string>().size(), 1024u);
}

}  // namespace
}  // namespace scalewright::kube
