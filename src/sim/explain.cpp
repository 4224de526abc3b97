#include "sim/explain.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <ostream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/duration.h"
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

Duration at_of(const json& entry) {
  return Duration(static_cast<std::int64_t>(std::llround(entry.value("at_seconds", 0.0) * 1000)));
}

Duration seconds_of(const json& value) {
  return Duration(static_cast<std::int64_t>(std::llround(value.get<double>() * 1000)));
}

const json& list(const json& run, const char* key) {
  static const json none = json::array();
  auto it = run.find(key);
  return it != run.end() && it->is_array() ? *it : none;
}

// A node and the NodeClaim it registered from carry one name here: an Event on either is about the same machine.
bool same_object(const ObjectRef& object, const json& event) {
  if (event.value("name", "") != object.name) return false;
  const std::string kind = event.value("kind", "");
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
  const std::vector<std::string> parts = clauses(event.value("message", ""));
  out << fmt::format("  {:<12} {}{}: {}\n", format_time(at_of(event)), event.value("reason", ""),
                     event.value("type", "Normal") == "Warning" ? " (warning)" : "", parts.front());
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
    if (p.value("pod", "") == pod) return &p;
  }
  return nullptr;
}

// Where the pod waited and ran.
void explain_pod(const json& run, const json& outcome, std::ostream& out) {
  const Duration created = outcome.contains("created_seconds") ? seconds_of(outcome["created_seconds"]) : Duration(0);
  const json& node = outcome["node"];
  if (node.is_string()) {
    const Duration wait = seconds_of(outcome["wait_seconds"]);
    const std::string pool = outcome.value("nodepool", "");
    out << fmt::format("  created {}, bound to {}{} at {} after {} pending\n", format_time(created),
                       node.get<std::string>(), pool.empty() ? "" : fmt::format(" (NodePool {})", pool),
                       format_time(created + wait), format_duration(wait));
  } else {
    out << fmt::format("  created {}, never bound (pending when the run ended at {}, or deleted first)\n",
                       format_time(created), format_time(seconds_of(run.value("duration_seconds", json(0.0)))));
  }
}

// Why the node the pod ran on was launched, when the autoscaler launched it.
void explain_pods_node(const json& run, const json& outcome, std::ostream& out) {
  const json& node = outcome["node"];
  if (!node.is_string()) return;
  for (const json& event : list(run, "events")) {
    const std::string kind = event.value("kind", "");
    if ((kind == "NodeClaim" || kind == "Node") && event.value("name", "") == node.get<std::string>() &&
        event.value("reason", "") == "Launched") {
      out << fmt::format("\n  {} {}, which it ran on:\n", kind, node.get<std::string>());
      print_event(event, out);
    }
  }
}

// The pods that ran on a node, and their count.
void explain_node(const json& run, const ObjectRef& object, std::ostream& out) {
  std::vector<std::string> pods;
  for (const json& p : list(run, "pods")) {
    if (p["node"].is_string() && p["node"].get<std::string>() == object.name) pods.push_back(p.value("pod", ""));
  }
  if (!pods.empty()) out << fmt::format("  pods that ran on it: {}\n", first_few(pods));
}

// The objects of `object`'s kind the run knows, for an error about one it does not.
std::vector<std::string> known(const json& run, const ObjectRef& object) {
  std::vector<std::string> out;
  auto add = [&](const std::string& name) {
    if (!name.empty() && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  if (object.kind == "Pod") {
    for (const json& p : list(run, "pods")) add(p.value("pod", ""));
  }
  for (const json& event : list(run, "events")) {
    ObjectRef probe{object.kind, event.value("name", "")};
    if (same_object(probe, event)) add(probe.name);
  }
  if (object.kind == "Node" || object.kind == "NodeClaim") {
    for (const json& p : list(run, "pods")) {
      if (p["node"].is_string()) add(p["node"].get<std::string>());
    }
  }
  return out;
}

bool mentioned(const json& run, const ObjectRef& object) {
  if (object.kind == "Pod") return pod_outcome(run, object.name) != nullptr;
  const std::vector<std::string> all = known(run, object);
  if (std::find(all.begin(), all.end(), object.name) != all.end()) return true;
  const std::string_view name =
      object.namespaced() ? std::string_view(object.name).substr(object.name.find('/') + 1) : object.name;
  for (const json& entry : list(run, "timeline")) {
    if (names(entry.value("message", ""), name)) return true;
  }
  return false;
}

void explain_run(const json& run, const ObjectRef& object, std::ostream& out) {
  out << object.to_string() << "\n";
  if (object.kind == "Pod") explain_pod(run, *pod_outcome(run, object.name), out);
  if (object.kind == "Node" || object.kind == "NodeClaim") explain_node(run, object, out);
  const std::vector<const json*> events = events_about(run, object);
  out << "\n  Decisions about it:\n";
  if (events.empty()) out << "  none recorded\n";
  for (const json* event : events) print_event(*event, out);
  if (object.kind == "Pod") explain_pods_node(run, *pod_outcome(run, object.name), out);
  // The timeline names a namespaced object by its name alone in places ("hpa/php-apache"), by namespace/name in
  // others (pods).
  const std::string_view short_name =
      object.kind == "Pod" || !object.namespaced() ? std::string_view(object.name)
                                                    : std::string_view(object.name).substr(object.name.find('/') + 1);
  std::vector<const json*> lines;
  for (const json& entry : list(run, "timeline")) {
    if (names(entry.value("message", ""), short_name)) lines.push_back(&entry);
  }
  if (lines.empty()) return;
  out << "\n  Timeline lines that name it:\n";
  for (const json* entry : lines) {
    out << fmt::format("  {:<12} {:<14} {}\n", format_time(at_of(*entry)), entry->value("kind", ""),
                       entry->value("message", ""));
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
    if (runs.size() > 1) out << fmt::format("== run {} of {} ({})\n", i + 1, runs.size(), runs[i]->value("scenario", ""));
    explain_run(*runs[i], object, out);
    found = true;
  }
  if (found) return std::nullopt;
  const std::vector<std::string> others = known(*runs.front(), object);
  return Error{fmt::format("no {} in the report{}", object.to_string(),
                           others.empty() ? "" : fmt::format("; it has {}", first_few(others)))};
}

}  // namespace scalewright::sim
