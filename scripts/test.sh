#!/usr/bin/env bash
# Installs dependencies, builds with warnings as errors, and runs every test twice: in a release build, and in
# a build with AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)

# Every option is given: scripts/run.sh shares the build directory with tests and benchmarks turned off, and
# CMake would otherwise keep that from its cache and run no tests here.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSCALEWRIGHT_WERROR=ON -DSCALEWRIGHT_SANITIZE=OFF \
  -DSCALEWRIGHT_BUILD_TESTS=ON -DSCALEWRIGHT_BUILD_BENCH=ON >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure --no-tests=error -j "$jobs"

cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSCALEWRIGHT_WERROR=ON -DSCALEWRIGHT_SANITIZE=ON \
  -DSCALEWRIGHT_BUILD_TESTS=ON -DSCALEWRIGHT_BUILD_BENCH=OFF >/dev/null
cmake --build build-sanitize -j "$jobs"
ctest --test-dir build-sanitize --output-on-failure --no-tests=error -j "$jobs"
