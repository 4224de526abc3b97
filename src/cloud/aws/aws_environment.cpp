#include "cloud/aws/aws_environment.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <vector>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX declares it in no header

namespace scalewright::cloud::aws {

AwsEnvironment AwsEnvironment::from_process() {
  AwsEnvironment environment;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text = *entry;
    if (!text.starts_with("AWS_")) continue;  // the rest is none of the SDKs' business
    std::size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    environment.variables.emplace(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    environment.home = home;
  } else {
    long size = ::sysconf(_SC_GETPW_R_SIZE_MAX);
    std::vector<char> buffer(size > 0 ? static_cast<std::size_t>(size) : 16384);
    passwd entry{};
    passwd* found = nullptr;
    if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr &&
        found->pw_dir != nullptr) {
      environment.home = found->pw_dir;
    }
  }
  return environment;
}

std::optional<std::string> AwsEnvironment::get(std::string_view name) const {
  auto found = variables.find(name);
  if (found == variables.end() || found->second.empty()) return std::nullopt;
  return found->second;
}

bool is_true_setting(std::string_view value) {
  return value.size() == 4 && std::equal(value.begin(), value.end(), "true", [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         });
}

bool AwsEnvironment::is_true(std::string_view name) const {
  std::optional<std::string> value = get(name);
  return value && is_true_setting(*value);
}

std::string AwsEnvironment::expand_home(std::string_view path) const {
  if (path == "~" || path.starts_with("~/")) return home + std::string(path.substr(1));
  return std::string(path);
}

}  // namespace scalewright::cloud::aws
