#!/usr/bin/env bash
# Builds everything and runs the whole test suite, then checks that an installed wavefront can be
# used from a separate CMake project (examples/embed), then builds the Python module with pip in a
# virtual environment and runs its tests (python/tests, pytest). Without a GPU, tests over both
# backends run their CPU part and say the CUDA part did not run; the CUDA-only tests report as
# skipped.
#   scripts/test.sh
# Environment: WAVEFRONT_BUILD_DIR (default: build, relative to the repository root),
#              WAVEFRONT_CMAKE_ARGS (extra arguments for the CMake configure step),
#              WAVEFRONT_CTEST_ARGS (extra arguments for ctest, e.g. "-R cli").
#              WAVEFRONT_PYTHON (the interpreter for the venv; default /usr/bin/python3, Debian's, whose
#              numpy, pytest and setuptools the venv sees; from PyPI only the optional packages of
#              install-deps.sh --pypi, flip-evaluator, and the tests pass without them).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${WAVEFRONT_BUILD_DIR:-build}
[[ "$BUILD_DIR" == /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
JOBS=$(nproc)
START=$SECONDS

step="starting"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/wavefront-test.XXXXXX")
finish() {
  local rc=$?
  rm -rf "$TMP"
  if [[ $rc -ne 0 ]]; then
    echo "test.sh: FAILED while ${step} (exit code $rc) after $((SECONDS - START)) s"
  fi
}
trap finish EXIT

step="installing dependencies"
"$ROOT/scripts/install-deps.sh"

# Let CMake find nvcc in its usual place even when it is not on PATH.
if [[ -z "${CUDACXX:-}" ]] && ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

step="configuring"
# shellcheck disable=SC2086  # WAVEFRONT_CMAKE_ARGS is a list of words on purpose
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release ${WAVEFRONT_CMAKE_ARGS:-}

step="building"
cmake --build "$BUILD_DIR" -j"$JOBS"

step="running the tests (ctest)"
# shellcheck disable=SC2086
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$JOBS" ${WAVEFRONT_CTEST_ARGS:-}

step="installing to a temporary prefix"
cmake --install "$BUILD_DIR" --prefix "$TMP/prefix" >/dev/null

step="building examples/embed against the installed package"
cmake -S "$ROOT/examples/embed" -B "$TMP/embed-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$TMP/prefix"
cmake --build "$TMP/embed-build" -j"$JOBS"

step="running the embed example"
"$TMP/embed-build/wavefront-embed" "$TMP/embed.png"
if [[ ! -s "$TMP/embed.png" ]]; then
  echo "test.sh: the embed example did not write $TMP/embed.png"
  exit 1
fi

step="running the instancing host example on the CPU"
"$BUILD_DIR/examples/wavefront-instancing" "$TMP/instancing" --cpu
if [[ ! -s "$TMP/instancing-frame3.png" ]]; then
  echo "test.sh: the instancing example did not write $TMP/instancing-frame3.png"
  exit 1
fi

step="building the Python module (pip install in a venv)"
# A fresh venv each time, seeing the system's packages; --no-build-isolation builds with Debian's
# setuptools and pybind11-dev instead of fetching them (docs/decisions.md). The module's own
# CMake build (library objects and bindings only) goes next to the main one.
VENV="$BUILD_DIR/python-venv"
"${WAVEFRONT_PYTHON:-/usr/bin/python3}" -m venv --clear --system-site-packages "$VENV"
"$ROOT/scripts/install-deps.sh" --pypi "$VENV/bin/python"  # the optional PyPI packages (flip-evaluator)
PY_START=$SECONDS
CMAKE_ARGS="${WAVEFRONT_CMAKE_ARGS:-}" CMAKE_BUILD_PARALLEL_LEVEL="$JOBS" \
  WAVEFRONT_PY_BUILD_DIR="$BUILD_DIR/python-build" \
  "$VENV/bin/pip" install --no-build-isolation --disable-pip-version-check --quiet "$ROOT"
echo "test.sh: pip install took $((SECONDS - PY_START)) s"

step="running the Python tests (pytest)"
# From $TMP, so that `import wavefront` is the installed package, not python/wavefront in the tree.
(cd "$TMP" && "$VENV/bin/python" -m pytest -q -p no:cacheprovider "$ROOT/python/tests")

echo "test.sh: all passed (build, ctest, install, embed example, Python module and tests) in $((SECONDS - START)) s"
