#pragma once
// `scalewright explain REPORT OBJECT...`: why, for each object of a run, from the JSON report `simulate --output`
// wrote; `simulate --explain OBJECT` says the same of the run it just made.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/explain.h"

namespace scalewright::cli {

struct ExplainOptions {
  std::string report;                // a JSON report of `simulate --output`
  std::vector<std::string> objects;  // "pod/web-1", "node/default-52cfd", "hpa/php-apache", ...
};

// Returns the exit status: 0 when every object was explained; 1 when the report cannot be read or is not a report,
// or has no such object (one error line on `err` naming the file and the object); 2 for an object not named as
// KIND/NAME or of a kind explain does not know.
int run_explain(const ExplainOptions& options, std::ostream& out, std::ostream& err);

// The objects as the user named them; nullopt after an error line on `err` (a usage error: exit status 2).
std::optional<std::vector<sim::ObjectRef>> parse_objects(const std::vector<std::string>& objects, std::ostream& err);

// Explains each object from `report`, a blank line between them; `origin` names the report in errors. Returns the
// exit status, as run_explain's.
int explain_objects(const nlohmann::json& report, const std::vector<sim::ObjectRef>& objects,
                    const std::string& origin, std::ostream& out, std::ostream& err);

}  // namespace scalewright::cli
