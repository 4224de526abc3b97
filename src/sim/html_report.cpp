#include "sim/html_report.h"

#include <ostream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "api/quantity.h"
#include "sim/explain.h"

namespace scalewright::sim {
namespace {

using nlohmann::json;

// A metric reading as a number: "188%" is 188, "12500m" 12.5, "3" 3; nullopt when it is not a quantity.
std::optional<double> number(std::string text) {
  if (!text.empty() && text.back() == '%') text.pop_back();
  Result<Quantity> q = Quantity::parse(text);
  if (!q) return std::nullopt;
  std::optional<std::int64_t> milli = q->exact_milli_value();
  if (!milli) return std::nullopt;
  return static_cast<double>(*milli) / 1000;
}

json run_data(const SimulationReport& run, const std::string& name) {
  json data;
  data["name"] = name;
  data["scenario"] = run.scenario;
  data["seed"] = run.seed;
  data["duration_s"] = seconds(run.duration);
  std::ostringstream summary;
  print_summary(run, summary);
  data["summary"] = summary.str();
  json cost = json::array();
  for (const CostLine& line : run.summary.cost_lines) {
    cost.push_back({{"owner", line.nodepool.empty() ? "(manifests)" : line.nodepool},
                    {"instance_type", line.instance_type},
                    {"capacity_type", line.capacity_type},
                    {"nodes", line.nodes},
                    {"node_hours", line.node_hours},
                    {"cost", line.cost}});
  }
  data["cost"] = cost;
  data["total_cost"] = run.summary.total_cost;
  data["p50_wait_s"] = seconds(run.summary.pod_wait.p50);
  data["p99_wait_s"] = seconds(run.summary.pod_wait.p99);
  data["max_wait_s"] = seconds(run.summary.pod_wait.max);
  data["evictions"] = run.summary.evictions;

  // Series, one value per sample; nodes and autoscalers by name, 0 or null where one is absent at that time.
  std::set<std::string> node_keys, autoscalers;
  for (const Sample& s : run.samples) {
    for (const auto& [key, count] : s.nodes) node_keys.insert(key);
    for (const controllers::AutoscalerReading& a : s.autoscalers) autoscalers.insert(a.name);
  }
  json t = json::array(), cost_per_hour = json::array(), pending = json::array(), wait = json::array(),
       cpu = json::array(), memory = json::array();
  json nodes = json::object(), scaling = json::object();
  for (const std::string& key : node_keys) nodes[key] = json::array();
  for (const std::string& name_of : autoscalers) {
    scaling[name_of] = {{"replicas", json::array()}, {"current", json::array()}, {"target", json::array()},
                        {"metric", ""}};
  }
  for (const Sample& s : run.samples) {
    t.push_back(seconds(s.at) / 60);
    cost_per_hour.push_back(s.cost_per_hour);
    pending.push_back(s.pending_pods);
    wait.push_back(seconds(s.longest_wait));
    cpu.push_back(100 * s.cpu_allocation);
    memory.push_back(100 * s.memory_allocation);
    for (const std::string& key : node_keys) {
      auto it = s.nodes.find(key);
      nodes[key].push_back(it == s.nodes.end() ? 0 : it->second);
    }
    std::set<std::string> seen;
    for (const controllers::AutoscalerReading& a : s.autoscalers) {
      json& series = scaling[a.name];
      series["replicas"].push_back(a.replicas);
      std::optional<double> current, target;
      if (!a.metrics.empty()) {  // the first metric, as kubectl get hpa shows it
        series["metric"] = a.metrics.front().name;
        current = number(a.metrics.front().current);
        target = number(a.metrics.front().target);
      }
      series["current"].push_back(current ? json(*current) : json());
      series["target"].push_back(target ? json(*target) : json());
      seen.insert(a.name);
    }
    for (const std::string& absent : autoscalers) {
      if (seen.contains(absent)) continue;
      for (const char* field : {"replicas", "current", "target"}) scaling[absent][field].push_back(nullptr);
    }
  }
  data["series"] = {{"minutes", t},   {"cost_per_hour", cost_per_hour}, {"pending", pending}, {"wait_s", wait},
                    {"cpu", cpu},     {"memory", memory},               {"nodes", nodes},     {"autoscalers", scaling}};
  json timeline = json::array();
  for (const TimelineEntry& e : run.timeline) timeline.push_back({format_time(e.at), e.kind, e.message});
  data["timeline"] = timeline;
  // Why, object by object: the Events `scalewright explain` reads, each object named as it heads its explanation.
  json events = json::array();
  for (const ObjectEventAt& e : run.events) {
    events.push_back({format_time(e.at), ObjectRef{e.event.kind, e.event.key}.to_string(), e.event.reason,
                      e.event.message});
  }
  data["events"] = events;
  return data;
}

// Text for inside a <script> element: "</" would end it early ("<\/" means the same in JS strings and JSON).
std::string script_safe(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') {
      out += "<\\/";
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// The page's own script: charts from the data, the tables, the timeline's filter, and a self-check a test reads
// (how many charts drew something, and the first script error).
constexpr const char* kPageScript = R"js(
window.addEventListener('error', e => { document.body.dataset.scriptError = String(e.message); });
const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22',
                 '#17becf'];
let colorIndex = 0;
const nextColor = () => palette[colorIndex++ % palette.length];
const many = runs.length > 1;
const label = (run, what) => many ? run.name + ': ' + what : what;
const points = (run, values) => values.map((y, i) => ({x: run.series.minutes[i], y: y}));

function chart(title, yTitle, datasets, extraScales) {
  const box = document.createElement('div');
  box.className = 'chart';
  const heading = document.createElement('h3');
  heading.textContent = title;
  const canvas = document.createElement('canvas');
  box.append(heading, canvas);
  document.getElementById('charts').append(box);
  const scales = {x: {type: 'linear', title: {display: true, text: 'minutes'}},
                  y: {beginAtZero: true, title: {display: true, text: yTitle}}};
  Object.assign(scales, extraScales || {});
  new Chart(canvas, {type: 'line', data: {datasets: datasets},
                     options: {animation: false, parsing: true, normalized: true, spanGaps: true,
                               elements: {point: {radius: 0}}, interaction: {mode: 'nearest', intersect: false},
                               scales: scales, plugins: {legend: {position: 'bottom'}}}});
}
const line = (run, what, values, extra) =>
    Object.assign({label: label(run, what), data: points(run, values), borderColor: nextColor(), stepped: true,
                   borderWidth: 1.5}, extra || {});

chart('Nodes by owner and capacity type', 'nodes',
      runs.flatMap(run => Object.entries(run.series.nodes).map(([key, values]) => line(run, key, values))));
chart('Cost', '$/h', runs.map(run => line(run, '$/h', run.series.cost_per_hour)));
chart('Pending pods and their wait', 'pods',
      runs.flatMap(run => [line(run, 'pending pods', run.series.pending),
                           line(run, 'longest wait (s)', run.series.wait_s, {yAxisID: 'wait', borderDash: [4, 3]})]),
      {wait: {position: 'right', beginAtZero: true, title: {display: true, text: 'seconds'}}});
chart('Allocation of Ready nodes', '% requested',
      runs.flatMap(run => [line(run, 'cpu', run.series.cpu), line(run, 'memory', run.series.memory)]));
const scalers = [...new Set(runs.flatMap(run => Object.keys(run.series.autoscalers)))];
for (const name of scalers) {
  const datasets = [];
  for (const run of runs) {
    const s = run.series.autoscalers[name];
    if (!s) continue;
    datasets.push(line(run, 'replicas', s.replicas));
    if (s.metric) {
      datasets.push(line(run, s.metric + ' current', s.current, {yAxisID: 'metric'}));
      datasets.push(line(run, s.metric + ' target', s.target, {yAxisID: 'metric', borderDash: [6, 4]}));
    }
  }
  chart(name + ': replicas against its metric and target', 'replicas', datasets,
        {metric: {position: 'right', beginAtZero: true, title: {display: true, text: 'metric'}}});
}

// Cost and wait side by side, then each run's cost table.
const money = v => '$' + v.toFixed(2);
const cell = (row, text, tag) => { const c = document.createElement(tag || 'td'); c.textContent = text; row.append(c); };
const side = document.getElementById('side-by-side');
for (const [title, value] of [['total cost', r => money(r.total_cost)], ['pod wait p50 (s)', r => r.p50_wait_s.toFixed(1)],
                              ['pod wait p99 (s)', r => r.p99_wait_s.toFixed(1)], ['pod wait max (s)', r => r.max_wait_s.toFixed(1)],
                              ['pods evicted', r => String(r.evictions)]]) {
  const row = side.insertRow();
  cell(row, title, 'th');
  for (const run of runs) cell(row, value(run));
}
const costs = document.getElementById('costs');
for (const run of runs) {
  const block = document.createElement('div');
  const heading = document.createElement('h3');
  heading.textContent = run.name;
  const pre = document.createElement('pre');
  pre.textContent = run.summary;
  const table = document.createElement('table');
  const head = table.insertRow();
  for (const h of ['NodePool / group', 'instance type', 'capacity', 'nodes', 'node-hours', 'cost']) cell(head, h, 'th');
  for (const c of run.cost) {
    const row = table.insertRow();
    for (const v of [c.owner, c.instance_type, c.capacity_type, String(c.nodes), c.node_hours.toFixed(2), money(c.cost)]) cell(row, v);
  }
  block.append(heading, table, pre);
  costs.append(block);
}

// The timeline: filtered by run, kind and text (an object's name), the first rows that match shown. The Events
// below it follow the same run and text.
const MAX_ROWS = 2000;
const runSelect = document.getElementById('run'), kindSelect = document.getElementById('kind'),
      text = document.getElementById('text'), body = document.getElementById('timeline-rows'),
      shown = document.getElementById('shown'), eventRows = document.getElementById('event-rows'),
      eventsShown = document.getElementById('events-shown');
runs.forEach((run, i) => runSelect.add(new Option(run.name, i)));
function fillKinds() {
  const kinds = [...new Set(runs[runSelect.value].timeline.map(e => e[1]))].sort();
  kindSelect.length = 0;
  kindSelect.add(new Option('every kind', ''));
  for (const k of kinds) kindSelect.add(new Option(k, k));
}
// Fills `tbody` with the rows that `keep` accepts, the first MAX_ROWS of them; says how many in `count`.
function fill(tbody, count, rows, keep, noun) {
  tbody.textContent = '';
  let matched = 0;
  for (const fields of rows) {
    if (!keep(fields) || ++matched > MAX_ROWS) continue;
    const row = tbody.insertRow();
    for (const field of fields) cell(row, field);
  }
  count.textContent = matched > MAX_ROWS ? `the first ${MAX_ROWS} of ${matched} ${noun} that match`
                                         : `${matched} of ${rows.length} ${noun}`;
}
function filter() {
  const run = runs[runSelect.value], kind = kindSelect.value, needle = text.value.toLowerCase();
  const has = s => !needle || s.toLowerCase().includes(needle);
  fill(body, shown, run.timeline, ([, k, message]) => (!kind || k === kind) && has(message), 'lines');
  fill(eventRows, eventsShown, run.events, ([, object, , message]) => has(object) || has(message), 'Events');
}
runSelect.onchange = () => { fillKinds(); filter(); };
kindSelect.onchange = filter;
text.oninput = filter;
fillKinds();
filter();

// Self-check: a chart drew when its canvas has a pixel that is not blank.
let drawn = 0;
const canvases = document.querySelectorAll('#charts canvas');
for (const canvas of canvases) {
  const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  for (let i = 3; i < pixels.length; i += 4) { if (pixels[i] !== 0) { drawn++; break; } }
}
document.body.dataset.charts = String(canvases.length);
document.body.dataset.drawn = String(drawn);
)js";

constexpr const char* kStyle = R"css(
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1400px; padding: 0 1em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; } h3 { font-size: 0.95em; margin: 0.3em 0; }
#charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); gap: 1em; }
.chart { border: 1px solid #ddd; border-radius: 4px; padding: 0.5em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.4em 0; }
th, td { border: 1px solid #ddd; padding: 2px 8px; text-align: left; vertical-align: top; }
pre { font-size: 0.8em; background: #f6f6f6; padding: 0.6em; overflow-x: auto; }
#timeline td:first-child, #events td:first-child { white-space: nowrap; font-variant-numeric: tabular-nums; }
.filters { display: flex; gap: 0.6em; align-items: center; margin: 0.4em 0; }
)css";

}  // namespace

void write_html_report(const std::vector<SimulationReport>& runs, const std::vector<std::string>& names,
                       std::ostream& out) {
  json data = json::array();
  for (std::size_t i = 0; i < runs.size(); ++i) data.push_back(run_data(runs[i], names[i]));
  std::string title = "Scalewright: " + (runs.empty() ? std::string() : runs.front().scenario);
  if (runs.size() > 1) {
    title = "Scalewright: " + std::to_string(runs.size()) + " runs compared:";
    for (std::size_t i = 0; i < names.size(); ++i) title += (i == 0 ? " " : ", ") + names[i];
  }
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << html_escape(title)
      << "</title>\n<style>" << kStyle << "</style>\n<script>" << script_safe(chartjs_source())
      << "</script>\n</head>\n<body>\n<h1>" << html_escape(title) << "</h1>\n";
  if (!runs.empty()) {
    out << "<p>seed " << runs.front().seed << ", " << html_escape(format_duration(runs.front().duration))
        << " simulated; one sample every " << html_escape(format_duration(runs.front().sample_interval)) << ".</p>\n";
  }
  out << "<h2>Over time</h2>\n<div id=\"charts\"></div>\n"
      << "<h2>Cost and pod wait</h2>\n<table id=\"side-by-side\"><tr><th></th>";
  for (const std::string& name : names) out << "<th>" << html_escape(name) << "</th>";
  out << "</tr></table>\n<div id=\"costs\"></div>\n"
      << "<h2>Timeline</h2>\n<div class=\"filters\"><label>run <select id=\"run\"></select></label>"
      << "<label>kind <select id=\"kind\"></select></label>"
      << "<label>object or text <input id=\"text\" type=\"search\" placeholder=\"pod, node or NodeClaim name\"></label>"
      << "<span id=\"shown\"></span></div>\n"
      << "<table id=\"timeline\"><thead><tr><th>time</th><th>kind</th><th>what happened, and why</th></tr></thead>"
      << "<tbody id=\"timeline-rows\"></tbody></table>\n"
      << "<h2>Why: the Events on each object</h2>\n<p>What each controller decided about an object and why, with its "
         "numbers: the messages <code>scalewright explain</code> reads and <code>scalewright run</code> records as "
         "Kubernetes Events. They follow the run and the object or text chosen above. <span id=\"events-shown\">"
         "</span></p>\n"
      << "<table id=\"events\"><thead><tr><th>time</th><th>object</th><th>reason</th><th>message</th></tr></thead>"
      << "<tbody id=\"event-rows\"></tbody></table>\n"
      << "<script>\nconst runs = " << script_safe(data.dump()) << ";\n"
      << script_safe(kPageScript) << "</script>\n</body>\n</html>\n";
}

}  // namespace scalewright::sim
