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

TEST(ProviderRegistry, KwokDeclaresItsFlagsAndRefusesABadValueNamingIt) {
  const ProviderRegistration kwok = kwok_registration();
  ASSERT_EQ(kwok.flags.size(), 2u);
  EXPECT_EQ(kwok.flags[0].name, "--kwok-launch-latency");
  EXPECT_EQ(kwok.flags[0].default_value, "0s");
  EXPECT_EQ(kwok.flags[1].name, "--kwok-node-names");
  EXPECT_EQ(kwok.flags[1].default_value, "nodeclaim");
  // The flags are read before anything is asked of the cluster: a client with no server will do.
  const kube::ApiClient client(nullptr);
  ops::MetricsRegistry metrics;
  const std::pair<std::string, std::string> bad[] = {
      {"--kwok-launch-latency", "soon"},
      {"--kwok-node-names", "ec2"},
  };
  for (const auto& [flag, value] : bad) {
    const std::map<std::string, std::string> flags{{flag, value}};
    ProviderContext context{client, Catalog{}, flags, metrics, {}};
    Result<std::unique_ptr<RunningProvider>> made = kwok.make(context);
    ASSERT_FALSE(made.ok()) << flag;
    EXPECT_THAT(made.error().message, ::testing::StartsWith(flag + ": ")) << made.error().message;
  }
}

}  // namespace
}  // namespace scalewright::cloud
