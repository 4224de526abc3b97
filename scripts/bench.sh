#!/usr/bin/env bash
# Builds and runs every benchmark; their figures go in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target bench
build/bench/scheduling_bench "$@"
