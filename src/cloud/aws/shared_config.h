#pragma once
// The AWS shared config and credentials files (~/.aws/config, ~/.aws/credentials) as the SDKs read them: INI files
// of sections (`[default]` and `[profile NAME]` in config, `[NAME]` in credentials, `[services NAME]` in config),
// `key = value` lines (keys in any case), whole-line `#` and `;` comments, and indented lines under a key that has
// no value of its own, which make a block of sub-settings:
//
//   [profile dev]
//   region = eu-west-1
//   services = local
//   [services local]
//   ec2 =
//     endpoint_url = http://127.0.0.1:5000
//
// Paths from AWS_CONFIG_FILE and AWS_SHARED_CREDENTIALS_FILE (a leading ~ is the home directory); the profile from
// AWS_PROFILE, else AWS_DEFAULT_PROFILE, else "default". A missing file is no error; a profile named in the
// environment that neither file holds is one (the SDKs' ProfileNotFound).
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "api/result.h"
#include "cloud/aws/aws_environment.h"

namespace scalewright::cloud::aws {

// One section of a shared file.
struct ConfigSection {
  std::map<std::string, std::string, std::less<>> values;  // lower-cased key -> value, both trimmed
  // Keys whose value is an indented block (`ec2 =` then `  endpoint_url = ...`): key -> its sub-settings.
  std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>> blocks;

  std::optional<std::string> get(std::string_view key) const;
  std::optional<std::string> get(std::string_view block, std::string_view key) const;
};

// One shared file as read: its sections by name, as written between the brackets with the spaces between words
// collapsed ("default", "profile dev", "services local", "dev" in the credentials file).
struct SharedFile {
  std::string path;
  bool found = false;  // false: no such file (no sections)
  std::map<std::string, ConfigSection, std::less<>> sections;

  const ConfigSection* section(std::string_view name) const;
};

// Parses a shared file's text; errors name the file and the line: "/root/.aws/config:3: ...". Like botocore's
// reader (Python's configparser), a section or a key given twice in one file is an error, `=` or `:` separates a
// key from its value, and a comment takes a whole line (a `#` after a value is part of the value).
Result<SharedFile> parse_shared_file(std::string_view text, std::string path);
// Reads and parses the file at `path`; a path where no file is gives a SharedFile with found == false.
Result<SharedFile> read_shared_file(std::string path);

// The two files, and the profile in use.
struct SharedConfig {
  std::string profile = "default";
  std::string profile_from;  // the variable that named it ("AWS_PROFILE"), empty for the default
  SharedFile config;
  SharedFile credentials;

  // The profile's section in the config file: `[profile NAME]`, or for "default" `[default]` when there is no
  // `[profile default]` (the SDKs accept both there; the explicit form wins). nullptr when there is none.
  const ConfigSection* config_profile() const;
  // The profile's `[NAME]` section in the credentials file; nullptr when there is none.
  const ConfigSection* credentials_profile() const;
  // A setting of the profile: the credentials file's value, else the config file's (botocore merges the
  // credentials file's profile over the config file's, key by key).
  std::optional<std::string> get(std::string_view key) const;
  // Where get(key) found its value, for messages: "profile dev in /root/.aws/config".
  std::string where(std::string_view key) const;
  // The `[services NAME]` section the profile's `services` setting names; nullptr when it names none; an error when
  // it names a section the config file does not have (botocore's InvalidConfigError).
  Result<const ConfigSection*> services() const;
};

// Reads both files for the environment's profile.
Result<SharedConfig> load_shared_config(const AwsEnvironment& environment);

// A setting the environment or the profile gives: the variable when set, else the profile's key. botocore reads
// most settings so (AWS_EC2_METADATA_SERVICE_ENDPOINT or ec2_metadata_service_endpoint).
std::optional<std::string> setting(const AwsEnvironment& environment, const SharedConfig& shared,
                                   std::string_view variable, std::string_view key);

}  // namespace scalewright::cloud::aws
