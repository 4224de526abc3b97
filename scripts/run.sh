#!/usr/bin/env bash
# Installs dependencies, builds, and runs the main job: `scalewright simulate`, the built-in default scenario
# (Karpenter's inflate demo, examples/inflate/inflate.yaml). Extra arguments go to `scalewright simulate`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSCALEWRIGHT_BUILD_TESTS=OFF -DSCALEWRIGHT_BUILD_BENCH=OFF >/dev/null
cmake --build build --target scalewright
build/src/cli/scalewright simulate "$@"
