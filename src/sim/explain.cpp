#include "sim/explain.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <ostream>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/duration.h"
#include "api/instant.h"
#include "api/wording.h"

namespace scalewright::sim {
namespace {

using nlohmann::json;

struct KindWord {
  std::string_view word;  // as kubectl takes it, lower case
  std::string_view kind;
};
constexpr KindWord kKinds[] = {
    {"pod", "Pod"},
    {"pods", "Pod"},
    {"po", "Pod"},
    {"node", "Node"},
    {"nodes", "Node"},
    {"no", "Node"},
    {"nodeclaim", "NodeClaim"},
    {"nodeclaims", "NodeClaim"},
    {"nodepool", "NodePool"},
    {"nodepools", "NodePool"},
    {"hpa", "HorizontalPodAutoscaler"},
    {"horizontalpodautoscaler", "HorizontalPodAutoscaler"},
    {"horizontalpodautoscalers", "HorizontalPodAutoscaler"},
    {"scaledobject", "ScaledObject"},
    {"scaledobjects", "ScaledObject"},
    {"so", "ScaledObject"},
};

// A report's fields as written; a field missing or of another type reads as absent.
std::string text(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<Duration> seconds(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return Duration(static_cast<std::int64_t>(std::llround(it->get<double>() * 1000)));
}

// An instant the report wrote as seconds since the run's start (0 when absent).
Instant instant(const json& object, const char* key) { return Instant(seconds(object, key).value_or(Duration(0))); }

Instant at_of(const json& entry) { return instant(entry, "at_seconds"); }

const json& list(const json& run, const char* key) {
  static const json none = json::array();
  auto it = run.find(key);
  return it != run.end() && it->is_array() ? *it : none;
}

// A node and the NodeClaim it registered from carry one name here: an Event on either is about the same machine.
bool same_object(const ObjectRef& object, const json& event) {
  if (text(event, "name") != object.name) return false;
  const std::string kind = text(event, "kind");
  const bool machine = object.kind == "Node" || object.kind == "NodeClaim";
  return kind == object.kind || (machine && (kind == "Node" || kind == "NodeClaim"));
}

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.' || c == '/';
}

// `name` as a whole word of `text`: "web-1" names neither "web-10" nor "shop/web-1".
bool names(std::string_view text, std::string_view name) {
  for (std::size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const bool starts = at == 0 || !name_char(text[at - 1]);
    const std::size_t end = at + name.size();
    // A sentence's full stop may follow a name.
    const bool ends = end == text.size() || !name_char(text[end]) ||
                      (text[end] == '.' && (end + 1 == text.size() || text[end + 1] == ' '));
    if (starts && ends) return true;
  }
  return false;
}

// An explanation's clauses, one a line: split at "; " outside parentheses.
std::vector<std::string> clauses(const std::string& message) {
  std::vector<std::string> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < message.size(); ++i) {
    if (message[i] == '(') ++depth;
    if (message[i] == ')' && depth > 0) --depth;
    if (depth == 0 && message.compare(i, 2, "; ") == 0) {
      out.push_back(message.substr(start, i - start));
      start = i + 2;
      ++i;
    }
  }
  out.push_back(message.substr(start));
  return out;
}

void print_event(const json& event, std::ostream& out) {
  const std::vector<std::string> parts = clauses(text(event, "message"));
  out << fmt::format("  {:<12} {}{}: {}\n", format_time(at_of(event)), text(event, "reason"),
                     text(event, "type") == "Warning" ? " (warning)" : "", parts.front());
  for (std::size_t i = 1; i < parts.size(); ++i) out << "               " << parts[i] << "\n";
}

std::vector<const json*> events_about(const json& run, const ObjectRef& object) {
  std::vector<const json*> out;
  for (const json& event : list(run, "events")) {
    if (same_object(object, event)) out.push_back(&event);
  }
  return out;
}

const json* pod_outcome(const json& run, const std::string& pod) {
  for (const json& p : list(run, "pods")) {
    if (text(p, "pod") == pod) return &p;
  }
  return nullptr;
}

// Where the pod waited and ran.
void explain_pod(const json& run, const json& outcome, std::ostream& out) {
  const Instant created = instant(outcome, "created_seconds");
  const std::string node = text(outcome, "node");
  if (!node.empty()) {
    const Duration wait = seconds(outcome, "wait_seconds").value_or(Duration(0));
    const std::string pool = text(outcome, "nodepool");
    out << fmt::format("  created {}, bound to {}{} at {} after {} pending\n", format_time(created), node,
                       pool.empty() ? "" : fmt::format(" (NodePool {})", pool), format_time(created + wait),
                       format_duration(wait));
  } else {
    out << fmt::format("  created {}, never bound (pending when the run ended at {}, or deleted first)\n",
                       format_time(created), format_time(instant(run, "duration_seconds")));
  }
}

// Why the node the pod ran on was launched, when the autoscaler launched it.
void explain_pods_node(const json& run, const json& outcome, std::ostream& out) {
  const std::string node = text(outcome, "node");
  if (node.empty()) return;
  for (const json& event : list(run, "events")) {
    const std::string kind = text(event, "kind");
    if ((kind == "NodeClaim" || kind == "Node") && text(event, "name") == node && text(event, "reason") == "Launched") {
      out << fmt::format("\n  {} {}, which it ran on:\n", kind, node);
      print_event(event, out);
    }
  }
}

// The pods that ran on a node.
void explain_node(const json& run, const ObjectRef& object, std::ostream& out) {
  std::vector<std::string> pods;
  for (const json& p : list(run, "pods")) {
    if (text(p, "node") == object.name) pods.push_back(text(p, "pod"));
  }
  if (!pods.empty()) out << fmt::format("  pods that ran on it: {}\n", first_few(pods));
}

// The objects of `object`'s kind the run knows, for an error about one it does not.
std::vector<std::string> known(const json& run, const ObjectRef& object) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& name) {
    if (!name.empty() && seen.insert(name).second) out.push_back(name);
  };
  if (object.kind == "Pod") {
    for (const json& p : list(run, "pods")) add(text(p, "pod"));
  }
  for (const json& event : list(run, "events")) {
    ObjectRef probe{object.kind, text(event, "name")};
    if (same_object(probe, event)) add(probe.name);
  }
  if (object.kind == "Node" || object.kind == "NodeClaim") {
    for (const json& p : list(run, "pods")) add(text(p, "node"));
  }
  return out;
}

// How the timeline names the object: a pod by namespace/name, an autoscaler by its name alone
// ("hpa/php-apache"), a node by its name.
std::string_view timeline_name(const ObjectRef& object) {
  const std::string_view name = object.name;
  return object.kind == "Pod" || !object.namespaced() ? name : name.substr(name.find('/') + 1);
}

bool mentioned(const json& run, const ObjectRef& object) {
  if (object.kind == "Pod") return pod_outcome(run, object.name) != nullptr;
  const std::vector<std::string> all = known(run, object);
  if (std::find(all.begin(), all.end(), object.name) != all.end()) return true;
  for (const json& entry : list(run, "timeline")) {
    if (names(text(entry, "message"), timeline_name(object))) return true;
  }
  return false;
}

void explain_run(const json& run, const ObjectRef& object, std::ostream& out) {
  out << object.to_string() << "\n";
  const json* outcome = object.kind == "Pod" ? pod_outcome(run, object.name) : nullptr;  // `mentioned` found it
  if (outcome != nullptr) explain_pod(run, *outcome, out);
  if (object.kind == "Node" || object.kind == "NodeClaim") explain_node(run, object, out);
  const std::vector<const json*> events = events_about(run, object);
  out << "\n  Decisions about it:\n";
  if (events.empty()) out << "  none recorded\n";
  for (const json* event : events) print_event(*event, out);
  if (outcome != nullptr) explain_pods_node(run, *outcome, out);
  std::vector<const json*> lines;
  for (const json& entry : list(run, "timeline")) {
    if (names(text(entry, "message"), timeline_name(object))) lines.push_back(&entry);
  }
  if (lines.empty()) return;
  out << "\n  Timeline lines that name it:\n";
  for (const json* entry : lines) {
    out << fmt::format("  {:<12} {:<14} {}\n", format_time(at_of(*entry)), text(*entry, "kind"),
                       text(*entry, "message"));
  }
}

bool is_report(const json& run) { return run.is_object() && run.contains("timeline") && run.contains("pods"); }

}  // namespace

bool ObjectRef::namespaced() const {
  return kind == "Pod" || kind == "HorizontalPodAutoscaler" || kind == "ScaledObject";
}

Result<ObjectRef> parse_object_ref(std::string_view text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos || slash + 1 == text.size()) {
    return Error{fmt::format("\"{}\": name an object as KIND/NAME (pod/web-1, pod/NAMESPACE/web-1, node/NAME, "
                             "nodeclaim/NAME, nodepool/NAME, hpa/NAME, scaledobject/NAME)",
                             text)};
  }
  std::string word(text.substr(0, slash));
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
  auto kind = std::find_if(std::begin(kKinds), std::end(kKinds), [&](const KindWord& k) { return k.word == word; });
  if (kind == std::end(kKinds)) {
    return Error{fmt::format("\"{}\": unknown kind \"{}\"; explain knows pod, node, nodeclaim, nodepool, hpa and "
                             "scaledobject",
                             text, text.substr(0, slash))};
  }
  ObjectRef ref{std::string(kind->kind), std::string(text.substr(slash + 1))};
  const bool has_namespace = ref.name.find('/') != std::string::npos;
  if (!ref.namespaced() && has_namespace) {
    return Error{fmt::format("\"{}\": a {} has no namespace; name it as {}/NAME", text, ref.kind, word)};
  }
  if (ref.namespaced() && !has_namespace) ref.name = "default/" + ref.name;
  return ref;
}

std::optional<Error> check_report(const json& report) {
  const bool ok = report.is_array() ? !report.empty() && std::all_of(report.begin(), report.end(), is_report)
                                    : is_report(report);
  if (ok) return std::nullopt;
  return Error{"not a report of `scalewright simulate --output` (no \"timeline\" and \"pods\")"};
}

std::optional<Error> explain(const json& report, const ObjectRef& object, std::ostream& out) {
  if (std::optional<Error> error = check_report(report)) return error;
  std::vector<const json*> runs;
  if (report.is_array()) {
    for (const json& run : report) runs.push_back(&run);
  } else {
    runs.push_back(&report);
  }
  bool found = false;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!mentioned(*runs[i], object)) continue;
    if (found) out << "\n";
    if (runs.size() > 1) {
      out << fmt::format("== run {} of {} ({})\n", i + 1, runs.size(), text(*runs[i], "scenario"));
    }
    explain_run(*runs[i], object, out);
    found = true;
  }
  if (found) return std::nullopt;
  const std::vector<std::string> others = known(*runs.front(), object);
  return Error{fmt::format("no {} in the report{}", object.to_string(),
                           others.empty() ? "" : fmt::format("; it has {}", first_few(others)))};
}

}  // namespace scalewright::sim
