// The AWS shared config and credentials files as the SDKs read them: sections, comments, indented blocks, which file
// wins, where the files are, and the errors a malformed file or a missing profile gives.
#include "cloud/aws/shared_config.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aws_config_files.h"

namespace scalewright::cloud::aws {
namespace {

using aws_testing::AwsTestHome;

TEST(SharedConfig, SectionsCommentsAndIndentedBlocksAreReadAsBotocoreReadsThem) {
  auto file = parse_shared_file(R"(# a comment
; another comment
[default]
region = us-east-1
Output = json
[profile   dev]
region=eu-west-1
endpoint_url : http://127.0.0.1:4566
services = local
   ; an indented comment
note = a # not a comment here
[services local]  ; a comment after a section's name
ec2 =
  endpoint_url = http://127.0.0.1:5000
auto_scaling =
    ENDPOINT_URL=http://127.0.0.1:5001
)",
                                "config");
  ASSERT_TRUE(file.ok()) << file.error().message;
  std::vector<std::string> names;
  for (const auto& [name, section] : file->sections) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"default", "profile dev", "services local"}));

  const ConfigSection* defaults = file->section("default");
  ASSERT_NE(defaults, nullptr);
  EXPECT_EQ(defaults->get("region"), "us-east-1");
  EXPECT_EQ(defaults->get("output"), "json");  // keys in any case

  const ConfigSection* dev = file->section("profile dev");
  ASSERT_NE(dev, nullptr);
  EXPECT_EQ(dev->get("region"), "eu-west-1");
  EXPECT_EQ(dev->get("endpoint_url"), "http://127.0.0.1:4566");  // ':' separates too, the first of '=' and ':'
  EXPECT_EQ(dev->get("services"), "local");
  EXPECT_EQ(dev->get("note"), "a # not a comment here");

  const ConfigSection* local = file->section("services local");
  ASSERT_NE(local, nullptr);
  EXPECT_EQ(local->get("ec2", "endpoint_url"), "http://127.0.0.1:5000");
  EXPECT_EQ(local->get("auto_scaling", "endpoint_url"), "http://127.0.0.1:5001");
  EXPECT_EQ(local->get("ec2"), std::nullopt);  // a block is no value
}

TEST(SharedConfig, MalformedLinesAreRefusedNamingTheFileAndTheLine) {
  struct Case {
    std::string text;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"region = us-east-1\n", "config:1: \"region = us-east-1\" comes before any [section]"},
      {"[default]\nregion us-east-1\n", "config:2: expected \"name = value\" in [default], found \"region us-east-1\""},
      {"[default]\n\n[default]\n", "config:3: section [default] appears twice"},
      {"[default]\nregion = a\nREGION = b\n", "config:3: region is set twice in [default]"},
      {"[services x]\nec2 =\n  endpoint_url\n",
       "config:3: expected \"name = value\" under ec2, found \"endpoint_url\""},
      {"[ ]\n", "config:1: expected a section name such as [default], found \"[ ]\""},
      {"[default\n", "config:1: expected a section name such as [default], found \"[default\""},
  };
  for (const Case& c : cases) {
    auto file = parse_shared_file(c.text, "config");
    ASSERT_FALSE(file.ok()) << c.text;
    EXPECT_EQ(file.error().message, c.error) << c.text;
  }
}

TEST(SharedConfig, TheCredentialsFileWinsKeyByKeyAndTheExplicitDefaultSectionWins) {
  AwsTestHome home;
  home.write(".aws/config",
             "[default]\nregion = us-east-1\n"
             "[profile default]\nregion = us-east-2\n"  // the SDKs take [profile default] over [default]
             "[profile dev]\nregion = eu-west-1\noutput = json\n");
  home.write(".aws/credentials", "[dev]\nregion = us-west-2\naws_access_key_id = AKIDDEV\n");

  auto dev = load_shared_config(home.environment({{"AWS_PROFILE", "dev"}}));
  ASSERT_TRUE(dev.ok()) << dev.error().message;
  EXPECT_EQ(dev->profile, "dev");
  EXPECT_EQ(dev->get("region"), "us-west-2");
  EXPECT_EQ(dev->where("region"), "profile dev in " + home.path() + "/.aws/credentials");
  EXPECT_EQ(dev->get("output"), "json");
  EXPECT_EQ(dev->where("output"), "profile dev in " + home.path() + "/.aws/config");

  auto defaults = load_shared_config(home.environment());
  ASSERT_TRUE(defaults.ok()) << defaults.error().message;
  EXPECT_EQ(defaults->profile, "default");
  EXPECT_EQ(defaults->get("region"), "us-east-2");
}

TEST(SharedConfig, TheProfileAndTheFilesComeFromTheEnvironment) {
  AwsTestHome home;
  std::string credentials = home.write("elsewhere/creds", "[ci]\naws_access_key_id = AKIDCI\n");
  home.write("custom/config", "[profile ci]\nregion = ap-south-1\n[profile other]\nregion = sa-east-1\n");

  auto shared = load_shared_config(home.environment({{"AWS_CONFIG_FILE", "~/custom/config"},
                                                     {"AWS_SHARED_CREDENTIALS_FILE", credentials},
                                                     {"AWS_DEFAULT_PROFILE", "ci"}}));
  ASSERT_TRUE(shared.ok()) << shared.error().message;
  EXPECT_EQ(shared->config.path, home.path() + "/custom/config");
  EXPECT_EQ(shared->credentials.path, credentials);
  EXPECT_EQ(shared->profile, "ci");
  EXPECT_EQ(shared->profile_from, "AWS_DEFAULT_PROFILE");
  EXPECT_EQ(shared->get("region"), "ap-south-1");
  EXPECT_EQ(shared->get("aws_access_key_id"), "AKIDCI");

  // AWS_PROFILE wins over AWS_DEFAULT_PROFILE.
  auto other = load_shared_config(home.environment(
      {{"AWS_CONFIG_FILE", "~/custom/config"}, {"AWS_PROFILE", "other"}, {"AWS_DEFAULT_PROFILE", "ci"}}));
  ASSERT_TRUE(other.ok()) << other.error().message;
  EXPECT_EQ(other->get("region"), "sa-east-1");
}

TEST(SharedConfig, MissingFilesAreNoErrorButANamedProfileInNeitherFileIsOne) {
  AwsTestHome home;
  auto nothing = load_shared_config(home.environment());
  ASSERT_TRUE(nothing.ok()) << nothing.error().message;
  EXPECT_FALSE(nothing->config.found);
  EXPECT_FALSE(nothing->credentials.found);
  EXPECT_EQ(nothing->get("region"), std::nullopt);

  home.write(".aws/config", "[default]\nregion = us-east-1\n[prod]\nregion = eu-west-1\n");  // [prod]: not a profile
  auto missing = load_shared_config(home.environment({{"AWS_PROFILE", "prod"}}));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "AWS profile prod (from AWS_PROFILE) is in neither " + home.path() +
                                         "/.aws/config (no such profile) nor " + home.path() +
                                         "/.aws/credentials (no such file)");

  home.write(".aws/config", "[default]\nregion = us-east-1\nregion us-east-2\n");
  auto malformed = load_shared_config(home.environment());
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.error().message,
            home.path() + "/.aws/config:3: expected \"name = value\" in [default], found \"region us-east-2\"");
}

}  // namespace
}  // namespace scalewright::cloud::aws
