#!/usr/bin/env bash
# Rewrites tests/golden/examples/*.json, the JSON report of every example under examples/, from the binary in
# build/. The golden files pin what the simulator reports byte for byte (tests/cli/examples_golden_test.cpp):
# regenerate them only for a change meant to alter a report, and say in the commit why the reports changed.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/src/cli/scalewright
out=tests/golden/examples
mkdir -p "$out"
# The golden file is named after the example's file (check's after its folder).
for example in inflate/inflate nginx/nginx dedicated-databases/dedicated-databases php-apache/php-apache \
               podinfo/podinfo node-groups/nginx-node-group node-groups/nginx-max-size check/cluster \
               scale-in/scale-in drift/drift expiry/expiry spot-interruption/spot-interruption; do
  name=$(basename "$example")
  [ "$name" = cluster ] && name=check
  "$bin" simulate "examples/$example.yaml" --quiet --output "$out/$name.json" >/dev/null 2>&1
done
"$bin" simulate examples/clusterapi --quiet --output "$out/clusterapi.json" >/dev/null 2>&1
"$bin" simulate examples/compare-nginx/workload.yaml \
  --compare examples/compare-nginx/node-groups.yaml examples/compare-nginx/nodepools.yaml \
  --quiet --output "$out/compare-nginx.json" >/dev/null 2>&1
"$bin" simulate examples/compare-consolidation/workload.yaml \
  --compare examples/compare-consolidation/when-empty.yaml examples/compare-consolidation/when-underutilized.yaml \
  examples/compare-consolidation/balanced.yaml examples/compare-consolidation/cluster-autoscaler.yaml --quiet --output "$out/compare-consolidation.json" >/dev/null 2>&1
