#pragma once
// KEDA's prometheus scaler against a real Prometheus: reads a ScaledObject's prometheus trigger (serverAddress,
// query, ignoreNullValues, namespace, customHeaders, queryParameters, unsafeSsl) with PrometheusClient and KEDA's
// single-value rule. The adapter a cluster deployment (and the tests against a real Prometheus) plug into the
// KEDA engine in workloads/keda.h.
#include <chrono>

#include "workloads/keda.h"

namespace scalewright::prometheus {

// The trigger's ignoreNullValues (Go boolean syntax), true when absent as in KEDA.
bool ignore_null_values(const ScaledObjectTrigger& trigger);

class PrometheusTriggerReader : public workloads::TriggerReader {
 public:
  // KEDA's HTTP client timeout (KEDA_HTTP_DEFAULT_TIMEOUT, 3 s by default) bounds connecting and answering.
  explicit PrometheusTriggerReader(std::chrono::milliseconds timeout = std::chrono::seconds(3)) : timeout_(timeout) {}

  // Errors name the ScaledObject and trigger, then what the client said ("... could not connect ...").
  Result<double> read(const ScaledObject& scaled_object, std::size_t trigger_index) const override;

 private:
  std::chrono::milliseconds timeout_;
};

}  // namespace scalewright::prometheus
