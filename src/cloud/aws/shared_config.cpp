#include "cloud/aws/shared_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "api/ascii.h"

namespace scalewright::cloud::aws {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// "profile   dev " -> "profile dev": the words of a section's name joined by one space.
std::string collapse_spaces(std::string_view name) {
  std::string out;
  std::size_t i = 0;
  while (i < name.size()) {
    while (i < name.size() && is_blank(name[i])) ++i;
    std::size_t start = i;
    while (i < name.size() && !is_blank(name[i])) ++i;
    if (i > start) {
      if (!out.empty()) out += ' ';
      out.append(name.substr(start, i - start));
    }
  }
  return out;
}

// A key's value of several lines: the first empty (`ec2 =` then indented lines) makes a block of `key = value`
// sub-settings, as botocore reads them; any other stays a value with its lines joined by '\n'.
struct PendingValue {
  std::string key;
  std::string value;
  std::vector<std::pair<int, std::string>> continuation;  // (line number, trimmed text)
  std::size_t indent = 0;
};

std::optional<Error> finish_value(ConfigSection& section, PendingValue& pending, std::string_view path) {
  if (pending.key.empty()) return std::nullopt;
  if (pending.value.empty() && !pending.continuation.empty()) {
    auto& block = section.blocks[pending.key];
    for (const auto& [line, text] : pending.continuation) {
      std::size_t equals = text.find('=');
      if (equals == std::string::npos) {
        return Error{
            fmt::format("{}:{}: expected \"name = value\" under {}, found \"{}\"", path, line, pending.key, text)};
      }
      std::string name = ascii_lower(ascii_trim(std::string_view(text).substr(0, equals)));
      if (name.empty()) {
        return Error{fmt::format("{}:{}: a setting under {} has no name: \"{}\"", path, line, pending.key, text)};
      }
      block[name] = std::string(ascii_trim(std::string_view(text).substr(equals + 1)));
    }
  } else {
    std::string value = pending.value;
    for (const auto& [line, text] : pending.continuation) value += "\n" + text;
    section.values[pending.key] = std::move(value);
  }
  pending = PendingValue{};
  return std::nullopt;
}

}  // namespace

std::optional<std::string> ConfigSection::get(std::string_view key) const {
  auto found = values.find(key);
  if (found == values.end()) return std::nullopt;
  return found->second;
}

std::optional<std::string> ConfigSection::get(std::string_view block, std::string_view key) const {
  auto found = blocks.find(block);
  if (found == blocks.end()) return std::nullopt;
  auto value = found->second.find(key);
  if (value == found->second.end()) return std::nullopt;
  return value->second;
}

const ConfigSection* SharedFile::section(std::string_view name) const {
  auto found = sections.find(name);
  return found == sections.end() ? nullptr : &found->second;
}

Result<SharedFile> parse_shared_file(std::string_view text, std::string path) {
  SharedFile file;
  file.path = std::move(path);
  file.found = true;
  ConfigSection* section = nullptr;
  std::string section_name;
  PendingValue pending;
  int number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (number == 1 && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);  // a UTF-8 byte order mark
    std::string_view content = ascii_trim(line);
    if (content.empty() || content.front() == '#' || content.front() == ';') continue;
    std::size_t indent = line.find_first_not_of(" \t");
    if (!pending.key.empty() && indent > pending.indent) {
      pending.continuation.emplace_back(number, std::string(content));
      continue;
    }
    if (section != nullptr) {
      if (auto error = finish_value(*section, pending, file.path)) return *error;
    }
    if (content.front() == '[') {
      std::size_t close = content.rfind(']');
      std::string name = close == std::string_view::npos ? "" : collapse_spaces(content.substr(1, close - 1));
      if (name.empty()) {
        return Error{
            fmt::format("{}:{}: expected a section name such as [default], found \"{}\"", file.path, number, content)};
      }
      auto [it, inserted] = file.sections.try_emplace(name);
      if (!inserted) return Error{fmt::format("{}:{}: section [{}] appears twice", file.path, number, name)};
      section = &it->second;
      section_name = name;
      continue;
    }
    if (section == nullptr) {
      return Error{fmt::format("{}:{}: \"{}\" comes before any [section]", file.path, number, content)};
    }
    std::size_t separator = content.find_first_of("=:");
    if (separator == std::string_view::npos) {
      return Error{fmt::format("{}:{}: expected \"name = value\" in [{}], found \"{}\"", file.path, number,
                               section_name, content)};
    }
    std::string key = ascii_lower(ascii_trim(content.substr(0, separator)));
    if (key.empty()) {
      return Error{
          fmt::format("{}:{}: a setting in [{}] has no name: \"{}\"", file.path, number, section_name, content)};
    }
    if (section->values.contains(key) || section->blocks.contains(key)) {
      return Error{fmt::format("{}:{}: {} is set twice in [{}]", file.path, number, key, section_name)};
    }
    pending.key = key;
    pending.value = std::string(ascii_trim(content.substr(separator + 1)));
    pending.indent = indent;
  }
  if (section != nullptr) {
    if (auto error = finish_value(*section, pending, file.path)) return *error;
  }
  return file;
}

Result<SharedFile> read_shared_file(std::string path) {
  std::error_code ec;
  // botocore reads only a regular file, and takes anything else at the path for no file.
  if (!std::filesystem::is_regular_file(path, ec)) {
    SharedFile file;
    file.path = std::move(path);
    return file;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{fmt::format("cannot read {}: {}", path, std::strerror(errno))};
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Error{fmt::format("cannot read {}: {}", path, std::strerror(errno))};
  return parse_shared_file(text.str(), std::move(path));
}

const ConfigSection* SharedConfig::config_profile() const {
  if (const ConfigSection* explicit_form = config.section("profile " + profile)) return explicit_form;
  return profile == "default" ? config.section("default") : nullptr;
}

const ConfigSection* SharedConfig::credentials_profile() const { return credentials.section(profile); }

std::optional<std::string> SharedConfig::get(std::string_view key) const {
  if (const ConfigSection* section = credentials_profile()) {
    if (auto value = section->get(key)) return value;
  }
  if (const ConfigSection* section = config_profile()) return section->get(key);
  return std::nullopt;
}

std::string SharedConfig::where(std::string_view key) const {
  const ConfigSection* section = credentials_profile();
  const std::string& path = section != nullptr && section->get(key) ? credentials.path : config.path;
  return fmt::format("profile {} in {}", profile, path);
}

Result<const ConfigSection*> SharedConfig::services() const {
  std::optional<std::string> name = get("services");
  if (!name) return static_cast<const ConfigSection*>(nullptr);
  if (const ConfigSection* section = config.section("services " + *name)) return section;
  return Error{fmt::format("{} names services {}, but {} has no [services {}] section", where("services"), *name,
                           config.path, *name)};
}

Result<SharedConfig> load_shared_config(const AwsEnvironment& environment) {
  SharedConfig shared;
  if (auto profile = environment.get("AWS_PROFILE")) {
    shared.profile = *profile;
    shared.profile_from = "AWS_PROFILE";
  } else if (auto default_profile = environment.get("AWS_DEFAULT_PROFILE")) {
    shared.profile = *default_profile;
    shared.profile_from = "AWS_DEFAULT_PROFILE";
  }
  std::string config_path = environment.expand_home(environment.get("AWS_CONFIG_FILE").value_or("~/.aws/config"));
  std::string credentials_path =
      environment.expand_home(environment.get("AWS_SHARED_CREDENTIALS_FILE").value_or("~/.aws/credentials"));
  auto config = read_shared_file(std::move(config_path));
  if (!config) return config.error();
  auto credentials = read_shared_file(std::move(credentials_path));
  if (!credentials) return credentials.error();
  shared.config = std::move(*config);
  shared.credentials = std::move(*credentials);
  // A profile the user named must exist (botocore's ProfileNotFound, the Go SDK's SharedConfigProfileNotExistError);
  // the default one may be absent.
  if (!shared.profile_from.empty() && shared.config_profile() == nullptr && shared.credentials_profile() == nullptr) {
    return Error{fmt::format("AWS profile {} (from {}) is in neither {} ({}) nor {} ({})", shared.profile,
                             shared.profile_from, shared.config.path,
                             shared.config.found ? "no such profile" : "no such file", shared.credentials.path,
                             shared.credentials.found ? "no such profile" : "no such file")};
  }
  return shared;
}

std::optional<std::string> setting(const AwsEnvironment& environment, const SharedConfig& shared,
                                   std::string_view variable, std::string_view key) {
  if (auto value = environment.get(variable)) return value;
  return shared.get(key);
}

}  // namespace scalewright::cloud::aws
