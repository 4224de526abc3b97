#!/usr/bin/env bash
# Installs dependencies, builds, and runs the main job: `scalewright check` on the example cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSCALEWRIGHT_BUILD_TESTS=OFF -DSCALEWRIGHT_BUILD_BENCH=OFF >/dev/null
cmake --build build --target scalewright
build/src/cli/scalewright check examples/check/cluster.yaml "$@"
