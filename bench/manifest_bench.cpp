// Manifest loading at the size of issue [5]: 156,101 Deployments, about 50 MB of multi-document YAML, as a large
// GitOps repository rendered into one file would hold them. Goal: decoded in under 5 s, with a peak RSS under
// 10x the input's size.
// - BM_DecodeManifests50MB: decode_manifests over the text already in memory (the parse and decode cost alone).
// - BM_LoadManifestFile50MB: load_manifest_file over the same text written to a temporary file.
// - BM_ReadDocuments50MB: the parse alone (libyaml events built into one node tree per document), no decoding.
// Counters: input_MiB, peak_RSS_MiB (high-water mark during the run, minus nothing: it includes the input text),
// and peak_over_input (that peak divided by the input's size).
// `manifest_bench --write-yaml=FILE` writes the generated text to FILE and exits, for timing `scalewright check`.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

#include "manifest/manifest.h"
#include "manifest/yaml_stream.h"
#include "process_memory.h"

namespace scalewright::bench {
namespace {

constexpr int kDeployments = 156'101;

// One realistic Deployment: labels and a selector, one or two containers with requests (and limits on some),
// mixing block and flow style as hand-written and generated manifests do. About 360 bytes.
void append_deployment(std::string& out, int i) {
  const std::string name = "svc-" + std::to_string(i);
  const char* tier = (i % 3 == 0) ? "web" : (i % 3 == 1) ? "api" : "worker";
  out += "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name;
  out += "\nspec:\n  replicas: " + std::to_string(1 + i % 4) + "\n  selector:\n    matchLabels: {app: " + name;
  out += "}\n  template:\n    metadata:\n      labels: {app: " + name + ", tier: " + tier + "}\n    spec:\n";
  out += "      containers:\n      - name: app\n        image: nginx:1." + std::to_string(20 + i % 6);
  out += "\n        resources:\n          requests: {cpu: " + std::to_string(100 + (i % 8) * 50) +
         "m, memory: " + std::to_string(128 << (i % 4)) + "Mi}\n";
  if (i % 10 == 0) {
    out += "          limits: {cpu: \"1\", memory: 1Gi}\n      - name: envoy\n"
           "        image: envoyproxy/envoy:v1.28\n        resources: {requests: {cpu: 50m, memory: 64Mi}}\n";
  }
}

const std::string& manifests_text() {
  static const std::string text = [] {
    std::string out;
    out.reserve(56u << 20);
    for (int i = 0; i < kDeployments; ++i) append_deployment(out, i);
    return out;
  }();
  return text;
}

void report(benchmark::State& state, double peak_mib) {
  double input_mib = static_cast<double>(manifests_text().size()) / (1024.0 * 1024.0);
  state.counters["input_MiB"] = input_mib;
  state.counters["peak_RSS_MiB"] = peak_mib;
  state.counters["peak_over_input"] = peak_mib / input_mib;
}

void BM_DecodeManifests50MB(benchmark::State& state) {
  const std::string& text = manifests_text();
  double peak = 0;
  for (auto _ : state) {
    reset_peak_rss();
    Result<ManifestSet> set = decode_manifests(text, "bench.yaml");
    if (!set) state.SkipWithError(set.error().message.c_str());
    if (set && set->workloads.size() != static_cast<std::size_t>(kDeployments)) state.SkipWithError("count");
    peak = std::max(peak, peak_rss_since_reset_mib());
    benchmark::DoNotOptimize(set);
  }
  report(state, peak);
}
BENCHMARK(BM_DecodeManifests50MB)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_LoadManifestFile50MB(benchmark::State& state) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "scalewright-manifest-bench.yaml";
  {
    std::ofstream out(path, std::ios::binary);
    out << manifests_text();
  }
  double peak = 0;
  for (auto _ : state) {
    reset_peak_rss();
    Result<ManifestSet> set = load_manifest_file(path);
    if (!set) state.SkipWithError(set.error().message.c_str());
    peak = std::max(peak, peak_rss_since_reset_mib());
    benchmark::DoNotOptimize(set);
  }
  std::filesystem::remove(path);
  report(state, peak);
}
BENCHMARK(BM_LoadManifestFile50MB)->Unit(benchmark::kMillisecond)->Iterations(1);

// The parse alone: every document read and built as a node tree, then dropped, nothing decoded.
void BM_ReadDocuments50MB(benchmark::State& state) {
  const std::string& text = manifests_text();
  double peak = 0;
  for (auto _ : state) {
    reset_peak_rss();
    manifest::YamlStream stream(text, "bench.yaml", ManifestLimits{}.max_depth);
    int documents = 0;
    for (;;) {
      Result<std::optional<manifest::YamlDocument>> document = stream.next();
      if (!document) state.SkipWithError(document.error().message.c_str());
      if (!document || !*document) break;
      ++documents;
    }
    if (documents != kDeployments) state.SkipWithError("count");
    peak = std::max(peak, peak_rss_since_reset_mib());
  }
  report(state, peak);
}
BENCHMARK(BM_ReadDocuments50MB)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace scalewright::bench

int main(int argc, char** argv) {
  constexpr std::string_view kWrite = "--write-yaml=";
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.substr(0, kWrite.size()) == kWrite) {
      std::ofstream out(std::string(arg.substr(kWrite.size())), std::ios::binary);
      out << scalewright::bench::manifests_text();
      std::cout << scalewright::bench::manifests_text().size() << " bytes, " << scalewright::bench::kDeployments
                << " Deployments\n";
      return out ? 0 : 1;
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
