#pragma once
// A YAML (or JSON) stream read one document at a time. libyaml's event parser reads the text (yaml-cpp's own
// parser takes 9 times as long for the events alone, issue [5]) and each document is built as a yaml-cpp tree,
// the form the kind decoders read through Field, so only one document's tree is alive at once.
// While it builds, it refuses what kubectl and the API server refuse or what would exhaust the process: nesting
// deeper than a limit (counted on the events, so 1,000,000 levels cost no stack) and a key given twice in one
// mapping.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "api/result.h"

namespace scalewright::manifest {

// A key given twice in one mapping. Reported by the manifest decoder once the document is whole, because the
// message names the object (kind/name) and those fields may come after the repeated key.
struct DuplicateKey {
  using Segment = std::variant<std::string, std::size_t>;  // a mapping key or a list index
  std::vector<Segment> path;  // of the repeated key from the document's root: {"spec", "replicas"}
  int line = 0;               // 1-based, of the second occurrence
  int first_line = 0;         // 1-based, of the first
};

struct YamlDocument {
  YAML::Node root;
  std::optional<DuplicateKey> duplicate;  // the first one in the document, if any
};

class YamlStream {
 public:
  // `text` must outlive the stream; `source` names it in messages ("web.yaml").
  YamlStream(std::string_view text, std::string source, int max_depth);
  ~YamlStream();
  YamlStream(const YamlStream&) = delete;
  YamlStream& operator=(const YamlStream&) = delete;

  // The next document; nullopt after the last one. An error (invalid YAML, nesting over the limit) names the
  // source and the line and column, and ends the stream.
  Result<std::optional<YamlDocument>> next();

 private:
  struct Parser;
  std::unique_ptr<Parser> parser_;
};

// "spec.template.spec.containers[0].name", as Field writes paths; from `first` on.
std::string format_path(const std::vector<DuplicateKey::Segment>& path, std::size_t first = 0);
// "spec.replicas: duplicate field \"replicas\" at line 10 (first at line 9)", the path from `first` on.
std::string describe_duplicate(const DuplicateKey& duplicate, std::size_t first = 0);

}  // namespace scalewright::manifest
