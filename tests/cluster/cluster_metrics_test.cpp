// The resource metrics API as scalewright run reads it for KEDA's cpu and memory triggers: PodMetrics of a
// namespace from a real HTTP server on 127.0.0.1 answering as metrics-server does, matched by the pods' labels.
#include "cluster/cluster_metrics.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

namespace scalewright::cluster {
namespace {

using nlohmann::json;

json pod_metrics(const std::string& name, const std::string& app, json containers) {
  return {{"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", app}}}}},
          {"timestamp", "2027-01-15T08:00:10Z"},
          {"window", "15s"},
          {"containers", std::move(containers)}};
}

class ResourceMetrics : public ::testing::Test {
 protected:
  ResourceMetrics() {
    server_.Get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods",
                [](const httplib::Request&, httplib::Response& res) {
                  json list = {{"kind", "PodMetricsList"}, {"apiVersion", "metrics.k8s.io/v1beta1"},
                               {"metadata", json::object()},
                               {"items",
                                {pod_metrics("web-1", "web",
                                             {{{"name", "app"}, {"usage", {{"cpu", "250m"}, {"memory", "64Mi"}}}},
                                              {{"name", "proxy"}, {"usage", {{"cpu", "1500000n"}, {"memory", "1Mi"}}}}}),
                                 pod_metrics("web-2", "web", {{{"name", "app"}, {"usage", {{"cpu", "100m"}}}}}),
                                 pod_metrics("api-1", "api", {{{"name", "app"}, {"usage", {{"cpu", "900m"}}}}})}}};
                  res.set_content(list.dump(), "application/json");
                });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    kube::ClusterConfig config;
    config.server = "http://127.0.0.1:" + std::to_string(port_);
    client_.emplace(std::move(kube::ApiClient::create(config)).value());
  }
  ~ResourceMetrics() override {
    client_.reset();  // its kept-alive connection closed first: the server would wait for it to time out
    server_.stop();
    thread_.join();
  }

  static LabelSelector app(const std::string& name) {
    return LabelSelector{{LabelRequirement{Symbol("app"), SelectorOperator::In, {Symbol(name)}}}};
  }

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::optional<kube::ApiClient> client_;
  // 08:00:00 on 2027-01-15 is time 0: the samples, taken at 08:00:10, are at 10 s.
  TimeBase time_{std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000))};
};

TEST_F(ResourceMetrics, UsageOfTheSelectedPodsSummedOverTheirContainers) {
  ResourceMetricsReader reader(*client_, time_);
  auto cpu = reader.pod_resource_usage("default", "cpu", "", app("web"));
  ASSERT_TRUE(cpu) << cpu.error().message;
  ASSERT_EQ(cpu->size(), 2u);  // api-1 is not selected
  // 250m + 1,500,000n (1.5m, rounded up to 2m as Quantity.MilliValue() rounds) = 252m; web-2 100m.
  EXPECT_EQ(cpu->at("web-1").value_milli, 252);
  EXPECT_EQ(cpu->at("web-2").value_milli, 100);
  EXPECT_EQ(cpu->at("web-1").timestamp, Instant(Duration(10'000)));
  EXPECT_EQ(cpu->at("web-1").window, Duration(15'000));

  // Memory in milli-bytes, as the replica calculator reads every resource but cpu: (64 + 1) MiB.
  auto memory = reader.pod_resource_usage("default", "memory", "", app("web"));
  ASSERT_TRUE(memory) << memory.error().message;
  EXPECT_EQ(memory->at("web-1").value_milli, 65LL * 1024 * 1024 * 1000);
  EXPECT_FALSE(memory->contains("web-2"));  // no memory sample: missing, not zero
}

TEST_F(ResourceMetrics, OneNamedContainerOnly) {
  ResourceMetricsReader reader(*client_, time_);
  auto cpu = reader.pod_resource_usage("default", "cpu", "proxy", app("web"));
  ASSERT_TRUE(cpu) << cpu.error().message;
  ASSERT_EQ(cpu->size(), 1u);
  EXPECT_EQ(cpu->at("web-1").value_milli, 2);
}

TEST_F(ResourceMetrics, WithoutTheMetricsApiTheTriggerFailsSayingWhy) {
  ResourceMetricsReader reader(*client_, time_);
  auto cpu = reader.pod_resource_usage("other", "cpu", "", app("web"));  // the server answers 404
  ASSERT_FALSE(cpu);
  EXPECT_NE(cpu.error().message.find("unable to get metrics for resource cpu: GET "
                                     "/apis/metrics.k8s.io/v1beta1/namespaces/other/pods: 404"),
            std::string::npos)
      << cpu.error().message;
}

}  // namespace
}  // namespace scalewright::cluster
