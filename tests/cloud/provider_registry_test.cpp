// `--cloud-provider NAME` finds its provider in the registry, and the provider reads its own flags.
#include "cloud/provider_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cloud/kwok/kwok_registration.h"
#include "kube/api_client.h"
#include "ops/metrics.h"

namespace scalewright::cloud {
namespace {

using ::testing::ElementsAre;

TEST(ProviderRegistry, FindsAProviderByNameAndRefusesASecondOfTheSameName) {
  ProviderRegistry registry;
  EXPECT_TRUE(registry.add(kwok_registration()));
  EXPECT_FALSE(registry.add(kwok_registration()));
  ProviderRegistration other;
  other.name = "other";
  EXPECT_TRUE(registry.add(std::move(other)));
  EXPECT_THAT(registry.names(), ElementsAre("kwok", "other"));
  ASSERT_NE(registry.find("kwok"), nullptr);
  EXPECT_EQ(registry.find("kwok")->name, "kwok");
  EXPECT_EQ(registry.find("aws"), nullptr);
}

TEST(ProviderRegistry, KwokDeclaresItsLaunchLatencyFlagAndRefusesABadValueNamingIt) {
  const ProviderRegistration kwok = kwok_registration();
  ASSERT_EQ(kwok.flags.size(), 1u);
  EXPECT_EQ(kwok.flags[0].name, "--kwok-launch-latency");
  EXPECT_EQ(kwok.flags[0].default_value, "0s");
  // The flag is read before anything is asked of the cluster: a client with no server will do.
  const kube::ApiClient client(nullptr);
  const std::map<std::string, std::string> flags{{"--kwok-launch-latency", "soon"}};
  ops::MetricsRegistry metrics;
  ProviderContext context{client, Catalog{}, flags, metrics, {}};
  Result<std::unique_ptr<RunningProvider>> made = kwok.make(context);
  ASSERT_FALSE(made.ok());
  EXPECT_THAT(made.error().message, ::testing::StartsWith("--kwok-launch-latency: "));
}

}  // namespace
}  // namespace scalewright::cloud
