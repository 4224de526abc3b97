#pragma once
// Names for new nodes, as Kubernetes' generateName makes them: the NodePool's (or group's) name and five random
// safe characters, drawn again while the name is taken. One stream serves every controller that launches, so a
// scenario's names are fixed by its seed.
#include <cstdint>
#include <string>

#include "api/meta.h"
#include "api/random.h"
#include "state/cluster_state.h"

namespace scalewright::controllers {

class NodeNames {
 public:
  explicit NodeNames(std::uint64_t seed) : random_(seed) {}

  std::string next(const std::string& prefix, const state::ClusterState& state) {
    for (;;) {
      std::string name = prefix + "-";
      for (int i = 0; i < 5; ++i) name += kSafeNameAlphabet[random_.next() % kSafeNameAlphabet.size()];
      if (state.find_node(name) == nullptr) return name;
    }
  }

 private:
  Random random_;
};

}  // namespace scalewright::controllers
