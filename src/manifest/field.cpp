#include "manifest/field.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <variant>

#include "api/escape.h"
#include "api/integer.h"

namespace scalewright::manifest {
namespace {

bool is_scalar(const YAML::Node& node) { return node.IsScalar(); }


}  // namespace

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return escape_control(out) + "\"";
}

std::string out_of_range(const Quantity& quantity, bool milli) {
  return "quantity " + quote(quantity.text()) + " is out of range (at most " +
         std::to_string(std::numeric_limits<std::int64_t>::max()) + (milli ? "m)" : ")");
}

FieldTracker::Mark FieldTracker::mark(const char* key) const {
  if (sorted_read_ != read_.size()) std::sort(read_.begin(), read_.end(), std::less<>());
  if (sorted_known_ != known_.size()) std::sort(known_.begin(), known_.end(), std::less<>());
  sorted_read_ = read_.size();
  sorted_known_ = known_.size();
  // Pointers to different nodes' texts: compared by address only (std::less orders any pointers).
  if (std::binary_search(known_.begin(), known_.end(), key, std::less<>())) return Mark::Known;
  if (std::binary_search(read_.begin(), read_.end(), key, std::less<>())) return Mark::Read;
  return Mark::Unknown;
}

Field Field::child(std::string_view key) const {
  if (!present()) return Field(undefined(), path_of(key), tracker_);
  expect_map();
  // The last of a key given twice, as the API server's JSON decoding takes it (strict validation refuses it first).
  const Index& entries = index();
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    if (it->first != key) continue;
    if (tracker_ != nullptr) tracker_->read(it->first.data());
    return Field(it->second, path_of(key), tracker_);
  }
  return Field(undefined(), path_of(key), tracker_);
}

void Field::known(std::initializer_list<std::string_view> keys) const {
  if (tracker_ == nullptr || !node_.IsMap()) return;
  for (const auto& [name, value] : index()) {
    if (std::find(keys.begin(), keys.end(), name) != keys.end()) tracker_->known(name.data());
  }
}

namespace {

// The walk of unknown_fields(): paths are kept as the keys and indexes on the way down, and written out only for an
// unknown field, since nearly every field is known.
class UnknownFieldWalk {
 public:
  UnknownFieldWalk(const FieldTracker& tracker, std::string base, std::size_t max)
      : tracker_(tracker), base_(std::move(base)), max_(max) {}

  void walk(const YAML::Node& node) {
    if (node.IsSequence()) {
      std::size_t i = 0;
      for (const YAML::Node& item : node) {
        segments_.emplace_back(i++);
        walk(item);
        segments_.pop_back();
        if (found.size() >= max_) return;
      }
      return;
    }
    if (!node.IsMap()) return;
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) {  // a mapping or list as a key: no API object has one
        report("?");
      } else {
        const std::string& key = entry.first.Scalar();
        switch (tracker_.mark(key.data())) {
          case FieldTracker::Mark::Known: break;
          case FieldTracker::Mark::Read:
            segments_.emplace_back(std::string_view(key));
            walk(entry.second);
            segments_.pop_back();
            break;
          case FieldTracker::Mark::Unknown:
            if (!read_twin(node, key)) report(key);
            break;
        }
      }
      if (found.size() >= max_) return;
    }
  }

  std::vector<std::string> found;

 private:
  // A key given twice: the decoders read the last one; the first is the same field (its own error is the
  // duplicate).
  bool read_twin(const YAML::Node& mapping, const std::string& key) const {
    for (const auto& other : mapping) {
      if (other.first.IsScalar() && other.first.Scalar() == key &&
          tracker_.mark(other.first.Scalar().data()) != FieldTracker::Mark::Unknown) {
        return true;
      }
    }
    return false;
  }

  void report(std::string_view key) {
    std::string path = base_;
    for (const auto& segment : segments_) {
      if (const std::size_t* index = std::get_if<std::size_t>(&segment)) {
        path += "[" + std::to_string(*index) + "]";
      } else {
        if (!path.empty()) path += '.';
        path += std::get<std::string_view>(segment);
      }
    }
    if (!path.empty()) path += '.';
    found.push_back(path.append(key));
  }

  const FieldTracker& tracker_;
  std::string base_;
  std::size_t max_;
  std::vector<std::variant<std::string_view, std::size_t>> segments_;
};

}  // namespace

std::vector<std::string> Field::unknown_fields(std::size_t max) const {
  if (tracker_ == nullptr || max == 0) return {};
  UnknownFieldWalk walk(*tracker_, path_, max);
  walk.walk(node_);
  return std::move(walk.found);
}

const YAML::Node& Field::undefined() {
  static const YAML::Node node(YAML::NodeType::Undefined);
  return node;
}

const Field::Index& Field::index() const {
  if (!index_) {
    auto index = std::make_shared<Index>();
    index->reserve(node_.size());
    for (const auto& entry : node_) {
      if (entry.first.IsScalar()) index->emplace_back(entry.first.Scalar(), entry.second);
    }
    index_ = std::move(index);
  }
  return *index_;
}

Field Field::required_child(std::string_view key) const {
  Field field = child(key);
  if (!field.present()) field.fail("required");
  return field;
}

void Field::items(const std::function<void(const Field&)>& fn) const {
  if (!present()) return;
  if (!node_.IsSequence()) fail("expected a list, got " + describe());
  std::size_t i = 0;
  for (const YAML::Node& item : node_) fn(Field(item, path_ + "[" + std::to_string(i++) + "]", tracker_));
}

void Field::entries(const std::function<void(const std::string&, const Field&)>& fn) const {
  if (!present()) return;
  expect_map();
  for (const auto& entry : node_) {
    if (!is_scalar(entry.first)) fail("expected string keys, got " + Field(entry.first, "").describe());
    const std::string& name = entry.first.Scalar();
    if (tracker_ != nullptr) tracker_->read(name.data());
    fn(name, Field(entry.second, path_of(name), tracker_));
  }
}

std::string Field::required_string(std::string_view key) const {
  std::string value = optional_string(key);
  if (value.empty()) fail_at(key, "required");
  return value;
}

std::string Field::optional_string(std::string_view key, std::string_view fallback) const {
  std::optional<std::string> value = maybe_string(key);
  return value ? *value : std::string(fallback);
}

std::optional<std::string> Field::maybe_string(std::string_view key) const {
  Field field = child(key);
  if (!field.present()) return std::nullopt;
  return field.as_string();
}

std::int32_t Field::optional_int32(std::string_view key, std::int32_t fallback) const {
  return maybe_int32(key).value_or(fallback);
}

std::optional<std::int32_t> Field::maybe_int32(std::string_view key) const {
  Field field = child(key);
  if (!field.present()) return std::nullopt;
  return field.as_int32();
}

std::optional<std::int32_t> Field::maybe_non_negative_int32(std::string_view key) const {
  std::optional<std::int32_t> value = maybe_int32(key);
  if (value && *value < 0) fail_at(key, "must not be negative, got " + std::to_string(*value));
  return value;
}

std::optional<std::int64_t> Field::maybe_int64(std::string_view key) const {
  Field field = child(key);
  if (!field.present()) return std::nullopt;
  return field.as_int64();
}

bool Field::optional_bool(std::string_view key, bool fallback) const {
  Field field = child(key);
  if (!field.present()) return fallback;
  return field.as_bool();
}

std::optional<Quantity> Field::quantity(std::string_view key) const {
  Field field = child(key);
  if (!field.present()) return std::nullopt;
  return field.as_quantity();
}

std::vector<std::string> Field::strings(std::string_view key) const {
  std::vector<std::string> out;
  each(key, [&](const Field& item) { out.push_back(item.as_string()); });
  return out;
}

std::vector<std::pair<std::string, std::string>> Field::string_map(std::string_view key) const {
  std::vector<std::pair<std::string, std::string>> out;
  each_entry(key, [&](const std::string& name, const Field& value) {
    out.emplace_back(name, value.present() ? value.as_string() : std::string());
  });
  return out;
}

std::string Field::as_string() const {
  if (!is_scalar(node_)) fail("expected a string, got " + describe());
  return node_.Scalar();
}

std::int64_t Field::as_int64() const {
  if (!is_scalar(node_)) fail("expected an integer, got " + describe());
  if (quoted()) fail("expected an integer, got the string " + quote(node_.Scalar()));
  std::optional<std::int64_t> value = parse_integer(node_.Scalar());
  if (!value) fail("expected an integer, got " + describe());
  return *value;
}

std::int32_t Field::as_int32() const {
  std::int64_t value = as_int64();
  if (value < std::numeric_limits<std::int32_t>::min() || value > std::numeric_limits<std::int32_t>::max()) {
    fail("expected a 32-bit integer, got " + describe());
  }
  return static_cast<std::int32_t>(value);
}

bool Field::as_bool() const {
  // YAML 1.1 spellings too: Kubernetes reads manifests with a YAML 1.1 parser.
  static constexpr std::string_view kTrue[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
  static constexpr std::string_view kFalse[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
  if (!is_scalar(node_)) fail("expected a boolean, got " + describe());
  if (quoted()) fail("expected a boolean, got the string " + quote(node_.Scalar()));
  const std::string& text = node_.Scalar();
  if (std::find(std::begin(kTrue), std::end(kTrue), text) != std::end(kTrue)) return true;
  if (std::find(std::begin(kFalse), std::end(kFalse), text) != std::end(kFalse)) return false;
  fail("expected a boolean, got " + describe());
}

Quantity Field::as_quantity() const {
  if (!is_scalar(node_)) fail("expected a quantity, got " + describe());
  Result<Quantity> parsed = Quantity::parse(node_.Scalar());
  if (!parsed) fail(parsed.error().message);
  return *parsed;
}

void Field::fail(std::string problem) const { throw FieldError{path_, std::move(problem)}; }

void Field::fail_at(std::string_view key, std::string problem) const {
  throw FieldError{path_of(key), std::move(problem)};
}

// Built in one allocation: the decoders make a path for every key they ask for, present or not.
std::string Field::path_of(std::string_view key) const {
  std::string path;
  path.reserve(path_.size() + 1 + key.size());
  path += path_;
  if (!path.empty()) path += '.';
  path += key;
  return path;
}

std::string Field::describe() const {
  if (node_.IsMap()) return "a mapping";
  if (node_.IsSequence()) return "a list";
  if (!present()) return "null";
  return quote(node_.Scalar());
}

std::string Field::unknown_choice(std::string_view noun, std::string_view text,
                                  const std::vector<std::string_view>& names) {
  std::string expected;
  for (std::string_view name : names) expected += (expected.empty() ? "" : ", ") + std::string(name);
  return "unknown " + std::string(noun) + " " + quote(text) + " (expected " + expected + ")";
}

void Field::expect_map() const {
  if (!node_.IsMap()) fail("expected a mapping, got " + describe());
}

}  // namespace scalewright::manifest
