// The client against recorded kube-apiserver v1.26.1 exchanges, served by a local replay server: each fixture
// checks the request the client sends (method, path and query, Content-Type, body) and how it decodes the answer.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "kube/api_client.h"
#include "replay_server.h"

namespace scalewright::kube {
namespace {

using nlohmann::json;
using testing::kFixtures;
using testing::load_fixture;
using testing::ReplayServer;

// Exchanges the client cannot produce: 86 PATCHes with Content-Type application/json, which no client operation
// sends (every patch operation names its patch type).
bool maps_onto_client(const std::string& name) { return !name.starts_with("86-"); }

std::vector<std::string> fixture_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(kFixtures, ec)) {
    std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".json" && maps_onto_client(name)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  if (names.empty()) names.push_back("absent");
  return names;
}

std::string percent_decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// "/p?a=1&b=2" -> ("/p", {{"a","1"},{"b","2"}}), values still escaped.
std::pair<std::string, std::vector<std::pair<std::string, std::string>>> split_query(const std::string& target) {
  std::size_t q = target.find('?');
  std::vector<std::pair<std::string, std::string>> params;
  if (q == std::string::npos) return {target, params};
  std::string_view rest = std::string_view(target).substr(q + 1);
  while (!rest.empty()) {
    std::size_t amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    std::size_t eq = pair.find('=');
    params.emplace_back(std::string(pair.substr(0, eq)),
                        eq == std::string_view::npos ? "" : std::string(pair.substr(eq + 1)));
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
  }
  return {target.substr(0, q), params};
}

ApiClient client_for(const ReplayServer& server) {
  ClusterConfig config;
  config.server = server.address();
  config.source = "replay server";
  auto client = ApiClient::create(config);
  EXPECT_TRUE(client.ok()) << client.error().message;
  return std::move(client).value();
}

void expect_error_as_recorded(const KubeError& error, const json& exchange, const std::string& path) {
  const json& status = exchange["response"]["body"];
  EXPECT_EQ(error.verb, exchange["request"]["method"].get<std::string>());
  EXPECT_EQ(error.path, path);
  EXPECT_EQ(error.code, exchange["response"]["status"].get<int>());
  EXPECT_EQ(error.reason, status["reason"].get<std::string>());
  EXPECT_EQ(error.message, status["message"].get<std::string>());
  EXPECT_EQ(error.status, status);
  EXPECT_EQ(error.describe(), error.verb + " " + path + ": " + std::to_string(error.code) + " " + error.reason +
                                  ": " + error.message);
}

class RecordedExchange : public ::testing::TestWithParam<std::string> {};

TEST_P(RecordedExchange, ClientSendsTheRecordedRequestAndDecodesTheAnswer) {
  if (!std::filesystem::is_directory(kFixtures)) GTEST_SKIP() << kFixtures << " is absent";
  const json exchange = load_fixture(GetParam());
  const json& request = exchange["request"];
  const json& response = exchange["response"];
  const std::string method = request["method"].get<std::string>();
  const std::string path = request["path"].get<std::string>();
  const std::string content_type = request["headers"].value("Content-Type", "");
  const int status = response["status"].get<int>();
  const bool success = status >= 200 && status < 300;

  ReplayServer server;
  server.expect(exchange);
  ApiClient client = client_for(server);
  auto [base, params] = split_query(path);

  if (method == "GET" && path.find("watch=1") != std::string::npos) {
    WatchOptions options;
    options.allow_bookmarks = false;
    for (const auto& [name, value] : params) {
      if (name == "allowWatchBookmarks") options.allow_bookmarks = value == "true";
      if (name == "resourceVersion") options.resource_version = percent_decode(value);
      if (name == "labelSelector") options.label_selector = percent_decode(value);
      if (name == "fieldSelector") options.field_selector = percent_decode(value);
      if (name == "timeoutSeconds") options.timeout_seconds = std::stoi(value);
    }
    std::vector<json> events;
    auto last = client.watch(base, options, [&](std::string_view type, const json& object) {
      events.push_back({{"type", std::string(type)}, {"object", object}});
      return true;
    });
    std::vector<json> recorded = response["body"].get<std::vector<json>>();
    if (!recorded.empty() && recorded.back()["type"] == "ERROR") {
      json error_object = recorded.back()["object"];
      recorded.pop_back();
      ASSERT_FALSE(last.ok());
      EXPECT_EQ(last.error().code, error_object["code"].get<int>());
      EXPECT_EQ(last.error().reason, error_object["reason"].get<std::string>());
      EXPECT_EQ(last.error().message, error_object["message"].get<std::string>());
      EXPECT_EQ(last.error().path, path);
    } else {
      ASSERT_TRUE(last.ok()) << last.error().describe();
      std::string expected_rv = options.resource_version;
      for (const json& event : recorded) expected_rv = event["object"]["metadata"]["resourceVersion"];
      EXPECT_EQ(*last, expected_rv);
    }
    EXPECT_EQ(events, recorded);
  } else if (method == "GET" && success && response["body"].contains("items") &&
             path.find("limit=") == std::string::npos) {
    auto list = client.list(path);
    ASSERT_TRUE(list.ok()) << list.error().describe();
    EXPECT_EQ(list->items, response["body"]["items"].get<std::vector<json>>());
    EXPECT_EQ(list->resource_version, response["body"]["metadata"]["resourceVersion"].get<std::string>());
    EXPECT_EQ(list->kind, response["body"]["kind"].get<std::string>());
  } else {
    KubeResult<json> result = KubeError{};
    if (method == "GET") {
      result = client.get(path);
    } else if (method == "POST") {
      result = client.create(path, request["body"]);
    } else if (method == "PUT") {
      result = client.update(path, request["body"]);
    } else if (method == "DELETE") {
      std::optional<int> grace;
      if (!request["body"].is_null()) grace = request["body"]["gracePeriodSeconds"].get<int>();
      result = client.remove(path, grace);
    } else if (content_type == "application/merge-patch+json") {
      result = client.merge_patch(path, request["body"]);
    } else if (content_type == "application/json-patch+json") {
      result = client.json_patch(path, request["body"]);
    } else if (content_type == "application/strategic-merge-patch+json") {
      result = client.strategic_merge_patch(path, request["body"]);
    } else if (content_type == "application/apply-patch+yaml") {
      ApplyOptions options;
      for (const auto& [name, value] : params) {
        if (name == "fieldManager") options.field_manager = percent_decode(value);
        if (name == "force") options.force = value == "true";
      }
      result = client.apply(base, request["body"].get<std::string>(), options);
    } else {
      FAIL() << "no client operation for " << method << " " << content_type;
    }
    if (success) {
      ASSERT_TRUE(result.ok()) << result.error().describe();
      EXPECT_EQ(*result, response["body"]);
    } else {
      ASSERT_FALSE(result.ok());
      expect_error_as_recorded(result.error(), exchange, path);
    }
  }
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
  EXPECT_EQ(server.served(), 1);
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = "f" + info.param.substr(0, info.param.size() - (info.param.ends_with(".json") ? 5 : 0));
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(KubeApiserver126, RecordedExchange, ::testing::ValuesIn(fixture_names()), test_name);

class Replay : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::is_directory(kFixtures)) GTEST_SKIP() << kFixtures << " is absent";
  }
};

TEST_F(Replay, ListFollowsContinueAcrossPages) {
  ReplayServer server;
  json first = load_fixture("11-nodes-list-limit.json");
  json second = load_fixture("12-nodes-list-continue.json");
  server.expect(first);
  server.expect(second);
  auto list = client_for(server).list("/api/v1/nodes", 2);
  ASSERT_TRUE(list.ok()) << list.error().describe();
  std::vector<json> items = first["response"]["body"]["items"].get<std::vector<json>>();
  for (const json& item : second["response"]["body"]["items"]) items.push_back(item);
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(list->items, items);
  EXPECT_EQ(list->resource_version, "253");
  EXPECT_EQ(list->kind, "NodeList");
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
}

TEST_F(Replay, ListPagesHandsOverEachPageBeforeAskingForTheNext) {
  ReplayServer server;
  server.expect(load_fixture("11-nodes-list-limit.json"));
  server.expect(load_fixture("12-nodes-list-continue.json"));
  std::vector<std::vector<std::string>> pages;
  std::vector<int> requests_when_handed_over;
  std::vector<bool> last;
  auto resource_version = client_for(server).list_pages("/api/v1/nodes", ListOptions{2, {}, {}}, [&](ListPage& page) {
    std::vector<std::string> names;
    for (const json& item : page.items) names.push_back(item["metadata"]["name"]);
    pages.push_back(names);
    requests_when_handed_over.push_back(server.served());
    last.push_back(page.last);
    EXPECT_EQ(page.resource_version, "253");
    EXPECT_EQ(page.kind, "NodeList");
    return true;
  });
  ASSERT_TRUE(resource_version.ok()) << resource_version.error().describe();
  EXPECT_EQ(*resource_version, "253");
  EXPECT_EQ(pages, (std::vector<std::vector<std::string>>{{"sw-node-1", "sw-node-2"}, {"sw-node-3"}}));
  EXPECT_EQ(requests_when_handed_over, (std::vector<int>{1, 2}));
  EXPECT_EQ(last, (std::vector<bool>{false, true}));
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
}

TEST_F(Replay, ListPagesStopsWhenTheCallbackSaysSo) {
  ReplayServer server;
  server.expect(load_fixture("11-nodes-list-limit.json"));
  int pages = 0;
  auto resource_version = client_for(server).list_pages("/api/v1/nodes", ListOptions{2, {}, {}}, [&](ListPage&) {
    ++pages;
    return false;
  });
  ASSERT_TRUE(resource_version.ok()) << resource_version.error().describe();
  EXPECT_EQ(pages, 1);
  EXPECT_EQ(server.served(), 1);
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
}

TEST_F(Replay, ListPagesSendsSelectorsEscaped) {
  ReplayServer server;
  json exchange = load_fixture("55-pods-list-pending-unscheduled.json");
  exchange["request"]["path"] = "/api/v1/pods?limit=500&labelSelector=app%3Dweb&fieldSelector=spec.nodeName%3D";
  server.expect(exchange);
  auto resource_version = client_for(server).list_pages(
      "/api/v1/pods", ListOptions{500, "app=web", "spec.nodeName="}, [](ListPage&) { return true; });
  ASSERT_TRUE(resource_version.ok()) << resource_version.error().describe();
  EXPECT_EQ(*resource_version, exchange["response"]["body"]["metadata"]["resourceVersion"].get<std::string>());
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
}

TEST_F(Replay, ExpiredContinueTokenIsGone) {
  ReplayServer server;
  json exchange = load_fixture("80-nodes-list-continue-expired.json");
  server.expect(exchange);
  auto page = client_for(server).get(exchange["request"]["path"].get<std::string>());
  ASSERT_FALSE(page.ok());
  EXPECT_TRUE(page.error().is_gone());
  EXPECT_EQ(page.error().reason, "Expired");
  EXPECT_FALSE(page.error().status["metadata"]["continue"].get<std::string>().empty());
}

TEST_F(Replay, StalePutIsAConflictNamingVerbAndPath) {
  ReplayServer server;
  json exchange = load_fixture("16-node-put-stale-conflict.json");
  server.expect(exchange);
  auto result = client_for(server).update("/api/v1/nodes/sw-node-2", exchange["request"]["body"]);
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.error().is_conflict());
  EXPECT_FALSE(result.error().is_gone());
  EXPECT_EQ(result.error().describe(),
            "PUT /api/v1/nodes/sw-node-2: 409 Conflict: Operation cannot be fulfilled on nodes \"sw-node-2\": the "
            "object has been modified; please apply your changes to the latest version and try again");
}

TEST_F(Replay, HelpersMatchTheirCodes) {
  ReplayServer server;
  server.expect(load_fixture("34-pod-get-not-found.json"));
  json eviction = load_fixture("43-pod-eviction-blocked-by-pdb.json");
  server.expect(eviction, {{"Retry-After", "7"}});
  ApiClient client = client_for(server);
  auto missing = client.get("/api/v1/namespaces/default/pods/sw-no-such-pod");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.error().is_not_found());
  EXPECT_FALSE(missing.error().retry_after_seconds.has_value());
  auto evicted = client.create(eviction["request"]["path"].get<std::string>(), eviction["request"]["body"]);
  ASSERT_FALSE(evicted.ok());
  EXPECT_TRUE(evicted.error().is_too_many_requests());
  EXPECT_EQ(evicted.error().retry_after_seconds, 7);
  EXPECT_EQ(server.problems(), std::vector<std::string>{});
}

TEST_F(Replay, RetryAfterFromStatusDetails) {
  ReplayServer server;
  json exchange = load_fixture("82-pods-list-rv-too-large.json");
  server.expect(exchange);
  auto result = client_for(server).get(exchange["request"]["path"].get<std::string>());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, 504);
  EXPECT_EQ(result.error().retry_after_seconds, 1);
}

TEST_F(Replay, WatchStopsWhenTheCallbackSaysSo) {
  ReplayServer server;
  json exchange = load_fixture("24-pods-watch-stream.json");
  server.expect(exchange);
  WatchOptions options;
  options.resource_version = "275";
  options.timeout_seconds = 8;
  int seen = 0;
  auto last = client_for(server).watch("/api/v1/namespaces/default/pods", options, [&](std::string_view type,
                                                                                        const json&) {
    ++seen;
    return type != "MODIFIED";
  });
  ASSERT_TRUE(last.ok()) << last.error().describe();
  EXPECT_EQ(seen, 2);
  EXPECT_EQ(*last, exchange["response"]["body"][1]["object"]["metadata"]["resourceVersion"].get<std::string>());
}

TEST(KubeTransport, BearerTokenAndUserAgent) {
  httplib::Server server;
  std::string authorization, agent;
  server.Get("/version", [&](const httplib::Request& req, httplib::Response& res) {
    authorization = req.get_header_value("Authorization");
    agent = req.get_header_value("User-Agent");
    res.set_content("{}", "application/json");
  });
  int port = server.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::filesystem::path token_file =
      std::filesystem::temp_directory_path() / ("scalewright-token-" + std::to_string(::getpid()));
  {
    std::ofstream(token_file) << "from-file-1\n";
  }
  {  // the clients close their kept-alive connections before the server stops, which would otherwise wait for them
    ClusterConfig config;
    config.server = "http://127.0.0.1:" + std::to_string(port);
    config.bearer_token = "static";
    auto with_token = ApiClient::create(config);
    ASSERT_TRUE(with_token.ok());
    EXPECT_TRUE(with_token->get("/version").ok());
    EXPECT_EQ(authorization, "Bearer static");
    EXPECT_EQ(agent, net::user_agent());
    EXPECT_TRUE(agent.starts_with("scalewright/")) << agent;
    EXPECT_TRUE(agent.ends_with(" (linux/amd64)")) << agent;

    config.bearer_token_file = token_file.string();
    auto with_file = ApiClient::create(config);
    ASSERT_TRUE(with_file.ok());
    EXPECT_TRUE(with_file->get("/version").ok());
    EXPECT_EQ(authorization, "Bearer from-file-1");
    {
      std::ofstream(token_file) << "from-file-2";  // rotated
    }
    EXPECT_TRUE(with_file->get("/version").ok());
    EXPECT_EQ(authorization, "Bearer from-file-2");
  }
  std::filesystem::remove(token_file);
  server.stop();
  thread.join();
}

TEST(KubeTransport, RejectsBadConfigs) {
  ClusterConfig config;
  config.server = "ftp://x";
  EXPECT_FALSE(ApiClient::create(config).ok());
  config.server = "https://127.0.0.1:6443";
  config.certificate_authority = "not a certificate";
  EXPECT_FALSE(ApiClient::create(config).ok());
  config.certificate_authority.clear();
  config.client_certificate = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
  config.client_key = "x";
  auto bad = ApiClient::create(config);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("client certificate"), std::string::npos) << bad.error().message;
}

TEST(KubeTransport, ConnectionRefusedIsAnErrorWithoutCode) {
  int port = 0;
  {
    httplib::Server probe;
    port = probe.bind_to_any_port("127.0.0.1");
    std::thread thread([&] { probe.listen_after_bind(); });
    while (!probe.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    probe.stop();  // closes the socket: nothing listens on the port now
    thread.join();
  }
  ClusterConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(port);
  auto client = ApiClient::create(config);
  ASSERT_TRUE(client.ok());
  auto result = client->get("/version");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, 0);
  EXPECT_EQ(result.error().describe(), "GET " + config.server + "/version: cannot connect");
}

}  // namespace
}  // namespace scalewright::kube
