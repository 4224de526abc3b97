#include "cli/data_dir.h"

#include <cstdlib>
#include <vector>

namespace scalewright::cli {

namespace fs = std::filesystem;

Result<fs::path> find_data_dir(const std::string& flag) {
  std::vector<fs::path> candidates;
  if (!flag.empty()) {
    candidates.emplace_back(flag);
  } else {
    if (const char* env = std::getenv("SCALEWRIGHT_DATA_DIR")) candidates.emplace_back(env);
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) candidates.push_back(self.parent_path().parent_path() / "share" / "scalewright" / "data");
    candidates.emplace_back(SCALEWRIGHT_SOURCE_DATA_DIR);
  }
  for (const fs::path& dir : candidates) {
    std::error_code unresolved;  // a path that cannot be resolved (a symbolic link loop) is not the data
    if (fs::exists(dir / "aws" / "instance-types.csv", unresolved)) return dir / "aws";
  }
  return Error{"cannot find the instance-type data (aws/instance-types.csv) in " +
               (flag.empty() ? std::string("$SCALEWRIGHT_DATA_DIR or ") + SCALEWRIGHT_SOURCE_DATA_DIR : flag) +
               "; pass --data-dir"};
}

}  // namespace scalewright::cli
