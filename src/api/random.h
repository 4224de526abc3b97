#pragma once
// The only source of chance (the simulator's, and the names of new nodes): SplitMix64, chosen because its output
// is fixed by the seed on every platform and standard library (std::uniform_*_distribution is not), so a
// scenario's run is reproducible.
#include <cstdint>

namespace scalewright {

class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in [low, high], both inclusive.
  std::int64_t between(std::int64_t low, std::int64_t high) {
    if (high <= low) return low;
    return low + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(high - low + 1));
  }
  bool chance(double probability) { return probability > 0 && unit() < probability; }

 private:
  std::uint64_t state_;
};

}  // namespace scalewright
