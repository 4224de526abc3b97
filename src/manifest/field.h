#pragma once
// A typed reader over one node of a decoded YAML/JSON document that knows its field path
// ("spec.template.spec.containers[0]"), so every decode error can say exactly where it is. Kind decoders are
// written against it and read like the upstream types: required_string("name"), optional_int32("replicas", 1),
// each("containers", ...).
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "api/quantity.h"

namespace scalewright::manifest {

// Why a field is invalid. Thrown by Field and by kind decoders, caught once per document by the manifest decoder
// and turned into an error line; an exception keeps the decoders straight-line code however deep the object
// nests, and it never leaves the manifest library.
struct FieldError {
  std::string path;     // "spec.replicas"; empty for the object itself
  std::string problem;  // "expected an integer, got \"abc\""
};

// `"text"` with quotes and backslashes escaped, and control characters (escape_control), as error messages quote
// user input.
std::string quote(std::string_view text);
// Why a quantity whose amount does not fit in an int64 (in thousandths when `milli`, as cpu is kept) is refused.
std::string out_of_range(const Quantity& quantity, bool milli);

// What the decoders of one document asked of it, for kubectl's strict field validation: the keys they read, and the
// keys they pass over on purpose (upstream fields Scalewright does not use, which are never "unknown"). A key is
// told apart by the address of its text in the document's nodes, which lives as long as the document; recording
// one is appending a pointer, so tracking costs the decoders next to nothing.
class FieldTracker {
 public:
  void read(const char* key) { read_.push_back(key); }
  void known(const char* key) { known_.push_back(key); }
  // Known (its value left alone), read (its value checked in turn), or neither: an unknown field.
  enum class Mark { Unknown, Read, Known };
  Mark mark(const char* key) const;

 private:
  // Sorted when asked (mark()), after the decoders are done.
  mutable std::vector<const char*> read_, known_;
  mutable std::size_t sorted_read_ = 0, sorted_known_ = 0;
};

class Field {
 public:
  // A missing key arrives as yaml-cpp's "zombie" node, which throws when asked its type: keep a plain undefined
  // node instead, so absent fields answer every question. With a tracker, the keys read are recorded in it.
  Field(const YAML::Node& node, std::string path, FieldTracker* tracker = nullptr)
      : node_(node.IsDefined() ? node : undefined()), path_(std::move(path)), tracker_(tracker) {}

  const std::string& path() const { return path_; }
  const YAML::Node& node() const { return node_; }
  // False for a missing key and for an explicit null, which Kubernetes treats alike.
  bool present() const { return node_.IsDefined() && !node_.IsNull(); }
  bool has(std::string_view key) const { return child(key).present(); }
  // A quoted scalar ("3", '3', !!str 3) is a string even when it looks like a number: the API server rejects
  // `replicas: "3"`, and so do the integer and boolean readers.
  bool quoted() const { return node_.Tag() == "!" || node_.Tag() == "tag:yaml.org,2002:str"; }

  // --- navigation ---------------------------------------------------------------------------------------------
  // The field at `key`, possibly absent. Fails when this field is present but not a mapping.
  Field child(std::string_view key) const;
  // Like child(), but fails with "required" when the field is absent.
  Field required_child(std::string_view key) const;
  // Calls fn for each element of this list, whose paths are path[0], path[1], ...; absent: no calls.
  void items(const std::function<void(const Field&)>& fn) const;
  // Calls fn for each entry of this mapping with the entry's key; absent: no calls.
  void entries(const std::function<void(const std::string&, const Field&)>& fn) const;
  // items() and entries() of the field at `key`.
  void each(std::string_view key, const std::function<void(const Field&)>& fn) const { child(key).items(fn); }
  void each_entry(std::string_view key, const std::function<void(const std::string&, const Field&)>& fn) const {
    child(key).entries(fn);
  }

  // --- scalars at `key`: absent or null gives the fallback (or nullopt), a wrong type fails -------------------
  std::string required_string(std::string_view key) const;  // absent or empty: "required"
  std::string optional_string(std::string_view key, std::string_view fallback = "") const;
  std::optional<std::string> maybe_string(std::string_view key) const;
  std::int32_t optional_int32(std::string_view key, std::int32_t fallback) const;
  std::optional<std::int32_t> maybe_int32(std::string_view key) const;
  // As maybe_int32(), failing on a negative value (replicas, counts, periods in seconds).
  std::optional<std::int32_t> maybe_non_negative_int32(std::string_view key) const;
  std::optional<std::int64_t> maybe_int64(std::string_view key) const;
  bool optional_bool(std::string_view key, bool fallback) const;
  std::optional<Quantity> quantity(std::string_view key) const;
  // A list of strings ("namespaces", "matchLabelKeys").
  std::vector<std::string> strings(std::string_view key) const;
  // A mapping of strings (labels, annotations, nodeSelector), in document order; a null value reads as "".
  std::vector<std::pair<std::string, std::string>> string_map(std::string_view key) const;

  // One of the names in `table` ("In", "NotIn", ...). Absent or "" gives `fallback`; anything else fails with
  // `unknown <noun> "X" (expected A, B)`.
  template <typename E>
  E choice(std::string_view key, std::string_view noun, std::initializer_list<std::pair<std::string_view, E>> table,
           E fallback) const {
    std::optional<E> value = maybe_choice(key, noun, table);
    return value ? *value : fallback;
  }
  // As choice(), with nullopt when absent or "".
  template <typename E>
  std::optional<E> maybe_choice(std::string_view key, std::string_view noun,
                                std::initializer_list<std::pair<std::string_view, E>> table) const {
    std::optional<std::string> text = maybe_string(key);
    if (!text || text->empty()) return std::nullopt;
    for (const auto& [name, value] : table) {
      if (name == *text) return value;
    }
    std::vector<std::string_view> names;
    for (const auto& entry : table) names.push_back(entry.first);
    fail_at(key, unknown_choice(noun, *text, names));
  }
  // As choice(), failing with "required" when absent or "".
  template <typename E>
  E required_choice(std::string_view key, std::string_view noun,
                    std::initializer_list<std::pair<std::string_view, E>> table) const {
    std::optional<E> value = maybe_choice(key, noun, table);
    if (!value) fail_at(key, "required");
    return *value;
  }

  // --- this field's own value ---------------------------------------------------------------------------------
  std::string as_string() const;
  std::int64_t as_int64() const;
  std::int32_t as_int32() const;
  bool as_bool() const;
  Quantity as_quantity() const;

  // --- strict field validation --------------------------------------------------------------------------------
  // Upstream fields of this mapping that the decoder does not read: known, so never refused, and not looked into.
  void known(std::initializer_list<std::string_view> keys) const;
  // The paths of the fields under this one that no decoder read or declared known, in document order, at most
  // `max` of them ("spec.disruption.consolidateAftr"); empty without a tracker.
  std::vector<std::string> unknown_fields(std::size_t max) const;

  // --- failing ------------------------------------------------------------------------------------------------
  [[noreturn]] void fail(std::string problem) const;
  [[noreturn]] void fail_at(std::string_view key, std::string problem) const;
  std::string path_of(std::string_view key) const;
  // "a mapping", "a list", "\"abc\"": what was found instead, for "expected X, got Y".
  std::string describe() const;

 private:
  static std::string unknown_choice(std::string_view noun, std::string_view text,
                                    const std::vector<std::string_view>& names);
  void expect_map() const;
  // One undefined node shared by every absent field: a new one per absent key cost four allocations, and the
  // decoders ask for many more absent keys than present ones. Fields never write through their node.
  static const YAML::Node& undefined();
  // This mapping's scalar keys and values, listed on the first lookup and shared by copies of the Field:
  // yaml-cpp's own lookup copied every key it compared into a std::string, which was most of the decoding time
  // of issue [5]. The keys view the nodes' own strings, which live as long as node_.
  using Index = std::vector<std::pair<std::string_view, YAML::Node>>;
  const Index& index() const;

  YAML::Node node_;
  std::string path_;
  mutable std::shared_ptr<const Index> index_;
  FieldTracker* tracker_ = nullptr;
};

}  // namespace scalewright::manifest
