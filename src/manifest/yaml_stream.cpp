#include "manifest/yaml_stream.h"

#include <yaml.h>

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "manifest/field.h"

namespace scalewright::manifest {
namespace {

std::string_view view(const yaml_char_t* text, std::size_t length) {
  return {reinterpret_cast<const char*>(text), length};
}

std::string_view view(const yaml_char_t* text) {
  return text == nullptr ? std::string_view() : std::string_view(reinterpret_cast<const char*>(text));
}

// yaml-cpp reads these plain scalars as null (and so does Kubernetes); Field treats null as absent.
bool is_null_text(std::string_view text) {
  return text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL";
}

// Frees an event's buffers however the loop leaves.
struct EventGuard {
  yaml_event_t& event;
  ~EventGuard() { yaml_event_delete(&event); }
};

// One open mapping or sequence of the document being built.
struct Frame {
  Frame(YAML::Node node_, bool mapping_, bool is_key_, std::string anchor_, DuplicateKey::Segment segment_,
        std::size_t keys_begin_)
      : node(std::move(node_)), mapping(mapping_), is_key(is_key_), anchor(std::move(anchor_)),
        segment(std::move(segment_)), keys_begin(keys_begin_) {}

  YAML::Node node;
  bool mapping = false;
  bool is_key = false;  // a mapping or sequence used as a mapping key: placed when it ends, not when it starts
  std::string anchor;   // to refuse an alias to a node from inside that node (a cycle)
  DuplicateKey::Segment segment;  // where the node is in its parent, for paths
  std::size_t next_index = 0;     // a sequence's next item
  // A mapping's key waiting for its value.
  std::optional<YAML::Node> key;
  // When the key is a scalar: its text, viewed in the key node (which lives as long as the document).
  std::optional<std::string_view> key_text;
  // The mapping's scalar keys so far, for duplicates: Parser::open_keys from keys_begin on while it is the
  // innermost container; scanned while few, hashed beyond.
  std::size_t keys_begin = 0;
  std::unordered_map<std::string_view, int> key_index;
};

constexpr std::size_t kKeysScannedLinearly = 16;

}  // namespace

struct YamlStream::Parser {
  std::string_view text;
  std::string source;
  int max_depth;
  yaml_parser_t parser{};
  bool done = false;
  int document = 0;
  std::size_t document_start = 0;  // offset of the line where the current document starts
  std::size_t document_line = 0;   // 0-based line of that offset

  std::optional<YAML::Node> root;
  std::vector<Frame> stack;
  // The scalar keys, with their lines, of every open mapping, innermost last: one buffer for all, since a
  // mapping's keys are dropped when it ends (a vector per mapping was a few allocations per mapping).
  std::vector<std::pair<std::string_view, int>> open_keys;
  std::unordered_map<std::string, YAML::Node> anchors;
  std::optional<DuplicateKey> duplicate;
  std::string scratch;  // a scalar's text on its way into its node, in a buffer that is reused
  // Every node of the document is an item of this sequence, which only the stream sees: yaml-cpp creates an
  // item in its sequence's node store, whereas a node made on its own gets a store of its own (five
  // allocations) that is then merged into its parent's. Items are made one at a time, each given its value
  // before the next: yaml-cpp adds an item only after a defined one.
  std::optional<YAML::Node> arena;
  std::size_t arena_size = 0;

  Parser(std::string_view text_, std::string source_, int max_depth_)
      : text(text_), source(std::move(source_)), max_depth(max_depth_) {
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  }
  ~Parser() { yaml_parser_delete(&parser); }

  Error at(const yaml_mark_t& mark, const std::string& problem) const {
    return Error{source + " doc " + std::to_string(document) + ": " + problem + " at line " +
                 std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1)};
  }

  // A new, undefined node of the document; the caller defines it before the next call.
  YAML::Node fresh() {
    if (!arena) {
      arena.emplace(YAML::NodeType::Sequence);
      arena_size = 0;
    }
    return (*arena)[arena_size++];
  }

  // A scalar as yaml-cpp's own builder makes it, but for the tag of untagged plain scalars: yaml-cpp gives them
  // the non-specific "?", which nothing here reads (the emitter writes neither "?" nor ""), so it stays empty.
  // Untagged quoted and block scalars get "!", which is how Field::quoted() tells `replicas: "3"` from
  // `replicas: 3`. Setting a tag also defines a node: as null until it gets a value.
  YAML::Node scalar_node(const yaml_event_t& event) {
    std::string_view value = view(event.data.scalar.value, event.data.scalar.length);
    std::string_view tag = view(event.data.scalar.tag);
    bool plain = event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    YAML::Node node = fresh();
    if (tag.empty() && plain && is_null_text(value)) {
      node.SetTag("");
      return node;
    }
    scratch.assign(value);
    node = scratch;
    if (!tag.empty()) {
      node.SetTag(std::string(tag));
    } else if (!plain) {
      node.SetTag("!");
    }
    return node;
  }

  // Places `child` at the current position: the document's root, the next item of the open sequence, or the
  // open mapping's key or value. A container is placed when it starts and filled afterwards (a container used
  // as a key, when it ends: the key must be whole before its value). All are in the document's node store
  // (fresh()), so force_insert and push_back copy no store.
  void place(const YAML::Node& child, const yaml_mark_t& mark) {
    if (stack.empty()) {
      root.emplace(child);  // emplace: assigning one yaml-cpp node to another rebinds what it refers to
      return;
    }
    Frame& top = stack.back();
    if (!top.mapping) {
      top.node.push_back(child);
      ++top.next_index;
      return;
    }
    if (!top.key) {
      top.key.emplace(child);
      top.key_text.reset();
      if (child.IsScalar()) top.key_text = std::string_view(top.key->Scalar());
      if (child.IsNull()) top.key_text = std::string_view();
      if (top.key_text) note_key(top, *top.key_text, static_cast<int>(mark.line + 1));
      return;
    }
    top.node.force_insert(*top.key, child);
    top.key.reset();
  }

  // Where the next node placed goes in its parent, for paths.
  DuplicateKey::Segment next_segment() const {
    if (stack.empty()) return std::string();
    const Frame& top = stack.back();
    if (!top.mapping) return top.next_index;
    return std::string(top.key && top.key_text ? *top.key_text : "?");
  }

  void note_key(Frame& top, std::string_view key, int line) {
    int first_line = 0;
    if (open_keys.size() - top.keys_begin < kKeysScannedLinearly) {
      for (std::size_t i = top.keys_begin; i < open_keys.size(); ++i) {
        if (open_keys[i].first == key) first_line = open_keys[i].second;
      }
    } else {
      if (top.key_index.empty()) top.key_index.insert(open_keys.begin() + top.keys_begin, open_keys.end());
      if (auto found = top.key_index.find(key); found != top.key_index.end()) first_line = found->second;
    }
    if (first_line == 0) {
      open_keys.emplace_back(key, line);
      if (!top.key_index.empty()) top.key_index.emplace(key, line);
      return;
    }
    if (duplicate) return;  // the first one is the one reported
    DuplicateKey found{{}, line, first_line};
    for (std::size_t i = 1; i < stack.size(); ++i) found.path.push_back(stack[i].segment);
    found.path.push_back(std::string(key));
    duplicate = std::move(found);
  }

  // An anchor may be defined again; it then names the later node. Erased first: assigning over the earlier
  // yaml-cpp node would change that node, not the map entry.
  void name_anchor(std::string_view anchor, const YAML::Node& node) {
    std::string name(anchor);
    anchors.erase(name);
    anchors.emplace(std::move(name), node);
  }

  std::optional<Error> start_container(const yaml_event_t& event, bool mapping) {
    if (static_cast<int>(stack.size()) >= max_depth) {
      return at(event.start_mark, "nested deeper than the limit of " + std::to_string(max_depth) + " levels");
    }
    std::string_view tag = view(mapping ? event.data.mapping_start.tag : event.data.sequence_start.tag);
    std::string_view anchor = view(mapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor);
    // Defined by its tag (yaml-cpp's "?" when it has none), as null until its first entry makes it a mapping or
    // a sequence; an empty one is given its type when it ends.
    YAML::Node node = fresh();
    node.SetTag(tag.empty() ? std::string("?") : std::string(tag));
    bool is_key = !stack.empty() && stack.back().mapping && !stack.back().key;
    DuplicateKey::Segment segment = next_segment();
    if (!is_key) place(node, event.start_mark);
    if (!anchor.empty()) name_anchor(anchor, node);
    stack.emplace_back(node, mapping, is_key, std::string(anchor), std::move(segment), open_keys.size());
    return std::nullopt;
  }

  void end_container(const yaml_event_t& event) {
    Frame frame = std::move(stack.back());
    stack.pop_back();
    open_keys.resize(frame.keys_begin);
    if (frame.mapping ? !frame.node.IsMap() : !frame.node.IsSequence()) {
      std::string tag = frame.node.Tag();
      frame.node = YAML::Node(frame.mapping ? YAML::NodeType::Map : YAML::NodeType::Sequence);
      frame.node.SetTag(tag);
    }
    if (frame.is_key) place(frame.node, event.start_mark);
  }

  std::optional<Error> alias(const yaml_event_t& event) {
    std::string name(view(event.data.alias.anchor));
    auto found = anchors.find(name);
    if (found == anchors.end()) return at(event.start_mark, "alias *" + name + " names no anchor before it");
    for (const Frame& frame : stack) {
      if (frame.anchor == name) return at(event.start_mark, "alias *" + name + " inside the node it refers to");
    }
    place(found->second, event.start_mark);
    return std::nullopt;
  }

  void scalar(const yaml_event_t& event) {
    YAML::Node node = scalar_node(event);
    std::string_view anchor = view(event.data.scalar.anchor);
    if (!anchor.empty()) name_anchor(anchor, node);
    place(node, event.start_mark);
  }

  Result<std::optional<YamlDocument>> next() {
    if (done) return std::optional<YamlDocument>();
    for (;;) {
      yaml_event_t event;
      if (yaml_parser_parse(&parser, &event) == 0) {
        done = true;
        return syntax_error();
      }
      EventGuard guard{event};
      std::optional<Error> error;
      switch (event.type) {
        case YAML_DOCUMENT_START_EVENT:
          ++document;
          document_start = event.start_mark.index - event.start_mark.column;
          document_line = event.start_mark.line;
          break;
        case YAML_DOCUMENT_END_EVENT: {
          YamlDocument out{root ? std::move(*root) : YAML::Node(), std::move(duplicate)};
          root.reset();
          duplicate.reset();
          anchors.clear();
          arena.reset();
          return std::optional<YamlDocument>(std::move(out));
        }
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT:
          error = start_container(event, event.type == YAML_MAPPING_START_EVENT);
          break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
          end_container(event);
          break;
        case YAML_SCALAR_EVENT:
          scalar(event);
          break;
        case YAML_ALIAS_EVENT:
          error = alias(event);
          break;
        case YAML_STREAM_END_EVENT:
        case YAML_NO_EVENT:
          done = true;
          return std::optional<YamlDocument>();
        case YAML_STREAM_START_EVENT:
          break;
      }
      if (error) {
        done = true;
        return *error;
      }
    }
  }

  // The message yaml-cpp gave before libyaml read the manifests ("end of map flow not found"), kept because
  // users and scripts know it: yaml-cpp reads the failing document again, up to the line libyaml stopped at
  // (errors only, so its speed does not matter). libyaml's own words when yaml-cpp finds nothing wrong there.
  Error syntax_error() const {
    std::size_t stop = std::min(parser.problem_offset, text.size());
    if (parser.error != YAML_READER_ERROR) stop = std::min(parser.problem_mark.index, text.size());
    std::size_t line_end = text.find('\n', stop);
    std::size_t end = line_end == std::string_view::npos ? text.size() : line_end + 1;
    try {
      YAML::LoadAll(std::string(text.substr(document_start, end - document_start)));
    } catch (const YAML::Exception& error) {
      if (error.mark.is_null()) return Error{source + ": invalid YAML: " + error.msg};
      return Error{source + ": invalid YAML at line " + std::to_string(error.mark.line + 1 + document_line) +
                   ", column " + std::to_string(error.mark.column + 1) + ": " + error.msg};
    }
    std::string problem = parser.problem != nullptr ? parser.problem : "cannot be read";
    if (parser.context != nullptr) problem += std::string(" ") + parser.context;
    if (parser.error == YAML_READER_ERROR) {
      std::size_t line = static_cast<std::size_t>(std::count(text.begin(), text.begin() + stop, '\n'));
      return Error{source + ": invalid YAML at line " + std::to_string(line + 1) + ": " + problem};
    }
    return Error{source + ": invalid YAML at line " + std::to_string(parser.problem_mark.line + 1) + ", column " +
                 std::to_string(parser.problem_mark.column + 1) + ": " + problem};
  }
};

YamlStream::YamlStream(std::string_view text, std::string source, int max_depth)
    : parser_(std::make_unique<Parser>(text, std::move(source), max_depth)) {}

YamlStream::~YamlStream() = default;

Result<std::optional<YamlDocument>> YamlStream::next() { return parser_->next(); }

std::string format_path(const std::vector<DuplicateKey::Segment>& path, std::size_t first) {
  std::string out;
  for (std::size_t i = first; i < path.size(); ++i) {
    if (const std::size_t* index = std::get_if<std::size_t>(&path[i])) {
      out += "[" + std::to_string(*index) + "]";
    } else {
      if (!out.empty()) out += ".";
      out += std::get<std::string>(path[i]);
    }
  }
  return out;
}

std::string describe_duplicate(const DuplicateKey& duplicate, std::size_t first) {
  return format_path(duplicate.path, first) + ": duplicate field " + quote(std::get<std::string>(duplicate.path.back())) +
         " at line " + std::to_string(duplicate.line) + " (first at line " + std::to_string(duplicate.first_line) + ")";
}

}  // namespace scalewright::manifest
