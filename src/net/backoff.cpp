#include "net/backoff.h"

#include <algorithm>
#include <cmath>

namespace scalewright::net {

std::chrono::milliseconds Backoff::delay(int failures, double random) const {
  double wait = static_cast<double>(initial.count()) * std::pow(factor, static_cast<double>(std::max(failures, 1) - 1));
  wait = std::min(wait, static_cast<double>(max.count()));
  const double spread = jitter_kind == Jitter::Full ? random : 1.0 + jitter * random;
  return std::chrono::milliseconds(static_cast<long long>(wait * spread));
}

}  // namespace scalewright::net
