#!/usr/bin/env bash
# Builds and runs every benchmark; their figures go in BENCHMARKS.md. Arguments go to each Google Benchmark program
# (e.g. --benchmark_filter=BM_Provision/50000, --benchmark_format=json).
#   scripts/bench.sh --guard    only the scaling guard (under 3 minutes): each series at a small and a large size,
#                               the ratio of their times against linear; exits 1 when one grew past its bound
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSCALEWRIGHT_SANITIZE=OFF -DSCALEWRIGHT_BUILD_BENCH=ON >/dev/null
cmake --build build --target bench
if [ "${1:-}" = "--guard" ]; then
  exec scripts/scaling-guard.py build
fi
for program in scheduling_bench provisioning_bench packing_bench simulation_bench workloads_bench scale_down_bench nodegroups_bench manifest_bench \
               consolidation_bench; do
  build/bench/"$program" "$@"
done
# Issue [7]: plain programs with flags of their own (not Google Benchmark's), so they get no arguments here.
build/bench/cluster_state_memory_bench
build/bench/account_catalog_bench  # the AWS catalog from the account (moto); skips without moto
if [ -x ../shared/k8s/control-plane ]; then
  build/bench/real_cluster_bench  # a real control plane, `scalewright run` as a process: about 5 minutes
  build/bench/clusterapi_bench    # 100 MachineDeployments on a real control plane: about 4 minutes
else
  echo "real_cluster_bench skipped: ../shared/k8s/control-plane is absent" >&2
fi
