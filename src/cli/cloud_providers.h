#pragma once
// Every provider this build of `scalewright run` can act through, by name (see cloud/provider_registry.h).
#include "cloud/provider_registry.h"

namespace scalewright::cli {

const cloud::ProviderRegistry& cloud_providers();

}  // namespace scalewright::cli
