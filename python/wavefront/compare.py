"""wavefront-compare: rendering methods against a reference, from independent seeds, as numbers
(results.json) and one self-contained HTML report. docs/decisions.md says why it is built so.

    wavefront-compare SCENE[:key=value...]... [--methods pt,bdpt,mlt,mlt:large-step=0.3] [--seeds K]
        [--times T1,T2,...] [--spp N1,N2,...] [--reference FILE ... | --reference-method M
        --reference-seconds S | --reference-spp N] [--crop x,y,w,h ...] [--sky uniform|gradient|rtiow]
        [--envmap FILE] [--envmap-scale S] [--camera FX,FY,FZ,TX,TY,TZ,UX,UY,UZ,FOV] [--up y|z]
        [--res WxH] [--backend auto|cpu|cuda] [--max-depth N] [--out DIR]
    wavefront-compare --report-only DIR      (index.html again from DIR/results.json and DIR/images)

A method is an integrator of the registry (wavefront.integrators()) with options of its own,
NAME[:OPTION=VALUE...], e.g. mlt:large-step=0.3, pt:variant=megakernel, bdpt:variant=naive. A
scene takes lighting of its own the same way (keys sky, envmap, envmap-scale, camera, up), e.g.
examples/scenes/textured-spheres.gltf:envmap=examples/scenes/sky.hdr; it overrides the flags.

Every method renders K seeds at every budget: equal time (--times, seconds each) and equal samples
(--spp, samples per pixel each; MLT: mutations per pixel). The metrics (wavefront.metrics) of
each seed against the reference give a mean and a 95 % interval; the seeds together split the
error into variance and bias^2 and test the bias. From Python, wavefront.compare(...) runs the
same harness and returns a Comparison (numbers and images) without writing anything.
"""
import argparse
import datetime
import math
import os
import platform
import re
import shlex
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np

import wavefront as wf
from wavefront import metrics

REFERENCE_SEED_BASE = 1_000_000  # the reference's samples are independent of the methods' (seeds 1..K)
SKIES = ("uniform", "gradient", "rtiow")
UP_AXES = {"y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0)}
SCENE_KEYS = ("sky", "envmap", "envmap-scale", "camera", "up")  # SCENE:key=value, as the flags
MODES = {"time": "equal time", "spp": "equal samples"}


# ---- Parsing: every function raises wf.InputError with one line ---------------------------------

def parse_resolution(text):
    m = re.fullmatch(r"(\d+)[xX](\d+)", text.strip())
    if not m or not (1 <= int(m[1]) <= 32768 and 1 <= int(m[2]) <= 32768):
        raise wf.InputError(f"resolution '{text}' is not WIDTHxHEIGHT with sides 1..32768")
    return int(m[1]), int(m[2])


def parse_numbers(flag, text, kind=float):
    """A comma-separated list of positive, finite numbers, sorted, each once."""
    try:
        values = [kind(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise wf.InputError(f"{flag} '{text}' is not a list of numbers separated by commas") from None
    if not values or not all(math.isfinite(v) and v > 0 for v in values):
        raise wf.InputError(f"{flag} '{text}': every value must be a finite number above 0")
    return sorted(set(values))


def parse_crop(text):
    m = re.fullmatch(r"(\d+),(\d+),(\d+),(\d+)", text.strip())
    if not m or int(m[3]) < 1 or int(m[4]) < 1:
        raise wf.InputError(f"--crop '{text}' is not x,y,w,h (pixels; w and h at least 1)")
    return tuple(int(v) for v in m.groups())


def parse_camera(text):
    """--camera FX,FY,FZ,TX,TY,TZ,UX,UY,UZ,FOV, checked as wavefront-render checks it."""
    try:
        n = [float(v) for v in text.split(",")]
    except ValueError:
        n = []
    if len(n) != 10 or not all(math.isfinite(v) for v in n):
        raise wf.InputError(f"--camera '{text}' is not FX,FY,FZ,TX,TY,TZ,UX,UY,UZ,FOV (10 finite numbers)")
    position, target, up = np.array(n[0:3]), np.array(n[3:6]), np.array(n[6:9])
    forward = target - position
    if not np.linalg.norm(forward) > 0:
        raise wf.InputError(f"--camera '{text}': from and to are the same point")
    if not np.linalg.norm(np.cross(forward / np.linalg.norm(forward), up)) > 1e-6:
        raise wf.InputError(f"--camera '{text}': the up vector is zero or parallel to the viewing direction")
    if not 0 < n[9] < 180:
        raise wf.InputError(f"--camera '{text}': the field of view must lie in (0, 180) degrees")
    camera = wf.Camera()
    camera.position, camera.target, camera.up, camera.verticalFovDegrees = n[0:3], n[3:6], n[6:9], n[9]
    return camera


class Method:
    """An integrator of the registry and options of its own: NAME[:OPTION=VALUE...]."""

    def __init__(self, text):
        self.text = text.strip()
        name, *settings = self.text.split(":")
        known = {i.name: i for i in wf.integrators()}
        if name not in known:
            raise wf.InputError(f"method '{self.text}': no integrator '{name}' (there are {', '.join(known)})")
        self.info = known[name]
        self.settings = []
        options = [o.name for o in self.info.options]
        for setting in settings:
            key, equals, value = setting.partition("=")
            if not equals or not key:
                raise wf.InputError(f"method '{self.text}': '{setting}' is not OPTION=VALUE")
            if key not in options:
                raise wf.InputError(f"method '{self.text}': {name} has no option '{key}' (it has {', '.join(options)})")
            self.settings.append((key, value))
        self.apply(wf.RenderOptions())  # a value it cannot read fails now, not after hours of rendering

    @property
    def integrator(self):
        return self.info.name

    def apply(self, options):
        options.integrator = self.info.type
        for key, value in self.settings:
            try:
                options.setIntegratorOption(key, value)
            except wf.InputError as e:
                raise wf.InputError(f"method '{self.text}': {e}") from None
        return options

    def __repr__(self):
        return self.text


def parse_methods(texts):
    """Methods from comma-separated lists; a piece after an OPTION=VALUE that names no integrator
    continues that value (bdpt:strategy=1,2)."""
    names = {i.name for i in wf.integrators()}
    pieces = []
    for text in texts:
        for piece in text.split(","):
            head = piece.split(":", 1)[0].strip()
            if pieces and "=" in pieces[-1] and head not in names and ":" not in piece and "=" not in piece:
                pieces[-1] += "," + piece
            elif piece.strip():
                pieces.append(piece)
    methods = [m if isinstance(m, Method) else Method(m) for m in pieces]
    if not methods:
        raise wf.InputError("--methods names no method")
    seen = set()
    for m in methods:
        if m.text in seen:
            raise wf.InputError(f"method '{m.text}' is given twice")
        seen.add(m.text)
    return methods


def split_scene(text):
    """'path:envmap=sky.hdr:up=z' -> ('path', {'envmap': 'sky.hdr', 'up': 'z'})."""
    parts = text.split(":")
    for i in range(1, len(parts)):
        if all(re.match(r"(%s)=" % "|".join(re.escape(k) for k in SCENE_KEYS), p) for p in parts[i:]):
            settings = {}
            for p in parts[i:]:
                key, _, value = p.partition("=")
                if key in settings:
                    raise wf.InputError(f"scene '{text}': {key} is given twice")
                settings[key] = value
            return ":".join(parts[:i]), settings
    return text, {}


class SceneSpec:
    """A scene argument with its lighting and camera: the flags, overridden by the scene's own keys.
    Mirrors loadScene of examples/render_cli.cpp (the same names and rules)."""

    def __init__(self, text, sky=None, envmap=None, envmap_scale=None, camera=None, up="y"):
        self.text = text
        self.scene, own = split_scene(text)
        self.sky = own.get("sky", sky)
        self.envmap = own.get("envmap", envmap)
        scale = own.get("envmap-scale", envmap_scale)
        self.up = own.get("up", up)
        camera_text = own.get("camera", camera)
        if self.sky is not None and self.sky not in SKIES:
            raise wf.InputError(f"scene '{text}': sky '{self.sky}' is not uniform, gradient or rtiow")
        if self.sky and self.envmap:
            raise wf.InputError(f"scene '{text}': a sky and an environment map exclude each other")
        if self.up not in UP_AXES:
            raise wf.InputError(f"scene '{text}': up '{self.up}' is not y or z")
        if self.sky == "rtiow" and self.up != "y":
            raise wf.InputError(f"scene '{text}': the rtiow sky has y up; it does not take up {self.up}")
        try:
            self.envmap_scale = None if scale is None else float(scale)
        except ValueError:
            self.envmap_scale = float("nan")
        if self.envmap_scale is not None and not (math.isfinite(self.envmap_scale) and self.envmap_scale >= 0):
            raise wf.InputError(f"scene '{text}': envmap-scale '{scale}' is not a finite number >= 0")
        self.camera_text = camera_text
        self.camera = None if camera_text is None else parse_camera(camera_text)

    def load(self, say):
        scene = wf.Scene.fromNameOrPath(self.scene)
        for warning in scene.warnings():
            say(f"{self.scene}: warning: {warning}")
        up = UP_AXES[self.up]
        if self.camera is not None:
            scene.setCamera(self.camera)
        elif scene.cameraIsDefault():
            scene.frameCamera(up)
        if self.sky == "rtiow":
            scene.setSkyGradient(wf.SkyGradient())
        elif self.sky:
            scene.setEnvironment(wf.skyEnvironment(self.sky, up))
        if self.envmap_scale is not None and not self.envmap and not scene.hasEnvironment():
            raise wf.InputError(f"scene '{self.text}' has no environment to scale (add envmap or sky)")
        return scene

    def lighting(self):
        return {"sky": self.sky, "envmap": self.envmap, "envmap_scale": self.envmap_scale, "camera": self.camera_text,
                "up": self.up}


def safe_name(text):
    stem = Path(text).stem if Path(text).suffix else text
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", stem).strip("._") or "scene"


def image_id(*parts):
    """A file-system-safe id for an image of the comparison (it names the report's PNG files)."""
    return "_".join(re.sub(r"[^A-Za-z0-9.-]+", "-", str(p)).strip("-") for p in parts)


def check_reference(image, what):
    a = np.asarray(image)
    if a.ndim != 3 or a.shape[2] != 3:
        raise wf.InputError(f"{what} is not an RGB image")
    bad = int(np.count_nonzero(~np.isfinite(a)))
    if bad:
        raise wf.InputError(f"{what} has {bad} non-finite values (NaN or infinity): no error can be measured against it")
    if not np.any(a > 0):
        raise wf.InputError(f"{what} is black: relative errors against it are undefined (is the scene lit?)")


# ---- The harness --------------------------------------------------------------------------------

class Comparison:
    """What compare() measured: `results` (the dict results.json holds) and `images` (id -> float32
    (height, width, 3) linear RGB; the ids are those results names: a scene's "reference_image", a
    run's "image" (its first seed) and "mean_image" (mean over its seeds), a pyramid entry's)."""

    def __init__(self, results, images):
        self.results = results
        self.images = images

    def scene(self, name):
        return next(s for s in self.results["scenes"] if s["name"] == name or s["scene"] == name)

    def run(self, scene, method, mode, budget):
        """The run of `method` (its text) at `budget` of `mode` ("time" or "spp") in `scene`."""
        return next(r for r in self.scene(scene)["runs"]
                    if r["method"] == str(method) and r["mode"] == mode and r["budget"] == budget)

    def write(self, out):
        """results.json, the report's images and index.html into the folder `out`."""
        from wavefront import report

        return report.write(self, out)


class Progress:
    def __init__(self, sink, total):
        self.sink, self.total, self.done, self.start = sink, total, 0, time.monotonic()

    def say(self, line):
        if self.sink:
            self.sink(line)

    def step(self, line):
        self.done += 1
        elapsed = time.monotonic() - self.start
        left = elapsed / self.done * (self.total - self.done)
        self.say(f"[{self.done}/{self.total}, {elapsed:.0f} s, ~{left:.0f} s left] {line}")


def _stderr(line):
    print(f"wavefront-compare: {line}", file=sys.stderr, flush=True)


def render(scene, options):
    renderer = wf.Renderer(scene, options)
    renderer.render()
    return np.asarray(renderer.image()), renderer.stats()


def _commit():
    if os.environ.get("WAVEFRONT_COMMIT"):  # where the code travelled without its .git (scripts/gpu-check.sh)
        return os.environ["WAVEFRONT_COMMIT"]
    try:
        here = Path(__file__).resolve().parent
        return subprocess.run(["git", "-C", str(here), "describe", "--always", "--dirty"], capture_output=True,
                              text=True, timeout=10, check=True).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def compare(scenes, methods=("pt", "bdpt", "mlt"), seeds=8, times=None, spp=None, *, reference=None,
            reference_method="bdpt", reference_seconds=None, reference_spp=None, reference_seeds=4,
            reference_noise_fraction=0.1, res=None, backend="auto", max_depth=16, stream_capacity=0, sky=None,
            envmap=None, envmap_scale=None, camera=None, up="y", crops=(), epsilon=metrics.EPSILON, flip="auto",
            pyramid=4, pyramid_spp=16, first_seed=1, progress=True, command=None):
    """Renders every method for `seeds` seeds at every budget against a reference and measures them.

    scenes: names or paths, each optionally with ":key=value" lighting (SceneSpec); methods: texts
    NAME[:OPTION=VALUE...] or Method objects; times (seconds) and spp (samples per pixel): the
    budgets of equal time and equal samples (either or both; neither: times 0.5, 1, 2); reference:
    None (render one with reference_method for reference_seconds in total or reference_spp per seed,
    over reference_seeds seeds) or a list of image files (EXR/PFM/HDR), one per scene; res: (w, h),
    default the reference file's size or 256x256; crops: (x, y, w, h) insets for the report;
    pyramid: BDPT's (s, t) images up to this many segments (0: none); progress: True (lines on
    stderr), False, or a callable taking each line. Bad input raises wf.InputError before anything
    renders. Returns a Comparison; Comparison.write(DIR) makes the report."""
    scenes = [str(scenes)] if isinstance(scenes, (str, Path)) else [str(s) for s in scenes]
    seeds = int(seeds)
    if seeds < 1:
        raise wf.InputError(f"seeds must be at least 1, not {seeds}")
    if reference_seeds < 1:
        raise wf.InputError(f"reference seeds must be at least 1, not {reference_seeds}")
    if times is None and spp is None:
        times = [0.5, 1.0, 2.0]
    times = sorted(set(float(t) for t in times or []))
    spp = sorted(set(int(n) for n in spp or []))
    if any(not (math.isfinite(t) and t > 0) for t in times) or any(n < 1 for n in spp):
        raise wf.InputError("times and samples per pixel must be above 0")
    budgets = [("time", t) for t in times] + [("spp", n) for n in spp]
    methods = parse_methods(methods) if isinstance(methods, str) else parse_methods(list(methods))
    if reference is not None and isinstance(reference, (str, Path)):
        reference = [reference]
    if reference is not None and len(reference) != len(scenes):
        raise wf.InputError(f"{len(reference)} reference files for {len(scenes)} scenes: give one per scene")
    ref_method = None if reference is not None else (
        reference_method if isinstance(reference_method, Method) else Method(reference_method))
    if reference_seconds is not None and reference_spp is not None:
        raise wf.InputError("give the reference's seconds or its samples per pixel, not both")
    if reference_seconds is not None and not (math.isfinite(reference_seconds) and reference_seconds > 0):
        raise wf.InputError(f"reference seconds must be above 0, not {reference_seconds}")
    if reference_spp is not None and reference_spp < 1:
        raise wf.InputError(f"reference samples per pixel must be at least 1, not {reference_spp}")
    if reference is None and reference_seconds is None and reference_spp is None:
        if times:
            reference_seconds = 16 * max(times)
        else:
            reference_spp = 16 * max(spp)
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise wf.InputError(f"epsilon must be above 0, not {epsilon}")
    if max_depth < 1:
        raise wf.InputError(f"max depth must be at least 1, not {max_depth}")
    if stream_capacity < 0:
        raise wf.InputError(f"stream capacity must be >= 0, not {stream_capacity}")
    try:
        backend_value = wf.parseBackend(backend) if isinstance(backend, str) else backend
    except wf.InputError as e:
        raise wf.InputError(f"backend: {e}") from None
    crops = [parse_crop(c) if isinstance(c, str) else tuple(int(v) for v in c) for c in crops]
    if not (math.isfinite(reference_noise_fraction) and reference_noise_fraction > 0):
        raise wf.InputError(f"reference noise fraction must be above 0, not {reference_noise_fraction}")
    if pyramid < 0 or pyramid_spp < 1:
        raise wf.InputError("the pyramid's length must be >= 0 and its samples per pixel >= 1")
    bdpt_method = next((m for m in methods if m.integrator == "bdpt" and "strategy" not in dict(m.settings)), None)
    job = types.SimpleNamespace(
        methods=methods, seeds=seeds, first_seed=first_seed, budgets=budgets, epsilon=epsilon,
        flip=metrics.Flip(flip), reference_method=ref_method, reference_seconds=reference_seconds,
        reference_spp=reference_spp, reference_seeds=reference_seeds, noise_fraction=reference_noise_fraction,
        crops=crops, bdpt_method=bdpt_method, pyramid=min(pyramid, max_depth) if bdpt_method else 0,
        pyramid_spp=pyramid_spp, images={}, device=None)
    sink = _stderr if progress is True else (progress or None)
    specs = [SceneSpec(s, sky, envmap, envmap_scale, camera, up) for s in scenes]
    base = wf.RenderOptions()
    base.backend = backend_value
    base.maxDepth = max_depth
    base.streamCapacity = stream_capacity
    # Everything that can be refused is refused before the first render.
    prepared = []
    for index, spec in enumerate(specs):
        prepared.append(_prepare(job, spec, None if reference is None else str(reference[index]), res, base,
                                 [p["name"] for p in prepared], sink or (lambda line: None)))

    per_scene = len(methods) * (1 + seeds * len(budgets)) + sum(k + 1 for k in range(1, job.pyramid + 1))
    progress_lines = Progress(sink, len(prepared) * (per_scene + (reference_seeds if reference is None else 0)))
    started = datetime.datetime.now().astimezone()
    scene_results = [_compare_scene(job, p, progress_lines) for p in prepared]
    results = {
        "tool": "wavefront-compare", "version": wf.__version__, "commit": _commit(), "command": command,
        "date": started.isoformat(timespec="seconds"), "device": job.device, "host": platform.node(),
        "seeds": seeds, "first_seed": first_seed, "times": times, "spp": spp,
        "methods": [{"method": m.text, "integrator": m.integrator, "options": dict(m.settings),
                     "description": m.info.description} for m in methods],
        "epsilon": epsilon, "trim_fraction": metrics.TRIM_FRACTION, "confidence": metrics.CONFIDENCE,
        "bias_level": metrics.BIAS_LEVEL, "reference_noise_fraction": reference_noise_fraction,
        "flip": {"available": job.flip.available, "reason": job.flip.reason},
        "max_depth": max_depth, "stream_capacity": stream_capacity, "crops": [list(c) for c in crops],
        "definitions": metrics.definitions(epsilon), "scenes": scene_results,
    }
    return Comparison(results, job.images)


def _prepare(job, spec, ref_file, res, base, taken, say):
    """A scene loaded and lit, its reference file read and checked, its options validated for every
    method: what the renders of one scene need, before any of them."""
    scene = spec.load(say)
    name = safe_name(spec.scene)
    while name in taken:  # two scene files with one stem
        name += "_"
    ref_image = None
    if ref_file is not None:
        ref_image = np.asarray(wf.readImage(ref_file), dtype=np.float32)
        check_reference(ref_image, f"reference {ref_file}")
        if res is not None and ref_image.shape[:2] != (res[1], res[0]):
            raise wf.InputError(f"reference {ref_file} is {ref_image.shape[1]}x{ref_image.shape[0]}, "
                                f"not {res[0]}x{res[1]} as asked")
    width, height = (ref_image.shape[1], ref_image.shape[0]) if ref_image is not None else (res or (256, 256))
    for x, y, w, h in job.crops:
        if x + w > width or y + h > height:
            raise wf.InputError(f"crop {x},{y},{w},{h} reaches outside the {width}x{height} image of {spec.scene}")
    options = _copy_options(base)
    options.width, options.height = width, height
    options.environmentMap = spec.envmap or ""
    if spec.envmap_scale is not None:
        options.environmentScale = spec.envmap_scale
    for m in job.methods + ([job.reference_method] if job.reference_method else []):
        m.apply(_copy_options(options)).validate()
    wf.Renderer(scene, job.methods[0].apply(_copy_options(options)))  # the scene, its lights and files load
    return {"spec": spec, "scene": scene, "name": name, "base": options, "ref_image": ref_image, "ref_file": ref_file}


def _render(job, scene, options):
    image, stats = render(scene, options)
    job.device = job.device or stats["backend"]
    return image, stats


def _render_reference(job, p, progress_lines):
    """The mean of the reference method's own seeds, those seeds, and what results.json says of it."""
    base, name = p["base"], p["name"]
    method, n = job.reference_method, job.reference_seeds
    seeds, seconds, samples = [], 0.0, 0
    for i in range(n):
        o = method.apply(_copy_options(base))
        o.seed = REFERENCE_SEED_BASE + i
        if job.reference_seconds is not None:
            o.timeLimitSeconds = job.reference_seconds / n
        else:
            o.samplesPerPixel = job.reference_spp
        image, stats = _render(job, p["scene"], o)
        seeds.append(image)
        seconds += stats["seconds"]
        samples += stats["samples"]
        progress_lines.step(f"{name}: reference {method} seed {i + 1}/{n}: "
                            f"{stats['seconds']:.2f} s, {stats['samples'] / (base.width * base.height):.0f} spp")
    mean = np.mean(seeds, axis=0, dtype=np.float64).astype(np.float32)
    check_reference(mean, f"the reference of {p['spec'].scene} ({method})")
    info = {"method": method.text, "seeds": n, "seconds": seconds,
            "samples_per_pixel": samples / (n * base.width * base.height),
            "seconds_asked": job.reference_seconds, "spp_asked": job.reference_spp}
    return mean, seeds, info


def _compare_scene(job, p, progress_lines):
    scene, name, base = p["scene"], p["name"], p["base"]
    # The reference: a file (taken as exact), or the mean of its own seeds, whose spread is its noise.
    if p["ref_image"] is not None:
        ref_image, ref_seeds, ref_info = p["ref_image"], [p["ref_image"]], {"file": p["ref_file"]}
        ref_info["relative_variance"] = None
    else:
        ref_image, ref_seeds, ref_info = _render_reference(job, p, progress_lines)
        ref_info["relative_variance"] = None if len(ref_seeds) < 2 else float(np.mean(
            np.var(ref_seeds, axis=0, ddof=1) / len(ref_seeds) / (ref_image.astype(np.float64) ** 2 + job.epsilon)))
    ref_id = image_id(name, "reference")
    job.images[ref_id] = ref_image

    for method in job.methods:  # CUDA loads a kernel at its first launch: not inside a timed render
        o = method.apply(_copy_options(base))
        o.samplesPerPixel, o.seed = 1, 0
        _render(job, scene, o)
        progress_lines.step(f"{name}: {method} warm-up")

    runs = []
    flip = job.flip if job.flip.available else None
    for mode, budget in job.budgets:
        # Seeds outermost, methods inside: a drift of the machine (clocks, heat) hits every method alike.
        per_method = {m.text: [] for m in job.methods}
        for seed in range(job.first_seed, job.first_seed + job.seeds):
            for method in job.methods:
                o = method.apply(_copy_options(base))
                o.seed = seed
                if mode == "time":
                    o.timeLimitSeconds = budget
                else:
                    o.samplesPerPixel = budget
                image, stats = _render(job, scene, o)
                measured = metrics.image_metrics(image, ref_image, job.epsilon, flip)
                per_method[method.text].append((image, stats, measured))
                progress_lines.step(f"{name}: {method} {_budget_text(mode, budget)} seed {seed}: "
                                    f"{stats['seconds']:.3f} s, {stats['samples'] / (base.width * base.height):.1f} "
                                    f"spp, relmse {measured['relmse']:.3g}")
        for method in job.methods:
            runs.append(_measure(name, method, mode, budget, per_method[method.text], ref_seeds, job, base))

    strategies = []
    for k in range(1, job.pyramid + 1):  # BDPT's strategies (s, t) of paths of k segments: s + t = k + 1
        for s in range(0, k + 1):
            t = k + 1 - s
            o = job.bdpt_method.apply(_copy_options(base))
            o.setIntegratorOption("strategy", f"{s},{t}")
            o.samplesPerPixel, o.seed = job.pyramid_spp, job.first_seed
            image, _ = _render(job, scene, o)
            sid = image_id(name, "strategy", f"s{s}", f"t{t}")
            job.images[sid] = image
            strategies.append({"s": s, "t": t, "length": k, "image": sid, "mean": float(np.mean(image, dtype=np.float64))})
            progress_lines.step(f"{name}: {job.bdpt_method} strategy s={s}, t={t}")
    return _scene_result(p["spec"], name, base, ref_info, ref_id, runs, strategies, job, progress_lines)


def _copy_options(options):
    """RenderOptions has no copy(); the fields the harness sets, on a fresh object."""
    o = wf.RenderOptions()
    for field in ("backend", "width", "height", "maxDepth", "streamCapacity", "environmentMap", "environmentScale"):
        setattr(o, field, getattr(options, field))
    return o


def _budget_text(mode, budget):
    return f"{budget:g} s" if mode == "time" else f"{budget} spp"


def _measure(name, method, mode, budget, renders, reference_seeds, job, base):
    """One (method, budget) from its K seeds' (image, stats, metrics): the summaries and the variance /
    bias split."""
    pixels = base.width * base.height
    per_seed = {k: [] for k in ("seconds", "samples_per_pixel", "samples_per_second", "rays_per_second",
                                *metrics.METRICS)}
    for _, stats, measured in renders:
        per_seed["seconds"].append(stats["seconds"])
        per_seed["samples_per_pixel"].append(stats["samples"] / pixels)
        per_seed["samples_per_second"].append(stats["samplesPerSecond"])
        per_seed["rays_per_second"].append(stats["raysPerSecond"])
        for k, v in measured.items():
            per_seed[k].append(v)
    split = metrics.seed_statistics([image for image, _, _ in renders], reference_seeds, job.epsilon)
    seconds = metrics.summary(per_seed["seconds"])
    measured = {k: metrics.summary(per_seed[k]) for k in metrics.METRICS}
    measured["efficiency"] = metrics.efficiency(measured["relmse"], seconds["mean"])
    measured["variance"] = split["variance"]
    measured["bias2"] = split["bias2"]
    measured["time_to_unit_variance"] = metrics.scaled(split["variance"], seconds["mean"])
    run_id = image_id(name, method.text, mode, budget)
    job.images[run_id] = renders[0][0]
    job.images[run_id + "_mean"] = np.mean([image for image, _, _ in renders], axis=0, dtype=np.float64).astype(np.float32)
    stats = dict(renders[0][1])
    return {"method": method.text, "integrator": method.integrator, "mode": mode, "budget": budget,
            "seeds": list(range(job.first_seed, job.first_seed + len(renders))), "seconds": seconds,
            "samples_per_pixel": metrics.summary(per_seed["samples_per_pixel"]),
            "samples_per_second": metrics.summary(per_seed["samples_per_second"]),
            "rays_per_second": metrics.summary(per_seed["rays_per_second"]),
            "metrics": measured, "bias_significant": split["bias_significant"], "bias_t": split["bias_t"],
            "mean_image_relmse": split["mean_image_relmse"], "per_seed": per_seed, "stats": stats,
            "image": run_id, "mean_image": run_id + "_mean"}


def _scene_result(spec, name, base, ref_info, ref_id, runs, strategies, job, progress_lines):
    slopes = {}
    for mode in MODES:
        for method in dict.fromkeys(r["method"] for r in runs):
            points = {}
            for r in runs:
                if r["method"] == method and r["mode"] == mode:
                    # Equal sample counts are the same images: one point each (a first pass can outlast two times).
                    points.setdefault(round(r["samples_per_pixel"]["mean"], 6), r)
            x_key = "seconds" if mode == "time" else "samples_per_pixel"
            fit = metrics.fit_slope([p[x_key]["mean"] for p in points.values()],
                                    [p["metrics"]["relmse"]["mean"] for p in points.values()])
            if points:
                slopes.setdefault(mode, {})[method] = fit
    # The reference's own noise is part of every error measured against it: it must be small beside the smallest.
    smallest = min(runs, key=lambda r: r["metrics"]["relmse"]["mean"], default=None)
    warning = None
    ref_variance = ref_info.get("relative_variance")
    if smallest is not None and ref_variance is not None:
        share = ref_variance / smallest["metrics"]["relmse"]["mean"]
        ref_info["noise_share"] = share
        ref_info["smallest_error"] = {"method": smallest["method"], "mode": smallest["mode"],
                                      "budget": smallest["budget"], "relmse": smallest["metrics"]["relmse"]["mean"]}
        if share > job.noise_fraction:
            warning = (f"the reference's own noise (relative variance {ref_variance:.3g}) is {100 * share:.1f} % of the "
                       f"smallest error it measures ({smallest['method']} at {_budget_text(smallest['mode'], smallest['budget'])}, "
                       f"relmse {smallest['metrics']['relmse']['mean']:.3g}), above the {100 * job.noise_fraction:g} % "
                       "allowed: render it longer")
            progress_lines.say(f"{name}: warning: {warning}")
    elif ref_info.get("file"):
        ref_info["noise_share"] = None
    ref_info["warning"] = warning
    for r in runs:
        if r["bias_significant"]:
            progress_lines.say(f"{name}: {r['method']} at {_budget_text(r['mode'], r['budget'])}: significant bias "
                               f"(bias2 {r['metrics']['bias2']['mean']:.3g}, t = {r['bias_t']:.1f})")
    return {"scene": spec.scene, "argument": spec.text, "name": name, "width": base.width, "height": base.height,
            "lighting": spec.lighting(), "reference": ref_info, "reference_image": ref_id, "runs": runs,
            "slopes": slopes, "crops": [list(c) for c in job.crops],
            "pyramid": {"method": job.bdpt_method.text if strategies else None, "samples_per_pixel": job.pyramid_spp,
                        "strategies": strategies}}


# ---- Command line -------------------------------------------------------------------------------

class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, as every other refusal
        print(f"wavefront-compare: {message} (--help lists the options)", file=sys.stderr)
        sys.exit(2)


def _parser():
    p = _Parser(prog="wavefront-compare", description=__doc__.split("\n\n")[0],
                epilog="Scenes and methods take NAME:KEY=VALUE settings; see the module's docstring "
                       "(python3 -m pydoc wavefront.compare) or the README.",
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scenes", nargs="*", metavar="SCENE", help="built-in scene name or scene file, optionally "
                   "with its own lighting: SCENE:envmap=FILE, :sky=..., :envmap-scale=S, :camera=..., :up=z")
    p.add_argument("--methods", action="append", metavar="M1,M2,...",
                   help="methods NAME[:OPTION=VALUE...] of the integrators " +
                        ", ".join(i.name for i in wf.integrators()) + " (default pt,bdpt,mlt)")
    p.add_argument("--seeds", type=int, default=8, metavar="K", help="independent seeds per method and budget (default 8)")
    p.add_argument("--times", metavar="T1,T2,...", help="equal time: seconds per render (default 0.5,1,2 "
                   "unless --spp is given)")
    p.add_argument("--spp", metavar="N1,N2,...", help="equal samples: samples per pixel per render (MLT: mutations)")
    p.add_argument("--reference", action="append", metavar="FILE", help="reference image (.exr, .pfm, .hdr), one "
                   "per scene in order (default: render one)")
    p.add_argument("--reference-method", default="bdpt", metavar="M", help="method of the rendered reference (default bdpt)")
    p.add_argument("--reference-seconds", type=float, metavar="S", help="seconds of the rendered reference in "
                   "total, split over its seeds (default 16 x the longest time)")
    p.add_argument("--reference-spp", type=int, metavar="N", help="samples per pixel of each reference seed instead")
    p.add_argument("--reference-seeds", type=int, default=4, metavar="K", help="seeds of the rendered reference, "
                   "whose spread estimates its noise (default 4)")
    p.add_argument("--reference-noise-fraction", type=float, default=0.1, metavar="F", help="warn when the "
                   "reference's relative variance exceeds F x the smallest relmse it measures (default 0.1)")
    p.add_argument("--crop", action="append", default=[], metavar="x,y,w,h", help="an inset of the report (several allowed)")
    p.add_argument("--sky", metavar="uniform|gradient|rtiow", help="built-in sky (as wavefront-render)")
    p.add_argument("--envmap", metavar="FILE", help="HDR environment map (.exr, .pfm, .hdr)")
    p.add_argument("--envmap-scale", type=float, metavar="S", help="multiplies the environment")
    p.add_argument("--camera", metavar="FX,FY,FZ,TX,TY,TZ,UX,UY,UZ,FOV", help="camera: from, to, up, vertical field "
                   "of view in degrees (default: the file's, else one that frames the model)")
    p.add_argument("--up", default="y", metavar="y|z", help="the model's up axis for the default camera and the sky")
    p.add_argument("--res", metavar="WxH", help="image size (default: the reference's, or 256x256)")
    p.add_argument("--backend", default="auto", metavar="auto|cpu|cuda")
    p.add_argument("--max-depth", type=int, default=16, metavar="N", help="longest path in segments (default 16)")
    p.add_argument("--stream-capacity", type=int, default=0, metavar="N", help="path-state slots (MLT: chains); 0: "
                   "the device default. Smaller makes passes shorter, for short times on the CPU")
    p.add_argument("--seed", type=int, default=1, metavar="N", help="first seed; the seeds are N..N+K-1 (default 1)")
    p.add_argument("--epsilon", type=float, default=metrics.EPSILON, metavar="E",
                   help=f"epsilon of relmse, MAPE and SMAPE (default {metrics.EPSILON:g})")
    p.add_argument("--flip", default="auto", choices=("auto", "on", "off"),
                   help="HDR-FLIP (the flip-evaluator package): auto (when installed), on, off")
    p.add_argument("--pyramid", type=int, default=4, metavar="N", help="BDPT's (s, t) images of paths up to N "
                   "segments, for the first bdpt method (default 4; 0: none)")
    p.add_argument("--pyramid-spp", type=int, default=16, metavar="N", help="samples per pixel of each (s, t) image")
    p.add_argument("--exposure", type=float, default=0.0, metavar="STOPS", help="exposure of the report's images")
    p.add_argument("--display-width", type=int, default=256, metavar="PX", help="images wider than this are shown "
                   "scaled down by a whole factor (the insets are not; default 256)")
    p.add_argument("--out", default="compare", metavar="DIR", help="output folder (default: compare)")
    p.add_argument("--report-only", metavar="DIR", help="write DIR/index.html again from DIR/results.json and "
                   "DIR/images; renders nothing")
    return p


def main(argv=None):
    args = _parser().parse_args(argv)
    command = shlex.join(["wavefront-compare", *(sys.argv[1:] if argv is None else argv)])
    try:
        from wavefront import report

        if args.report_only:
            if args.scenes:
                raise wf.InputError("--report-only takes no scenes")
            page = report.rewrite(args.report_only)
            _stderr(f"wrote {page}")
            return 0
        if not args.scenes:
            raise wf.InputError("no scene given")
        if args.display_width < 16:
            raise wf.InputError(f"--display-width {args.display_width} is below 16")
        comparison = compare(
            args.scenes, methods=args.methods or ["pt,bdpt,mlt"], seeds=args.seeds,
            times=parse_numbers("--times", args.times) if args.times else None,
            spp=parse_numbers("--spp", args.spp, int) if args.spp else None,
            reference=args.reference, reference_method=args.reference_method,
            reference_seconds=args.reference_seconds, reference_spp=args.reference_spp,
            reference_seeds=args.reference_seeds, reference_noise_fraction=args.reference_noise_fraction,
            res=parse_resolution(args.res) if args.res else None, backend=args.backend, max_depth=args.max_depth,
            stream_capacity=args.stream_capacity, sky=args.sky, envmap=args.envmap, envmap_scale=args.envmap_scale,
            camera=args.camera, up=args.up, crops=args.crop, epsilon=args.epsilon, flip=args.flip,
            pyramid=args.pyramid, pyramid_spp=args.pyramid_spp, first_seed=args.seed, command=command)
        page = report.write(comparison, args.out, exposure=args.exposure, display_width=args.display_width)
        print("\n".join(report.summary_rows(comparison.results)), flush=True)
        _stderr(f"wrote {page} and {Path(args.out) / 'results.json'}")
    except wf.InputError as e:
        _stderr(str(e).splitlines()[0] if str(e) else "bad input")
        return 2
    except ImportError as e:  # --flip on without the package
        _stderr(f"{e}: install it (scripts/install-deps.sh) or leave --flip at auto")
        return 2
    except wf.Error as e:
        _stderr(str(e))
        return 1
    return 0


class _CallableModule(types.ModuleType):
    """wavefront.compare is this module (the command line's main) and, called, compare() itself, as
    the issue names the API: wavefront.compare(scenes, ...)."""

    def __call__(self, *args, **kwargs):
        return compare(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

if __name__ == "__main__":
    sys.exit(main())
