#include "prometheus/prometheus_client.h"

#include "api/percent_encode.h"
#include "api/snippet.h"

#include <fmt/format.h>
#include <httplib.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>

namespace scalewright::prometheus {
namespace {

using nlohmann::json;

// Prometheus writes sample values as strings: decimals, "NaN", "+Inf", "-Inf". from_chars is locale-independent
// but rejects a leading '+', so that is dropped first.
std::optional<double> parse_sample_value(std::string_view text) {
  std::string_view s = text;
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) return {};
  }
  double value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return {};
  return value;
}

// One [timestamp, "value"] pair, as both vector elements and scalars carry it.
Result<PrometheusSample> parse_pair(const json& pair, std::string_view where) {
  if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number() || !pair[1].is_string()) {
    return Error{fmt::format("{} is not a [timestamp, \"value\"] pair: {}", where, snippet(pair.dump()))};
  }
  auto value = parse_sample_value(pair[1].get_ref<const std::string&>());
  if (!value) {
    return Error{fmt::format("{} has a value that is not a number: \"{}\"", where,
                             snippet(pair[1].get_ref<const std::string&>()))};
  }
  PrometheusSample sample;
  sample.timestamp = pair[0].get<double>();
  sample.value = *value;
  return sample;
}

Result<PrometheusQueryData> parse_data(const json& root) {
  auto data = root.find("data");
  if (data == root.end() || !data->is_object()) return Error{"response has no \"data\" object"};
  auto type = data->find("resultType");
  if (type == data->end() || !type->is_string()) return Error{"response data has no \"resultType\" string"};
  auto result = data->find("result");
  if (result == data->end()) return Error{"response data has no \"result\""};

  const auto& type_name = type->get_ref<const std::string&>();
  PrometheusQueryData out;
  if (type_name == "scalar") {
    out.result_type = PrometheusQueryData::ResultType::Scalar;
    auto sample = parse_pair(*result, "scalar result");
    if (!sample) return sample.error();
    out.samples.push_back(std::move(*sample));
    return out;
  }
  if (type_name != "vector") {
    return Error{fmt::format("resultType \"{}\" is not supported; the query must return a vector or a scalar",
                             type_name)};
  }
  if (!result->is_array()) return Error{"vector result is not an array"};
  for (std::size_t i = 0; i < result->size(); ++i) {
    const json& element = (*result)[i];
    std::string where = fmt::format("vector element {}", i);
    if (!element.is_object()) return Error{fmt::format("{} is not an object", where)};
    auto value = element.find("value");
    if (value == element.end()) return Error{fmt::format("{} has no \"value\"", where)};
    auto sample = parse_pair(*value, where);
    if (!sample) return sample.error();
    auto metric = element.find("metric");
    if (metric != element.end()) {
      if (!metric->is_object()) return Error{fmt::format("{} has a \"metric\" that is not an object", where)};
      for (const auto& [name, label_value] : metric->items()) {
        if (!label_value.is_string()) return Error{fmt::format("{} label \"{}\" is not a string", where, name)};
        sample->labels.emplace(name, label_value.get<std::string>());
      }
    }
    out.samples.push_back(std::move(*sample));
  }
  return out;
}

std::string format_labels(const std::map<std::string, std::string>& labels) {
  std::string out = "{";
  for (const auto& [name, value] : labels) {
    if (out.size() > 1) out += ", ";
    out += fmt::format("{}=\"{}\"", name, value);
  }
  return out + "}";
}

// "http://host:port/prefix" -> ("http://host:port", "/prefix"); httplib takes the two apart.
struct ServerAddress {
  std::string scheme_host_port;
  std::string path_prefix;
  bool https = false;
};

Result<ServerAddress> split_server_address(std::string_view address) {
  ServerAddress out;
  std::size_t scheme_end = address.find("://");
  if (scheme_end == std::string_view::npos) {
    return Error{"serverAddress must start with http:// or https://"};
  }
  std::string_view scheme = address.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") {
    return Error{fmt::format("serverAddress scheme \"{}\" is not supported; use http or https", scheme)};
  }
  out.https = scheme == "https";
  std::size_t authority_begin = scheme_end + 3;
  std::size_t path_begin = address.find('/', authority_begin);
  if (path_begin == std::string_view::npos) path_begin = address.size();
  if (path_begin == authority_begin) return Error{"serverAddress has no host"};
  out.scheme_host_port = std::string(address.substr(0, path_begin));
  std::string_view prefix = address.substr(path_begin);
  while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  out.path_prefix = std::string(prefix);
  return out;
}

std::string format_time(std::chrono::system_clock::time_point time) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
  // Prometheus accepts Unix seconds with a fraction; integer arithmetic keeps the milliseconds exact.
  return fmt::format("{}{}.{:03}", ms < 0 ? "-" : "", std::abs(ms) / 1000, std::abs(ms) % 1000);
}

}  // namespace

Result<PrometheusQueryData> parse_prometheus_query_response(int http_status, std::string_view body) {
  try {
    json root = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
    if (root.is_discarded()) {
      return Error{fmt::format("HTTP {}: response is not JSON: \"{}\"", http_status, snippet(body))};
    }
    if (!root.is_object()) return Error{fmt::format("HTTP {}: response is not a JSON object", http_status)};
    auto status = root.find("status");
    if (status == root.end() || !status->is_string()) {
      return Error{fmt::format("HTTP {}: response has no \"status\" string: \"{}\"", http_status, snippet(body))};
    }
    // Prometheus answers bad queries with 400/422/503 and a JSON error; its text is what a user needs to see.
    if (*status == "error") {
      std::string error_type = root.value("errorType", std::string("unknown"));
      std::string error = root.value("error", std::string("(no error text)"));
      return Error{fmt::format("HTTP {}: Prometheus error ({}): {}", http_status, error_type, error)};
    }
    if (http_status < 200 || http_status > 299) {
      return Error{fmt::format("HTTP {}: \"{}\"", http_status, snippet(body))};
    }
    if (*status != "success") {
      return Error{fmt::format("HTTP {}: response status is \"{}\", not \"success\"", http_status,
                               status->get<std::string>())};
    }
    return parse_data(root);
  } catch (const std::exception& e) {
    // The checks above should leave nothing to throw; a JSON library surprise still must not escape an adapter.
    return Error{fmt::format("HTTP {}: response could not be decoded: {}", http_status, e.what())};
  }
}

Result<double> prometheus_single_value(const PrometheusQueryData& data, bool ignore_null_values) {
  if (data.samples.empty()) {
    if (ignore_null_values) return 0.0;
    return Error{"the result is empty; the target may be lost (ignoreNullValues is false)"};
  }
  if (data.samples.size() > 1) {
    std::string series;
    constexpr std::size_t kShown = 3;
    for (std::size_t i = 0; i < data.samples.size() && i < kShown; ++i) {
      if (i > 0) series += ", ";
      series += format_labels(data.samples[i].labels);
    }
    if (data.samples.size() > kShown) series += ", ...";
    return Error{fmt::format("returned {} series ({}); the query must return a single element",
                             data.samples.size(), series)};
  }
  double value = data.samples.front().value;
  if (std::isnan(value) || std::isinf(value)) {
    if (ignore_null_values) return 0.0;
    return Error{fmt::format("returned {}, which is not a usable value (ignoreNullValues is false)",
                             std::isnan(value) ? "NaN" : (value > 0 ? "+Inf" : "-Inf"))};
  }
  return value;
}

PrometheusClient::PrometheusClient(std::string server_address, std::chrono::milliseconds timeout)
    : server_address_(std::move(server_address)) {
  options_.connect_timeout = timeout;
  options_.read_timeout = timeout;
}

PrometheusClient::PrometheusClient(std::string server_address, PrometheusClientOptions options)
    : server_address_(std::move(server_address)), options_(std::move(options)) {}

Result<PrometheusQueryData> PrometheusClient::query(std::string_view promql,
                                                    std::optional<std::chrono::system_clock::time_point> time) const {
  auto fail = [&](std::string_view why) {
    return Error{fmt::format("prometheus query \"{}\" at {}: {}", promql, server_address_, why)};
  };
  try {
    auto address = split_server_address(server_address_);
    if (!address) return fail(address.error().message);
#ifndef CPPHTTPLIB_OPENSSL_SUPPORT
    if (address->https) return fail("https is not supported: cpp-httplib was built without OpenSSL");
#endif
    httplib::Client client(address->scheme_host_port);
    if (!client.is_valid()) return fail("invalid serverAddress");
    client.set_connection_timeout(options_.connect_timeout);
    client.set_read_timeout(options_.read_timeout);
    client.set_write_timeout(options_.read_timeout);
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
    if (options_.unsafe_ssl) client.enable_server_certificate_verification(false);
#endif
    httplib::Headers headers;
    for (const auto& [name, value] : options_.headers) headers.emplace(name, value);

    std::string path = address->path_prefix + "/api/v1/query?query=" + percent_encode(promql);
    if (time) path += "&time=" + format_time(*time);
    if (!options_.namespace_name.empty()) path += "&namespace=" + percent_encode(options_.namespace_name);
    for (const auto& [name, value] : options_.query_parameters) {
      path += "&" + percent_encode(name) + "=" + percent_encode(value);
    }

    // httplib reports a read timeout as a plain read error; the clock tells the two apart for the message.
    auto started = std::chrono::steady_clock::now();
    httplib::Result response = client.Get(path, headers);
    auto elapsed = std::chrono::steady_clock::now() - started;
    if (!response) {
      httplib::Error error = response.error();
      if (error == httplib::Error::ConnectionTimeout) {
        return fail(fmt::format("connect timeout after {} ms", options_.connect_timeout.count()));
      }
      if (error == httplib::Error::Read && elapsed >= options_.read_timeout) {
        return fail(fmt::format("timeout: no response within {} ms", options_.read_timeout.count()));
      }
      switch (error) {
        case httplib::Error::Connection:
          return fail("could not connect (connection refused, or host unreachable)");
        case httplib::Error::Read:
          return fail("the connection closed before a response arrived");
        case httplib::Error::SSLConnection:
          return fail("TLS handshake failed");
        case httplib::Error::SSLServerVerification:
          return fail("server certificate verification failed (unsafeSsl skips it)");
        default:
          return fail(fmt::format("request failed: {}", httplib::to_string(error)));
      }
    }
    auto data = parse_prometheus_query_response(response->status, response->body);
    if (!data) return fail(data.error().message);
    return data;
  } catch (const std::exception& e) {
    return fail(fmt::format("unexpected failure: {}", e.what()));
  }
}

Result<double> PrometheusClient::query_single_value(std::string_view promql, bool ignore_null_values) const {
  auto data = query(promql);
  if (!data) return data.error();
  auto value = prometheus_single_value(*data, ignore_null_values);
  if (!value) return Error{fmt::format("prometheus query \"{}\" at {}: {}", promql, server_address_,
                                       value.error().message)};
  return value;
}

}  // namespace scalewright::prometheus
