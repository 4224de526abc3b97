#pragma once
// Karpenter's batching of pending pods: the first pod that needs capacity opens a window; each further one
// extends it by the idle duration, up to the maximum since the window opened. Provisioning then runs once for
// the whole batch, so a Deployment scaled to 50 gets a plan for 50 pods, not 50 plans.
#include <algorithm>
#include <optional>

#include "api/duration.h"
#include "api/instant.h"

namespace scalewright::provisioning {

struct BatchWindow {
  Duration idle{1'000};
  Duration max{10'000};
};

class Batcher {
 public:
  explicit Batcher(BatchWindow window) : window_(window) {}

  // A pod needs capacity at `now`: opens the window or extends it. Returns when the window now closes.
  Instant trigger(Instant now) {
    if (!start_) start_ = now;
    last_ = now;
    return *deadline();
  }
  // When the open window closes; nullopt when no window is open.
  std::optional<Instant> deadline() const {
    if (!start_) return std::nullopt;
    return std::min(*start_ + window_.max, last_ + window_.idle);
  }
  bool due(Instant now) const { return start_ && now >= *deadline(); }
  void close() { start_.reset(); }

 private:
  BatchWindow window_;
  std::optional<Instant> start_;
  Instant last_{};
};

}  // namespace scalewright::provisioning
