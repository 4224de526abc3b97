#pragma once
// A private home directory for AWS configuration tests: the shared files and token files a test writes there, and
// an AwsEnvironment whose home it is. Tests never read the real HOME or the real environment.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>

#include "cloud/aws/aws_environment.h"

namespace scalewright::cloud::aws::aws_testing {

class AwsTestHome {
 public:
  AwsTestHome() {
    std::string pattern = (std::filesystem::temp_directory_path() / "scalewright-aws-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = pattern;
  }
  ~AwsTestHome() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  AwsTestHome(const AwsTestHome&) = delete;
  AwsTestHome& operator=(const AwsTestHome&) = delete;

  const std::string& path() const { return path_; }

  // Writes `text` to `name` under the home (".aws/config"), creating directories; returns the file's path.
  std::string write(const std::string& name, const std::string& text) const {
    std::filesystem::path file = std::filesystem::path(path_) / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
    return file.string();
  }

  // An environment with this home and exactly these variables.
  AwsEnvironment environment(const std::map<std::string, std::string>& variables = {}) const {
    AwsEnvironment environment;
    environment.home = path_;
    for (const auto& [name, value] : variables) environment.variables[name] = value;
    return environment;
  }

  // Writes ~/.aws/credentials and ~/.aws/config with these texts, or removes a file whose text is empty.
  void shared_files(const std::string& credentials, const std::string& config) const {
    for (const auto& [name, text] : {std::pair{".aws/credentials", credentials}, std::pair{".aws/config", config}}) {
      std::error_code ec;
      std::filesystem::remove(std::filesystem::path(path_) / name, ec);
      if (!text.empty()) write(name, text);
    }
  }

 private:
  std::string path_;
};

}  // namespace scalewright::cloud::aws::aws_testing
