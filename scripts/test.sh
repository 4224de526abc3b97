#!/usr/bin/env bash
# Installs dependencies, builds with warnings as errors, and runs every test twice: in a release build, and in
# a build with AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase says how long it took (CI has 25 minutes in all: this shows where they go).
phase() { echo "== test.sh: $1 at ${SECONDS}s"; }
scripts/install-deps.sh
phase "dependencies installed"
jobs=$(nproc)
# The end-to-end suites (three shards) mostly wait on a control plane of their own: three more tests than cores keep
# the cores busy with the unit tests meanwhile.
test_jobs=$((jobs + 3))

# Every option is given: scripts/run.sh shares the build directory with tests and benchmarks turned off, and
# CMake would otherwise keep that from its cache and run no tests here.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSCALEWRIGHT_WERROR=ON -DSCALEWRIGHT_SANITIZE=OFF \
  -DSCALEWRIGHT_BUILD_TESTS=ON -DSCALEWRIGHT_BUILD_BENCH=ON >/dev/null
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSCALEWRIGHT_WERROR=ON -DSCALEWRIGHT_SANITIZE=ON \
  -DSCALEWRIGHT_BUILD_TESTS=ON -DSCALEWRIGHT_BUILD_BENCH=OFF >/dev/null
cmake --build build -j "$jobs"
phase "release build done"

# The release tests run while the sanitizer build compiles: once their unit tests are done the cores would idle
# under the end-to-end suites' waiting. The compiler runs at the lowest priority, so the tests keep their pace; its
# output goes to a file, shown if it fails, so that the tests' report reads as one.
sanitize_log=build-sanitize/build.log
mkdir -p build-sanitize
nice -n 19 cmake --build build-sanitize -j "$jobs" >"$sanitize_log" 2>&1 &
sanitize_build=$!
release_tests=0
ctest --test-dir build --output-on-failure --no-tests=error -j "$test_jobs" || release_tests=$?
phase "release tests done"
sanitize_built=0
wait "$sanitize_build" || sanitize_built=$?
phase "sanitizer build done"
if [ "$sanitize_built" -ne 0 ]; then
  cat "$sanitize_log"
  echo "the sanitizer build failed" >&2
  exit "$sanitize_built"
fi
if [ "$release_tests" -ne 0 ]; then
  echo "release tests failed" >&2
  exit "$release_tests"
fi
# deploy/'s checks run kubectl and bash, no binary of ours: the release run has done them.
ctest --test-dir build-sanitize --output-on-failure --no-tests=error -j "$test_jobs" -LE deploy
phase "sanitizer tests done"
# The scaling guard (issue [10]): each scaling series at a small and a large size, alone on the machine, against
# linear cost with wide slack; a ratio past its bound fails the run. About a minute and a half.
scripts/bench.sh --guard
phase "scaling guard done"
