// The reflector against a replay server that checks every request it sends (path, query, resourceVersion) and
// answers recorded kube-apiserver 1.26 exchanges or scripted ones: paging, resuming watches, relisting on 410,
// backing off on errors and honouring Retry-After, stopping while a watch waits; and one-off requests sent again
// while the server cannot answer.
#include "kube/reflector.h"
#include "kube/retry.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "recording_handler.h"
#include "replay_server.h"

namespace scalewright::kube {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::steady_clock;
using testing::Calls;
using testing::RecordingHandler;
using testing::RunningReflector;
using testing::kFixtures;
using testing::load_fixture;
using testing::ReplayServer;

json get_exchange(const std::string& path, int status, json body) {
  return {{"request", {{"method", "GET"}, {"path", path}, {"headers", json::object()}, {"body", nullptr}}},
          {"response", {{"status", status}, {"headers", {{"Content-Type", "application/json"}}}, {"body", body}}}};
}

json object(const std::string& name, const std::string& resource_version) {
  return {{"metadata", {{"name", name}, {"resourceVersion", resource_version}}}};
}

json list_body(const std::vector<std::string>& names, const std::string& resource_version,
               const std::string& continue_token = "") {
  json items = json::array();
  for (const std::string& name : names) items.push_back(object(name, "1"));
  json metadata = {{"resourceVersion", resource_version}};
  if (!continue_token.empty()) metadata["continue"] = continue_token;
  return {{"kind", "PodList"}, {"apiVersion", "v1"}, {"metadata", metadata}, {"items", items}};
}

json event(const std::string& type, const std::string& name, const std::string& resource_version) {
  return {{"type", type}, {"object", object(name, resource_version)}};
}

json bookmark(const std::string& resource_version) {
  return {{"type", "BOOKMARK"},
          {"object", {{"kind", "Pod"}, {"apiVersion", "v1"}, {"metadata", {{"resourceVersion", resource_version}}}}}};
}

json status(int code, const std::string& reason) {
  return {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"}, {"message", reason + " for the test"},
          {"reason", reason}, {"code", code}};
}

std::string watch_path(const std::string& collection, const std::string& resource_version, int timeout = 8,
                       const std::string& selectors = "") {
  return collection + "?watch=1&allowWatchBookmarks=true&resourceVersion=" + resource_version + selectors +
         "&timeoutSeconds=" + std::to_string(timeout);
}

ApiClient client_for(const std::string& address) {
  ClusterConfig config;
  config.server = address;
  auto client = ApiClient::create(config);
  EXPECT_TRUE(client.ok()) << client.error().message;
  return std::move(client).value();
}

// Fast and predictable: no jitter, millisecond backoff, the fixtures' timeoutSeconds.
ReflectorOptions test_options(int watch_timeout = 8) {
  ReflectorOptions options;
  options.min_watch_timeout = std::chrono::seconds(watch_timeout);
  options.watch_timeout_jitter = 0;
  options.backoff.initial = milliseconds(1);
  options.backoff.max = milliseconds(10);
  options.backoff.jitter = 0;
  return options;
}

class ReflectorReplay : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::is_directory(kFixtures)) GTEST_SKIP() << kFixtures << " is absent";
  }
};

TEST_F(ReflectorReplay, ListsPageByPageThenWatchesFromTheListsResourceVersion) {
  ReplayServer server;
  server.expect(load_fixture("11-nodes-list-limit.json"));     // /api/v1/nodes?limit=2: sw-node-1, sw-node-2
  server.expect(load_fixture("12-nodes-list-continue.json"));  // sw-node-3, resourceVersion 253
  json stream = load_fixture("24-pods-watch-stream.json");     // 9 events, then 2 bookmarks at 284
  stream["request"]["path"] = watch_path("/api/v1/nodes", "253");
  server.expect(stream);
  server.expect(get_exchange(watch_path("/api/v1/nodes", "284"), 200, json::array()),
                {}, ReplayServer::StreamEnd::HoldOpen);
  RecordingHandler handler(&server);
  ReflectorOptions options = test_options();
  options.page_size = 2;
  Reflector reflector(client_for(server.address()), "/api/v1/nodes", options, handler);
  EXPECT_FALSE(reflector.has_synced());
  RunningReflector running(reflector);

  ASSERT_TRUE(handler.wait_for_calls(14));
  ASSERT_TRUE(server.wait_until_served(4));
  EXPECT_LT(running.stop(), std::chrono::seconds(1)) << "stopped while the watch waited";
  EXPECT_EQ(handler.calls(), (Calls{"relist_started", "listed sw-node-1", "listed sw-node-2", "listed sw-node-3",
                                    "relist_done 253", "ADDED sw-watch-pod-1", "MODIFIED sw-watch-pod-1",
                                    "MODIFIED sw-watch-pod-1", "MODIFIED sw-watch-pod-1", "MODIFIED sw-watch-pod-1",
                                    "DELETED sw-watch-pod-1", "ADDED sw-watch-pod-2", "MODIFIED sw-watch-pod-2",
                                    "DELETED sw-watch-pod-2"}));
  // The first page was handed over before the second was asked for.
  EXPECT_EQ(handler.requests_served_when_listed(), (std::vector<int>{1, 1, 2}));
  EXPECT_EQ(handler.names(), (std::set<std::string>{"sw-node-1", "sw-node-2", "sw-node-3"}));
  EXPECT_TRUE(reflector.has_synced());
  EXPECT_EQ(reflector.last_resource_version(), "284");
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
}

TEST_F(ReflectorReplay, AnExpiredContinueTokenStartsTheListAgain) {
  ReplayServer server;
  json expired = load_fixture("80-nodes-list-continue-expired.json");  // 410 on /api/v1/nodes?limit=1&continue=<token>
  std::string path = expired["request"]["path"];
  std::string token = path.substr(path.find("continue=") + 9);
  server.expect(get_exchange("/api/v1/nodes?limit=1", 200, list_body({"sw-node-1"}, "427", token)));
  server.expect(expired);
  server.expect(get_exchange("/api/v1/nodes?limit=1", 200, list_body({"sw-node-2"}, "500")));
  server.expect(get_exchange(watch_path("/api/v1/nodes", "500"), 200, json::array()), {},
                ReplayServer::StreamEnd::HoldOpen);
  RecordingHandler handler;
  ReflectorOptions options = test_options();
  options.page_size = 1;
  options.backoff.initial = std::chrono::seconds(30);  // a backoff would stall the test: the restart is immediate
  Reflector reflector(client_for(server.address()), "/api/v1/nodes", options, handler);
  RunningReflector running(reflector);

  ASSERT_TRUE(handler.wait_for_calls(5));
  ASSERT_TRUE(server.wait_until_served(4));
  running.stop();
  EXPECT_EQ(handler.calls(), (Calls{"relist_started", "listed sw-node-1", "relist_started", "listed sw-node-2",
                                    "relist_done 500"}));
  EXPECT_EQ(handler.names(), std::set<std::string>{"sw-node-2"}) << "sw-node-1 was not listed since the restart";
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
}

TEST_F(ReflectorReplay, WatchExpiredRelistsAndWhatTheNewListLacksIsGone) {
  ReplayServer server;
  const std::string pods = "/api/v1/namespaces/default/pods";
  server.expect(get_exchange(pods + "?limit=500", 200, list_body({"a", "b"}, "100")));
  json too_old = load_fixture("78-pods-watch-too-old.json");  // one ERROR event: 410 Expired
  json events = json::array({event("ADDED", "c", "101"), too_old["response"]["body"][0]});
  server.expect(get_exchange(watch_path(pods, "100"), 200, events));
  server.expect(get_exchange(pods + "?limit=500", 200, list_body({"b", "c", "d"}, "200")));
  server.expect(get_exchange(watch_path(pods, "200"), 200, json::array()), {}, ReplayServer::StreamEnd::HoldOpen);
  RecordingHandler handler;
  ReflectorOptions options = test_options();
  options.backoff.initial = std::chrono::seconds(30);  // the first 410 relists at once
  Reflector reflector(client_for(server.address()), pods, options, handler);
  RunningReflector running(reflector);

  ASSERT_TRUE(handler.wait_for_calls(10));
  ASSERT_TRUE(server.wait_until_served(4));
  running.stop();
  EXPECT_EQ(handler.calls(), (Calls{"relist_started", "listed a", "listed b", "relist_done 100", "ADDED c",
                                    "relist_started", "listed b", "listed c", "listed d", "relist_done 200"}));
  EXPECT_EQ(handler.names(), (std::set<std::string>{"b", "c", "d"}));
  EXPECT_EQ(reflector.last_resource_version(), "200");
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
}

TEST_F(ReflectorReplay, AWatchTheServerEndsResumesFromTheLastEventOrBookmark) {
  ReplayServer server;
  const std::string pods = "/api/v1/pods";
  server.expect(get_exchange(pods + "?limit=500", 200, list_body({"a"}, "100")));
  server.expect(get_exchange(watch_path(pods, "100"), 200, json::array({event("MODIFIED", "a", "105")})));
  server.expect(get_exchange(watch_path(pods, "105"), 200, json::array({bookmark("120")})));
  server.expect(get_exchange(watch_path(pods, "120"), 200, json::array()), {}, ReplayServer::StreamEnd::HoldOpen);
  RecordingHandler handler;
  Reflector reflector(client_for(server.address()), pods, test_options(), handler);
  RunningReflector running(reflector);

  ASSERT_TRUE(server.wait_until_served(4));
  running.stop();
  // The replay server checked each watch's resourceVersion: 100 (the list), 105 (the event), 120 (the bookmark).
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
  EXPECT_EQ(handler.calls(), (Calls{"relist_started", "listed a", "relist_done 100", "MODIFIED a"}));
  EXPECT_EQ(reflector.last_resource_version(), "120");
}

TEST_F(ReflectorReplay, CustomResourcesModifiedThenDeletedThenBookmarked) {
  ReplayServer server;
  json list = load_fixture("65-nodepools-list.json");  // NodePool "default" at 358
  list["request"]["path"] = "/apis/karpenter.sh/v1/nodepools?limit=500";
  server.expect(list);
  // timeoutSeconds=5 from 358: MODIFIED, DELETED, BOOKMARK at 360
  server.expect(load_fixture("66-nodepools-watch.json"));
  server.expect(get_exchange(watch_path("/apis/karpenter.sh/v1/nodepools", "360", 5), 200, json::array()), {},
                ReplayServer::StreamEnd::HoldOpen);
  RecordingHandler handler;
  Reflector reflector(client_for(server.address()), "/apis/karpenter.sh/v1/nodepools", test_options(5),
                            handler);
  RunningReflector running(reflector);

  ASSERT_TRUE(server.wait_until_served(3));
  running.stop();
  EXPECT_EQ(handler.calls(),
            (Calls{"relist_started", "listed default", "relist_done 358", "MODIFIED default", "DELETED default"}));
  EXPECT_EQ(handler.names(), std::set<std::string>{});
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
}

TEST_F(ReflectorReplay, SelectorsGoToTheListAndEveryWatch) {
  ReplayServer server;
  const std::string selector = "&labelSelector=kubernetes.io%2Fhostname%3Dsw-node-1";
  server.expect(get_exchange("/api/v1/nodes?limit=500" + selector, 200, list_body({"sw-node-1"}, "265")));
  json watch = load_fixture("75-nodes-watch-rv0-selector.json");  // ADDED sw-node-1 at 266
  watch["request"]["path"] = watch_path("/api/v1/nodes", "265", 2, selector);
  server.expect(watch);
  server.expect(get_exchange(watch_path("/api/v1/nodes", "266", 2, selector), 200, json::array()), {},
                ReplayServer::StreamEnd::HoldOpen);
  RecordingHandler handler;
  ReflectorOptions options = test_options(2);
  options.label_selector = "kubernetes.io/hostname=sw-node-1";
  Reflector reflector(client_for(server.address()), "/api/v1/nodes", options, handler);
  RunningReflector running(reflector);

  ASSERT_TRUE(server.wait_until_served(3));
  running.stop();
  EXPECT_EQ(handler.calls(), (Calls{"relist_started", "listed sw-node-1", "relist_done 265", "ADDED sw-node-1"}));
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
}

TEST_F(ReflectorReplay, TooManyRequestsWaitsAtLeastRetryAfterThenResumesTheWatch) {
  ReplayServer server;
  const std::string pods = "/api/v1/pods";
  server.expect(get_exchange(pods + "?limit=500", 200, list_body({"a"}, "100")));
  server.expect(get_exchange(watch_path(pods, "100"), 429, status(429, "TooManyRequests")), {{"Retry-After", "1"}});
  server.expect(get_exchange(watch_path(pods, "100"), 200, json::array({event("ADDED", "b", "101")})), {},
                ReplayServer::StreamEnd::HoldOpen);
  RecordingHandler handler;
  Reflector reflector(client_for(server.address()), pods, test_options(), handler);  // 1 ms backoff
  RunningReflector running(reflector);

  ASSERT_TRUE(handler.wait_for_calls(4));
  running.stop();
  std::vector<steady_clock::time_point> arrivals = server.arrivals();
  ASSERT_EQ(arrivals.size(), 3u);
  EXPECT_GE(arrivals[2] - arrivals[1], std::chrono::seconds(1));
  EXPECT_EQ(handler.calls(), (Calls{"relist_started", "listed a", "relist_done 100", "ADDED b"}));
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
}

TEST_F(ReflectorReplay, ServerErrorsBackOffAndResumeTheWatchUntilGoneAsksForAList) {
  ReplayServer server;
  const std::string pods = "/api/v1/pods";
  server.expect(get_exchange(pods + "?limit=500", 200, list_body({"a"}, "100")));
  server.expect(get_exchange(watch_path(pods, "100"), 500, status(500, "InternalError")));
  server.expect(get_exchange(watch_path(pods, "100"), 503, status(503, "ServiceUnavailable")));
  server.expect(get_exchange(watch_path(pods, "100"), 410, status(410, "Expired")));
  server.expect(get_exchange(pods + "?limit=500", 200, list_body({"b"}, "300")));
  server.expect(get_exchange(watch_path(pods, "300"), 200, json::array()), {}, ReplayServer::StreamEnd::HoldOpen);
  RecordingHandler handler;
  Reflector reflector(client_for(server.address()), pods, test_options(), handler);
  RunningReflector running(reflector);

  ASSERT_TRUE(server.wait_until_served(6));
  running.stop();
  EXPECT_EQ(handler.calls(), (Calls{"relist_started", "listed a", "relist_done 100", "relist_started", "listed b",
                                    "relist_done 300"}));
  EXPECT_EQ(handler.names(), std::set<std::string>{"b"});
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
}

TEST_F(ReflectorReplay, ListFailuresBackOffAndSyncOnlyWhenAListCompletes) {
  ReplayServer server;
  const std::string pods = "/api/v1/pods";
  server.expect(get_exchange(pods + "?limit=500", 500, status(500, "InternalError")));
  server.expect(get_exchange(pods + "?limit=500", 429, status(429, "TooManyRequests")));
  server.expect(get_exchange(pods + "?limit=500", 200, list_body({"a"}, "100")));
  server.expect(get_exchange(watch_path(pods, "100"), 200, json::array()), {}, ReplayServer::StreamEnd::HoldOpen);
  RecordingHandler handler;
  Reflector reflector(client_for(server.address()), pods, test_options(), handler);
  RunningReflector running(reflector);

  ASSERT_TRUE(server.wait_until_served(4));
  EXPECT_TRUE(reflector.has_synced());
  running.stop();
  EXPECT_EQ(handler.calls(),
            (Calls{"relist_started", "relist_started", "relist_started", "listed a", "relist_done 100"}));
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
}

TEST_F(ReflectorReplay, AWatchEndedAtOnceWithNothingSentBacksOff) {
  ReplayServer server;
  const std::string pods = "/api/v1/namespaces/default/pods";
  server.expect(get_exchange(pods + "?limit=500", 200, list_body({}, "412")));
  json idle = load_fixture("76-pods-watch-idle.json");  // timeoutSeconds=10 from 412: closed without a line
  server.expect(idle);
  server.expect(get_exchange(watch_path(pods, "412", 10), 200, json::array()), {}, ReplayServer::StreamEnd::HoldOpen);
  RecordingHandler handler;
  ReflectorOptions options = test_options(10);
  options.backoff.initial = milliseconds(300);
  options.backoff.max = milliseconds(300);
  Reflector reflector(client_for(server.address()), pods, options, handler);
  RunningReflector running(reflector);

  ASSERT_TRUE(server.wait_until_served(3));
  running.stop();
  std::vector<steady_clock::time_point> arrivals = server.arrivals();
  ASSERT_EQ(arrivals.size(), 3u);
  EXPECT_GE(arrivals[2] - arrivals[1], milliseconds(300));
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
}

TEST(ReflectorStop, ReturnsPromptlyWhileBackingOffFromAServerThatIsDown) {
  int port = 0;
  {
    httplib::Server probe;
    port = probe.bind_to_any_port("127.0.0.1");
    std::thread thread([&] { probe.listen_after_bind(); });
    while (!probe.is_running()) std::this_thread::sleep_for(milliseconds(1));
    probe.stop();  // closes the socket: nothing listens on the port now
    thread.join();
  }
  RecordingHandler handler;
  ReflectorOptions options;
  options.backoff.initial = std::chrono::seconds(20);
  Reflector reflector(client_for("http://127.0.0.1:" + std::to_string(port)), "/api/v1/pods", options, handler);
  RunningReflector running(reflector);
  ASSERT_TRUE(handler.wait_for_calls(1));  // the list began (and failed: connection refused)
  EXPECT_LT(running.stop(), std::chrono::seconds(1));
  EXPECT_FALSE(reflector.has_synced());
  EXPECT_EQ(handler.calls(), Calls{"relist_started"});
}

TEST(ReflectorStop, ReturnsPromptlyWhileAListPageGoesUnanswered) {
  httplib::Server server;
  std::mutex mutex;
  std::condition_variable changed;
  bool asked = false, ending = false;
  server.Get(".*", [&](const httplib::Request&, httplib::Response& res) {
    std::unique_lock lock(mutex);
    asked = true;
    changed.notify_all();
    changed.wait_for(lock, std::chrono::seconds(10), [&] { return ending; });
    res.status = 500;
  });
  int port = server.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { server.listen_after_bind(); });
  {
    RecordingHandler handler;
    Reflector reflector(client_for("http://127.0.0.1:" + std::to_string(port)), "/api/v1/pods", ReflectorOptions{},
                        handler);
    RunningReflector running(reflector);
    {
      std::unique_lock lock(mutex);
      EXPECT_TRUE(changed.wait_for(lock, std::chrono::seconds(10), [&] { return asked; }));
    }
    EXPECT_LT(running.stop(), std::chrono::seconds(1));
    EXPECT_FALSE(reflector.has_synced());
  }
  {
    std::lock_guard lock(mutex);
    ending = true;
  }
  changed.notify_all();
  server.stop();
  thread.join();
}

TEST(ReflectorBackoff, DelaysAreClientGosExponentialCappedAndJittered) {
  ReflectorOptions defaults;
  EXPECT_EQ(defaults.backoff.delay(1, 0.0), milliseconds(800));
  EXPECT_EQ(defaults.backoff.delay(2, 0.0), milliseconds(1600));
  EXPECT_EQ(defaults.backoff.delay(3, 0.0), milliseconds(3200));
  EXPECT_EQ(defaults.backoff.delay(6, 0.0), milliseconds(25600));
  EXPECT_EQ(defaults.backoff.delay(7, 0.0), milliseconds(30000));  // 51.2 s capped
  EXPECT_EQ(defaults.backoff.delay(100, 0.0), milliseconds(30000));
  EXPECT_EQ(defaults.backoff.delay(1, 0.5), milliseconds(1200));    // jitter 1.0: up to twice the base
  EXPECT_EQ(defaults.backoff.delay(7, 0.5), milliseconds(45000));   // jitter applies after the cap
}

TEST(ReflectorBackoff, TheServersRetryAfterLengthensTheWaitButNeverShortensIt) {
  ReflectorOptions defaults;
  KubeError overloaded;
  overloaded.code = 429;
  overloaded.retry_after_seconds = 3;
  EXPECT_EQ(retry_delay(defaults.backoff, 1, &overloaded, 0.0), milliseconds(3000));   // 800 ms backoff, 3 s asked
  EXPECT_EQ(retry_delay(defaults.backoff, 4, &overloaded, 0.0), milliseconds(6400));   // 6.4 s backoff is longer
  EXPECT_EQ(retry_delay(defaults.backoff, 1, nullptr, 0.0), milliseconds(800));        // no answer to read
  overloaded.retry_after_seconds.reset();
  EXPECT_EQ(retry_delay(defaults.backoff, 2, &overloaded, 0.5), milliseconds(2400));   // 1.6 s, jittered by half
}

TEST(ReflectorBackoff, WatchTimeoutsSpreadBetweenFiveAndTenMinutes) {
  ReflectorOptions defaults;
  EXPECT_EQ(watch_timeout_seconds(defaults, 0.0), 300);
  EXPECT_EQ(watch_timeout_seconds(defaults, 0.5), 450);
  EXPECT_EQ(watch_timeout_seconds(defaults, 0.999), 599);
}

// A one-off list of the nodes (the kwok provider's, as it starts to lead), sent until the server answers;
// `before_each` runs before every attempt.
KubeResult<ListResult> list_nodes_until_answered(const ApiClient& api, const std::stop_token& stop = {},
                                                 const std::function<void()>& before_each = [] {}) {
  return retry_while_unavailable<ListResult>(
      "listing nodes",
      [&] {
        before_each();
        return api.list("/api/v1/nodes", 500);
      },
      stop, test_options().backoff);
}

// A one-off list waits out a server that cannot answer yet.
TEST_F(ReflectorReplay, AOneOffRequestIsSentAgainUntilTheServerAnswers) {
  ReplayServer server;
  const std::string nodes = "/api/v1/nodes?limit=500";
  server.expect(get_exchange(nodes, 503, status(503, "ServiceUnavailable")));
  server.expect(get_exchange(nodes, 429, status(429, "TooManyRequests")));
  server.expect(get_exchange(nodes, 200, list_body({"sw-node-1"}, "265")));
  ApiClient api = client_for(server.address());
  KubeResult<ListResult> listed = list_nodes_until_answered(api);
  ASSERT_TRUE(listed.ok()) << listed.error().describe();
  ASSERT_EQ(listed->items.size(), 1u);
  EXPECT_EQ(listed->items[0]["metadata"]["name"], "sw-node-1");
  EXPECT_EQ(server.served(), 3);
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
}

TEST_F(ReflectorReplay, AOneOffRequestTheServerRefusesIsNotSentAgain) {
  ReplayServer server;
  const std::string nodes = "/api/v1/nodes?limit=500";
  server.expect(get_exchange(nodes, 403, status(403, "Forbidden")));
  ApiClient api = client_for(server.address());
  KubeResult<ListResult> listed = list_nodes_until_answered(api);
  ASSERT_FALSE(listed.ok());
  EXPECT_EQ(listed.error().code, 403);
  EXPECT_EQ(server.served(), 1);
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
}

TEST_F(ReflectorReplay, AOneOffRequestGivesUpWhenAskedToStop) {
  ReplayServer server;
  const std::string nodes = "/api/v1/nodes?limit=500";
  server.expect(get_exchange(nodes, 503, status(503, "ServiceUnavailable")));
  server.expect(get_exchange(nodes, 500, status(500, "InternalError")));
  ApiClient api = client_for(server.address());
  std::stop_source stop;
  int sent = 0;
  KubeResult<ListResult> listed = list_nodes_until_answered(api, stop.get_token(), [&] {
    if (++sent == 2) stop.request_stop();  // asked to stop while the second attempt is under way
  });
  ASSERT_FALSE(listed.ok());
  EXPECT_EQ(listed.error().code, 500);
  EXPECT_EQ(sent, 2);
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
}

TEST(KubeError, NoAnswer429And5xxMayPassLaterOtherAnswersWillNot) {
  KubeError error;
  for (int code : {0, 429, 500, 503, 504}) {
    error.code = code;
    EXPECT_TRUE(error.is_unavailable()) << code;
  }
  for (int code : {400, 401, 403, 404, 409, 410, 422}) {
    error.code = code;
    EXPECT_FALSE(error.is_unavailable()) << code;
  }
}

}  // namespace
}  // namespace scalewright::kube
