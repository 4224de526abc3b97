#pragma once
// The data tests' own files: CSV tables with the faults reading must report.
#include <filesystem>

namespace scalewright::data {

inline const std::filesystem::path kTestdata = std::filesystem::path(SCALEWRIGHT_SOURCE_DIR) / "tests/data/testdata";

}  // namespace scalewright::data
