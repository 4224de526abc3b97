#include "manifest/meta_decoder.h"

#include <charconv>
#include <string>

#include "manifest/names.h"

namespace scalewright::manifest {
namespace {

const std::initializer_list<std::pair<std::string_view, TaintEffect>> kTaintEffects = {
    {"NoSchedule", TaintEffect::NoSchedule},
    {"PreferNoSchedule", TaintEffect::PreferNoSchedule},
    {"NoExecute", TaintEffect::NoExecute},
};

OwnerReference decode_owner_reference(const Field& owner) {
  owner.known({"blockOwnerDeletion"});
  OwnerReference decoded;
  decoded.api_version = owner.optional_string("apiVersion");
  decoded.kind = owner.required_string("kind");
  decoded.name = owner.required_string("name");
  decoded.uid = owner.optional_string("uid");
  decoded.controller = owner.optional_bool("controller", false);
  return decoded;
}

// Days from 1970-01-01 to the given proleptic Gregorian date.
std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day) {
  year -= month <= 2 ? 1 : 0;
  std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  auto year_of_era = static_cast<unsigned>(year - era * 400);
  unsigned day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + static_cast<std::int64_t>(day_of_era) - 719468;
}

// Reads exactly `width` digits at `pos`.
std::optional<int> digits(std::string_view text, std::size_t pos, std::size_t width) {
  if (pos + width > text.size()) return std::nullopt;
  int value = 0;
  auto [end, error] = std::from_chars(text.data() + pos, text.data() + pos + width, value);
  if (error != std::errc() || end != text.data() + pos + width) return std::nullopt;
  return value;
}

bool is_leap(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int days_in_month(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : kDays[month - 1];
}

// The zone offset at `pos` ("Z", "+02:00", "-05:30") in seconds, and that it ends the text.
std::optional<std::int64_t> zone_offset(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return std::nullopt;
  if ((text[pos] == 'Z' || text[pos] == 'z') && pos + 1 == text.size()) return 0;
  if ((text[pos] != '+' && text[pos] != '-') || pos + 6 != text.size() || text[pos + 3] != ':') return std::nullopt;
  std::optional<int> hours = digits(text, pos + 1, 2);
  std::optional<int> minutes = digits(text, pos + 4, 2);
  if (!hours || !minutes || *hours > 23 || *minutes > 59) return std::nullopt;
  std::int64_t offset = *hours * 3600 + *minutes * 60;
  return text[pos] == '-' ? -offset : offset;
}

}  // namespace

std::optional<std::int64_t> read_timestamp(const Field& parent, std::string_view key) {
  std::optional<std::string> text = parent.maybe_string(key);
  if (!text) return std::nullopt;
  std::optional<std::int64_t> seconds = parse_rfc3339(*text);
  if (!seconds) parent.fail_at(key, "expected an RFC 3339 time such as 2024-03-01T12:00:00Z, got " + quote(*text));
  return seconds;
}

void known_meta_fields(const Field& metadata) {
  metadata.known({"generateName", "selfLink", "resourceVersion", "generation", "creationTimestamp",
                  "deletionGracePeriodSeconds", "finalizers", "managedFields"});
}

std::optional<std::int64_t> parse_rfc3339(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || (text[10] != 'T' && text[10] != 't') ||
      text[13] != ':' || text[16] != ':') {
    return std::nullopt;
  }
  std::optional<int> year = digits(text, 0, 4), month = digits(text, 5, 2), day = digits(text, 8, 2);
  std::optional<int> hour = digits(text, 11, 2), minute = digits(text, 14, 2), second = digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 || *day > days_in_month(*year, *month) || *hour > 23 ||
      *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  std::size_t pos = 19;
  if (text[pos] == '.') {
    std::size_t start = ++pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
    if (pos == start) return std::nullopt;
  }
  std::optional<std::int64_t> offset = zone_offset(text, pos);
  if (!offset) return std::nullopt;
  std::int64_t days = days_from_civil(*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day));
  return days * 86400 + *hour * 3600 + *minute * 60 + *second - *offset;
}

void check_label_key(const Field& parent, std::string_view key, std::string_view value) {
  if (std::optional<std::string> problem = qualified_name_problem(value)) {
    parent.fail_at(key, "invalid value " + quote(value) + ": " + *problem);
  }
}

void check_label_value(const Field& parent, std::string_view key, std::string_view value) {
  if (std::optional<std::string> problem = label_value_problem(value)) {
    parent.fail_at(key, "invalid value " + quote(value) + ": " + *problem);
  }
}

Labels decode_labels(const Field& parent, std::string_view key) {
  Labels labels;
  for (const auto& [name, value] : parent.string_map(key)) {
    if (std::optional<std::string> problem = qualified_name_problem(name)) {
      parent.fail_at(key, "invalid key " + quote(name) + ": " + *problem);
    }
    check_label_value(parent.child(key), name, value);
    labels.set(Symbol(name), Symbol(value));
  }
  return labels;
}

std::map<std::string, std::string> decode_annotations(const Field& metadata) {
  std::map<std::string, std::string> annotations;
  for (auto& [name, value] : metadata.string_map("annotations")) annotations[name] = std::move(value);
  if (std::optional<std::string> problem = annotations_problem(annotations)) metadata.fail_at("annotations", *problem);
  return annotations;
}

ObjectMeta decode_object_meta(const Field& object, Scope scope, NameRule rule) {
  Field metadata = object.child("metadata");
  ObjectMeta meta;
  meta.name = metadata.required_string("name");
  if (std::optional<std::string> problem = rule == NameRule::Label ? dns1123_label_problem(meta.name)
                                                                    : dns1123_subdomain_problem(meta.name)) {
    metadata.fail_at("name", "invalid value " + quote(meta.name) + ": " + *problem);
  }
  if (scope == Scope::Namespaced) {
    std::string namespace_ = metadata.optional_string("namespace");
    if (std::optional<std::string> problem = namespace_.empty() ? std::nullopt : dns1123_label_problem(namespace_)) {
      metadata.fail_at("namespace", "invalid value " + quote(namespace_) + ": " + *problem);
    }
    meta.namespace_ = namespace_.empty() ? "default" : namespace_;
  }
  if (scope == Scope::Cluster) metadata.known({"namespace"});  // ObjectMeta's, though a cluster object has none
  known_meta_fields(metadata);
  meta.uid = metadata.optional_string("uid");
  meta.labels = decode_labels(metadata, "labels");
  meta.annotations = decode_annotations(metadata);
  metadata.each("ownerReferences",
                [&](const Field& owner) { meta.owner_references.push_back(decode_owner_reference(owner)); });
  meta.deletion_timestamp = read_timestamp(metadata, "deletionTimestamp");
  return meta;
}

Taint decode_taint(const Field& taint) {
  taint.known({"timeAdded"});
  Taint decoded;
  decoded.key = taint.required_string("key");
  check_label_key(taint, "key", decoded.key);
  decoded.value = taint.optional_string("value");
  check_label_value(taint, "value", decoded.value);
  decoded.effect = taint.required_choice("effect", "taint effect", kTaintEffects);
  return decoded;
}

Toleration decode_toleration(const Field& toleration) {
  Toleration decoded;
  decoded.key = toleration.optional_string("key");
  decoded.op = toleration.choice("operator", "operator",
                                 {{"Equal", TolerationOperator::Equal}, {"Exists", TolerationOperator::Exists}},
                                 TolerationOperator::Equal);
  decoded.value = toleration.optional_string("value");
  if (!decoded.key.empty()) check_label_key(toleration, "key", decoded.key);
  if (decoded.op == TolerationOperator::Equal) check_label_value(toleration, "value", decoded.value);
  decoded.effect = toleration.maybe_choice("effect", "taint effect", kTaintEffects);
  decoded.toleration_seconds = toleration.maybe_int64("tolerationSeconds");
  if (decoded.op == TolerationOperator::Exists && !decoded.value.empty()) {
    toleration.fail_at("value", "must be empty when operator is Exists");
  }
  if (decoded.key.empty() && decoded.op != TolerationOperator::Exists) {
    toleration.fail_at("operator", "must be Exists when key is empty");
  }
  if (decoded.toleration_seconds && decoded.effect != TaintEffect::NoExecute) {
    toleration.fail_at("effect", "must be NoExecute when tolerationSeconds is set");
  }
  return decoded;
}

}  // namespace scalewright::manifest
