#!/usr/bin/env bash
# Builds the CUDA binaries here (sm_90) and gathers them, with the non-system shared libraries
# they need, into .gpu/ (git-ignored) for the device machine, which has no Debian packages.
# Usage: scripts/gpu-bundle.sh   then run scripts/gpu-check.sh OUTDIR there with .gpu carried.
# WAVEFRONT_NO_STATS=1 skips the counter-instrumented build (.gpu/stats).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-2}
cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DWAVEFRONT_ENABLE_CUDA=ON >/dev/null
cmake --build build-cuda -j"$jobs" --target wavefront_tests wavefront-render bvh_bench pt_variants compaction_bench light_sampling bdpt mlt \
    mlt_bias parity time_limit rtiow scaling agreement animation edits instancing
[ "${WAVEFRONT_NO_STATS:-0}" = 1 ] || {
cmake -S . -B build-stats -G Ninja -DCMAKE_BUILD_TYPE=Release -DWAVEFRONT_ENABLE_CUDA=ON -DWAVEFRONT_STATS=ON \
    -DWAVEFRONT_BUILD_TESTS=OFF >/dev/null
cmake --build build-stats -j"$jobs" --target wavefront-render pt_variants bdpt mlt
}
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib .gpu/stats/bin .gpu/stats/lib
cp build-cuda/tests/wavefront_tests build-cuda/examples/wavefront-render build-cuda/benchmarks/bvh_bench \
   build-cuda/benchmarks/pt_variants build-cuda/benchmarks/compaction_bench build-cuda/benchmarks/light_sampling \
   build-cuda/benchmarks/bdpt build-cuda/benchmarks/mlt build-cuda/benchmarks/mlt_bias build-cuda/benchmarks/parity build-cuda/benchmarks/time_limit \
   build-cuda/benchmarks/rtiow build-cuda/benchmarks/scaling build-cuda/benchmarks/agreement \
   build-cuda/benchmarks/animation build-cuda/benchmarks/edits build-cuda/benchmarks/instancing .gpu/bin/
cp -L build-cuda/libwavefront.so.0 .gpu/lib/
if [ "${WAVEFRONT_NO_STATS:-0}" != 1 ]; then
    cp build-stats/examples/wavefront-render build-stats/benchmarks/pt_variants build-stats/benchmarks/bdpt build-stats/benchmarks/mlt .gpu/stats/bin/
    cp -L build-stats/libwavefront.so.0 .gpu/stats/lib/
fi
# Builds to compare against in the same run (before/after): WAVEFRONT_BASELINE="name=builddir ..."
# (wavefront-render, pt_variants, bdpt and mlt built there with CUDA) lands in .gpu/baselines/name.
for entry in ${WAVEFRONT_BASELINE:-}; do
    name=${entry%%=*} dir=${entry#*=}
    mkdir -p ".gpu/baselines/$name/bin" ".gpu/baselines/$name/lib"
    cp "$dir"/examples/wavefront-render "$dir"/benchmarks/{pt_variants,bdpt,mlt} ".gpu/baselines/$name/bin/"
    cp -L "$dir"/libwavefront.so.0 ".gpu/baselines/$name/lib/"
    { git -C "$dir" describe --always --dirty 2>/dev/null || echo "$name"; } > ".gpu/baselines/$name/commit"
done
# Non-system libraries (the Debian packages' .so files) travel along.
for lib in $(ldd build-cuda/libwavefront.so.0 | awk '/=>/ {print $3}' | grep -E 'tinyexr|tinyobj|libstb|assimp|draco|minizip'); do
    cp -L "$lib" .gpu/lib/
    cp -L "$lib" .gpu/stats/lib/
done
# The binaries that link the test support carry the whole device code a second time (13 MB each):
# they travel compressed (the device tool carries 64 MiB) and gpu-check.sh unpacks them.
tar cJf .gpu/testing-bins.tar.xz -C .gpu bin/wavefront_tests bin/bvh_bench bin/compaction_bench bin/light_sampling
rm .gpu/bin/wavefront_tests .gpu/bin/bvh_bench .gpu/bin/compaction_bench .gpu/bin/light_sampling
# GLM's headers (the public API's vectors) for the Python module that gpu-check.sh builds there.
tar czf .gpu/glm.tar.gz -C /usr/include glm
git rev-parse --short HEAD > .gpu/commit
du -sh .gpu
