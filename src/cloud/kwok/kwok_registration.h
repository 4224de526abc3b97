#pragma once
// Provider `kwok` as `scalewright run --cloud-provider kwok` makes it: its flag, the RBAC it needs, its metrics.
#include "cloud/provider_registry.h"

namespace scalewright::cloud {

ProviderRegistration kwok_registration();

}  // namespace scalewright::cloud
