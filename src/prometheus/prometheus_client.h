#pragma once
// A client for Prometheus' HTTP query API (GET /api/v1/query), as KEDA's prometheus scaler uses it: one instant
// query, reduced to one number by KEDA's single-value rule. This is an adapter at the edge: every failure
// (connection, timeout, HTTP status, body, shape) comes back as an Error naming the server and the query.
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/result.h"

namespace scalewright::prometheus {

// One element of an instant query's result. Values keep Prometheus' NaN and ±Inf ("NaN", "+Inf", "-Inf").
struct PrometheusSample {
  std::map<std::string, std::string> labels;  // the "metric" object; empty for a scalar
  double timestamp = 0;                       // seconds since the Unix epoch, as Prometheus sent it
  double value = 0;
};

// The "data" of a successful instant query. A scalar result is one sample without labels.
struct PrometheusQueryData {
  enum class ResultType { Vector, Scalar };
  ResultType result_type = ResultType::Vector;
  std::vector<PrometheusSample> samples;
};

struct PrometheusClientOptions {
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds read_timeout{3000};
  // KEDA's customHeaders (e.g. a tenant header such as X-Scope-OrgID), sent with every query.
  std::vector<std::pair<std::string, std::string>> headers;
  // KEDA's `namespace`: added as the `namespace` query parameter, for namespaced queriers such as Thanos.
  std::string namespace_name;
  // KEDA's queryParameters: extra query-string parameters.
  std::map<std::string, std::string> query_parameters;
  // KEDA's unsafeSsl: skip certificate verification for https servers.
  bool unsafe_ssl = false;
};

class PrometheusClient {
 public:
  // server_address is KEDA's serverAddress: "http://host:port" or "https://host:port", optionally with a path
  // prefix ("http://thanos:9090/prometheus"). `timeout` bounds both connecting and waiting for the response.
  PrometheusClient(std::string server_address, std::chrono::milliseconds timeout);
  PrometheusClient(std::string server_address, PrometheusClientOptions options);

  // One instant query; `time` is the evaluation time (Prometheus' own clock when absent). Matrix and string
  // results are errors: an autoscaler needs numbers at one instant.
  Result<PrometheusQueryData> query(std::string_view promql,
                                    std::optional<std::chrono::system_clock::time_point> time = std::nullopt) const;

  // KEDA's ExecutePromQuery: the query must give exactly one series or a scalar. With ignore_null_values (KEDA's
  // default), an empty result, NaN or ±Inf read as 0; without it they are errors. More than one series is an error.
  Result<double> query_single_value(std::string_view promql, bool ignore_null_values = true) const;

  const std::string& server_address() const { return server_address_; }

 private:
  std::string server_address_;
  PrometheusClientOptions options_;
};

// Decodes a /api/v1/query response body received with HTTP status `http_status`. Errors say what was wrong
// without naming the server (the client adds that); Prometheus' own errorType and error text are kept.
Result<PrometheusQueryData> parse_prometheus_query_response(int http_status, std::string_view body);

// KEDA's single-value rule on decoded data (see PrometheusClient::query_single_value).
Result<double> prometheus_single_value(const PrometheusQueryData& data, bool ignore_null_values);

}  // namespace scalewright::prometheus
