#include "nodegroups/status.h"

#include <array>
#include <cctype>

#include <fmt/format.h>

namespace scalewright::nodegroups {
namespace {

struct Civil {
  int year = 0;
  unsigned month = 0, day = 0;
  std::int64_t hours = 0, minutes = 0, seconds = 0;
  std::string fraction;  // ".25", or empty: Go's .999999999 drops trailing zeros and an all-zero fraction
};

Civil civil(WallClock base, Instant at) {
  WallClock t = base + since_start(at);
  auto day = std::chrono::floor<std::chrono::days>(t);
  std::chrono::year_month_day ymd{day};
  std::chrono::hh_mm_ss<std::chrono::milliseconds> hms{t - day};
  Civil c;
  c.year = static_cast<int>(ymd.year());
  c.month = static_cast<unsigned>(ymd.month());
  c.day = static_cast<unsigned>(ymd.day());
  c.hours = hms.hours().count();
  c.minutes = hms.minutes().count();
  c.seconds = hms.seconds().count();
  if (auto ms = hms.subseconds().count(); ms != 0) {
    c.fraction = fmt::format(".{:03}", ms);
    while (c.fraction.back() == '0') c.fraction.pop_back();
  }
  return c;
}

// Whether yaml.v2 would write `text` without quotes: it quotes what would read back as something other than the
// same string (booleans, null, numbers, timestamps) and what YAML syntax forbids in a plain scalar.
bool plain_safe(std::string_view text) {
  if (text.empty() || text.front() == ' ' || text.back() == ' ') return false;
  static constexpr std::string_view indicators = "-?:,[]{}#&*!|>'\"%@`";
  if (indicators.find(text.front()) != std::string_view::npos) return false;
  if (text.find(": ") != std::string_view::npos || text.find(" #") != std::string_view::npos ||
      text.back() == ':') {
    return false;
  }
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20) return false;
  }
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static constexpr std::array<std::string_view, 12> reserved{"true", "false", "yes", "no", "on", "off",
                                                             "y",    "n",     "null", "~", ".inf", ".nan"};
  for (std::string_view r : reserved) {
    if (lower == r) return false;
  }
  // Anything that starts like a number (or a date) could read back as one.
  if (std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '+' || text.front() == '.') {
    return false;
  }
  return true;
}

std::string scalar(std::string_view text) {
  if (plain_safe(text)) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

// Appends YAML lines at one indentation.
class Writer {
 public:
  Writer(std::string& out, WallClock base) : out_(out), base_(base) {}

  void line(int indent, std::string_view text) {
    out_.append(static_cast<std::size_t>(indent), ' ');
    out_ += text;
    out_ += '\n';
  }
  void field(int indent, std::string_view key, std::string_view value) {
    line(indent, fmt::format("{}: {}", key, value));
  }
  void number(int indent, std::string_view key, std::int64_t value) { field(indent, key, std::to_string(value)); }
  // metav1.Time is written as an RFC 3339 string, which yaml.v2 quotes since it would read back as a timestamp.
  void times(int indent, const ConditionTimes& t) {
    if (t.last_probe) field(indent, "lastProbeTime", "\"" + format_rfc3339(base_, *t.last_probe) + "\"");
    if (t.last_transition) {
      field(indent, "lastTransitionTime", "\"" + format_rfc3339(base_, *t.last_transition) + "\"");
    }
  }

  // NodeCount, omitempty: a struct of zeros is left out, at every level.
  void counts(int indent, const NodeCounts& c) {
    bool registered = c.registered || c.ready || c.not_started || c.being_deleted || c.unready || c.resource_unready;
    if (!registered && !c.long_unregistered && !c.unregistered) return;
    line(indent, "nodeCounts:");
    if (registered) {
      line(indent + 2, "registered:");
      number(indent + 4, "total", c.registered);
      number(indent + 4, "ready", c.ready);
      number(indent + 4, "notStarted", c.not_started);
      if (c.being_deleted) number(indent + 4, "beingDeleted", c.being_deleted);
      if (c.unready || c.resource_unready) {
        line(indent + 4, "unready:");
        number(indent + 6, "total", c.unready);
        number(indent + 6, "resourceUnready", c.resource_unready);
      }
    }
    number(indent + 2, "longUnregistered", c.long_unregistered);
    number(indent + 2, "unregistered", c.unregistered);
  }

  void scale_up(int indent, const ScaleUpCondition& s) {
    line(indent, "scaleUp:");
    field(indent + 2, "status", to_string(s.status));
    if (!s.backoff_error_code.empty() || !s.backoff_error_message.empty()) {
      line(indent + 2, "backoffInfo:");
      if (!s.backoff_error_code.empty()) field(indent + 4, "errorCode", scalar(s.backoff_error_code));
      if (!s.backoff_error_message.empty()) field(indent + 4, "errorMessage", scalar(s.backoff_error_message));
    }
    times(indent + 2, s.times);
  }

  void scale_down(int indent, const ScaleDownCondition& s) {
    line(indent, "scaleDown:");
    field(indent + 2, "status", to_string(s.status));
    if (s.candidates) number(indent + 2, "candidates", s.candidates);
    times(indent + 2, s.times);
  }

 private:
  std::string& out_;
  WallClock base_;
};

}  // namespace

std::string_view to_string(HealthConditionStatus status) {
  return status == HealthConditionStatus::Healthy ? "Healthy" : "Unhealthy";
}

std::string_view to_string(ScaleUpConditionStatus status) {
  switch (status) {
    case ScaleUpConditionStatus::Needed: return "Needed";
    case ScaleUpConditionStatus::NotNeeded: return "NotNeeded";
    case ScaleUpConditionStatus::InProgress: return "InProgress";
    case ScaleUpConditionStatus::NoActivity: return "NoActivity";
    case ScaleUpConditionStatus::Backoff: return "Backoff";
  }
  return "NoActivity";
}

std::string_view to_string(ScaleDownConditionStatus status) {
  return status == ScaleDownConditionStatus::CandidatesPresent ? "CandidatesPresent" : "NoCandidates";
}

std::string_view to_string(AutoscalerState state) {
  return state == AutoscalerState::Running ? "Running" : "Initializing";
}

std::string format_rfc3339(WallClock base, Instant at) {
  Civil c = civil(base, at);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{}Z", c.year, c.month, c.day, c.hours, c.minutes, c.seconds,
                     c.fraction);
}

std::string format_last_updated(WallClock base, Instant at) {
  Civil c = civil(base, at);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}{} +0000 UTC", c.year, c.month, c.day, c.hours, c.minutes,
                     c.seconds, c.fraction);
}

std::string render_status(const ClusterAutoscalerStatus& status, WallClock base) {
  std::string out;
  Writer w(out, base);
  // Go's time.String() form does not read back as a YAML timestamp, so yaml.v2 leaves it unquoted.
  w.field(0, "time", format_last_updated(base, status.time));
  w.field(0, "autoscalerStatus", to_string(status.state));
  if (!status.message.empty()) w.field(0, "message", scalar(status.message));
  w.line(0, "clusterWide:");
  w.line(2, "health:");
  w.field(4, "status", to_string(status.health.status));
  w.counts(4, status.health.counts);
  w.times(4, status.health.times);
  w.line(2, "scaleUp:");
  w.field(4, "status", to_string(status.scale_up.status));
  w.times(4, status.scale_up.times);
  w.scale_down(2, status.scale_down);
  if (status.node_groups.empty()) return out;
  w.line(0, "nodeGroups:");
  for (const NodeGroupStatus& g : status.node_groups) {
    // yaml.v2 writes a list under a key without indenting it: "- name: ..." at the key's column.
    w.field(0, "- name", scalar(g.name));
    w.line(2, "health:");
    w.field(4, "status", to_string(g.health.status));
    w.counts(4, g.health.counts);
    w.number(4, "cloudProviderTarget", g.cloud_provider_target);
    w.number(4, "minSize", g.min_size);
    w.number(4, "maxSize", g.max_size);
    w.times(4, g.health.times);
    w.scale_up(2, g.scale_up);
    w.scale_down(2, g.scale_down);
  }
  return out;
}

}  // namespace scalewright::nodegroups
