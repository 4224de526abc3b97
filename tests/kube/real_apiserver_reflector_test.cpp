// The reflector against a real kube-apiserver v1.26.1 (the RealApiServer suite's control plane): it lists a
// namespace's ConfigMaps a page at a time with real continue tokens, then sees what the test changes arrive as
// ADDED, MODIFIED and DELETED, and stops promptly while its watch waits.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "kube/reflector.h"
#include "real_apiserver.h"
#include "recording_handler.h"

namespace scalewright::kube {
namespace {

using nlohmann::json;
using testing::Calls;
using testing::RealApiServer;
using testing::RecordingHandler;
using testing::RunningReflector;

json config_map(const std::string& name, const std::string& value) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}, {"data", {{"k", value}}}};
}

bool contains(const Calls& calls, const std::string& call) {
  return std::find(calls.begin(), calls.end(), call) != calls.end();
}

TEST_F(RealApiServer, ReflectorListsThenSeesConfigMapsAddedModifiedDeleted) {
  ApiClient api = client(config_);
  std::string namespace_name = unique_name("sw-reflector");
  auto created_namespace = api.create(
      "/api/v1/namespaces", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", namespace_name}}}});
  ASSERT_TRUE(created_namespace.ok()) << created_namespace.error().describe();
  const std::string collection = "/api/v1/namespaces/" + namespace_name + "/configmaps";
  for (const char* name : {"a", "b", "c"}) {
    auto created = api.create(collection, config_map(name, "1"));
    ASSERT_TRUE(created.ok()) << created.error().describe();
  }

  RecordingHandler handler;
  ReflectorOptions options;
  options.page_size = 2;  // three ConfigMaps: two pages, the second asked for with the server's continue token
  Reflector reflector(api, collection, options, handler);
  RunningReflector running(reflector);
  ASSERT_TRUE(handler.wait_for_calls(5));
  Calls listed = handler.calls();
  ASSERT_EQ(listed.size(), 5u);
  EXPECT_EQ(Calls(listed.begin(), listed.begin() + 4), (Calls{"relist_started", "listed a", "listed b", "listed c"}));
  const std::string list_resource_version = reflector.last_resource_version();
  EXPECT_EQ(listed[4], "relist_done " + list_resource_version);

  auto added = api.create(collection, config_map("d", "1"));
  ASSERT_TRUE(added.ok()) << added.error().describe();
  ASSERT_TRUE(handler.wait_until([](const Calls& calls) { return contains(calls, "ADDED d"); }));
  EXPECT_TRUE(reflector.has_synced());  // set once relist_done has returned, before the watch began
  auto patched = api.merge_patch(collection + "/a", {{"data", {{"k", "2"}}}});
  ASSERT_TRUE(patched.ok()) << patched.error().describe();
  ASSERT_TRUE(handler.wait_until([](const Calls& calls) { return contains(calls, "MODIFIED a"); }));
  auto removed = api.remove(collection + "/b");
  ASSERT_TRUE(removed.ok()) << removed.error().describe();
  ASSERT_TRUE(handler.wait_until([](const Calls& calls) { return contains(calls, "DELETED b"); }));

  EXPECT_LT(running.stop(), std::chrono::seconds(1)) << "stopped while the watch waited for events";
  Calls calls = handler.calls();
  EXPECT_EQ(Calls(calls.begin() + 5, calls.end()), (Calls{"ADDED d", "MODIFIED a", "DELETED b"}));
  EXPECT_EQ(handler.names(), (std::set<std::string>{"a", "c", "d"}));
  // The reflector would resume from the last event it saw, not from the list.
  EXPECT_GT(std::stoll(reflector.last_resource_version()), std::stoll(list_resource_version));

  for (const char* name : {"a", "c", "d"}) EXPECT_TRUE(api.remove(collection + "/" + name).ok());
}

}  // namespace
}  // namespace scalewright::kube
