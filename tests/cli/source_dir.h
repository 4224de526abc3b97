#pragma once
// Where the command tests find the repository's examples, golden reports and manifests.
#include <string>

namespace scalewright::cli {

inline const std::string kSource = SCALEWRIGHT_SOURCE_DIR;

}  // namespace scalewright::cli
