#!/usr/bin/env bash
# Builds the CPU backend with AddressSanitizer and UndefinedBehaviorSanitizer (leaks included) in
# a build folder of its own and runs the test suite there, then the loader fuzzer for a few
# thousand cases. Any sanitizer report fails the run. Too slow for CI on 2 cores (see
# docs/hardening.md for the measured times): run it before every stop.
#   scripts/sanitize.sh [CTEST ARGUMENTS...]     e.g. scripts/sanitize.sh -R 'obj|io'
# Environment: WAVEFRONT_SANITIZE_DIR (default: build-sanitize), WAVEFRONT_JOBS (default: nproc),
#              WAVEFRONT_FUZZ_CASES (default 3000; 0 skips the fuzzer).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${WAVEFRONT_SANITIZE_DIR:-build-sanitize}
[[ "$BUILD_DIR" == /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
JOBS=${WAVEFRONT_JOBS:-$(nproc)}
FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
START=$SECONDS

"$ROOT/scripts/install-deps.sh"
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWAVEFRONT_ENABLE_CUDA=OFF \
  -DWAVEFRONT_BUILD_BENCHMARKS=OFF -DCMAKE_CXX_FLAGS="$FLAGS" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined"
cmake --build "$BUILD_DIR" -j"$JOBS"
cmake --build "$BUILD_DIR" --target wavefront_fuzz_loaders -j"$JOBS"
BUILT=$SECONDS

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The tests' timing checks (no hang, nothing quadratic) allow for the sanitizers' slowdown.
export WAVEFRONT_TEST_TIME_SCALE=${WAVEFRONT_TEST_TIME_SCALE:-50}
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$JOBS" "$@"
TESTED=$SECONDS

CASES=${WAVEFRONT_FUZZ_CASES:-3000}
if [[ "$CASES" -gt 0 ]]; then
  # The seeds and real models of fuzz-loaders.sh; failures kept in the build folder.
  WAVEFRONT_BUILD_DIR="$BUILD_DIR" WAVEFRONT_FUZZ_FAILURES="$BUILD_DIR/fuzz-failures" WAVEFRONT_FUZZ_TIMEOUT=20 \
    WAVEFRONT_JOBS="$JOBS" "$ROOT/scripts/fuzz-loaders.sh" "$CASES" | tail -2
fi
echo "sanitize.sh: clean; build $((BUILT - START)) s, ctest $((TESTED - BUILT)) s, fuzz $((SECONDS - TESTED)) s"
