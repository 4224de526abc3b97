#include "api/scenario.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace scalewright {

double LoadShape::at(Duration elapsed) const {
  const double t = static_cast<double>(std::max<Duration::rep>(elapsed.count(), 0));
  double rate = 0;
  switch (kind) {
    case Kind::Constant: rate = requests_per_second; break;
    case Kind::Ramp: rate = t >= over.count() ? to : from + (to - from) * t / static_cast<double>(over.count()); break;
    case Kind::Step: rate = t < over.count() ? from : to; break;
    case Kind::Sine:
      rate = mean + amplitude * std::sin(2 * std::numbers::pi * t / static_cast<double>(period.count()));
      break;
    case Kind::Points: {
      if (points.empty()) break;
      // The first point whose time is after `elapsed`: interpolate from the one before it.
      auto next = std::upper_bound(points.begin(), points.end(), elapsed,
                                   [](Duration e, const std::pair<Duration, double>& p) { return e < p.first; });
      if (next == points.begin()) {
        rate = points.front().second;
      } else if (next == points.end()) {
        rate = points.back().second;
      } else {
        const auto& [t0, r0] = *(next - 1);
        const auto& [t1, r1] = *next;
        rate = r0 + (r1 - r0) * static_cast<double>((elapsed - t0).count()) / static_cast<double>((t1 - t0).count());
      }
      break;
    }
  }
  return std::max(rate, 0.0);
}

}  // namespace scalewright
