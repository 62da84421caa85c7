#!/usr/bin/env bash
# Installs what is missing, builds wavefront-render and renders a scene (default: cornell-box to
# wavefront.png in the current directory). CUDA is used when this machine has a GPU, the CPU otherwise.
#   scripts/render.sh [SCENE] [wavefront-render options...]     e.g. scripts/render.sh --spp 64
# Environment: WAVEFRONT_BUILD_DIR (default: build, relative to the repository root),
#              WAVEFRONT_CMAKE_ARGS (extra arguments for the CMake configure step).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${WAVEFRONT_BUILD_DIR:-build}
[[ "$BUILD_DIR" == /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"

"$ROOT/scripts/install-deps.sh"

# Let CMake find nvcc in its usual place even when it is not on PATH.
if [[ -z "${CUDACXX:-}" ]] && ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

# shellcheck disable=SC2086  # WAVEFRONT_CMAKE_ARGS is a list of words on purpose
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release ${WAVEFRONT_CMAKE_ARGS:-}
cmake --build "$BUILD_DIR" --target wavefront-render -j"$(nproc)"
RENDER="$BUILD_DIR/examples/wavefront-render"

# Informational requests go straight through.
for arg in "$@"; do
  case "$arg" in
    -h|--help|--list-scenes) exec "$RENDER" "$@" ;;
  esac
done

# A leading argument that is not an option names the scene (built-in name or .obj path).
scene=cornell-box
if [[ $# -gt 0 && "$1" != -* ]]; then
  scene=$1
  shift
fi
# Add --out wavefront.png unless the caller chose an output.
out=
prev=
for arg in "$@"; do
  case "$arg" in
    --out=*) out=${arg#--out=} ;;
  esac
  [[ "$prev" == --out ]] && out=$arg
  prev=$arg
done
extra=()
if [[ -z "$out" ]]; then
  out=wavefront.png
  extra=(--out "$out")
fi

"$RENDER" "$scene" "${extra[@]}" "$@"
realpath -- "$out"
