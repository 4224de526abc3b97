#pragma once
// The process environment as the AWS SDKs read it, held as a value: the AWS_* variables (AWS_REGION, AWS_PROFILE,
// AWS_ACCESS_KEY_ID, AWS_ENDPOINT_URL_EC2, ...) and the home directory the shared files sit in by default. Whatever
// resolves AWS configuration (shared files, region, endpoints, credentials) reads it from here and never calls
// getenv, so a test builds exactly the environment it means.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace scalewright::cloud::aws {

struct AwsEnvironment {
  std::map<std::string, std::string, std::less<>> variables;
  std::string home;  // what "~" means in a file's path; empty: no home directory

  // This process's AWS_* variables and its home directory ($HOME, else the user's entry in the password database).
  static AwsEnvironment from_process();

  // The variable's value; nullopt when it is unset or empty (the SDKs take an empty variable for an unset one).
  std::optional<std::string> get(std::string_view name) const;
  // Whether the variable says "true", in any case (botocore's ensure_boolean): AWS_EC2_METADATA_DISABLED=TRUE is true.
  bool is_true(std::string_view name) const;
  // `path` with a leading "~" (alone or before '/') replaced by the home directory, as the SDKs expand the files'
  // paths (AWS_CONFIG_FILE=~/aws/config).
  std::string expand_home(std::string_view path) const;
};

// "true" in any case (botocore's ensure_boolean), for variables and the shared files' settings alike.
bool is_true_setting(std::string_view value);

}  // namespace scalewright::cloud::aws
