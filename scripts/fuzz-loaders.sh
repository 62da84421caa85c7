#!/usr/bin/env bash
# Mutation-fuzzes the loaders (OBJ, MTL, PFM, EXR; glTF, .glb and PLY through Assimp; pbrt-v4, and PLY
# again through the pbrt-v4 loader's plymesh reader) for a bounded number of cases: the seeds in
# tests/data/fuzz-seeds are mutated (bit flips, cut and repeated ranges, hostile tokens such as nan,
# 4294967297, CR line endings, mtllib ../../dev/zero, huge EXR windows, pbrt self-includes and deep
# attribute blocks) and each case is loaded in a
# child process with a time limit (WAVEFRONT_FUZZ_TIMEOUT, default 5 s) and a 4 GiB memory limit.
# Crashes, hangs, errors other than InputError and messages longer than one line are reported, and
# their inputs written to tests/data/regressions/: review them, fix the loader, commit them
# (regressions_test.cpp loads every file there). Exit code 1 when any case failed.
#   scripts/fuzz-loaders.sh [CASES (default 20000)] [SEED (default 1)]
# Environment: WAVEFRONT_BUILD_DIR (default: build; configured here if it is not yet),
#              WAVEFRONT_CMAKE_ARGS (extra configure arguments), WAVEFRONT_JOBS (default: nproc).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${WAVEFRONT_BUILD_DIR:-build}
[[ "$BUILD_DIR" == /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
CASES=${1:-20000}
SEED=${2:-1}

if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  "$ROOT/scripts/install-deps.sh"
  # shellcheck disable=SC2086  # WAVEFRONT_CMAKE_ARGS is a list of words on purpose
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release ${WAVEFRONT_CMAKE_ARGS:-}
fi
cmake --build "$BUILD_DIR" --target wavefront_fuzz_loaders -j"${WAVEFRONT_JOBS:-$(nproc)}"

START=$SECONDS
status=0
"$BUILD_DIR/tests/wavefront_fuzz_loaders" "$ROOT/tests/data/fuzz-seeds" "$ROOT/tests/data/regressions" \
  --cases "$CASES" --seed "$SEED" --timeout "${WAVEFRONT_FUZZ_TIMEOUT:-5}" || status=$?
echo "fuzz-loaders: $CASES cases in $((SECONDS - START)) s$([[ $status -ne 0 ]] && echo "; failures written to tests/data/regressions/")"
exit $status
