#include "prometheus/prometheus_trigger_reader.h"

#include <fmt/format.h>

#include "api/integer.h"

#include "prometheus/prometheus_client.h"

namespace scalewright::prometheus {
namespace {

// KEDA's "key1=value1,key2=value2" metadata lists (customHeaders, queryParameters).
std::vector<std::pair<std::string, std::string>> key_values(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    if (std::size_t eq = item.find('='); eq != std::string::npos) out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    start = end + 1;
  }
  return out;
}

}  // namespace

bool ignore_null_values(const ScaledObjectTrigger& trigger) {
  auto it = trigger.metadata.find("ignoreNullValues");
  return it == trigger.metadata.end() || parse_go_bool(it->second).value_or(true);
}

Result<double> PrometheusTriggerReader::read(const ScaledObject& scaled_object, std::size_t trigger_index) const {
  const ScaledObjectTrigger& trigger = scaled_object.triggers.at(trigger_index);
  const std::string where = fmt::format("ScaledObject {}/{} trigger {}", scaled_object.meta.namespace_,
                                        scaled_object.meta.name, trigger_index);
  if (trigger.type != "prometheus") return Error{fmt::format("{}: type {} is not read from Prometheus", where, trigger.type)};
  auto get = [&](const char* key) {
    auto it = trigger.metadata.find(key);
    return it == trigger.metadata.end() ? std::string() : it->second;
  };
  if (get("serverAddress").empty() || get("query").empty()) {
    return Error{fmt::format("{}: serverAddress and query are required", where)};
  }
  PrometheusClientOptions options;
  options.connect_timeout = timeout_;
  options.read_timeout = timeout_;
  options.headers = key_values(get("customHeaders"));
  options.namespace_name = get("namespace");
  for (auto& [k, v] : key_values(get("queryParameters"))) options.query_parameters[k] = v;
  options.unsafe_ssl = get("unsafeSsl") == "true";
  PrometheusClient client(get("serverAddress"), options);
  Result<double> value = client.query_single_value(get("query"), ignore_null_values(trigger));
  if (!value) return Error{fmt::format("{}: {}", where, value.error().message)};
  return value;
}

}  // namespace scalewright::prometheus
