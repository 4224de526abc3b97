#include "cli/cloud_providers.h"

#include "cloud/aws/aws_registration.h"
#include "cloud/clusterapi/clusterapi_registration.h"
#include "cloud/kwok/kwok_registration.h"

namespace scalewright::cli {

const cloud::ProviderRegistry& cloud_providers() {
  static const cloud::ProviderRegistry registry = [] {
    cloud::ProviderRegistry r;
    r.add(cloud::kwok_registration());
    r.add(cloud::aws::aws_registration());
    r.add(cloud::clusterapi::clusterapi_registration());
    return r;
  }();
  return registry;
}

}  // namespace scalewright::cli
