#pragma once
// The cloud tests' own data files: catalogs with the faults loading must report.
#include <filesystem>

namespace scalewright::cloud {

inline const std::filesystem::path kTestdata = std::filesystem::path(SCALEWRIGHT_SOURCE_DIR) / "tests/cloud/testdata";

}  // namespace scalewright::cloud
