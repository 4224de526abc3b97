#include "cloud/provider_registry.h"

#include <algorithm>

#include "nodegroups/node_group.h"

namespace scalewright::cloud {

std::optional<Result<std::vector<nodegroups::NodeGroup>>> RunningProvider::node_groups_found(
    const nodegroups::AutoscalerOptions& flags) const {
  (void)flags;
  return std::nullopt;
}

bool ProviderRegistry::add(ProviderRegistration registration) {
  if (find(registration.name) != nullptr) return false;
  registrations_.push_back(std::move(registration));
  return true;
}

const ProviderRegistration* ProviderRegistry::find(std::string_view name) const {
  auto it = std::find_if(registrations_.begin(), registrations_.end(),
                         [&](const ProviderRegistration& r) { return r.name == name; });
  return it == registrations_.end() ? nullptr : &*it;
}

std::vector<std::string> ProviderRegistry::names() const {
  std::vector<std::string> out;
  for (const ProviderRegistration& r : registrations_) out.push_back(r.name);
  return out;
}

}  // namespace scalewright::cloud
