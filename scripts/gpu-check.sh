#!/usr/bin/env bash
# Runs on the GPU machine from the repository root with .gpu/ carried (scripts/gpu-bundle.sh):
# CUDA tests, compute-sanitizer memcheck and racecheck, benchmarks, and the Nsight Compute
# SIMD-efficiency cross-check. Usage: scripts/gpu-check.sh OUTDIR [full|quick|bdpt|mlt|mlt-bench]
#   full: everything; quick: tests and sanitizers; bdpt: tests, BDPT sanitizers and benchmarks;
#   mlt: tests, MLT and BDPT sanitizers; mlt-bench: MLT benchmarks, Figure 10 (wavefront-compare), BDPT/PT regression;
#   trust: tests, sanitizers on every integrator and on re-rendering; trust-bias [mlt_bias args]:
#   MLT against BDPT at every chain count; trust-bench: time limits, repeated renders, throughput before/after (with a baseline
#   bundle, scripts/gpu-bundle.sh with WAVEFRONT_BASELINE) and Figure 10 (wavefront-compare); compare: before/after and the NVTX
#   check; parity: tests, sanitizers on the new scenes in every integrator, PT = BDPT = MLT, before/after;
#   material-sets: tests, sanitizers on the kernels of both material sets in every integrator, and
#   PT = BDPT = MLT on scenes of each set; scenes: tests, sanitizers and images of the textured glTF example;
#   rtiow: tests, sanitizers on rtiow-final (NEE on and off) and the issue-15 benchmark (benchmarks/rtiow);
#   scaling: the multi-device tests, sanitizers on renders over every GPU, benchmarks/scaling;
#   agree: tests, sanitizers on delta lights and normal maps in every integrator, and the agreement
#   benchmark (issue 33: PT, BDPT and MLT for 20 s each on the textured example and the delta-light
#   scenes, blocks of an 8 x 8 grid and every pixel); AGREE_PART=tests or bench runs one half;
#   identical: tests, sanitizers on every schedule, throughput before/after and the images of the
#   baseline bundle and this one compared byte for byte (a refactoring that must change nothing);
#   mlt-eff [wavefront-compare arguments]: issue 36's efficiency table into OUTDIR/mlt-eff, one part
#   per call (MLT_EFF_PART): table (the default: PT, BDPT, MLT on cornell-box, glass-caustic,
#   door-ajar and mirror-caustic at 1 and 4 s, 4 seeds, or the arguments given), long (BDPT and
#   MLT at 16 s on door-ajar and mirror-caustic) or agree (MLT's agreement with PT rendered long
#   in many seeds, its noise told from a bias);
#   tests: every test (or TEST_FILTER's), in TEST_SHARDS processes, nothing else;
#   instancing: issue 38's instancing tests, sanitizers on the forest in every integrator
#   (INSTANCING_PART=tests) or throughput before/after and benchmarks/instancing (INSTANCING_PART=bench);
#   vcm: issue 39's VCM tests and sanitizers (VCM_PART=tests) or its speed, SIMD figures, bias
#   against the radius and efficiency table (VCM_PART=bench);
#   animation: issue 38's per-frame animation (benchmarks/animation: 1M triangles, 1920x1080, 1 spp;
#   refit, rebuild and auto, and refit with the image left on the GPU) into OUTDIR/animation.md;
#   host: tests, sanitizers on AOV, crop and MLT renders and on the device-image tests, the edit
#   benchmark and cancel latency
#   (issues 37 and 38; HOST_PART=tests or bench runs one half);
#   round2 (issues 52-58; run `tests` first): ROUND2_PART=sanitize: sanitizers on the new kernels
#   (the streaming VCM, per-length MMLT, the coated materials) and timed renders; compare: the
#   baseline's images byte for byte, throughput before/after, VCM's schedules (speed, lanes); eff:
#   MLT's, MMLT's and VCM's efficiency against BDPT (independent seeds, equal time);
#   mlt-speed: the MLT and MMLT tests, sanitizers on their renders, MLT and BDPT throughput before/after (MMLT after);
#   media (issue 57; MEDIA_PART): sanitize: the [media] tests (when carried), memcheck and racecheck on
#   the media scenes in every integrator and schedule; speed: every integrator's throughput on the
#   media scenes, lanes per instruction of the kernels that run the trackers (ncu) and the README's
#   images; before: throughput before/after on scenes without media (a baseline bundle); agree: the
#   agreement benchmark (every integrator against PT, per pixel) and CUDA renders for the CPU =
#   CUDA check; eff: every integrator's equal-time efficiency on them (wavefront-compare);
#   report [wavefront-compare arguments]: the comparison report of benchmarks/results (issue 34) and
#   its SIMD tables from the counting build, or one of the arguments given, into OUTDIR/report and
#   OUTDIR/report-simd (index.html and results.json each; images.tgz and references.tgz for report).
set -uo pipefail
out=${1:?usage: gpu-check.sh OUTDIR}
mode=${2:-full}
mkdir -p "$out"
root=$(pwd)
log="$out/log.txt"
run() { echo "+ $*" | tee -a "$log"; "$@" 2>&1 | tee -a "$log"; return "${PIPESTATUS[0]}"; }
export LD_LIBRARY_PATH="$root/.gpu/lib:${LD_LIBRARY_PATH:-}"
bin="$root/.gpu/bin"
for t in .gpu/testing-bins.tar.*; do [ -f "$t" ] && [ ! -x "$bin/wavefront_tests" ] && tar xf "$t" -C .gpu; done
export WAVEFRONT_RENDER_EXE="$bin/wavefront-render"  # the CLI tests' build path does not exist here
{ echo "commit $(cat .gpu/commit)"; date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } | tee -a "$log"

# Every test, with the summary in the log. The suite runs in TEST_SHARDS processes at once (4 unless
# set; every test name in exactly one shard), which share the GPU: one process takes most of a call.
all_tests() {
    local shards=${TEST_SHARDS:-4} i status=0 pids=()
    # Catch2 reads each line as a test spec: a comma, bracket, backslash or star in a name is escaped.
    # TEST_FILTER: one Catch2 test spec, e.g. "[mlt]" or a test's name (spaces and all).
    local filter=()
    [ -n "${TEST_FILTER:-}" ] && filter=("$TEST_FILTER")
    "$bin/wavefront_tests" "${filter[@]}" --list-test-names-only | grep -v '^$' | sed 's/[],[\\*]/\\&/g' > /tmp/test-names.txt
    echo "+ wavefront_tests: $(wc -l < /tmp/test-names.txt) tests in $shards shards" | tee -a "$log"
    for ((i = 0; i < shards; ++i)); do
        awk -v n="$shards" -v i="$i" 'NR % n == i' /tmp/test-names.txt > "/tmp/shard-$i.txt"
        "$bin/wavefront_tests" --order lex --input-file "/tmp/shard-$i.txt" > "$out/tests-$i.txt" 2>&1 &
        pids+=($!)
    done
    for ((i = 0; i < shards; ++i)); do
        wait "${pids[$i]}"; local rc=$?; [ $rc -ne 0 ] && status=$rc
        echo "shard $i exit $rc: $(tail -2 "$out/tests-$i.txt" | tr '\n' ' ')" | tee -a "$log"
    done
    cat "$out"/tests-*.txt > "$out/tests.txt"
    echo "tests exit $status" | tee -a "$log"
}
# compute-sanitizer memcheck and racecheck on 40 x 40 renders, one per argument (a
# wavefront-render argument list) with the options OPTIONS added (sanitize_with OPTIONS ARGS...),
# into $out/sanitizer.txt; its summary into the log.
sanitize_with() {
    local san="$out/sanitizer.txt" options=$1 tool args
    shift
    : > "$san"
    for tool in memcheck racecheck; do
        for args in "$@"; do
            echo "== $tool $args" >> "$san"
            # shellcheck disable=SC2086  # $args and $options are lists of words on purpose
            compute-sanitizer --tool $tool --error-exitcode 9 "$bin/wavefront-render" $args --backend cuda $options \
                --res 40x40 --out /tmp/san.pfm >> "$san" 2>&1
            echo "exit $?" >> "$san"
        done
    done
    grep -E "^== |^exit|ERROR SUMMARY" "$san" | tee -a "$log"
}
# With a 700-slot stream.
sanitize() { sanitize_with "--stream-capacity 700" "$@"; }
# At 2 samples per pixel with the integrators' own stream sizes (VCM refuses one).
sanitize_renders() { sanitize_with "--spp 2" "$@"; }

# Throughput before/after in the same run: the baseline bundle (scripts/gpu-bundle.sh with
# WAVEFRONT_BASELINE) and this one, alternating, each with per-kernel times (--stats).
before_after() {
    local side b lib
    : > "$out/before_after.md"
    for round in 1 2; do
        for side in "$root"/.gpu/baselines/* new; do
            if [ "$side" = new ]; then
                b="$bin"; lib="$root/.gpu/lib"; echo "## round $round new $(cat .gpu/commit)" >> "$out/before_after.md"
            else
                b="$side/bin"; lib="$side/lib:$root/.gpu/lib"
                echo "## round $round $(basename "$side") $(cat "$side/commit")" >> "$out/before_after.md"
            fi
            LD_LIBRARY_PATH="$lib" "$b/mlt" --backend cuda --variants 0 --scenes cornell-box,door-ajar >> "$out/before_after.md" 2>&1
            LD_LIBRARY_PATH="$lib" "$b/pt_variants" --backend cuda --scenes cornell-box,mesh-1m --variants megakernel,spt-r \
                >> "$out/before_after.md" 2>&1
            LD_LIBRARY_PATH="$lib" "$b/bdpt" --backend cuda --scenes cornell-box,glass-caustic --naive 0 --thresholds 0.6 \
                >> "$out/before_after.md" 2>&1
            for integrator in mlt bdpt; do
                LD_LIBRARY_PATH="$lib" "$b/wavefront-render" cornell-box --backend cuda --integrator $integrator \
                    --res 1024x1024 --spp 64 --stats --out /tmp/ba.pfm >> "$out/before_after.md" 2>&1
            done
        done
    done
    grep -E "^## |cornell-box \| (mlt|megakernel|spt-r|streaming)|mesh-1m \| (megakernel|spt-r)|door-ajar \| mlt|glass-caustic \| streaming|samples in" \
        "$out/before_after.md" | cut -c1-110 | tee -a "$log"
}
# The Python module for this machine's Python, built here from python/src/bindings.cpp against the
# bundle's libwavefront.so: with this machine's pybind11 (its pip package; its NumPy 2 needs
# pybind11 >= 2.12, newer than Debian's 2.10) and the bundle's GLM headers (.gpu/glm.tar.gz).
python_module() {
    local target="$root/.gpu/python/wavefront" include=/tmp/wavefront-include suffix version pybind
    [ -f "$target/.built" ] && return 0
    mkdir -p "$target" "$include" && tar xzf .gpu/glm.tar.gz -C "$include" && cp python/wavefront/*.py "$target/"
    suffix=$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
    version=$(sed -n 's/^project(wavefront VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
    pybind=$(python3 -m pybind11 --includes 2>/dev/null ||
             python3 -c 'import sysconfig; print("-I" + sysconfig.get_paths()["include"])')
    # shellcheck disable=SC2086  # $pybind is a list of -I flags
    run "${CXX:-$(command -v g++ || command -v c++ || echo g++)}" -O2 -std=c++17 -shared -fPIC -fvisibility=hidden $pybind -Iinclude -I"$include" \
        -DWAVEFRONT_HAS_CUDA=1 -DWAVEFRONT_VERSION="\"$version\"" python/src/bindings.cpp -L.gpu/lib \
        -l:libwavefront.so.0 -o "$target/_wavefront$suffix" && touch "$target/.built"
}
# wavefront-compare ARGS... into $out/NAME (compare_report NAME ARGS...): the self-contained
# index.html and results.json; for NAME report also images.tgz (what --report-only reads) and
# references.tgz (the rendered references, for --reference): the machine returns 8 files of 16 MiB.
# LD_LIBRARY_PATH picks the library: .gpu/stats/lib's counts SIMD efficiency (and is slower).
compare_report() {
    local name=$1 dir=/tmp/wavefront-$1
    shift
    python_module || { echo "gpu-check: the Python module did not build" | tee -a "$log"; return 1; }
    rm -rf "$dir" && mkdir -p "$out/$name"
    PYTHONPATH="$root/.gpu/python" PYTHONUNBUFFERED=1 WAVEFRONT_COMMIT="$(cat .gpu/commit)" \
        run python3 -m wavefront.compare "$@" --out "$dir"
    cp "$dir/index.html" "$dir/results.json" "$out/$name/" || return 1
    if [ "$name" = report ]; then
        tar czf "$out/$name/images.tgz" -C "$dir" images
        (cd "$dir" && ls ./*.exr >/dev/null 2>&1 && tar czf "$out/$name/references.tgz" ./*.exr)
    fi
    return 0
}
# The report of benchmarks/results (issue 34): PT, BDPT and MLT, 8 seeds, equal time and equal
# samples, on door-ajar, glass-caustic, the textured example and a pbrt-v4 file (issue 35)
# (estimated at 8 to 9 minutes on an H100, the module's build included: about 760 renders, 4 x 16 s
# of reference, 4 x 45 s of equal time),
# then one seed of each with the counting build for the SIMD tables (report-simd).
SCENES=(door-ajar glass-caustic examples/scenes/textured-spheres.gltf:envmap=examples/scenes/sky.hdr
        examples/scenes/pbrt/cornell-box.pbrt)
REPORT=("${SCENES[@]}" --methods pt,bdpt,mlt --seeds 8 --times 0.125,0.25,0.5,1 --spp 4,16,64 --res 512x512
        --backend cuda --reference-method bdpt --reference-seconds 16 --crop 226,400,290,464 --crop 296,160,360,224
        --pyramid 4 --pyramid-spp 16 --flip off)
REPORT_SIMD=("${SCENES[@]}" --methods pt,bdpt,mlt --seeds 1 --spp 16 --res 512x512 --backend cuda
             --reference-spp 16 --reference-seeds 1 --pyramid 0 --flip off)
# Issue 38's CUDA paths (edits, AOVs, crop window) and issue 37's MLT start-up cancel: every test,
# sanitizers on AOV, crop and MLT renders, the edit benchmark and the cancel latency.
# HOST_PART=tests or bench runs one half.
if [ "$mode" = host ]; then
  if [ "${HOST_PART:-all}" != bench ]; then
    all_tests
    sanitize "cornell-box --integrator pt --aov-files --spp 2" "cornell-box --integrator bdpt --aov-files --spp 2" \
             "cornell-box --integrator mlt --aov-files --spp 2" "cornell-spheres --integrator pt --crop 5,7,31,29 --spp 2" \
             "cornell-spheres --integrator bdpt --crop 5,7,31,29 --spp 2" "glass-caustic --integrator mlt --crop 5,7,31,29 --spp 2"
    # The device image and a host's stream (no CLI flag reaches them): their tests under memcheck.
    for tool in memcheck racecheck; do
        compute-sanitizer --tool $tool --error-exitcode 9 "$bin/wavefront_tests" "[film][gpu]" > "$out/sanitizer-film-$tool.txt" 2>&1
        echo "$tool [film][gpu] tests: exit $? $(grep -E "ERROR SUMMARY|passed|failed" "$out/sanitizer-film-$tool.txt" | tr '\n' ' ')" | tee -a "$log"
    done
  fi
  if [ "${HOST_PART:-all}" != tests ]; then
    run "$bin/edits" --backend cuda > "$out/edits.md" 2>&1
    run "$bin/time_limit" --backend cuda --res 1024x1024 --seconds 1 --repeat 3 > "$out/time_limit.md" 2>&1
    grep -E "^\| " "$out/edits.md" "$out/time_limit.md" | tee -a "$log"
  fi
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi
if [ "$mode" = tests ]; then  # every test (TEST_FILTER, TEST_SHARDS), nothing else
    all_tests
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi
if [ "$mode" = instancing ]; then
    # Issue 38's instancing (INSTANCING_PART=tests or bench). tests: the instancing tests and the
    # every-built-in-scene agreement (the forest among them), then memcheck and racecheck on forest
    # renders in every integrator. bench: PT, BDPT and MLT throughput before/after (instancing
    # touches every kernel's trace and surface code) and benchmarks/instancing (the forest as
    # instances and flattened).
    if [ "${INSTANCING_PART:-tests}" = tests ]; then
        TEST_FILTER="[instancing],[edits],BDPT and MLT match PT through a thin lens" TEST_SHARDS=2 all_tests
        sanitize_renders "forest --integrator pt" "forest --integrator bdpt" "forest --integrator mlt" \
            "forest --integrator mmlt" "forest --integrator vcm"
    else
        before_after
        run "$bin/instancing" --backend cuda --res 1024 --seconds 2 --integrators pt,bdpt,mlt > "$out/instancing.md" 2>&1
        grep -E "^\| " "$out/instancing.md" | tee -a "$log"
    fi
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi
if [ "$mode" = round2 ]; then
    # Unpack a library carried compressed (lib.tar.xz: the bundle outgrew the device's 64 MiB).
    for t in .gpu/lib.tar.xz .gpu/baselines.tar.xz; do [ -f "$t" ] && tar xJf "$t" -C .gpu && rm -f "$t"; done
    part=${ROUND2_PART:-sanitize}
    if [ "$part" = sanitize ]; then
        sanitize_renders "cornell-box --integrator vcm" "cornell-box --integrator vcm --vcm-variant naive" \
            "glass-caustic --integrator bpm" "caustic-behind-glass --integrator ppm" "cornell-box --integrator mmlt" \
            "examples/scenes/pbrt/coated-blob.pbrt --integrator pt" "examples/scenes/pbrt/coated-blob.pbrt --integrator bdpt" \
            "examples/scenes/pbrt/material-spheres.pbrt --integrator mlt" "examples/scenes/pbrt/material-spheres.pbrt --integrator vcm"
        # Issue 58: a time limit kept within a pass (the CLI's wall time, start-up included).
        for integrator in pt bdpt mlt vcm; do
            { TIMEFORMAT="%R s wall: $integrator --time 0.033 at 48x36"
              time "$bin/wavefront-render" cornell-box --backend cuda --integrator $integrator --res 48x36 --time 0.033 \
                  --out /tmp/limit.pfm > /dev/null 2>&1; } 2>&1 | tee -a "$log"
        done
    elif [ "$part" = compare ]; then
        ncu --kernel-name-base demangled \
            --kernel-name regex:"vcm::(ExtendStage|LightShadeStage|EyeShadeStage|TraceStage|ConnectStage|MergeStage|CompactCacheStage|LightStage|EyeStage)" \
            --launch-count 60 --metrics smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum \
            "$bin/wavefront-render" cornell-box --backend cuda --integrator vcm --res 1024x1024 --spp 1 --out /tmp/ncu.pfm \
            > "$out/vcm-ncu.txt" 2>&1
        ncu --kernel-name-base demangled --kernel-name regex:"vcm::(LightStage|EyeStage)" --launch-count 4 \
            --metrics smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum \
            "$bin/wavefront-render" cornell-box --backend cuda --integrator vcm --vcm-variant naive --res 1024x1024 --spp 1 \
            --out /tmp/ncu.pfm >> "$out/vcm-ncu.txt" 2>&1
        : > "$out/vcm-speed.md"
        for scene in cornell-box door-ajar caustic-behind-glass; do
            for run in "vcm --vcm-variant naive" "vcm --vcm-variant streaming" "bdpt" "pt"; do
                # shellcheck disable=SC2086
                run "$bin/wavefront-render" $scene --backend cuda --integrator $run --res 1024x1024 --spp 16 --stats \
                    --out /tmp/speed.pfm >> "$out/vcm-speed.md" 2>&1
            done
        done
        grep -E "^\+ |samples in|rays" "$out/vcm-speed.md" | cut -c1-160 | tee -a "$log"
        PART=compare "$0" "$out/identical" identical
    else
        # shellcheck disable=SC2086  # a list of scenes
        compare_report eff ${ROUND2_EFF:-door-ajar mirror-caustic caustic-behind-glass cornell-box} --methods bdpt,mlt,mmlt,vcm \
            --seeds 4 --times 4 --res 512x512 --backend cuda --reference-method bdpt --reference-seconds 4 --pyramid 0 \
            --flip off --keep-images means --figure off
        rm -f "$out/eff/images.tgz"
    fi
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi
if [ "$mode" = media ]; then
    for t in .gpu/lib.tar.xz .gpu/baselines.tar.xz; do [ -f "$t" ] && tar xJf "$t" -C .gpu && rm -f "$t"; done
    part=${MEDIA_PART:-sanitize}
    scenes="cornell-fog volumetric-caustic smoke-box"
    if [ "$part" = sanitize ]; then
        [ -x "$bin/wavefront_tests" ] && TEST_FILTER="[media]" TEST_SHARDS=1 all_tests
        sanitize_renders "cornell-fog --integrator pt" "smoke-box --integrator pt --variant megakernel" \
            "smoke-box --integrator pt --variant pt-r" "smoke-box --integrator bdpt" \
            "volumetric-caustic --integrator bdpt --bdpt-variant naive" "cornell-fog --integrator mlt" \
            "smoke-box --integrator mmlt" "cornell-fog --integrator vcm" "smoke-box --integrator vcm --vcm-variant naive"
    elif [ "$part" = speed ]; then
        : > "$out/media-speed.md"
        for scene in $scenes; do
            for integrator in pt bdpt mlt mmlt vcm; do
                run "$bin/wavefront-render" $scene --backend cuda --integrator $integrator --res 1024x1024 --spp 16 --stats \
                    --out /tmp/media.pfm >> "$out/media-speed.md" 2>&1
            done
        done
        grep -E "^\+ |samples in" "$out/media-speed.md" | cut -c1-170 | tee -a "$log"
        for scene in cornell-fog smoke-box; do
            ncu --kernel-name-base demangled --kernel-name regex:"pt::(ExtendStage|ShadeStage|ConnectStage)" --launch-count 40 \
                --metrics smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum \
                "$bin/wavefront-render" $scene --backend cuda --integrator pt --res 1024x1024 --spp 1 --out /tmp/ncu.pfm \
                > "$out/ncu-pt-$scene.txt" 2>&1
            ncu --kernel-name-base demangled --kernel-name regex:"bdpt::(ExtendStage|ShadeStage|TraceStage|ConnectStage)" \
                --launch-count 60 --metrics smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum \
                "$bin/wavefront-render" $scene --backend cuda --integrator bdpt --res 1024x1024 --spp 1 --out /tmp/ncu.pfm \
                > "$out/ncu-bdpt-$scene.txt" 2>&1
        done
        for scene in $scenes; do
            run "$bin/wavefront-render" $scene --backend cuda --integrator bdpt --res 512x512 --time 12 --out "$out/$scene.png" \
                > /dev/null
        done
    elif [ "$part" = before ]; then
        # Scenes without media (and the forest's instanced kernels, which now hold the trackers):
        # this bundle against the baseline, alternating.
        : > "$out/before_after.md"
        for round in 1 2; do
            for side in "$root"/.gpu/baselines/* new; do
                if [ "$side" = new ]; then b="$bin"; lib="$root/.gpu/lib"; name="new $(cat .gpu/commit)"
                else b="$side/bin"; lib="$side/lib:$root/.gpu/lib"; name="$(basename "$side") $(cat "$side/commit")"; fi
                for r in "cornell-box --integrator pt" "cornell-box --integrator bdpt" "door-ajar --integrator vcm" \
                         "cornell-box --integrator mlt" "forest --integrator pt --res 1280x720"; do
                    echo "## round $round $name: $r" >> "$out/before_after.md"
                    # shellcheck disable=SC2086
                    LD_LIBRARY_PATH="$lib" "$b/wavefront-render" $r --backend cuda --spp 32 --out /tmp/ba.pfm \
                        >> "$out/before_after.md" 2>&1
                done
            done
        done
        grep -E "^## |samples in" "$out/before_after.md" | cut -c1-160 | tee -a "$log"
    elif [ "$part" = agree ]; then
        run "$bin/agreement" --backend cuda --scenes cornell-fog,smoke-box,volumetric-caustic --res 64x64 --seconds 8 \
            --seeds 8 --integrators pt,bdpt,mlt,mmlt,vcm > "$out/agreement.md" 2>&1
        grep -E "^\||^#" "$out/agreement.md" | tee -a "$log"
        mkdir -p "$out/cuda"
        for seed in 1 2 3 4 5 6 7 8; do
            "$bin/wavefront-render" cornell-fog --backend cuda --integrator pt --res 48x48 --spp 1024 --seed $seed \
                --out "$out/cuda/cornell-fog-pt-$seed.pfm" > /dev/null 2>&1
            "$bin/wavefront-render" smoke-box --backend cuda --integrator bdpt --res 48x48 --spp 256 --seed $seed \
                --out "$out/cuda/smoke-box-bdpt-$seed.pfm" > /dev/null 2>&1
        done
    else
        compare_report eff $scenes --methods pt,bdpt,mlt,mmlt,vcm --seeds 4 --times 4 --res 512x512 --backend cuda \
            --reference-method bdpt --reference-seconds 4 --pyramid 0 --flip off --keep-images means --figure off
        rm -f "$out/eff/images.tgz"
    fi
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi
if [ "$mode" = vcm ]; then
    # Issue 39 (VCM_PART=tests or bench). tests: the VCM and MIS tests, then memcheck and racecheck
    # on VCM, BPM and PPM renders. bench: throughput with per-kernel times (the grid's build:
    # "vcm grid keys", "sort pairs", "vcm grid buckets"), lanes per instruction of the light and
    # eye passes (ncu), PPM's and BPM's bias against BDPT at fixed radii, and the efficiency
    # table of BDPT, VCM and MLT (wavefront-compare, independent seeds).
    if [ "${VCM_PART:-tests}" = tests ]; then
        TEST_FILTER="[vcm],[mis]" TEST_SHARDS=2 all_tests
        sanitize_renders "cornell-box --integrator vcm" "glass-caustic --integrator bpm" "caustic-behind-glass --integrator ppm" \
            "door-ajar --integrator vcm --vcm-variant naive"
    else
        : > "$out/vcm-speed.md"
        # Issue 54: both schedules in the same call (M samples/s, rays/s, time per kernel label).
        for scene in cornell-box door-ajar caustic-behind-glass; do
            for variant in naive streaming; do
                run "$bin/wavefront-render" $scene --backend cuda --integrator vcm --vcm-variant $variant --res 1024x1024 \
                    --spp 16 --stats --out /tmp/vcm.pfm >> "$out/vcm-speed.md" 2>&1
            done
        done
        for integrator in bdpt bpm ppm; do
            run "$bin/wavefront-render" cornell-box --backend cuda --integrator $integrator --res 1024x1024 --spp 16 \
                --stats --out /tmp/vcm.pfm >> "$out/vcm-speed.md" 2>&1
        done
        run "$bin/wavefront-render" caustic-behind-glass --backend cuda --integrator vcm --res 512x512 --spp 64 --stats \
            --out "$out/caustic-behind-glass-vcm.png" >> "$out/vcm-speed.md" 2>&1
        # Lanes per instruction of every VCM kernel: the naive passes, then the streaming stages
        # (one iteration at 1 spp: its light and eye bounces).
        ncu --kernel-name-base demangled --kernel-name regex:"vcm::(LightStage|EyeStage)" --launch-count 4 \
            --metrics smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum \
            "$bin/wavefront-render" cornell-box --backend cuda --integrator vcm --vcm-variant naive --res 1024x1024 --spp 2 \
            --out /tmp/ncu.pfm > "$out/vcm-ncu.txt" 2>&1
        ncu --kernel-name-base demangled \
            --kernel-name regex:"vcm::(ExtendStage|LightShadeStage|EyeShadeStage|TraceStage|ConnectStage|MergeStage|CompactCacheStage)" \
            --launch-count 80 --metrics smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum \
            "$bin/wavefront-render" cornell-box --backend cuda --integrator vcm --res 1024x1024 --spp 1 --out /tmp/ncu.pfm \
            >> "$out/vcm-ncu.txt" 2>&1
        grep -E "Stage|thread_inst|duration" "$out/vcm-ncu.txt" | cut -c1-160 | tee -a "$log"
        # The merging bias against the radius: fixed radii (alpha near 1), 128 x 128, 1024 iterations.
        run "$bin/wavefront-render" cornell-box --backend cuda --integrator bdpt --res 128x128 --spp 8192 --out "$out/bias-bdpt.pfm"
        for integrator in ppm bpm; do
            for r in 0.04 0.02 0.01 0.005; do
                run "$bin/wavefront-render" cornell-box --backend cuda --integrator $integrator --radius $r --alpha 0.9999 \
                    --light-paths 65536 --res 128x128 --spp 1024 --out "$out/bias-$integrator-$r.pfm"
            done
        done
        python3 scripts/image_bias.py "$out/bias-bdpt.pfm" "$out"/bias-ppm-*.pfm "$out"/bias-bpm-*.pfm | tee "$out/vcm-bias.md" | tee -a "$log"
        grep -E "samples in|iterations|merges|vcm |sort pairs" "$out/vcm-speed.md" | cut -c1-140 | tee -a "$log"
        compare_report vcm-eff caustic-behind-glass glass-caustic door-ajar --methods bdpt,vcm,mlt --seeds 4 --times 4 \
            --res 512x512 --backend cuda --reference-method bdpt --reference-seconds 4 --pyramid 0 --flip off
    fi
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi
if [ "$mode" = animation ]; then
    : > "$out/animation.md"
    for update in refit rebuild auto; do
        run "$bin/animation" --backend cuda --res 1920x1080 --triangles 1000000 --frames 120 --update $update \
            >> "$out/animation.md" 2>&1
    done
    # The image left on the GPU (Renderer::deviceImage()), as a host that displays it would.
    run "$bin/animation" --backend cuda --res 1920x1080 --triangles 1000000 --frames 120 --update refit --resolve device \
        >> "$out/animation.md" 2>&1
    grep -E "^animation|^device|^\| " "$out/animation.md" | tee -a "$log"
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi
if [ "$mode" = report ]; then
    if [ $# -gt 2 ]; then
        compare_report report "${@:3}"
    else
        compare_report report "${REPORT[@]}"
        [ -d .gpu/stats/lib ] && LD_LIBRARY_PATH="$root/.gpu/stats/lib:$LD_LIBRARY_PATH" \
            compare_report report-simd "${REPORT_SIMD[@]}"
    fi
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi
if [ "$mode" = mlt-eff ]; then
    # Each part fits one device call (about 150, 370 and 300 s on an H100).
    part=${MLT_EFF_PART:-table}
    if [ "$part" = agree ]; then
        run "$bin/agreement" --backend cuda --scenes examples/scenes/textured-spheres.gltf --envmap examples/scenes/sky.hdr \
            --res 640x480 --integrators pt:20:4,mlt:80:16 --grid 8 > "$out/agreement-mlt.md" 2>&1
        run "$bin/agreement" --backend cuda --scenes sun-light --res 256x256 --integrators pt:10:4,mlt:40:16 --grid 8 \
            >> "$out/agreement-mlt.md" 2>&1
        grep -E "^### |^\| (pt|bdpt|mlt) " "$out/agreement-mlt.md" | tee -a "$log"
    elif [ $# -gt 2 ]; then
        compare_report mlt-eff "${@:3}"
    elif [ "$part" = long ]; then
        compare_report mlt-eff door-ajar mirror-caustic --methods bdpt,mlt --seeds 4 --times 16 --res 512x512 \
            --backend cuda --reference-method bdpt --reference-seconds 4 --pyramid 0 --flip off
    else
        compare_report mlt-eff cornell-box glass-caustic door-ajar mirror-caustic --methods pt,bdpt,mlt --seeds 4 \
            --times 1,4 --res 512x512 --backend cuda --reference-method bdpt --reference-seconds 16 --pyramid 0 --flip off
    fi
    rm -f "$out/mlt-eff/images.tgz"
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi
# A change to MLT's kernels: the MLT tests (TEST_FILTER), sanitizers on MLT renders, and MLT and
# BDPT throughput with per-kernel times against the baseline bundle, alternating, two rounds.
if [ "$mode" = mlt-speed ]; then
    TEST_FILTER=${TEST_FILTER:-"[mlt]"} all_tests
    sanitize "glass-caustic --integrator mlt --spp 2" "cornell-lens --integrator mlt --spp 2" "door-ajar --integrator mlt --spp 2" \
             "glass-caustic --integrator mmlt --spp 2" "cornell-lens --integrator mmlt --spp 2"
    : > "$out/mlt-speed.md"
    for round in 1 2; do
        for side in "$root"/.gpu/baselines/* new; do
            b="$side/bin"; lib="$side/lib:$root/.gpu/lib"; [ "$side" = new ] && { b="$bin"; lib="$root/.gpu/lib"; }
            name=$(basename "$side"); [ "$side" = new ] && name="new $(cat .gpu/commit)"
            for r in "cornell-box --integrator mlt --res 1024x1024 --spp 64" "cornell-box --integrator bdpt --res 1024x1024 --spp 64" \
                     "door-ajar --integrator mlt --res 512x512 --time 1" "mirror-caustic --integrator mlt --res 512x512 --time 1"; do
                echo "## round $round $name: $r" >> "$out/mlt-speed.md"
                # shellcheck disable=SC2086
                LD_LIBRARY_PATH="$lib" "$b/wavefront-render" $r --backend cuda --stats --out /tmp/speed.pfm >> "$out/mlt-speed.md" 2>&1
            done
            # Multiplexed MLT (the new build only: the baselines have none).
            if [ "$side" = new ]; then
                for r in "cornell-box --integrator mmlt --res 1024x1024 --spp 64" "door-ajar --integrator mmlt --res 512x512 --time 1"; do
                    echo "## round $round $name: $r" >> "$out/mlt-speed.md"
                    # shellcheck disable=SC2086
                    LD_LIBRARY_PATH="$lib" "$b/wavefront-render" $r --backend cuda --stats --out /tmp/speed.pfm >> "$out/mlt-speed.md" 2>&1
                done
            fi
        done
    done
    grep -E "^## |samples in|^bdpt (extend|shade|trace|connect) |^mlt decide" "$out/mlt-speed.md" | cut -c1-120 | tee -a "$log"
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi
# Figure 10 of the paper for our scenes: equal time, 4 seeds, against a measured reference.
figure10() {
    compare_report report cornell-box cornell-spheres glass-caustic door-ajar --backend cuda --res 512x512 --seeds 4 --times 1 \
        --reference-seconds 16 --pyramid 0 --flip off > "$out/mlt_fig10.md" 2>&1
}
if [ "$mode" = compare ]; then
    before_after
    # The full material set's kernels on a scene that needs them (microfacet materials, HDR sky).
    for side in "$root"/.gpu/baselines/* new; do
        b="$side/bin"; lib="$side/lib:$root/.gpu/lib"; [ "$side" = new ] && { b="$bin"; lib="$root/.gpu/lib"; }
        for integrator in pt bdpt mlt; do
            echo "== $(basename "$side") hdr-spheres $integrator" | tee -a "$log"
            LD_LIBRARY_PATH="$lib" "$b/wavefront-render" hdr-spheres --backend cuda --integrator $integrator \
                --res 1024x1024 --spp 16 --out /tmp/hdr.pfm 2>&1 | grep "samples in" | cut -c1-120 | tee -a "$log"
        done
    done
    # The stages' NVTX ranges: Nsight Compute profiles the connect kernel found inside its range.
    ncu --nvtx --nvtx-include "bdpt connect/" --launch-count 1 --metrics gpu__time_duration.sum \
        "$bin/wavefront-render" cornell-box --backend cuda --integrator bdpt --res 256x256 --spp 4 --out /tmp/nvtx.pfm \
        > "$out/nvtx.txt" 2>&1
    grep -E "ConnectStage|gpu__time_duration|No kernels" "$out/nvtx.txt" | head -4 | tee -a "$log"
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi

if [ "$mode" = agree ]; then
  if [ "${AGREE_PART:-all}" != bench ]; then
    all_tests
    sanitize "point-light --integrator pt --spp 2" "spot-light --integrator bdpt --spp 2" \
             "sun-light --integrator bdpt --bdpt-variant naive --spp 2" "point-light --integrator mlt --spp 2" \
             "examples/scenes/textured-spheres.gltf --envmap examples/scenes/sky.hdr --integrator bdpt --spp 2" \
             "examples/scenes/textured-spheres.gltf --envmap examples/scenes/sky.hdr --integrator pt --variant megakernel --spp 2"
  fi
  if [ "${AGREE_PART:-all}" != tests ]; then
    run "$bin/agreement" --backend cuda --scenes examples/scenes/textured-spheres.gltf --envmap examples/scenes/sky.hdr \
        --res 640x480 --seconds "${AGREE_SECONDS:-20}" --seeds 4 --grid 8 > "$out/agreement.md" 2>&1
    run "$bin/agreement" --backend cuda --scenes point-light,spot-light,sun-light --res 256x256 \
        --seconds "${AGREE_SECONDS:-20}" --seeds 4 --grid 8 >> "$out/agreement.md" 2>&1
    grep -E "^### |^\| (pt|bdpt|mlt) " "$out/agreement.md" | tee -a "$log"
  fi
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi

# A change that must leave images and speed alone: the baseline's and this build's images, byte
# for byte (PT and BDPT are deterministic; MLT's chains depend on the order of atomics on the
# GPU, so its images are compared by their mean), throughput before/after, ptxas resources.
# PART=tests or PART=compare runs one half (each fits one device call).
if [ "$mode" = identical ]; then
  if [ "${PART:-all}" != compare ]; then
    all_tests
    sanitize "cornell-spheres --integrator pt --variant spt-r --spp 2" "cornell-spheres --integrator pt --variant megakernel --spp 2" \
             "cornell-spheres --integrator pt --variant pt-r --spp 2" "hdr-spheres --integrator bdpt --spp 2" \
             "hdr-spheres --integrator bdpt --bdpt-variant naive --spp 2" "glass-caustic --integrator mlt --spp 2"
  fi
  if [ "${PART:-all}" != tests ]; then
    for side in "$root"/.gpu/baselines/* "$root/.gpu"; do
        lib=$(ls "$side"/lib/libwavefront.so.0)
        echo "== ptxas resources of $(cat "$side/commit" 2>/dev/null)" >> "$out/resources.txt"
        cuobjdump --dump-resource-usage "$lib" 2>&1 | grep -E "Function|REG" | paste - - |
            sed -E 's/.*Function ([^ :]*):?.*REG:([0-9]+) STACK:([0-9]+).*/\2 regs \3 stack \1/' | sort -k5 >> "$out/resources.txt"
    done
    base=$(ls -d "$root"/.gpu/baselines/* | head -1)
    for scene in cornell-box glass-caustic hdr-spheres textured; do
        sceneArgs=$scene
        [ $scene = textured ] && sceneArgs="examples/scenes/textured-spheres.gltf --envmap examples/scenes/sky.hdr"
        for run in "pt --variant spt-r" "pt --variant megakernel" "pt --variant pt-r" "bdpt --bdpt-variant streaming" \
                   "bdpt --bdpt-variant naive" "mlt"; do
            name="$scene-${run// /_}"
            # shellcheck disable=SC2086
            LD_LIBRARY_PATH="$base/lib:$root/.gpu/lib" "$base/bin/wavefront-render" $sceneArgs --backend cuda --integrator $run \
                --res 256x256 --spp 16 --out "/tmp/before-$name.pfm" > /dev/null 2>&1
            # shellcheck disable=SC2086
            "$bin/wavefront-render" $sceneArgs --backend cuda --integrator $run --res 256x256 --spp 16 \
                --out "/tmp/after-$name.pfm" > /dev/null 2>&1
            if cmp -s "/tmp/before-$name.pfm" "/tmp/after-$name.pfm"; then echo "identical $name" | tee -a "$log"
            else echo "DIFFERENT $name (MLT: expected, its chains depend on the order of atomics)" | tee -a "$log"; fi
        done
    done
    before_after
  fi
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi

# One scene, three integrators: every test, sanitizers on the new lights, lens and materials in
# each integrator, PT = BDPT = MLT on the new scenes, and throughput before/after.
if [ "$mode" = parity ]; then
    all_tests
    sanitize "hdr-spheres --integrator pt --variant spt-r --spp 2" "hdr-spheres --integrator pt --variant megakernel --spp 2" \
             "hdr-spheres --integrator bdpt --spp 2" "hdr-spheres --integrator bdpt --bdpt-variant naive --spp 2" \
             "hdr-spheres --integrator mlt --spp 2" "cornell-lens --integrator bdpt --spp 2" \
             "cornell-lens --integrator mlt --spp 2"
    run "$bin/parity" --backend cuda --scenes hdr-spheres,cornell-lens,cornell-spheres,glass-caustic --res 128x128 \
        --spp 256 --seeds 8 --ref-spp 4096 --ref-seeds 4 > "$out/parity.md" 2>&1
    grep -E "^\| " "$out/parity.md" | tee -a "$log"
    before_after
    mkdir -p "$out/images"
    for integrator in pt bdpt mlt; do
        for scene in hdr-spheres cornell-lens; do
            "$bin/wavefront-render" $scene --backend cuda --integrator $integrator --res 512x512 --spp 256 \
                --out "$out/images/$scene-$integrator.png" >> "$log" 2>&1
        done
    done
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi

# Kernels compiled per material set: a classic scene and a microfacet one in every schedule.
if [ "$mode" = material-sets ]; then
    all_tests
    sanitize "cornell-spheres --integrator pt --variant spt-r --spp 2" "cornell-spheres --integrator pt --variant megakernel --spp 2" \
             "cornell-spheres --integrator pt --variant pt-r --spp 2" "glass-caustic --integrator bdpt --spp 2" \
             "glass-caustic --integrator bdpt --bdpt-variant naive --spp 2" "glass-caustic --integrator mlt --spp 2" \
             "hdr-spheres --integrator pt --variant spt-r --spp 2" "hdr-spheres --integrator bdpt --spp 2" \
             "hdr-spheres --integrator mlt --spp 2"
    san="$out/sanitizer.txt"
    for tool in memcheck racecheck; do  # textured scenes: the texture tests' renders
        echo "== $tool textures" >> "$san"
        compute-sanitizer --tool $tool --error-exitcode 9 "$bin/wavefront_tests" "[textures]" >> "$san" 2>&1
        echo "exit $?" >> "$san"
    done
    run "$bin/parity" --backend cuda --scenes hdr-spheres,cornell-spheres,glass-caustic --res 128x128 \
        --spp 256 --seeds 8 --ref-spp 4096 --ref-seeds 4 > "$out/parity.md" 2>&1
    grep -E "^\| " "$out/parity.md" | tee -a "$log"
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi

# Real scenes: every test, sanitizers on the textured glTF example in every integrator, and its
# images (PT, BDPT, MLT) with the time each took.
if [ "$mode" = scenes ]; then
    all_tests
    ex="examples/scenes/textured-spheres.gltf --envmap examples/scenes/sky.hdr"
    sanitize "$ex --integrator pt --spp 2" "$ex --integrator pt --variant megakernel --spp 2" \
             "$ex --integrator bdpt --spp 2" "$ex --integrator bdpt --bdpt-variant naive --spp 2" \
             "$ex --integrator mlt --spp 2"
    for tool in memcheck racecheck; do  # the texture tests' renders (every texture kind)
        echo "== $tool textures" >> "$out/sanitizer.txt"
        compute-sanitizer --tool $tool --error-exitcode 9 "$bin/wavefront_tests" "[textures]" >> "$out/sanitizer.txt" 2>&1
        echo "exit $?" >> "$out/sanitizer.txt"
    done
    mkdir -p "$out/images"
    for integrator in pt bdpt mlt; do
        # shellcheck disable=SC2086
        "$bin/wavefront-render" $ex --backend cuda --integrator $integrator --res 768x768 --spp 256 --stats \
            --out "$out/images/textured-spheres-$integrator.png" 2>&1 | grep -E "samples in|^scene:|^memory:" | cut -c1-150 | tee -a "$log"
    done
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi

# Issue 17: one image on every GPU of the machine. The multi-device tests, the sanitizers on
# renders over every device, and the scaling benchmark (SCALING_ARGS: extra arguments for it).
if [ "$mode" = scaling ]; then
    run "$bin/wavefront_tests" "[multidevice]" > "$out/tests-multidevice.txt" 2>&1; echo "tests exit $?" | tee -a "$log"
    tail -3 "$out/tests-multidevice.txt" | tee -a "$log"
    # memcheck on renders large enough that a device takes over part of another's piece (the
    # shrink of a running work range), racecheck on small ones.
    local_san() {
        echo "== $*" >> "$out/sanitizer.txt"
        compute-sanitizer --error-exitcode 9 "$@" --backend cuda --devices all --out /tmp/san.pfm >> "$out/sanitizer.txt" 2>&1
        echo "exit $?" >> "$out/sanitizer.txt"
    }
    : > "$out/sanitizer.txt"
    local_san --tool memcheck "$bin/wavefront-render" cornell-box --integrator pt --variant spt-r --res 256x256 --spp 32 --stats
    local_san --tool memcheck "$bin/wavefront-render" cornell-box --integrator pt --variant megakernel --res 128x128 --spp 16
    local_san --tool memcheck "$bin/wavefront-render" cornell-box --integrator bdpt --res 128x128 --spp 8 --stats
    local_san --tool memcheck "$bin/wavefront-render" cornell-box --integrator bdpt --bdpt-variant naive --res 64x64 --spp 4
    local_san --tool memcheck "$bin/wavefront-render" cornell-box --integrator mlt --res 64x64 --spp 8 --stats
    local_san --tool racecheck "$bin/wavefront-render" cornell-box --integrator pt --res 40x40 --spp 4 --stream-capacity 700
    local_san --tool racecheck "$bin/wavefront-render" cornell-box --integrator mlt --res 40x40 --spp 4 --stream-capacity 700
    # shellcheck disable=SC2086
    run "$bin/scaling" --backend cuda ${SCALING_ARGS:-} > "$out/scaling.md" 2>&1
    cat "$out/scaling.md" | tee -a "$log" >/dev/null
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi

# Issue 15: rtiow-final against the hand-tuned megakernel's published numbers.
if [ "$mode" = rtiow ]; then
    all_tests
    sanitize "rtiow-final --integrator pt --variant megakernel --spp 2 --nee off" \
             "rtiow-final --integrator pt --variant spt-r --spp 2 --nee on" \
             "rtiow-final --integrator bdpt --spp 2"
    run "$bin/rtiow" --backend cuda --frames 20 > "$out/rtiow.md" 2>&1
    grep -E "^\| |^cuda" "$out/rtiow.md" | tee -a "$log"
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi

# Trustworthy estimates: the consistency of MLT at every chain count, re-rendering and time limits.
if [ "$mode" = trust ]; then
    all_tests
    sanitize "cornell-spheres --integrator mlt --spp 2" "glass-caustic --integrator mlt --startup uniform --time 0.5" \
             "glass-caustic --integrator bdpt --spp 2" "glass-caustic --integrator bdpt --bdpt-variant naive --spp 2" \
             "cornell-spheres --variant spt-r --spp 2" "cornell-spheres --variant pt-r --time 0.5" \
             "cornell-spheres --variant megakernel --spp 2" "cornell-spheres --variant spt --spp 2"
    san="$out/sanitizer.txt"
    echo "== memcheck render again and render more" >> "$san"
    compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/wavefront_tests" \
        "render() again gives the same film and stats count what reached it,renderMore() adds to the film as one longer render would" >> "$san" 2>&1
    echo "exit $?" >> "$san"
    sed -n '/^== memcheck render again/,$p' "$san" | grep -E "^== |^exit|ERROR SUMMARY" | tee -a "$log"
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi
if [ "$mode" = trust-bias ]; then
    run "$bin/mlt_bias" --backend cuda "${@:3}" > "$out/mlt_bias.md" 2>&1
    grep -E "^\| " "$out/mlt_bias.md" | tee -a "$log"
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi
if [ "$mode" = trust-bench ]; then
    run "$bin/time_limit" --backend cuda > "$out/time_limit.md" 2>&1
    run "$bin/pt_variants" --backend cuda --scenes rtiow-final,cornell-box --variants megakernel,pt-r,spt,spt-r --again 2 \
        > "$out/again.md" 2>&1
    before_after
    figure10
    cat "$out/time_limit.md" "$out/mlt_fig10.md" | grep -E "^\| " | tee -a "$log"
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi

# MLT benchmarks (Table 6, mutations/s, acceptance, SIMD occupancy) and the Figure 10 equal-time
# comparison (wavefront-compare), then a BDPT and PT regression check and Nsight Compute on the MLT kernels.
if [ "$mode" = mlt-bench ]; then
    run "$bin/mlt" --backend cuda > "$out/mlt.md" 2>&1
    LD_LIBRARY_PATH="$root/.gpu/stats/lib" run "$root/.gpu/stats/bin/mlt" --backend cuda --spp 16 --repeat 1 \
        --variants 0 > "$out/mlt_stats.md" 2>&1
    figure10
    run "$bin/bdpt" --backend cuda --scenes cornell-box,glass-caustic --naive 0 > "$out/bdpt_regression.md" 2>&1
    run "$bin/pt_variants" --backend cuda --scenes cornell-box --variants megakernel,spt-r >> "$out/bdpt_regression.md" 2>&1
    ncu --metrics smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum \
        --kernel-name-base demangled -k regex:"ExtendStage|ShadeStage|TraceStage|ConnectStage|DecideStage|RegenerateStage" \
        --launch-skip 60 --launch-count 30 "$bin/wavefront-render" cornell-box --backend cuda --res 1024x1024 --spp 16 \
        --integrator mlt --out /tmp/ncu.pfm > "$out/mlt_ncu.txt" 2>&1
    cat "$out/mlt.md" "$out/mlt_stats.md" "$out/mlt_fig10.md" | grep -E "^\| " | tee -a "$log"
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi

# 1. Every test (CPU and CUDA) on the GPU machine.
run "$bin/wavefront_tests" --order lex > "$out/tests.txt" 2>&1; echo "tests exit $?" | tee -a "$log"
tail -3 "$out/tests.txt" | tee -a "$log"

# 2. Sanitizers on the CUDA paths: BDPT (both schedules; a small capacity forces many connect
#    phases and regenerations), every variant of the path tracer, LBVH build and traversal.
san="$out/sanitizer.txt"
: > "$san"
for tool in memcheck racecheck; do
    # MLT: pool, start and mutation phases; a small chain count forces many connect phases.
    for args in "cornell-spheres" "glass-caustic --startup uniform --camera-connections off"; do
        echo "== $tool mlt $args" >> "$san"
        # shellcheck disable=SC2086  # $args is a list of words on purpose
        compute-sanitizer --tool $tool --error-exitcode 9 "$bin/wavefront-render" $args --backend cuda \
            --integrator mlt --stream-capacity 700 --res 40x40 --spp 2 --out /tmp/san.pfm >> "$san" 2>&1
        echo "exit $?" >> "$san"
    done
    [ "$mode" = mlt ] && continue
    for v in streaming naive; do
        for scene in cornell-spheres glass-caustic; do
            echo "== $tool bdpt $v $scene" >> "$san"
            compute-sanitizer --tool $tool --error-exitcode 9 "$bin/wavefront-render" $scene --backend cuda \
                --integrator bdpt --bdpt-variant $v --stream-capacity 700 --res 40x40 --spp 2 --out /tmp/san.pfm >> "$san" 2>&1
            echo "exit $?" >> "$san"
        done
    done
done
if [ "$mode" = mlt ]; then  # the BDPT stages are shared: one streaming and one naive run
    for tool in memcheck racecheck; do
        for v in streaming naive; do
            echo "== $tool bdpt $v glass-caustic" >> "$san"
            compute-sanitizer --tool $tool --error-exitcode 9 "$bin/wavefront-render" glass-caustic --backend cuda \
                --integrator bdpt --bdpt-variant $v --stream-capacity 700 --res 40x40 --spp 2 --out /tmp/san.pfm >> "$san" 2>&1
            echo "exit $?" >> "$san"
        done
    done
    echo "== memcheck mlt replay test" >> "$san"
    compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/wavefront_tests" "CUDA MLT replays its chains and matches the analytic sphere" >> "$san" 2>&1
    echo "exit $?" >> "$san"
fi
for tool in memcheck racecheck; do
    [ "$mode" = bdpt ] || [ "$mode" = mlt ] && break
    for v in megakernel pt-r spt spt-r; do
        echo "== $tool $v" >> "$san"
        compute-sanitizer --tool $tool --error-exitcode 9 "$bin/wavefront-render" cornell-spheres --backend cuda \
            --variant $v --res 48x48 --spp 2 --out /tmp/san.pfm >> "$san" 2>&1
        echo "exit $?" >> "$san"
    done
    echo "== $tool bvh/traversal tests" >> "$san"
    compute-sanitizer --tool $tool --error-exitcode 9 "$bin/wavefront_tests" "CUDA traversal equals brute force and the CPU on 100k random rays" >> "$san" 2>&1
    echo "exit $?" >> "$san"
    echo "== $tool environment, compaction and distribution GPU tests" >> "$san"
    compute-sanitizer --tool $tool --error-exitcode 9 "$bin/wavefront_tests" "[gpu][environment],[gpu][compaction],[gpu][distribution]" >> "$san" 2>&1
    echo "exit $?" >> "$san"
    for ls in guide forest alias; do
        echo "== $tool many-lights $ls" >> "$san"
        compute-sanitizer --tool $tool --error-exitcode 9 "$bin/wavefront-render" many-lights --backend cuda \
            --light-sampler $ls --res 32x32 --spp 2 --out /tmp/san.pfm >> "$san" 2>&1
        echo "exit $?" >> "$san"
    done
done
grep -E "^== |^exit|ERROR SUMMARY" "$san" | tee -a "$log"
[ "$mode" = quick ] || [ "$mode" = mlt ] && exit 0

# BDPT benchmarks (Tables 3 to 6): samples/s per schedule, phase SIMD occupancy (stats build),
# time split, bytes per slot; the warp-transposed vertex writes on and off; ncu cross-check.
bdpt_bench() {
    run "$bin/bdpt" --backend cuda --coalesced both > "$out/bdpt.md" 2>&1
    LD_LIBRARY_PATH="$root/.gpu/stats/lib" run "$root/.gpu/stats/bin/bdpt" --backend cuda --spp 16 --repeat 1 \
        > "$out/bdpt_stats.md" 2>&1
    "$bin/pt_variants" --backend cuda --scenes cornell-box --variants megakernel,spt-r >> "$out/bdpt.md" 2>&1
    ncu --metrics smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum \
        --kernel-name-base demangled -k regex:"ExtendStage|ShadeStage|TraceStage|ConnectStage|NaiveStage|RegenerateStage" \
        --launch-skip 20 --launch-count 30 "$bin/wavefront-render" cornell-box --backend cuda --res 1024x1024 --spp 16 \
        --integrator bdpt --out /tmp/ncu.pfm > "$out/bdpt_ncu.txt" 2>&1
    ncu --metrics smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum --kernel-name-base demangled \
        -k regex:"NaiveStage" --launch-count 2 "$bin/wavefront-render" cornell-box --backend cuda --res 1024x1024 \
        --spp 4 --integrator bdpt --bdpt-variant naive --out /tmp/ncu.pfm >> "$out/bdpt_ncu.txt" 2>&1
    grep -E "^\| " "$out/bdpt.md" | cut -d'|' -f2-12 | tee -a "$log"
}
if [ "$mode" = bdpt ]; then
    bdpt_bench
    echo "gpu-check finished" | tee -a "$log"
    exit 0
fi

# 3. Benchmarks.
run "$bin/bvh_bench" --backend cuda > "$out/bvh_bench.md" 2>&1
run "$bin/pt_variants" --backend cuda > "$out/pt_variants.md" 2>&1
LD_LIBRARY_PATH="$root/.gpu/stats/lib" run "$root/.gpu/stats/bin/pt_variants" --backend cuda \
    --scenes cornell-box,cornell-spheres,cornell-glossy > "$out/pt_variants_stats.md" 2>&1

# 4. Compaction in isolation, light sampling, the path tracer per light sampler, and the
#    stream-capacity sweep.
run "$bin/compaction_bench" --backend cuda > "$out/extra.md" 2>&1
[ -x "$bin/light_sampling" ] && run "$bin/light_sampling" --backend cuda >> "$out/extra.md" 2>&1
"$bin/pt_variants" --backend cuda --scenes many-lights --variants megakernel,spt-r \
    --light-samplers binary,guide,forest,alias >> "$out/extra.md" 2>&1
for cap in 131072 262144 540672 1081344 2162688 4325376; do
    "$bin/pt_variants" --backend cuda --scenes cornell-box,mesh-1m --variants spt-r --capacity $cap 2>&1 | tail -n +3 >> "$out/extra.md"
done

# 5. Nsight Compute cross-check of the SIMD counters (threads per warp instruction / 32), on the
#    full-stream phase of a 16-spp render: launches 10 to 27 of extend/shade/connect (iterations 4 to 9).
ncu --metrics smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum \
    --kernel-name-base demangled -k regex:"ExtendStage|ShadeStage|ConnectStage" \
    --launch-skip 9 --launch-count 18 "$bin/wavefront-render" cornell-box --backend cuda --res 1024x1024 --spp 16 \
    --variant spt-r --out /tmp/ncu.pfm > "$out/ncu.txt" 2>&1
ncu --metrics smsp__thread_inst_executed_per_inst_executed.ratio --kernel-name-base demangled \
    -k regex:"MegakernelStage" --launch-count 4 "$bin/wavefront-render" cornell-box --backend cuda --res 1024x1024 \
    --spp 16 --variant megakernel --out /tmp/ncu.pfm >> "$out/ncu.txt" 2>&1
for v in spt-r pt-r megakernel; do
    LD_LIBRARY_PATH="$root/.gpu/stats/lib" "$root/.gpu/stats/bin/wavefront-render" cornell-box --backend cuda \
        --res 1024x1024 --spp 16 --variant $v --stats --out /tmp/stats.pfm >> "$out/ncu.txt" 2>&1
done
grep -E "^kernel|^(generate|extend|shade|connect|megakernel) " "$out/ncu.txt" | tee -a "$log"
bdpt_bench
echo "gpu-check finished" | tee -a "$log"
