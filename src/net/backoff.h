#pragma once
// Exponential back-off with jitter: how long to wait before trying again after failures in a row. The numbers are
// each client's own: kube::kReflectorBackoff is client-go's, and the AWS client will bring the SDKs' standard mode.
#include <chrono>

namespace scalewright::net {

struct Backoff {
  // How a wait is spread so that clients which failed together do not all come back together, for random in [0, 1):
  enum class Jitter {
    Added,  // the wait times (1 + jitter * random): never shorter than the schedule (client-go's wait.Backoff)
    Full,   // the wait times random: anywhere below the schedule (the AWS SDKs' and Envoy's "full jitter")
  };

  std::chrono::milliseconds initial{0};  // the wait after the first failure; 0: try again at once
  std::chrono::milliseconds max{0};      // the schedule's cap, before jitter (Added jitter may exceed it)
  double factor = 2.0;                   // each further failure in a row multiplies the wait by this
  Jitter jitter_kind = Jitter::Added;
  double jitter = 1.0;                   // Added: at most this fraction of the wait more; Full ignores it

  // The wait after `failures` failures in a row (1 for the first), for random in [0, 1):
  // min(initial * factor^(failures - 1), max), then jittered.
  std::chrono::milliseconds delay(int failures, double random) const;
};

}  // namespace scalewright::net
