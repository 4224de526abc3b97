#include "manifest/field.h"

#include <algorithm>
#include <iterator>
#include <limits>

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

Field Field::child(std::string_view key) const {
  if (!present()) return Field(undefined(), path_of(key));
  expect_map();
  for (const auto& [name, value] : index()) {
    if (name == key) return Field(value, path_of(key));
  }
  return Field(undefined(), path_of(key));
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
  for (const YAML::Node& item : node_) fn(Field(item, path_ + "[" + std::to_string(i++) + "]"));
}

void Field::entries(const std::function<void(const std::string&, const Field&)>& fn) const {
  if (!present()) return;
  expect_map();
  for (const auto& entry : node_) {
    if (!is_scalar(entry.first)) fail("expected string keys, got " + Field(entry.first, "").describe());
    const std::string& name = entry.first.Scalar();
    fn(name, Field(entry.second, path_of(name)));
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
