"""wavefront-compare: rendering methods against a reference, from independent seeds, as numbers
(results.json) and one self-contained HTML report. docs/decisions.md says why it is built so.

    wavefront-compare SCENE[:key=value...]... [--methods pt,bdpt,mlt,mlt:large-step=0.3,ext:NAME=DIR]
        [--seeds K] [--times T1,T2,...] [--spp N1,N2,...] [--reference FILE[,FILE...] ... |
        --reference-method M --reference-seconds S | --reference-spp N] [--baseline M]
        [--crop x0,y0,x1,y1 ...] [--sky uniform|gradient|rtiow] [--envmap FILE] [--envmap-scale S]
        [--camera FX,FY,FZ,TX,TY,TZ,UX,UY,UZ,FOV] [--up y|z] [--res WxH] [--backend auto|cpu|cuda]
        [--max-depth N] [--keep-images all|means] [--out DIR]
    wavefront-compare --report-only DIR      (index.html again from DIR/results.json and DIR/images)

A method is an integrator of the registry (wavefront.integrators()) with options of its own,
NAME[:OPTION=VALUE...], e.g. mlt:large-step=0.3, pt:variant=megakernel, bdpt:variant=naive, or
another renderer's images, ext:NAME=DIR (ExternalMethod: DIR/index.json lists them). A
scene takes lighting of its own the same way (keys sky, envmap, envmap-scale, camera, up), e.g.
examples/scenes/textured-spheres.gltf:envmap=examples/scenes/sky.hdr; it overrides the flags.

Every method renders K seeds at every budget: equal time (--times, seconds each) and equal samples
(--spp, samples per pixel each; MLT: mutations per pixel); each budget takes seeds of its own
(N + b K .. N + b K + K - 1 for the b-th budget), so that no budget's image contains another's
samples. Every float image is kept (DIR/images/float/*.exr, indexed in results.json "images";
--keep-images means keeps only each run's mean). The metrics (wavefront.metrics) of
each seed against the reference give a mean and a 95 % interval; the seeds together split the
error into variance and bias^2 and test the bias. From Python, wavefront.compare(...) runs the
same harness and returns a Comparison (numbers and images) without writing anything.
"""
import argparse
import datetime
import json
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
    """x0,y0,x1,y1: columns x0..x1-1 and rows y0..y1-1, as wavefront-render's --crop."""
    m = re.fullmatch(r"(\d+),(\d+),(\d+),(\d+)", text.strip())
    if not m or int(m[3]) <= int(m[1]) or int(m[4]) <= int(m[2]):
        raise wf.InputError(f"--crop '{text}' is not x0,y0,x1,y1 (pixels; columns x0..x1-1, rows y0..y1-1, "
                            "x1 > x0 and y1 > y0)")
    return tuple(int(v) for v in m.groups())


def check_crop(crop):
    """A crop given from Python: four whole numbers x0,y0,x1,y1 with x1 > x0 >= 0 and y1 > y0 >= 0."""
    if isinstance(crop, str):
        return parse_crop(crop)
    try:
        values = tuple(int(v) for v in crop)
    except (TypeError, ValueError):
        raise wf.InputError(f"crop {crop!r} is not four whole numbers x0,y0,x1,y1") from None
    if len(values) != 4 or min(values) < 0 or values[2] <= values[0] or values[3] <= values[1]:
        raise wf.InputError(f"crop {crop!r} is not x0,y0,x1,y1 with x1 > x0 >= 0 and y1 > y0 >= 0")
    return values


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


EXTERNAL_BUDGET = re.compile(r"(spp|time):([0-9.eE+-]+)")


class ExternalMethod:
    """Another renderer's images as a method, ext:NAME=DIR. DIR/index.json is a list of entries
    {"scene": S, "budget": "spp:16" | "time:0.5", "seed": k, "file": F, "seconds": s, "samples": n}:
    S the scene as named on the command line (or its file's stem), F an EXR, PFM or HDR image
    inside DIR, s the seconds the render took, n its samples per pixel (optional). They enter the
    tables, plots and figure as a method of ours does; nothing of theirs is rendered here."""

    integrator = "external"

    def __init__(self, text):
        self.argument = text.strip()
        body = self.argument[len("ext:"):]
        name, equals, folder = body.partition("=")
        if not equals or not name or not folder:
            raise wf.InputError(f"method '{self.argument}' is not ext:NAME=DIR")
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.+-]*", name):
            raise wf.InputError(f"method '{self.argument}': the name '{name}' must be letters, digits and _.+- only")
        if name in {i.name for i in wf.integrators()}:
            raise wf.InputError(f"method '{self.argument}': '{name}' is an integrator's name; give the renderer another")
        # text: the method's name in results.json, the tables and the figure, as an integrator's is.
        self.name = self.text = name
        self.directory = Path(folder)
        index = self.directory / "index.json"
        try:
            entries = json.loads(index.read_text())
        except OSError as e:
            raise wf.InputError(f"method '{self.argument}': cannot read {index} ({e.strerror or e})") from None
        except ValueError as e:
            raise wf.InputError(f"method '{self.argument}': {index} is not JSON ({e})") from None
        if not isinstance(entries, list) or not entries:
            raise wf.InputError(f"method '{self.argument}': {index} must be a non-empty list of entries")
        self.entries, seen = [], set()
        root = self.directory.resolve()
        for number, entry in enumerate(entries, 1):
            where = f"method '{self.argument}': {index} entry {number}"
            if not isinstance(entry, dict) or not {"scene", "budget", "seed", "file", "seconds"} <= set(entry):
                raise wf.InputError(f"{where} needs scene, budget, seed, file and seconds")
            m = EXTERNAL_BUDGET.fullmatch(str(entry["budget"]))
            try:
                budget = None if not m else (float(m[2]) if m[1] == "time" else int(m[2]))
            except ValueError:
                budget = None
            if budget is None or not (math.isfinite(budget) and budget > 0):
                raise wf.InputError(f"{where}: budget '{entry['budget']}' is not spp:N or time:SECONDS above 0")
            seconds, samples = entry["seconds"], entry.get("samples")
            if not isinstance(entry["seed"], int) or isinstance(entry["seed"], bool):
                raise wf.InputError(f"{where}: seed {entry['seed']!r} is not a whole number")
            if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not (
                    math.isfinite(seconds) and seconds > 0):
                raise wf.InputError(f"{where}: seconds {seconds!r} is not a number above 0")
            if samples is not None and (not isinstance(samples, (int, float)) or isinstance(samples, bool)
                                        or not (math.isfinite(samples) and samples > 0)):
                raise wf.InputError(f"{where}: samples {samples!r} is not a number above 0")
            file = (self.directory / str(entry["file"])).resolve()
            if Path(str(entry["file"])).is_absolute() or root not in file.parents:
                raise wf.InputError(f"{where}: file '{entry['file']}' is not inside {self.directory}")
            key = (str(entry["scene"]), m[1], budget, entry["seed"])
            if key in seen:
                raise wf.InputError(f"{where}: scene {key[0]}, {m[1]}:{budget:g}, seed {key[3]} is listed twice")
            seen.add(key)
            self.entries.append({"scene": str(entry["scene"]), "mode": m[1], "budget": budget, "seed": entry["seed"],
                                 "file": file, "seconds": float(seconds),
                                 "samples": None if samples is None else float(samples)})

    def entries_for(self, spec, name):
        """The entries of a scene: named as on the command line, by its file, or by its stem."""
        names = {spec.text, spec.scene, name}
        return [e for e in self.entries if e["scene"] in names]

    def __repr__(self):
        return self.name


def parse_methods(texts):
    """Methods from comma-separated lists; a piece after an OPTION=VALUE that names no integrator
    continues that value (bdpt:strategy=1,2). ext:NAME=DIR is another renderer's images."""
    names = {i.name for i in wf.integrators()}
    pieces = []
    for text in texts:
        if isinstance(text, (Method, ExternalMethod)):
            pieces.append(text)
            continue
        for piece in text.split(","):
            head = piece.split(":", 1)[0].strip()
            if (pieces and isinstance(pieces[-1], str) and "=" in pieces[-1] and head not in names
                    and ":" not in piece and "=" not in piece):
                pieces[-1] += "," + piece
            elif piece.strip():
                pieces.append(piece)
    methods = [m if isinstance(m, (Method, ExternalMethod)) else
               ExternalMethod(m) if m.strip().startswith("ext:") else Method(m) for m in pieces]
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
    (height, width, 3) linear RGB; the ids are those results names: a scene's "reference_image" and
    "reference_seed_images", a run's "seed_images" (one per seed; None where --keep-images means
    dropped them), "image" (its first seed) and "mean_image" (mean over its seeds), a pyramid
    entry's)."""

    def __init__(self, results, images):
        self.results = results
        self.images = images

    def scene(self, name):
        """A scene's results by its name, file or argument; InputError naming the scenes there are."""
        for s in self.results["scenes"]:
            if name in (s["name"], s["scene"], s.get("argument")):
                return s
        raise wf.InputError(f"no scene '{name}' in this comparison (it has "
                            f"{', '.join(s['name'] for s in self.results['scenes'])})")

    def run(self, scene, method, mode, budget):
        """The run of `method` (its text) at `budget` of `mode` ("time" or "spp") in `scene`;
        InputError naming what there is where no such run was made."""
        if mode not in MODES:
            raise wf.InputError(f"mode '{mode}' is not time or spp")
        runs = self.scene(scene)["runs"]
        for r in runs:
            if r["method"] == str(method) and r["mode"] == mode and r["budget"] == budget:
                return r
        methods = sorted({r["method"] for r in runs})
        if str(method) not in methods:
            raise wf.InputError(f"no method '{method}' in scene '{scene}' (there are {', '.join(methods)})")
        budgets = sorted({r["budget"] for r in runs if r["method"] == str(method) and r["mode"] == mode})
        raise wf.InputError(f"{method} in scene '{scene}' has no {MODES[mode]} run at {budget} (its "
                            f"{mode} budgets: {', '.join(f'{b:g}' for b in budgets) or 'none'})")

    def write(self, out, **kwargs):
        """results.json, every float image, the report's images, index.html and the figure into the
        folder `out` (report.write's keywords: exposure, display_width, figure)."""
        from wavefront import report

        return report.write(self, out, **kwargs)


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


SEED_LIMIT = 2 ** 32  # RenderOptions.seed is 32 bits


def _reference_files(reference, count):
    """--reference values: one per scene, each a file or several seed files separated by commas."""
    if reference is None:
        return None
    if isinstance(reference, (str, Path)):
        reference = [reference]
    files = []
    for item in reference:
        if isinstance(item, (str, Path)):
            names = [t.strip() for t in str(item).split(",") if t.strip()]
        else:
            names = [str(t) for t in item]
        if not names:
            raise wf.InputError(f"reference '{item}' names no file")
        files.append(names)
    if len(files) != count:
        raise wf.InputError(f"{len(files)} references for {count} scenes: give one per scene (a file, or its "
                            "seeds' files separated by commas)")
    return files


def compare(scenes, methods=("pt", "bdpt", "mlt"), seeds=8, times=None, spp=None, *, reference=None,
            reference_method="bdpt", reference_seconds=None, reference_spp=None, reference_seeds=4,
            reference_noise_fraction=0.1, baseline=None, res=None, backend="auto", max_depth=16, stream_capacity=0,
            sky=None, envmap=None, envmap_scale=None, camera=None, up="y", crops=(), epsilon=metrics.EPSILON,
            flip="auto", pyramid=4, pyramid_spp=16, first_seed=1, keep_images="all", progress=True, command=None):
    """Renders every method for `seeds` seeds at every budget against a reference and measures them.

    scenes: names or paths, each optionally with ":key=value" lighting (SceneSpec); methods: texts
    NAME[:OPTION=VALUE...] or ext:NAME=DIR (ExternalMethod), or Method objects; times (seconds) and
    spp (samples per pixel): the budgets of equal time and equal samples (either or both; neither:
    times 0.5, 1, 2); each budget renders seeds of its own from first_seed on. reference: None
    (render one with reference_method for reference_seconds in total or reference_spp per seed,
    over reference_seeds seeds) or one entry per scene: an image file (EXR/PFM/HDR), or several
    files, the reference's seeds (a list, or names separated by commas), whose spread measures its
    noise. baseline: a method's text; every run gets ratios to it. res: (w, h), default the
    reference file's size or 256x256; crops: (x0, y0, x1, y1) insets for the report and the figure
    (columns x0..x1-1, rows y0..y1-1); pyramid: BDPT's (s, t) images up to this many segments (0:
    none); keep_images: "all" (every seed's float image in Comparison.images) or "means" (only each
    run's mean and first seed: for large runs); progress: True (lines on stderr), False, or a
    callable taking each line. Bad input raises wf.InputError before anything renders. Returns a
    Comparison; Comparison.write(DIR) makes the report."""
    scenes = [str(scenes)] if isinstance(scenes, (str, Path)) else [str(s) for s in scenes]
    seeds = int(seeds)
    if seeds < 1:
        raise wf.InputError(f"seeds must be at least 1, not {seeds}")
    if reference_seeds < 1:
        raise wf.InputError(f"reference seeds must be at least 1, not {reference_seeds}")
    if keep_images not in ("all", "means"):
        raise wf.InputError(f"keep_images must be all or means, not '{keep_images}'")
    if times is None and spp is None:
        times = [0.5, 1.0, 2.0]
    times = sorted(set(float(t) for t in times or []))
    spp = sorted(set(int(n) for n in spp or []))
    if any(not (math.isfinite(t) and t > 0) for t in times) or any(n < 1 for n in spp):
        raise wf.InputError("times and samples per pixel must be above 0")
    budgets = [("time", t) for t in times] + [("spp", n) for n in spp]
    if isinstance(first_seed, bool) or not isinstance(first_seed, (int, np.integer)):
        raise wf.InputError(f"the first seed must be a whole number, not {first_seed!r}")
    if first_seed < 0 or first_seed + seeds * len(budgets) > REFERENCE_SEED_BASE:
        raise wf.InputError(f"seeds {first_seed}..{first_seed + seeds * len(budgets) - 1} (the first seed, then "
                            f"{seeds} per budget) must lie in 0..{REFERENCE_SEED_BASE - 1}, below the reference's")
    methods = parse_methods(methods) if isinstance(methods, str) else parse_methods(list(methods))
    ours = [m for m in methods if isinstance(m, Method)]
    if baseline is not None and str(baseline) not in [m.text for m in methods]:
        raise wf.InputError(f"baseline '{baseline}' is not one of the methods ({', '.join(m.text for m in methods)})")
    reference = _reference_files(reference, len(scenes))
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
    crops = [check_crop(c) for c in crops]
    if not (math.isfinite(reference_noise_fraction) and reference_noise_fraction > 0):
        raise wf.InputError(f"reference noise fraction must be above 0, not {reference_noise_fraction}")
    if pyramid < 0 or pyramid_spp < 1:
        raise wf.InputError("the pyramid's length must be >= 0 and its samples per pixel >= 1")
    bdpt_method = next((m for m in ours if m.integrator == "bdpt" and "strategy" not in dict(m.settings)), None)
    job = types.SimpleNamespace(
        methods=methods, ours=ours, seeds=seeds, first_seed=first_seed, budgets=budgets, epsilon=epsilon,
        flip=metrics.Flip(flip), reference_method=ref_method, reference_seconds=reference_seconds,
        reference_spp=reference_spp, reference_seeds=reference_seeds, noise_fraction=reference_noise_fraction,
        crops=crops, bdpt_method=bdpt_method, pyramid=min(pyramid, max_depth) if bdpt_method else 0,
        pyramid_spp=pyramid_spp, images={}, device=None, keep_images=keep_images,
        baseline=None if baseline is None else str(baseline))
    sink = _stderr if progress is True else (progress or None)
    specs = [SceneSpec(s, sky, envmap, envmap_scale, camera, up) for s in scenes]
    base = wf.RenderOptions()
    base.backend = backend_value
    base.maxDepth = max_depth
    base.streamCapacity = stream_capacity
    # Everything that can be refused is refused before the first render.
    prepared = []
    for index, spec in enumerate(specs):
        prepared.append(_prepare(job, spec, None if reference is None else reference[index], res, base,
                                 [p["name"] for p in prepared], sink or (lambda line: None)))

    per_scene = len(ours) * (1 + seeds * len(budgets)) + sum(k + 1 for k in range(1, job.pyramid + 1))
    progress_lines = Progress(sink, len(prepared) * (per_scene + (reference_seeds if reference is None else 0)))
    started = datetime.datetime.now().astimezone()
    scene_results = [_compare_scene(job, p, progress_lines) for p in prepared]
    results = {
        "tool": "wavefront-compare", "version": wf.__version__, "commit": _commit(), "command": command,
        "date": started.isoformat(timespec="seconds"), "device": job.device, "host": platform.node(),
        "seeds": seeds, "first_seed": first_seed, "seeds_per_budget": "independent", "times": times, "spp": spp,
        "methods": [_method_entry(m) for m in methods], "baseline": job.baseline,
        "epsilon": epsilon, "trim_fraction": metrics.TRIM_FRACTION, "confidence": metrics.CONFIDENCE,
        "bias_level": metrics.BIAS_LEVEL, "reference_noise_fraction": reference_noise_fraction,
        "flip": {"available": job.flip.available, "reason": job.flip.reason}, "keep_images": keep_images,
        "max_depth": max_depth, "stream_capacity": stream_capacity, "crops": [list(c) for c in crops],
        "crop_format": "x0,y0,x1,y1 (columns x0..x1-1, rows y0..y1-1)",
        "definitions": metrics.definitions(epsilon), "scenes": scene_results,
    }
    return Comparison(results, job.images)


def _method_entry(m):
    if isinstance(m, ExternalMethod):
        return {"method": m.text, "integrator": m.integrator, "options": {}, "directory": str(m.directory),
                "description": f"external images from {m.directory}"}
    return {"method": m.text, "integrator": m.integrator, "options": dict(m.settings),
            "description": m.info.description}


def _read_checked(path, width, height, what):
    """An image file read as float32 and checked: finite, RGB, width x height (None: any size)."""
    try:
        image = np.asarray(wf.readImage(str(path)), dtype=np.float32)
    except wf.Error as e:
        raise wf.InputError(f"{what}: {str(e).splitlines()[0] if str(e) else 'cannot read it'}") from None
    a = image
    if a.ndim != 3 or a.shape[2] != 3:
        raise wf.InputError(f"{what} is not an RGB image")
    if width is not None and a.shape[:2] != (height, width):
        raise wf.InputError(f"{what} is {a.shape[1]}x{a.shape[0]}, not {width}x{height}")
    bad = int(np.count_nonzero(~np.isfinite(a)))
    if bad:
        raise wf.InputError(f"{what} has {bad} non-finite values (NaN or infinity)")
    return image


def _prepare(job, spec, ref_files, res, base, taken, say):
    """A scene loaded and lit, its reference files and external images read and checked, its options
    validated for every method: what the renders of one scene need, before any of them."""
    scene = spec.load(say)
    name = safe_name(spec.scene)
    while name in taken:  # two scene files with one stem
        name += "_"
    ref_seeds = None
    if ref_files is not None:
        ref_seeds, size = [], None if res is None else res
        for ref_file in ref_files:
            image = np.asarray(wf.readImage(ref_file), dtype=np.float32)
            check_reference(image, f"reference {ref_file}")
            if size is not None and image.shape[:2] != (size[1], size[0]):
                asked = "as asked" if res is not None else f"as {ref_files[0]}"
                raise wf.InputError(f"reference {ref_file} is {image.shape[1]}x{image.shape[0]}, "
                                    f"not {size[0]}x{size[1]} {asked}")
            size = (image.shape[1], image.shape[0])
            ref_seeds.append(image)
    width, height = (ref_seeds[0].shape[1], ref_seeds[0].shape[0]) if ref_seeds else (res or (256, 256))
    for x0, y0, x1, y1 in job.crops:
        if x1 > width or y1 > height:
            raise wf.InputError(f"crop {x0},{y0},{x1},{y1} reaches outside the {width}x{height} image of {spec.scene}")
    options = _copy_options(base)
    options.width, options.height = width, height
    options.environmentMap = spec.envmap or ""
    if spec.envmap_scale is not None:
        options.environmentScale = spec.envmap_scale
    for m in job.ours + ([job.reference_method] if job.reference_method else []):
        m.apply(_copy_options(options)).validate()
    if job.ours:
        wf.Renderer(scene, job.ours[0].apply(_copy_options(options)))  # the scene, its lights and files load
    external = {}
    for m in job.methods:
        if isinstance(m, ExternalMethod):
            entries = m.entries_for(spec, name)
            if not entries:
                say(f"{name}: {m.text} has no entry for this scene in {m.directory / 'index.json'}")
            external[m.text] = [dict(e, image=_read_checked(e["file"], width, height, f"{m.text}: {e['file']}"))
                                for e in entries]
    return {"spec": spec, "scene": scene, "name": name, "base": options, "ref_seeds": ref_seeds,
            "ref_files": ref_files, "external": external}


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
    info = {"method": method.text, "seeds": n, "seed_numbers": [REFERENCE_SEED_BASE + i for i in range(n)],
            "seconds": seconds, "samples_per_pixel": samples / (n * base.width * base.height),
            "seconds_asked": job.reference_seconds, "spp_asked": job.reference_spp}
    if any(m.text == method.text for m in job.methods):
        info["note"] = (f"the reference's method, {method.text}, is also a method under test: its renders and the "
                        "reference share no seed, but a bias they share cannot show")
    return mean, seeds, info


def budget_seeds(job, budget_index):
    """The seeds of the budget_index-th budget: each budget its own, so no image contains another's samples."""
    start = job.first_seed + budget_index * job.seeds
    return list(range(start, start + job.seeds))


def _compare_scene(job, p, progress_lines):
    scene, name, base = p["scene"], p["name"], p["base"]
    # The reference: files (one taken as exact; several, the seeds whose spread is its noise), or
    # the mean of its own rendered seeds.
    if p["ref_seeds"] is not None:
        ref_seeds = p["ref_seeds"]
        ref_image = ref_seeds[0] if len(ref_seeds) == 1 else np.mean(ref_seeds, axis=0, dtype=np.float64).astype(
            np.float32)
        check_reference(ref_image, f"the mean of the reference files of {p['spec'].scene}")
        ref_info = {"file": p["ref_files"][0] if len(p["ref_files"]) == 1 else None, "files": list(p["ref_files"]),
                    "seeds": len(ref_seeds)}
    else:
        ref_image, ref_seeds, ref_info = _render_reference(job, p, progress_lines)
    ref_info["relative_variance"] = None if len(ref_seeds) < 2 else float(np.mean(
        np.var(ref_seeds, axis=0, ddof=1) / len(ref_seeds) / (ref_image.astype(np.float64) ** 2 + job.epsilon)))
    ref_id = image_id(name, "reference")
    job.images[ref_id] = ref_image
    ref_seed_ids = []
    if len(ref_seeds) > 1:
        for i, image in enumerate(ref_seeds):
            ref_seed_ids.append(image_id(name, "reference", "seed", i))
            job.images[ref_seed_ids[-1]] = image

    for method in job.ours:  # CUDA loads a kernel at its first launch: not inside a timed render
        o = method.apply(_copy_options(base))
        o.samplesPerPixel, o.seed = 1, 0
        _render(job, scene, o)
        progress_lines.step(f"{name}: {method} warm-up")

    runs = []
    flip = job.flip if job.flip.available else None
    for budget_index, (mode, budget) in enumerate(job.budgets):
        # Seeds outermost, methods inside: a drift of the machine (clocks, heat) hits every method alike.
        per_method = {m.text: [] for m in job.ours}
        for seed in budget_seeds(job, budget_index):
            for method in job.ours:
                o = method.apply(_copy_options(base))
                o.seed = seed
                if mode == "time":
                    o.timeLimitSeconds = budget
                else:
                    o.samplesPerPixel = budget
                image, stats = _render(job, scene, o)
                measured = metrics.image_metrics(image, ref_image, job.epsilon, flip)
                per_method[method.text].append((seed, image, stats, measured))
                progress_lines.step(f"{name}: {method} {_budget_text(mode, budget)} seed {seed}: "
                                    f"{stats['seconds']:.3f} s, {stats['samples'] / (base.width * base.height):.1f} "
                                    f"spp, relmse {measured['relmse']:.3g}")
        for method in job.ours:
            runs.append(_measure(name, method, mode, budget, per_method[method.text], ref_seeds, job, base))
    for method in job.methods:  # another renderer's images, measured as ours are
        if not isinstance(method, ExternalMethod):
            continue
        groups = {}
        for e in p["external"][method.text]:
            groups.setdefault((e["mode"], e["budget"]), []).append(e)
        for (mode, budget), entries in sorted(groups.items()):
            renders = []
            for e in sorted(entries, key=lambda e: e["seed"]):
                spp = e["samples"]
                stats = {"backend": "external", "seconds": e["seconds"],
                         "samples": None if spp is None else spp * base.width * base.height,
                         "samplesPerSecond": None if spp is None else spp * base.width * base.height / e["seconds"],
                         "raysPerSecond": None, "file": str(e["file"])}
                renders.append((e["seed"], e["image"], stats,
                                metrics.image_metrics(e["image"], ref_image, job.epsilon, flip)))
            runs.append(_measure(name, method, mode, budget, renders, ref_seeds, job, base))
            progress_lines.say(f"{name}: {method} {_budget_text(mode, budget)}: {len(renders)} seeds read")
        p["external"][method.text] = None  # the images now live in the runs

    _compare_to_baseline(runs, job.baseline)

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
    result = _scene_result(p["spec"], name, base, ref_info, ref_id, runs, strategies, job, progress_lines)
    result["reference_seed_images"] = ref_seed_ids
    return result


def _copy_options(options):
    """RenderOptions has no copy(); the fields the harness sets, on a fresh object."""
    o = wf.RenderOptions()
    for field in ("backend", "width", "height", "maxDepth", "streamCapacity", "environmentMap", "environmentScale"):
        setattr(o, field, getattr(options, field))
    return o


def _budget_text(mode, budget):
    return f"{budget:g} s" if mode == "time" else f"{budget} spp"


def _measure(name, method, mode, budget, renders, reference_seeds, job, base):
    """One (method, budget) from its seeds' (seed, image, stats, metrics): the summaries and the
    variance / bias split."""
    pixels = base.width * base.height
    per_seed = {k: [] for k in ("seconds", "samples_per_pixel", "samples_per_second", "rays_per_second",
                                *metrics.METRICS)}
    for _, _, stats, measured in renders:
        per_seed["seconds"].append(stats["seconds"])
        per_seed["samples_per_pixel"].append(None if stats["samples"] is None else stats["samples"] / pixels)
        per_seed["samples_per_second"].append(stats["samplesPerSecond"])
        per_seed["rays_per_second"].append(stats["raysPerSecond"])
        for k, v in measured.items():
            per_seed[k].append(v)
    split = metrics.seed_statistics([image for _, image, _, _ in renders], reference_seeds, job.epsilon)
    seconds = metrics.summary(per_seed["seconds"])
    measured = {k: metrics.summary(per_seed[k]) for k in metrics.METRICS}
    measured["efficiency"] = metrics.efficiency(per_seed["relmse"], per_seed["seconds"])
    measured["variance"] = split["variance"]
    measured["bias2"] = split["bias2"]
    measured["time_to_unit_variance"] = metrics.scaled(split["variance"], seconds["mean"])
    if mode == "time":
        # Renders stop at the end of a pass: what relmse would have been at the budget itself, for an
        # error falling as 1 / time, so that a method that overran is not favoured.
        measured["relmse_at_budget"] = metrics.scaled(measured["relmse"], seconds["mean"] / budget)
    run_id = image_id(name, method.text, mode, budget)
    seed_ids = []
    for seed, image, _, _ in renders:
        if job.keep_images == "all":
            seed_ids.append(image_id(run_id, "seed", seed))
            job.images[seed_ids[-1]] = image
        else:
            seed_ids.append(None)
    job.images[run_id] = renders[0][1]
    job.images[run_id + "_mean"] = np.mean([image for _, image, _, _ in renders], axis=0,
                                           dtype=np.float64).astype(np.float32)
    stats = dict(renders[0][2])
    return {"method": method.text, "integrator": method.integrator, "mode": mode, "budget": budget,
            "seeds": [seed for seed, _, _, _ in renders], "seconds": seconds,
            "overrun": seconds["mean"] / budget if mode == "time" else None,
            "samples_per_pixel": metrics.summary(per_seed["samples_per_pixel"]),
            "samples_per_second": metrics.summary(per_seed["samples_per_second"]),
            "rays_per_second": metrics.summary(per_seed["rays_per_second"]),
            "metrics": measured, "bias_significant": split["bias_significant"], "bias_t": split["bias_t"],
            "mean_image_relmse": split["mean_image_relmse"], "per_seed": per_seed, "stats": stats,
            "image": run_id, "mean_image": run_id + "_mean", "seed_images": seed_ids}


def _compare_to_baseline(runs, baseline):
    """Each run's ratios to the baseline's run at the same mode and budget (None: no baseline there)."""
    if baseline is None:
        return
    base_runs = {(r["mode"], r["budget"]): r for r in runs if r["method"] == baseline}
    for r in runs:
        b = base_runs.get((r["mode"], r["budget"]))
        if b is None:
            r["baseline"] = None
            continue
        if b is r:
            one = {"mean": 1.0, "ci_low": None, "ci_high": None}
            r["baseline"] = {"method": baseline, "relmse_ratio": one, "efficiency_ratio": dict(one)}
            continue
        a_seeds, b_seeds = r["per_seed"], b["per_seed"]
        r["baseline"] = {
            "method": baseline,
            "relmse_ratio": metrics.ratio(metrics.mean_parts(a_seeds["relmse"]), metrics.mean_parts(b_seeds["relmse"])),
            "efficiency_ratio": metrics.ratio(metrics.efficiency_parts(a_seeds["relmse"], a_seeds["seconds"]),
                                              metrics.efficiency_parts(b_seeds["relmse"], b_seeds["seconds"]))}


def _scene_result(spec, name, base, ref_info, ref_id, runs, strategies, job, progress_lines):
    slopes = {}
    for mode in MODES:
        for method in dict.fromkeys(r["method"] for r in runs):
            points = {}
            x_key = "seconds" if mode == "time" else "samples_per_pixel"
            for r in runs:
                if r["method"] == method and r["mode"] == mode and r[x_key]["mean"] is not None:
                    # Equal sample counts are the same budget: one point each (a first pass can outlast two times).
                    points.setdefault(round(r["samples_per_pixel"]["mean"] or r["budget"], 6), r)
            if not points:
                continue
            slopes.setdefault(mode, {})[method] = metrics.fit_slope(
                [p[x_key]["mean"] for p in points.values()], [p["per_seed"]["relmse"] for p in points.values()])
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
    elif ref_info.get("files"):
        ref_info["noise_share"] = None
    ref_info["warning"] = warning
    for r in runs:
        where = f"{name}: {r['method']} at {_budget_text(r['mode'], r['budget'])}"
        if r["bias_significant"]:
            progress_lines.say(f"{where}: significant bias (bias2 {r['metrics']['bias2']['mean']:.3g}, "
                               f"t = {r['bias_t']:.1f})")
        low, high = r["metrics"]["bias2"].get("estimate_ci") or (None, None)
        if high is not None and high < 0:  # an impossible interval; a raw estimate below 0 alone is noise
            progress_lines.say(f"{where}: bias2: {r['metrics']['bias2']['note']}")
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
                        ", ".join(i.name for i in wf.integrators()) + " (default pt,bdpt,mlt), and ext:NAME=DIR: "
                        "another renderer's images, listed in DIR/index.json as entries {\"scene\", \"budget\": "
                        "\"spp:16\" or \"time:0.5\", \"seed\", \"file\" (EXR, PFM or HDR in DIR), \"seconds\", "
                        "\"samples\" (per pixel, optional)}")
    p.add_argument("--seeds", type=int, default=8, metavar="K", help="independent seeds per method and budget (default 8)")
    p.add_argument("--times", metavar="T1,T2,...", help="equal time: seconds per render (default 0.5,1,2 "
                   "unless --spp is given)")
    p.add_argument("--spp", metavar="N1,N2,...", help="equal samples: samples per pixel per render (MLT: mutations)")
    p.add_argument("--reference", action="append", metavar="FILE[,FILE...]", help="reference image (.exr, .pfm, "
                   ".hdr), one per scene in order; several files separated by commas are the reference's independent "
                   "seeds, whose spread measures its noise (default: render one)")
    p.add_argument("--reference-method", default="bdpt", metavar="M", help="method of the rendered reference (default bdpt)")
    p.add_argument("--reference-seconds", type=float, metavar="S", help="seconds of the rendered reference in "
                   "total, split over its seeds (default 16 x the longest time)")
    p.add_argument("--reference-spp", type=int, metavar="N", help="samples per pixel of each reference seed instead")
    p.add_argument("--reference-seeds", type=int, default=4, metavar="K", help="seeds of the rendered reference, "
                   "whose spread estimates its noise (default 4)")
    p.add_argument("--reference-noise-fraction", type=float, default=0.1, metavar="F", help="warn when the "
                   "reference's relative variance exceeds F x the smallest relmse it measures (default 0.1)")
    p.add_argument("--baseline", metavar="M", help="a method of --methods: every row gets relmse and efficiency "
                   "ratios to it at the same budget")
    p.add_argument("--crop", action="append", default=[], metavar="x0,y0,x1,y1", help="an inset of the report and "
                   "the figure: columns x0..x1-1, rows y0..y1-1, as wavefront-render's --crop (several allowed)")
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
    p.add_argument("--seed", type=int, default=1, metavar="N", help="first seed; the b-th budget's seeds are "
                   "N+bK..N+bK+K-1, independent of every other budget's (default 1)")
    p.add_argument("--keep-images", default="all", choices=("all", "means"), help="float images written to "
                   "OUT/images/float: every seed's, each run's mean and the reference's seeds (all, the default), "
                   "or only the means and the reference (for large runs)")
    p.add_argument("--figure", default="auto", choices=("auto", "on", "off"), help="figure.pdf and figure.svg "
                   "through matplotlib: auto (when installed), on (an error without it), off")
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
        # What the report needs is checked before any render, so that hours of rendering are not lost.
        if args.display_width < 16:
            raise wf.InputError(f"--display-width {args.display_width} is below 16")
        if not math.isfinite(args.exposure) or abs(args.exposure) > 64:
            raise wf.InputError(f"--exposure {args.exposure} is not a finite number of stops within +-64")
        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise wf.InputError(f"--out {args.out} is a file, not a folder")
        if args.figure == "on":
            report.figure_module()  # ImportError now, not after the renders
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
            pyramid=args.pyramid, pyramid_spp=args.pyramid_spp, first_seed=args.seed, baseline=args.baseline,
            keep_images=args.keep_images, command=command)
        page = report.write(comparison, args.out, exposure=args.exposure, display_width=args.display_width,
                            figure=args.figure)
        print("\n".join(report.summary_rows(comparison.results)), flush=True)
        _stderr(f"wrote {page} and {Path(args.out) / 'results.json'}")
    except wf.InputError as e:
        _stderr(str(e).splitlines()[0] if str(e) else "bad input")
        return 2
    except ImportError as e:  # --flip on or --figure on without the package
        _stderr(f"{e}: install it (scripts/install-deps.sh) or leave --flip and --figure at auto")
        return 2
    except OSError as e:  # the output folder cannot be written
        _stderr(f"cannot write {e.filename or args.out}: {e.strerror or e}")
        return 1
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
