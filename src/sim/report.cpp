#include "sim/report.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <ostream>

namespace scalewright::sim {


Duration quantile(std::vector<Duration> values, double q) {
  if (values.empty()) return Duration(0);
  std::sort(values.begin(), values.end());
  // Nearest rank: the smallest value with at least q of the values at or below it.
  auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

void print_timeline_entry(const TimelineEntry& entry, std::ostream& out) {
  out << fmt::format("{:<12} {}\n", format_time(entry.at), entry.message);
}

void print_timeline(const SimulationReport& report, std::ostream& out) {
  for (const TimelineEntry& e : report.timeline) print_timeline_entry(e, out);
}

void print_requested_statuses(const SimulationReport& report, std::ostream& out) {
  for (const SimulationReport::StatusAt& s : report.cluster_autoscaler_status_at) {
    out << "\ncluster-autoscaler-status (kube-system ConfigMap) at " << format_time(s.at) << ":\n" << s.status;
  }
}

void print_summary(const SimulationReport& report, std::ostream& out) {
  const Summary& s = report.summary;
  out << fmt::format("\nScenario {} (seed {}, {} simulated)\n", report.scenario, report.seed,
                     format_duration(report.duration));
  // NODES RUN, in every row and the total alike: the nodes that ran at some time of the run (there at the start,
  // or launched), each counted once. Launches alone are on the `nodes:` line below.
  out << fmt::format("{:<16} {:<20} {:<10} {:>9} {:>11} {:>10}\n", "NODEPOOL", "INSTANCE TYPE", "CAPACITY",
                     "NODES RUN", "NODE-HOURS", "COST");
  std::int64_t nodes_run = 0;
  for (const CostLine& line : s.cost_lines) {
    out << fmt::format("{:<16} {:<20} {:<10} {:>9} {:>11.2f} {:>10}\n",
                       line.nodepool.empty() ? "(static)" : line.nodepool, line.instance_type, line.capacity_type,
                       line.nodes, line.node_hours, fmt::format("${:.4f}", line.cost));
    nodes_run += line.nodes;
  }
  out << fmt::format("{:<16} {:<20} {:<10} {:>9} {:>11.2f} {:>10}\n", "total", "", "", nodes_run,
                     s.total_node_hours, fmt::format("${:.4f}", s.total_cost));
  if (!report.stopped.empty()) {
    out << fmt::format("run stopped at {}: {}\n", format_time(Instant(report.duration)), report.stopped);
  }
  out << fmt::format("pods bound: {}   pending at end: {}   evicted: {}   wait p50 {}  p99 {}  max {}\n",
                     s.pod_wait.pods_bound, s.pod_wait.pods_pending_at_end, s.evictions, format_duration(s.pod_wait.p50),
                     format_duration(s.pod_wait.p99), format_duration(s.pod_wait.max));
  out << fmt::format("nodes: peak {}   at end {}   launched {}   insufficient-capacity errors {}   spot interruptions {}\n",
                     s.peak_nodes, s.nodes_at_end, s.launches, s.insufficient_capacity_errors, s.spot_interruptions);
  out << fmt::format("mean allocation of Ready nodes: cpu {:.1f}%   memory {:.1f}%\n", 100 * s.mean_cpu_allocation,
                     100 * s.mean_memory_allocation);
  print_requested_statuses(report, out);
  if (!report.cluster_autoscaler_status.empty()) {
    out << "\ncluster-autoscaler-status (kube-system ConfigMap) at the end:\n" << report.cluster_autoscaler_status;
  }
  if (s.autoscalers.empty()) return;
  out << fmt::format("\n{:<28} {:<36} {:>8} {:>16} {:>13} {:>6}\n", "AUTOSCALER", "TARGET", "REPLICAS",
                     "REPLICA-SECONDS", "ABOVE TARGET", "SCALES");
  for (const AutoscalerSummary& a : s.autoscalers) {
    out << fmt::format("{:<28} {:<36} {:>8} {:>16.0f} {:>13} {:>6}\n", a.name, a.target,
                       fmt::format("{}-{}", a.min_replicas, a.max_replicas), a.replica_seconds,
                       format_duration(a.above_target), fmt::format("{}/{}", a.scale_ups, a.scale_downs));
  }
  out << fmt::format("requests dropped (no ready pod, or pods at their cpu limit): {:.0f}\n", s.dropped_requests);
}

void print_comparison(const std::vector<SimulationReport>& reports, const std::vector<std::string>& names,
                      std::ostream& out) {
  auto row = [&](std::string_view label, auto value) {
    out << fmt::format("{:<28}", label);
    for (const SimulationReport& r : reports) out << fmt::format(" {:>26}", value(r));
    out << "\n";
  };
  row("", [&, i = std::size_t{0}](const SimulationReport& r) mutable {
    std::string name = i < names.size() ? names[i] : r.scenario;
    ++i;
    return name.size() > 26 ? "..." + name.substr(name.size() - 23) : name;
  });
  row("scenario", [](const SimulationReport& r) { return r.scenario; });
  row("cost", [](const SimulationReport& r) { return fmt::format("${:.4f}", r.summary.total_cost); });
  row("node-hours", [](const SimulationReport& r) { return fmt::format("{:.2f}", r.summary.total_node_hours); });
  row("nodes launched", [](const SimulationReport& r) { return std::to_string(r.summary.launches); });
  row("nodes at peak / at end", [](const SimulationReport& r) {
    return fmt::format("{} / {}", r.summary.peak_nodes, r.summary.nodes_at_end);
  });
  row("pods bound / pending at end", [](const SimulationReport& r) {
    return fmt::format("{} / {}", r.summary.pod_wait.pods_bound, r.summary.pod_wait.pods_pending_at_end);
  });
  row("pods evicted", [](const SimulationReport& r) { return std::to_string(r.summary.evictions); });
  row("pod wait p50", [](const SimulationReport& r) { return format_duration(r.summary.pod_wait.p50); });
  row("pod wait p99", [](const SimulationReport& r) { return format_duration(r.summary.pod_wait.p99); });
  row("pod wait max", [](const SimulationReport& r) { return format_duration(r.summary.pod_wait.max); });
  row("mean cpu allocation",
      [](const SimulationReport& r) { return fmt::format("{:.1f}%", 100 * r.summary.mean_cpu_allocation); });
}

nlohmann::json to_json(const SimulationReport& report) {
  const Summary& s = report.summary;
  nlohmann::json timeline = nlohmann::json::array();
  for (const TimelineEntry& e : report.timeline) {
    timeline.push_back({{"at_seconds", seconds(e.at)}, {"kind", e.kind}, {"message", e.message}});
  }
  nlohmann::json cost = nlohmann::json::array();
  for (const CostLine& line : s.cost_lines) {
    cost.push_back({{"nodepool", line.nodepool},
                    {"instance_type", line.instance_type},
                    {"capacity_type", line.capacity_type},
                    {"nodes", line.nodes},
                    {"node_hours", line.node_hours},
                    {"cost_usd", line.cost}});
  }
  nlohmann::json autoscalers = nlohmann::json::array();
  for (const AutoscalerSummary& a : s.autoscalers) {
    autoscalers.push_back({{"name", a.name},
                           {"target", a.target},
                           {"min_replicas", a.min_replicas},
                           {"max_replicas", a.max_replicas},
                           {"replica_seconds", a.replica_seconds},
                           {"above_target_seconds", seconds(a.above_target)},
                           {"scale_ups", a.scale_ups},
                           {"scale_downs", a.scale_downs}});
  }
  nlohmann::json pods = nlohmann::json::array();
  for (const PodOutcome& p : report.pods) {
    pods.push_back({{"pod", p.pod},
                    {"node", p.node.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.node)},
                    {"nodepool", p.nodepool},
                    {"wait_seconds", p.wait ? nlohmann::json(seconds(*p.wait)) : nlohmann::json(nullptr)},
                    {"created_seconds", seconds(p.created)}});
  }
  nlohmann::json events = nlohmann::json::array();
  for (const ObjectEventAt& e : report.events) {
    events.push_back({{"at_seconds", seconds(e.at)},
                      {"kind", e.event.kind},
                      {"name", e.event.key},
                      {"type", e.event.type},
                      {"reason", e.event.reason},
                      {"message", e.event.message}});
  }
  nlohmann::json statuses = nlohmann::json::array();
  for (const SimulationReport::StatusAt& s : report.cluster_autoscaler_status_at) {
    statuses.push_back({{"at_seconds", seconds(s.at)}, {"status", s.status}});
  }
  return {{"scenario", report.scenario},
          {"cluster_autoscaler_status", report.cluster_autoscaler_status},
          {"cluster_autoscaler_status_at", statuses},
          {"seed", report.seed},
          {"duration_seconds", seconds(report.duration)},
          {"timeline", timeline},
          {"pods", pods},
          {"events", events},
          {"summary",
           {{"cost", cost},
            {"total_cost_usd", s.total_cost},
            {"total_node_hours", s.total_node_hours},
            {"stopped", report.stopped},
            {"pod_wait",
             {{"pods_bound", s.pod_wait.pods_bound},
              {"pods_pending_at_end", s.pod_wait.pods_pending_at_end},
              {"p50_seconds", seconds(s.pod_wait.p50)},
              {"p99_seconds", seconds(s.pod_wait.p99)},
              {"max_seconds", seconds(s.pod_wait.max)}}},
            {"peak_nodes", s.peak_nodes},
            {"nodes_at_end", s.nodes_at_end},
            {"launches", s.launches},
            {"insufficient_capacity_errors", s.insufficient_capacity_errors},
            {"spot_interruptions", s.spot_interruptions},
            {"evictions", s.evictions},
            {"mean_cpu_allocation", s.mean_cpu_allocation},
            {"mean_memory_allocation", s.mean_memory_allocation},
            {"autoscalers", autoscalers},
            {"dropped_requests", s.dropped_requests}}}};
}

}  // namespace scalewright::sim
