#pragma once
// Where the instance-type data lives, for every command that loads the catalog.
#include <filesystem>
#include <string>

#include "api/result.h"

namespace scalewright::cli {

// The --data-dir flag, $SCALEWRIGHT_DATA_DIR, beside an installed binary (<prefix>/share/scalewright/data), or the
// source tree it was built from; the directory returned is the one holding aws/instance-types.csv's files.
Result<std::filesystem::path> find_data_dir(const std::string& flag);

}  // namespace scalewright::cli
