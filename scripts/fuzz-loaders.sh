#!/usr/bin/env bash
# Mutation-fuzzes the loaders for a bounded number of cases: the seeds in tests/data/fuzz-seeds (OBJ,
# MTL, PFM, EXR, Radiance HDR, PNG/JPEG/BMP/TGA textures and HDR content named .png, glTF with a data
# URI and with an external .bin buffer, .glb, ASCII and binary PLY, pbrt-v4, and PLY again through
# the pbrt-v4 loader's plymesh reader) and, when assimp-testmodels and glmark2-data are installed,
# real models (each case written next to copies of its model's files) are mutated (bit flips, cut
# and repeated ranges, hostile tokens such as nan, 4294967297, CR line endings, mtllib
# ../../dev/zero, huge EXR windows, PLY list lengths, glTF offsets of 2^64 - 8, control characters,
# pbrt self-includes and deep attribute blocks) and each case is loaded in a child process with a
# time limit (WAVEFRONT_FUZZ_TIMEOUT, default 5 s) and a 4 GiB memory limit, then rendered (8x8, one
# sample, CPU). Crashes, hangs, errors other than InputError, messages longer than one line or
# holding a control character, and renders with non-finite values are reported, and their inputs
# written to tests/data/regressions/: review them, fix the loader, commit them (regressions_test.cpp
# loads every file there). Exit code 1 when any case failed.
#   scripts/fuzz-loaders.sh [CASES (default 20000)] [SEED (default 1)]
# Environment: WAVEFRONT_BUILD_DIR (default: build; configured here if it is not yet),
#              WAVEFRONT_CMAKE_ARGS (extra configure arguments), WAVEFRONT_JOBS (default: nproc),
#              WAVEFRONT_FUZZ_MODELS=0 (the seeds of tests/data/fuzz-seeds only),
#              WAVEFRONT_FUZZ_ONLY=.pbrt (fuzz the seeds of one extension alone, no models; the
#              other seeds still lie beside them for the files they name),
#              WAVEFRONT_FUZZ_VERBOSE=1 (print every case's outcome and message),
#              WAVEFRONT_FUZZ_FAILURES (where failed cases go; default tests/data/regressions).
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

# Real models: glTF with external buffers and textures (and a buffer alone), .glb, a skin, morph
# targets, cameras; PLY ASCII, binary and with old Blender's header line; OBJ with textures, a
# concave polygon and UTF-16.
MODELS=()
A=/usr/share/assimp/models
for m in glTF2/BoxTextured-glTF/BoxTextured.gltf glTF2/BoxTextured-glTF/BoxTextured0.bin \
         glTF2/BoxTextured-glTF/CesiumLogoFlat.png glTF2/BoxTextured-glTF-Binary/BoxTextured.glb \
         glTF2/simple_skin/simple_skin.gltf glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf \
         glTF2/cameras/Cameras.gltf glTF/BoxTextured-glTF/BoxTextured.gltf PLY/cube.ply PLY/cube_binary.ply PLY/cube_uv.ply \
         PLY/Wuson.ply OBJ/spider.obj OBJ/spider.mtl OBJ/concave_polygon.obj OBJ/box_UTF16BE.obj OBJ/cube_usemtl.obj; do
  if [[ "${WAVEFRONT_FUZZ_MODELS:-1}" != 0 && -z "${WAVEFRONT_FUZZ_ONLY:-}" && -f "$A/$m" ]]; then MODELS+=(--model "$A/$m"); fi
done

START=$SECONDS
status=0
"$BUILD_DIR/tests/wavefront_fuzz_loaders" "$ROOT/tests/data/fuzz-seeds" "${WAVEFRONT_FUZZ_FAILURES:-$ROOT/tests/data/regressions}" \
  --cases "$CASES" --seed "$SEED" --timeout "${WAVEFRONT_FUZZ_TIMEOUT:-5}" "${MODELS[@]}" \
  ${WAVEFRONT_FUZZ_ONLY:+--only "$WAVEFRONT_FUZZ_ONLY"} || status=$?
echo "fuzz-loaders: $CASES cases in $((SECONDS - START)) s$([[ $status -ne 0 ]] && echo "; failures written to ${WAVEFRONT_FUZZ_FAILURES:-tests/data/regressions/}")"
exit $status
