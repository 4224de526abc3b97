#include "cli/explain_command.h"

#include <fstream>

#include <nlohmann/json.hpp>

namespace scalewright::cli {

std::optional<std::vector<sim::ObjectRef>> parse_objects(const std::vector<std::string>& objects, std::ostream& err) {
  std::vector<sim::ObjectRef> out;
  for (const std::string& text : objects) {
    Result<sim::ObjectRef> ref = sim::parse_object_ref(text);
    if (!ref) {
      err << "error: " << ref.error().message << "\n";
      return std::nullopt;
    }
    out.push_back(std::move(*ref));
  }
  return out;
}

int explain_objects(const nlohmann::json& report, const std::vector<sim::ObjectRef>& objects,
                    const std::string& origin, std::ostream& out, std::ostream& err) {
  if (std::optional<Error> error = sim::check_report(report)) {
    err << "error: " << origin << ": " << error->message << "\n";
    return 1;
  }
  int status = 0;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    if (i > 0) out << "\n";
    if (std::optional<Error> error = sim::explain(report, objects[i], out)) {
      err << "error: " << origin << ": " << error->message << "\n";
      status = 1;
    }
  }
  return status;
}

int run_explain(const ExplainOptions& options, std::ostream& out, std::ostream& err) {
  const std::optional<std::vector<sim::ObjectRef>> objects = parse_objects(options.objects, err);
  if (!objects) return 2;
  std::ifstream file(options.report);
  if (!file) {
    err << "error: cannot read " << options.report << "\n";
    return 1;
  }
  nlohmann::json report = nlohmann::json::parse(file, nullptr, /*allow_exceptions=*/false);
  if (report.is_discarded()) {
    err << "error: " << options.report << ": not JSON; explain reads the report `simulate --output` writes\n";
    return 1;
  }
  return explain_objects(report, *objects, options.report, out, err);
}

}  // namespace scalewright::cli
