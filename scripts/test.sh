#!/usr/bin/env bash
# Installs dependencies, builds with warnings as errors, and runs every test once, in a build with AddressSanitizer
# and UndefinedBehaviorSanitizer (what a test asserts, and no memory error or undefined behaviour on the way); then
# the scaling guard on the release build (optimised: its times are what BENCHMARKS.md compares).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase says when it ended (CI has 25 minutes in all: this shows where they go).
phase() { echo "== test.sh: $1 at ${SECONDS}s"; }
scripts/install-deps.sh
phase "dependencies installed"
jobs=$(nproc)
# The end-to-end suites (six shards) mostly wait on a control plane of their own: three more tests than cores keep
# the cores busy with the unit tests meanwhile.
test_jobs=$((jobs + 3))

# Every option is given: scripts/run.sh shares the release build directory with tests and benchmarks turned off, and
# CMake would otherwise keep that from its cache.
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSCALEWRIGHT_WERROR=ON -DSCALEWRIGHT_SANITIZE=ON \
  -DSCALEWRIGHT_BUILD_TESTS=ON -DSCALEWRIGHT_BUILD_BENCH=OFF >/dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSCALEWRIGHT_WERROR=ON -DSCALEWRIGHT_SANITIZE=OFF \
  -DSCALEWRIGHT_BUILD_TESTS=ON -DSCALEWRIGHT_BUILD_BENCH=ON >/dev/null
cmake --build build-sanitize -j "$jobs"
phase "sanitizer build done"

# The release build compiles while the tests run: once their unit tests are done the cores would idle under the
# end-to-end suites' waiting. The compiler runs at the lowest priority, so the tests keep their pace; its output goes
# to a file, shown if it fails, so that the tests' report reads as one. Of the tests, it builds only the benchmarks'
# own (the configuration LP's bound, more instance types never costing more), which need the benchmarks' code.
release_log=build/release-build.log
mkdir -p build
nice -n 19 cmake --build build -j "$jobs" --target scalewright bench configuration_lp_test more_choice_test \
  >"$release_log" 2>&1 &
release_build=$!
sanitizer_tests=0
ctest --test-dir build-sanitize --output-on-failure --no-tests=error -j "$test_jobs" || sanitizer_tests=$?
phase "sanitizer tests done"
release_built=0
wait "$release_build" || release_built=$?
phase "release build done"
if [ "$release_built" -ne 0 ]; then
  cat "$release_log"
  echo "the release build failed" >&2
  exit "$release_built"
fi
if [ "$sanitizer_tests" -ne 0 ]; then
  echo "tests failed" >&2
  exit "$sanitizer_tests"
fi
ctest --test-dir build --output-on-failure --no-tests=error -j "$jobs" -R '^(ConfigurationLp|MoreChoice)\.'
phase "benchmarks' tests done"
# The scaling guard (issue [10]): each scaling series at a small and a large size, alone on the machine, against
# linear cost with wide slack; a ratio past its bound fails the run. About a minute and a half.
scripts/bench.sh --guard
phase "scaling guard done"
