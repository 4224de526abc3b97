// The Prometheus client against a real Prometheus (started by PrometheusFixture, scraping values this test serves)
// and against fake servers on 127.0.0.1 for the failures a real Prometheus does not produce on demand. Nothing here
// talks to anything but 127.0.0.1.
#include "prometheus/prometheus_client.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <condition_variable>
#include <nlohmann/json.hpp>

#include "prometheus_fixture.h"

namespace scalewright::prometheus {
namespace {

using namespace std::chrono_literals;
using ::testing::AllOf;
using ::testing::HasSubstr;
using scalewright::testing::PrometheusFixture;

// ---------------------------------------------------------------------------------------------------------------
// Decoding, without a server.

TEST(PrometheusResponseParsing, VectorKeepsLabelsAndReadsNaNAndInfStrings) {
  auto data = parse_prometheus_query_response(200, R"({"status":"success","data":{"resultType":"vector","result":[
      {"metric":{"__name__":"up","job":"a"},"value":[1700000000.5,"1.5"]},
      {"metric":{"job":"b"},"value":[1700000000.5,"NaN"]},
      {"metric":{"job":"c"},"value":[1700000000.5,"+Inf"]},
      {"metric":{"job":"d"},"value":[1700000000.5,"-Inf"]}]}})");
  ASSERT_TRUE(data.ok()) << data.error().message;
  ASSERT_EQ(data->samples.size(), 4u);
  EXPECT_EQ(data->result_type, PrometheusQueryData::ResultType::Vector);
  EXPECT_EQ(data->samples[0].labels.at("__name__"), "up");
  EXPECT_EQ(data->samples[0].labels.at("job"), "a");
  EXPECT_EQ(data->samples[0].timestamp, 1700000000.5);
  EXPECT_EQ(data->samples[0].value, 1.5);
  EXPECT_TRUE(std::isnan(data->samples[1].value));
  EXPECT_EQ(data->samples[2].value, HUGE_VAL);
  EXPECT_EQ(data->samples[3].value, -HUGE_VAL);
}

TEST(PrometheusResponseParsing, ScalarIsOneSampleWithoutLabels) {
  auto data = parse_prometheus_query_response(200, R"({"status":"success","data":{"resultType":"scalar",
      "result":[1700000000,"2"]}})");
  ASSERT_TRUE(data.ok()) << data.error().message;
  EXPECT_EQ(data->result_type, PrometheusQueryData::ResultType::Scalar);
  ASSERT_EQ(data->samples.size(), 1u);
  EXPECT_TRUE(data->samples[0].labels.empty());
  EXPECT_EQ(data->samples[0].value, 2.0);
}

TEST(PrometheusResponseParsing, MatrixAndStringResultsAreErrors) {
  auto matrix = parse_prometheus_query_response(
      200, R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"1"]]}]}})");
  ASSERT_FALSE(matrix.ok());
  EXPECT_THAT(matrix.error().message, HasSubstr("resultType \"matrix\" is not supported"));
  auto string = parse_prometheus_query_response(
      200, R"({"status":"success","data":{"resultType":"string","result":[1,"hello"]}})");
  ASSERT_FALSE(string.ok());
  EXPECT_THAT(string.error().message, HasSubstr("resultType \"string\""));
}

TEST(PrometheusResponseParsing, ErrorStatusKeepsErrorTypeAndText) {
  auto data = parse_prometheus_query_response(
      400, R"({"status":"error","errorType":"bad_data","error":"1:5: parse error: unclosed left parenthesis"})");
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().message,
            "HTTP 400: Prometheus error (bad_data): 1:5: parse error: unclosed left parenthesis");
}

TEST(PrometheusResponseParsing, WrongShapesAreErrorsNotExceptions) {
  const char* bodies[] = {
      R"([])",
      R"({"status":1})",
      R"({"status":"success"})",
      R"({"status":"success","data":[]})",
      R"({"status":"success","data":{"result":[]}})",
      R"({"status":"success","data":{"resultType":"vector"}})",
      R"({"status":"success","data":{"resultType":"vector","result":{}}})",
      R"({"status":"success","data":{"resultType":"vector","result":[1]}})",
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{}}]}})",
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":"1"}]}})",
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,2]}]}})",
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"x"]}]}})",
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"1","2"]}]}})",
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":1},"value":[1,"1"]}]}})",
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":[],"value":[1,"1"]}]}})",
      R"({"status":"success","data":{"resultType":"scalar","result":["1","1"]}})",
      R"({"status":"success","data":{"resultType":"scalar","result":[1,"+-1"]}})",
      R"({"status":"pending","data":{"resultType":"scalar","result":[1,"1"]}})",
  };
  for (const char* body : bodies) {
    auto data = parse_prometheus_query_response(200, body);
    EXPECT_FALSE(data.ok()) << body;
  }
}

PrometheusQueryData vector_of(std::vector<double> values) {
  PrometheusQueryData data;
  for (std::size_t i = 0; i < values.size(); ++i) {
    data.samples.push_back({{{"pod", "p" + std::to_string(i)}}, 1700000000, values[i]});
  }
  return data;
}

TEST(PrometheusSingleValue, FollowsKedaRules) {
  EXPECT_EQ(*prometheus_single_value(vector_of({7.25}), true), 7.25);
  EXPECT_EQ(*prometheus_single_value(vector_of({}), true), 0.0);
  EXPECT_THAT(prometheus_single_value(vector_of({}), false).error().message, HasSubstr("empty"));
  EXPECT_THAT(prometheus_single_value(vector_of({1, 2}), true).error().message,
              HasSubstr(R"(returned 2 series ({pod="p0"}, {pod="p1"}))"));
  EXPECT_EQ(*prometheus_single_value(vector_of({NAN}), true), 0.0);
  EXPECT_EQ(*prometheus_single_value(vector_of({HUGE_VAL}), true), 0.0);
  EXPECT_EQ(*prometheus_single_value(vector_of({-HUGE_VAL}), true), 0.0);
  EXPECT_THAT(prometheus_single_value(vector_of({NAN}), false).error().message, HasSubstr("NaN"));
  EXPECT_THAT(prometheus_single_value(vector_of({HUGE_VAL}), false).error().message, HasSubstr("+Inf"));
  EXPECT_THAT(prometheus_single_value(vector_of({-HUGE_VAL}), false).error().message, HasSubstr("-Inf"));
}

// ---------------------------------------------------------------------------------------------------------------
// Against a real Prometheus. One per test process; each test uses metric names of its own.

class PrometheusClientAgainstPrometheus : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!prometheus_ && start_error_.empty()) {
      auto started = PrometheusFixture::start();
      if (started.ok()) {
        prometheus_ = std::move(*started);
      } else {
        start_error_ = started.error().message;
      }
    }
    if (!prometheus_) FAIL() << start_error_;
  }
  static void TearDownTestSuite() { prometheus_.reset(); }

  PrometheusFixture& prom() { return *prometheus_; }
  PrometheusClient client() { return PrometheusClient(prometheus_->address(), 5s); }

  static inline std::unique_ptr<PrometheusFixture> prometheus_;
  static inline std::string start_error_;
};

TEST_F(PrometheusClientAgainstPrometheus, GaugeIsReadBackExactly) {
  prom().set_value("queue_messages_ready", {{"queue", "orders"}}, 1234.5);
  ASSERT_TRUE(prom().wait_for(R"(queue_messages_ready{queue="orders"})", [](double v) { return v == 1234.5; }));

  auto value = client().query_single_value(R"(queue_messages_ready{queue="orders"})", true);
  ASSERT_TRUE(value.ok()) << value.error().message;
  EXPECT_EQ(*value, 1234.5);

  auto data = client().query(R"(queue_messages_ready{queue="orders"})");
  ASSERT_TRUE(data.ok()) << data.error().message;
  ASSERT_EQ(data->samples.size(), 1u);
  EXPECT_EQ(data->samples[0].labels,
            (std::map<std::string, std::string>{{"__name__", "queue_messages_ready"},
                                                {"instance", "127.0.0.1:" + std::to_string(prom().exporter_port())},
                                                {"job", "exporter"},
                                                {"queue", "orders"}}));
}

TEST_F(PrometheusClientAgainstPrometheus, SumOfGaugesIsExact) {
  prom().set_value("http_requests_in_flight", {{"pod", "podinfo-a"}}, 40);
  prom().set_value("http_requests_in_flight", {{"pod", "podinfo-b"}}, 2.5);
  ASSERT_TRUE(prom().wait_for("count(http_requests_in_flight)", [](double v) { return v == 2; }));

  auto value = client().query_single_value("sum(http_requests_in_flight)", true);
  ASSERT_TRUE(value.ok()) << value.error().message;
  EXPECT_EQ(*value, 42.5);
}

// The exporter adds 50 to the counter at every scrape (one per second), starting at 1000. The last two samples
// differ by exactly 50; rate() over evenly spaced samples extrapolated to the window is 50/s, give or take the
// few milliseconds of scrape jitter, which the range allows and a wrong value (the counter itself, a timestamp,
// 0) does not.
TEST_F(PrometheusClientAgainstPrometheus, RateOfCounterFollowsWhatTheExporterServed) {
  prom().set_value("http_requests_total", {{"app", "podinfo"}}, 1000);
  prom().add_per_scrape("http_requests_total", {{"app", "podinfo"}}, 50);
  ASSERT_TRUE(prom().wait_for(R"(count_over_time(http_requests_total{app="podinfo"}[10s]))",
                              [](double v) { return v >= 6; }));

  auto delta = client().query_single_value(R"(sum(idelta(http_requests_total{app="podinfo"}[5s])))", false);
  ASSERT_TRUE(delta.ok()) << delta.error().message;
  EXPECT_EQ(*delta, 50.0);

  auto rate = client().query_single_value(R"(sum(rate(http_requests_total{app="podinfo"}[5s])))", false);
  ASSERT_TRUE(rate.ok()) << rate.error().message;
  EXPECT_GE(*rate, 45.0);
  EXPECT_LE(*rate, 55.0);
}

TEST_F(PrometheusClientAgainstPrometheus, TwoSeriesAreAnErrorNamingServerAndQuery) {
  prom().set_value("pods_ready", {{"pod", "a"}}, 1);
  prom().set_value("pods_ready", {{"pod", "b"}}, 1);
  ASSERT_TRUE(prom().wait_for("count(pods_ready)", [](double v) { return v == 2; }));

  auto value = client().query_single_value("pods_ready", true);
  ASSERT_FALSE(value.ok());
  EXPECT_THAT(value.error().message,
              AllOf(HasSubstr("returned 2 series"), HasSubstr(R"(query "pods_ready")"), HasSubstr(prom().address())));
}

TEST_F(PrometheusClientAgainstPrometheus, EmptyResultIsZeroWithIgnoreNullValuesAndAnErrorWithout) {
  auto ignored = client().query_single_value(R"(metric_nobody_serves{app="podinfo"})", true);
  ASSERT_TRUE(ignored.ok()) << ignored.error().message;
  EXPECT_EQ(*ignored, 0.0);

  auto strict = client().query_single_value(R"(metric_nobody_serves{app="podinfo"})", false);
  ASSERT_FALSE(strict.ok());
  EXPECT_THAT(strict.error().message, AllOf(HasSubstr("empty"), HasSubstr("metric_nobody_serves")));
}

TEST_F(PrometheusClientAgainstPrometheus, ScalarQueriesGiveTheirValue) {
  prom().set_value("workers_busy", {}, 3);
  ASSERT_TRUE(prom().wait_for("workers_busy", [](double v) { return v == 3; }));

  auto data = client().query("scalar(workers_busy) * 2");
  ASSERT_TRUE(data.ok()) << data.error().message;
  EXPECT_EQ(data->result_type, PrometheusQueryData::ResultType::Scalar);
  EXPECT_EQ(*client().query_single_value("scalar(workers_busy) * 2", false), 6.0);
  EXPECT_EQ(*client().query_single_value("1 + 1", false), 2.0);
  EXPECT_EQ(*client().query_single_value("vector(7)", false), 7.0);
}

TEST_F(PrometheusClientAgainstPrometheus, EvaluationTimeIsSentToTheMillisecond) {
  auto at = std::chrono::system_clock::time_point(std::chrono::milliseconds(1700000000250));
  auto data = client().query("time()", at);
  ASSERT_TRUE(data.ok()) << data.error().message;
  ASSERT_EQ(data->samples.size(), 1u);
  EXPECT_EQ(data->samples[0].value, 1700000000.25);
  EXPECT_EQ(data->samples[0].timestamp, 1700000000.25);
}

TEST_F(PrometheusClientAgainstPrometheus, InfAndNaNAreZeroWithIgnoreNullValuesAndErrorsWithout) {
  auto inf = client().query("1 / 0");
  ASSERT_TRUE(inf.ok()) << inf.error().message;
  EXPECT_EQ(inf->samples.at(0).value, HUGE_VAL);  // Prometheus sent "+Inf"
  EXPECT_EQ(*client().query_single_value("1 / 0", true), 0.0);
  EXPECT_THAT(client().query_single_value("1 / 0", false).error().message, HasSubstr("+Inf"));

  auto nan = client().query("vector(0) / 0");
  ASSERT_TRUE(nan.ok()) << nan.error().message;
  EXPECT_TRUE(std::isnan(nan->samples.at(0).value));  // Prometheus sent "NaN"
  EXPECT_EQ(*client().query_single_value("vector(0) / 0", true), 0.0);
  EXPECT_THAT(client().query_single_value("vector(0) / 0", false).error().message, HasSubstr("NaN"));
}

TEST_F(PrometheusClientAgainstPrometheus, SyntaxErrorCarriesPrometheusOwnText) {
  const std::string bad = "sum(rate(http_requests_total[5m])";
  auto [status, body] = prom().query_raw(bad);
  ASSERT_EQ(status, 400) << body;
  std::string prometheus_text = nlohmann::json::parse(body).at("error").get<std::string>();
  ASSERT_FALSE(prometheus_text.empty());

  auto value = client().query_single_value(bad, true);
  ASSERT_FALSE(value.ok());
  EXPECT_THAT(value.error().message, AllOf(HasSubstr(prometheus_text), HasSubstr("bad_data"), HasSubstr("HTTP 400"),
                                           HasSubstr(bad), HasSubstr(prom().address())));
}

// ---------------------------------------------------------------------------------------------------------------
// Against fake servers on 127.0.0.1.

// Serves one handler on 127.0.0.1 from a thread; a handler may block on `released` until the server goes away.
class FakeServer {
 public:
  explicit FakeServer(httplib::Server::Handler handler) {
    server_.Get(".*", std::move(handler));  // every path, so a test can check which one was asked
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(5ms);
  }
  ~FakeServer() {
    {
      std::lock_guard lock(mutex_);
      released_ = true;
    }
    released_cv_.notify_all();
    server_.stop();
    thread_.join();
  }
  std::string address() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Blocks a handler for up to `d`, returning early when the server is being destroyed.
  void sleep(std::chrono::milliseconds d) {
    std::unique_lock lock(mutex_);
    released_cv_.wait_for(lock, d, [this] { return released_; });
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::condition_variable released_cv_;
  bool released_ = false;
};

httplib::Server::Handler respond(int status, std::string body) {
  return [status, body](const httplib::Request&, httplib::Response& response) {
    response.status = status;
    response.set_content(body, "application/json");
  };
}

// A port nothing listens on: bound by the kernel's choice, then released.
int closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

TEST(PrometheusClientAgainstFakeServer, ConnectionRefusedNamesTheServer) {
  std::string address = "http://127.0.0.1:" + std::to_string(closed_port());
  auto value = PrometheusClient(address, 1s).query_single_value("up", true);
  ASSERT_FALSE(value.ok());
  EXPECT_THAT(value.error().message, AllOf(HasSubstr(address), HasSubstr("could not connect"), HasSubstr("\"up\"")));
}

TEST(PrometheusClientAgainstFakeServer, SlowServerIsATimeout) {
  FakeServer* self = nullptr;
  FakeServer server([&self](const httplib::Request&, httplib::Response& response) {
    self->sleep(2s);
    response.set_content(R"({"status":"success","data":{"resultType":"scalar","result":[1,"1"]}})",
                         "application/json");
  });
  self = &server;
  auto value = PrometheusClient(server.address(), 200ms).query_single_value("up", true);
  ASSERT_FALSE(value.ok());
  EXPECT_THAT(value.error().message, AllOf(HasSubstr("timeout"), HasSubstr(server.address())));
}

TEST(PrometheusClientAgainstFakeServer, GarbageBodyIsAnError) {
  FakeServer server(respond(200, "<html>not prometheus</html>"));
  auto value = PrometheusClient(server.address(), 2s).query_single_value("up", true);
  ASSERT_FALSE(value.ok());
  EXPECT_THAT(value.error().message, AllOf(HasSubstr("not JSON"), HasSubstr("<html>not prometheus</html>")));
}

TEST(PrometheusClientAgainstFakeServer, Http500IsAnError) {
  FakeServer server(respond(500, "internal error"));
  auto value = PrometheusClient(server.address(), 2s).query_single_value("up", true);
  ASSERT_FALSE(value.ok());
  EXPECT_THAT(value.error().message, AllOf(HasSubstr("HTTP 500"), HasSubstr(server.address())));
}

TEST(PrometheusClientAgainstFakeServer, WrongShapeIsAnError) {
  FakeServer server(respond(200, R"({"status":"success","data":{"resultType":"vector","result":[{"value":"1"}]}})"));
  auto value = PrometheusClient(server.address(), 2s).query_single_value("up", true);
  ASSERT_FALSE(value.ok());
  EXPECT_THAT(value.error().message, HasSubstr("vector element 0 is not a [timestamp, \"value\"] pair"));
}

TEST(PrometheusClientAgainstFakeServer, SendsQueryHeadersNamespaceAndPathPrefix) {
  std::mutex mutex;
  httplib::Request seen;
  FakeServer server([&](const httplib::Request& request, httplib::Response& response) {
    {
      std::lock_guard lock(mutex);
      seen = request;
    }
    response.set_content(R"({"status":"success","data":{"resultType":"vector","result":[
        {"metric":{},"value":[1700000000,"3"]}]}})", "application/json");
  });
  PrometheusClientOptions options;
  options.headers = {{"X-Scope-OrgID", "tenant-a"}};
  options.namespace_name = "team-a";
  options.query_parameters = {{"dedup", "true"}};
  const std::string query = R"(sum(rate(http_requests_total{app="pod info", path=~"/a&b"}[2m])) + 1)";
  auto value = PrometheusClient(server.address() + "/prometheus/", options).query_single_value(query, false);
  ASSERT_TRUE(value.ok()) << value.error().message;
  EXPECT_EQ(*value, 3.0);
  std::lock_guard lock(mutex);
  EXPECT_EQ(seen.path, "/prometheus/api/v1/query");
  EXPECT_EQ(seen.get_param_value("query"), query);
  EXPECT_EQ(seen.get_param_value("namespace"), "team-a");
  EXPECT_EQ(seen.get_param_value("dedup"), "true");
  EXPECT_FALSE(seen.has_param("time"));
  EXPECT_EQ(seen.get_header_value("X-Scope-OrgID"), "tenant-a");
}

TEST(PrometheusClientAgainstFakeServer, UnsupportedSchemeIsAnError) {
  auto value = PrometheusClient("ftp://127.0.0.1:9090", 1s).query_single_value("up", true);
  ASSERT_FALSE(value.ok());
  EXPECT_THAT(value.error().message,
              AllOf(HasSubstr("scheme \"ftp\" is not supported"), HasSubstr("ftp://127.0.0.1")));
}

}  // namespace
}  // namespace scalewright::prometheus
