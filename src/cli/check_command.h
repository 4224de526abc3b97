#pragma once
// `scalewright check FILES...`: load manifests and say, for every pod without a node, where kube-scheduler would
// bind it, every node it could run on, or why it fits none.
#include <ostream>
#include <string>
#include <vector>

#include "manifest/manifest.h"

namespace scalewright::cli {

struct CheckOptions {
  std::vector<std::string> files;
  std::string output = "text";        // text | json
  std::string scoring = "LeastAllocated";  // LeastAllocated | MostAllocated
  bool independent = false;           // answer each pod alone instead of binding them one after another
  FieldValidation validate = FieldValidation::Strict;  // --validate, as kubectl's: unknown fields refused or not
};

// Returns the process exit status: 0 when the input was valid (whether or not every pod fits), 1 when a file
// could not be read or decoded (one error line on `err`, nothing on `out`).
int run_check(const CheckOptions& options, std::ostream& out, std::ostream& err);

}  // namespace scalewright::cli
