// A provider's word that a node class resolves to something else, taken into the loop: sent from a thread of the
// provider's, it moves ClusterState::node_class_changes() (what the drift method looks again on) on the loop's
// thread, once this replica acts; a standby keeps it until it leads. What is sent before the loop takes the inbox is
// kept, in order. The loop runs against a real HTTP server on 127.0.0.1 answering as an empty cluster's API server.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cloud/node_group_provider.h"
#include "cluster/inbox.h"
#include "cluster/runtime.h"
#include "kube/api_client.h"

namespace scalewright::cluster {
namespace {

TEST(NodeClassChanges, ChangesBeforeTheLoopTakesThemAreKeptAndDeliveredInOrder) {
  NodeClassChangeInbox inbox;
  cloud::NodeClassChanges send = inbox.sender();
  send("default");
  send("gpu");
  EXPECT_EQ(inbox.kept(), 2u);

  std::vector<std::string> delivered;
  inbox.deliver_to([&](std::string node_class) { delivered.push_back(std::move(node_class)); });
  send("default");
  EXPECT_EQ(delivered, (std::vector<std::string>{"default", "gpu", "default"}));
  EXPECT_EQ(inbox.kept(), 0u);

  inbox.deliver_to({});  // the loop gone: kept again
  send("gpu");
  EXPECT_EQ(delivered.size(), 3u);
  EXPECT_EQ(inbox.kept(), 1u);
}

// An API server with nothing in it: every list is empty, every watch stays open and silent until the server goes.
class EmptyApiServer {
 public:
  EmptyApiServer() {
    // Each resource's watch holds a worker while open: more workers than the loop has informers.
    server_.new_task_queue = [] { return new httplib::ThreadPool(32); };
    server_.Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
      if (req.path.starts_with("/apis/keda.sh")) {
        res.status = 404;  // no KEDA installed
        return;
      }
      if (req.get_param_value("watch") != "1") {
        res.set_content(R"({"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]})",
                        "application/json");
        return;
      }
      res.set_chunked_content_provider("application/json", [this](size_t, httplib::DataSink&) {
        std::unique_lock lock(mutex_);
        ended_.wait(lock, [&] { return ending_; });
        return false;
      });
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~EmptyApiServer() {
    {
      std::lock_guard lock(mutex_);
      ending_ = true;
    }
    ended_.notify_all();
    server_.stop();
    thread_.join();
  }
  std::string address() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable ended_;
  bool ending_ = false;
};

// A cloud with no instances, which launches nothing.
class NoCloud final : public cloud::CloudProvider {
 public:
  const cloud::Catalog& catalog() const override { return catalog_; }
  cloud::CloudResult<cloud::Created> create(const cloud::CreateRequest& request) override {
    return cloud::CloudError{cloud::ErrorClass::Other, "no launches here: " + request.name, {}};
  }
  cloud::CloudResult<cloud::Deleted> terminate(const std::string& id) override { return cloud::not_found(id); }
  cloud::CloudResult<cloud::Instance> get(const std::string& id) const override { return cloud::not_found(id); }
  cloud::CloudResult<std::vector<cloud::Instance>> list() const override { return std::vector<cloud::Instance>{}; }

 private:
  cloud::Catalog catalog_;
};

TEST(NodeClassChanges, AChangeSentFromAnotherThreadReachesTheStateThroughTheLoopOnceItActs) {
  EmptyApiServer server;
  kube::ClusterConfig config;
  config.server = server.address();
  auto client = kube::ApiClient::create(config);
  ASSERT_TRUE(client.ok()) << client.error().message;
  NoCloud cloud;
  cloud::NoNodeGroups groups;
  kube::EventSink events(*client, "scalewright", "test");
  NodeClassChangeInbox inbox;
  const cloud::NodeClassChanges send = inbox.sender();
  {
    ClusterRuntime runtime(*client, cloud, groups, events);
    runtime.take_node_class_changes_from(inbox);
    runtime.start_informers();
    std::atomic<bool> leading{false};
    std::jthread loop([&](std::stop_token stop) { runtime.run(stop, [&] { return leading.load(); }); });
    while (!runtime.synced()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    auto changes = [&] {
      std::uint64_t seen = 0;
      runtime.inspect([&](const state::ClusterState& state) { seen = state.node_class_changes(); });
      return seen;
    };

    // A standby keeps the change: its state does not move.
    std::thread([&] { send("default"); }).join();
    EXPECT_EQ(changes(), 0u);
    EXPECT_EQ(changes(), 0u);

    // Leading, it takes it: the pass that starts acting, then the next, which applies the change before any look.
    leading = true;
    changes();
    EXPECT_EQ(changes(), 1u);

    // Each later change moves it once more.
    std::thread([&] { send("default"); }).join();
    EXPECT_EQ(changes(), 2u);
    loop.request_stop();
  }
  EXPECT_EQ(inbox.kept(), 0u);
  send("default");  // the runtime gone: kept, not delivered to it
  EXPECT_EQ(inbox.kept(), 1u);
}

}  // namespace
}  // namespace scalewright::cluster
