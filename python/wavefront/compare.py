"""wavefront-compare: PT, BDPT and MLT for equal times against a reference, as an HTML report.

    wavefront-compare SCENE [SCENE ...] [--backend auto|cpu|cuda] [--res WxH] [--times T1,T2,...]
                      [--reference FILE.exr ...] [--reference-seconds S] [--out DIR]

Per scene: a reference (a BDPT render of --reference-seconds unless --reference gives one), then
PT, BDPT and MLT with RenderOptions.timeLimitSeconds = T for each T (each finishes the pass that
is running at T, so the times are measured, not assumed). DIR/index.html shows every image, a
false-colour map of its relative error, a log-log plot of relative MSE against time with fitted
slopes, the per-kernel times and SIMD figures, and the command that made it; DIR/results.json
holds the numbers. Relative MSE = mean squared error over pixels and channels / (mean of the
reference)^2, the square of the relative RMSE of benchmarks/mlt.cpp --figure10.
"""
import argparse
import datetime
import html
import json
import platform
import re
import shlex
import sys
from pathlib import Path

import numpy as np

import wavefront as wf

INTEGRATORS = [("PT", wf.IntegratorType.PathTracer), ("BDPT", wf.IntegratorType.Bdpt), ("MLT", wf.IntegratorType.Mlt)]
BACKENDS = {"auto": wf.Backend.Auto, "cpu": wf.Backend.Cpu, "cuda": wf.Backend.Cuda}
REFERENCE_SEED = 1000  # as benchmarks/mlt.cpp: the reference's samples are independent of the others'
ERROR_CLIP = 1.0  # the error maps saturate at 100 % relative error


def parse_resolution(text):
    m = re.fullmatch(r"(\d+)x(\d+)", text)
    if not m or int(m[1]) < 1 or int(m[2]) < 1:
        raise argparse.ArgumentTypeError(f"resolution must be WxH with positive integers, got '{text}'")
    return int(m[1]), int(m[2])


def parse_times(text):
    try:
        times = sorted({float(t) for t in text.split(",") if t.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"times must be seconds separated by commas, got '{text}'") from None
    if not times or times[0] <= 0 or not all(np.isfinite(times)):
        raise argparse.ArgumentTypeError(f"times must be positive, got '{text}'")
    return times


def relative_mse(image, reference):
    """Mean squared error over pixels and channels / (mean of the reference)^2."""
    mean = float(np.mean(reference, dtype=np.float64))
    if mean <= 0:
        raise wf.InputError("the reference image is black: relative errors are undefined")
    diff = image.astype(np.float64) - reference
    return float(np.mean(diff * diff)) / (mean * mean)


def relative_error_map(image, reference):
    """Per pixel: |image - reference| / (reference + 1 % of its mean), averaged over the channels
    (the 1 % keeps black reference pixels from dividing by zero)."""
    eps = 0.01 * float(np.mean(reference, dtype=np.float64))
    return np.mean(np.abs(image - reference) / (reference + eps), axis=2)


def fitted_slope(runs):
    """Slope of log(relative MSE) against log(time) over `runs`, or None unless at least two of
    them hold different sample counts (renders whose first pass outlasts every time asked are the
    same image)."""
    points = {}
    for r in runs:  # one point per sample count: equal counts are the same image
        if r["seconds"] > 0 and r["relativeMse"] > 0:
            points.setdefault(r["samplesPerPixel"], r)
    points = list(points.values())
    if len(points) < 2:
        return None
    t = np.log([r["seconds"] for r in points])
    e = np.log([r["relativeMse"] for r in points])
    return float(np.polyfit(t, e, 1)[0])


def render(scene, args, width, height, integrator, seconds, seed):
    options = wf.RenderOptions()
    options.backend = BACKENDS[args.backend]
    options.width, options.height = width, height
    options.integrator = integrator
    options.timeLimitSeconds = seconds
    options.seed = seed
    options.maxDepth = args.max_depth
    options.streamCapacity = args.stream_capacity
    renderer = wf.Renderer(scene, options)
    renderer.render()
    return np.asarray(renderer.image()), renderer.stats()


def safe_name(text):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(text).stem if Path(text).suffix else text) or "scene"


def seconds_label(t):
    return f"{t:g}s"


def write_error_scale(path):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.0, 0.6), dpi=100, layout="constrained")
    fig.colorbar(plt.cm.ScalarMappable(norm=plt.Normalize(0, ERROR_CLIP), cmap="inferno"), cax=ax,
                 orientation="horizontal", label="relative error per pixel (clipped at 100 %)")
    fig.savefig(path)
    plt.close(fig)


def write_convergence_plot(path, title, runs):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 4.0), dpi=100, layout="constrained")
    for name, _ in INTEGRATORS:
        points = [r for r in runs if r["integrator"] == name]
        slope = fitted_slope(points)
        label = name if slope is None else f"{name} (slope {slope:.2f})"
        ax.loglog([r["seconds"] for r in points], [r["relativeMse"] for r in points], "o-", label=label)
    ax.set_xlabel("render time (s)")
    ax.set_ylabel("relative MSE")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.savefig(path)
    plt.close(fig)


def percent(value):
    return "&ndash;" if value is None or value < 0 else f"{100 * value:.1f} %"


def seconds_cell(run):
    text = f"{run['seconds']:.3f}"
    return f"<b>{text}</b>" if run["seconds"] > 1.5 * run["timeLimit"] else text


def kernel_table(stats):
    total = sum(k["milliseconds"] for k in stats["kernels"]) or 1.0
    rows = "".join(
        f"<tr><td>{html.escape(k['label'])}</td><td>{k['milliseconds']:.2f}</td><td>{k['launches']}</td>"
        f"<td>{percent(k['milliseconds'] / total)}</td><td>{percent(k['simdOccupancy'])}</td>"
        f"<td>{percent(k['simdEfficiency'])}</td></tr>"
        for k in stats["kernels"]
    )
    return ("<table><tr><th>kernel</th><th>ms</th><th>launches</th><th>share of time</th>"
            f"<th>SIMD occupancy</th><th>SIMD efficiency</th></tr>{rows}</table>")


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="wavefront-compare",
        description="Equal-time comparison of PT, BDPT and MLT against a reference, written as DIR/index.html.")
    parser.add_argument("scenes", nargs="+", metavar="SCENE", help="built-in scene name or scene file")
    parser.add_argument("--backend", choices=sorted(BACKENDS), default="auto")
    parser.add_argument("--res", type=parse_resolution, default=None, metavar="WxH",
                        help="image size (default: the reference's, or 256x256)")
    parser.add_argument("--times", type=parse_times, default=parse_times("0.5,1,2,4"), metavar="T1,T2,...",
                        help="seconds for each of PT, BDPT and MLT (default 0.5,1,2,4)")
    parser.add_argument("--reference", action="append", default=[], metavar="FILE.exr",
                        help="reference image (.exr, .pfm, .hdr), one per scene in order; default: render one")
    parser.add_argument("--reference-seconds", type=float, default=None, metavar="S",
                        help="seconds of the BDPT reference (default: 8 x the longest time)")
    parser.add_argument("--max-depth", type=int, default=16)
    parser.add_argument("--stream-capacity", type=int, default=0, metavar="N",
                        help="path-state slots (MLT: chains); 0: the device default. Smaller makes the "
                             "passes shorter, for times shorter than one default pass (on the CPU)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--exposure", type=float, default=0.0, help="stops, for the PNG images")
    parser.add_argument("--out", default="compare", metavar="DIR", help="output folder (default: compare)")
    args = parser.parse_args(argv)
    if args.reference and len(args.reference) != len(args.scenes):
        parser.error(f"--reference given {len(args.reference)} times for {len(args.scenes)} scenes: give one per scene")
    if args.reference_seconds is not None and not args.reference_seconds > 0:
        parser.error("--reference-seconds must be positive")
    if args.stream_capacity < 0:
        parser.error("--stream-capacity must be positive (or 0 for the default)")
    command = shlex.join(["wavefront-compare", *(sys.argv[1:] if argv is None else argv)])
    try:
        generate(args, command)
    except wf.InputError as e:
        print(f"wavefront-compare: {e}", file=sys.stderr)
        return 2
    except wf.Error as e:
        print(f"wavefront-compare: {e}", file=sys.stderr)
        return 1
    return 0


def generate(args, command):
    import matplotlib

    matplotlib.use("Agg")  # files only; no display needed
    import matplotlib.pyplot as plt

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    reference_seconds = args.reference_seconds or 8 * max(args.times)
    started = datetime.datetime.now().astimezone()
    write_error_scale(out / "error-scale.png")
    device = None
    results = []
    names = []
    for index, scene_arg in enumerate(args.scenes):
        name = safe_name(scene_arg)
        while name in names:  # two scene files with the same stem
            name += "_"
        names.append(name)
        folder = out / name
        folder.mkdir(exist_ok=True)
        scene = wf.Scene.fromNameOrPath(scene_arg)
        if args.reference:
            reference = np.asarray(wf.readImage(args.reference[index]))
            if args.res and reference.shape[:2] != (args.res[1], args.res[0]):
                raise wf.InputError(f"reference {args.reference[index]} is {reference.shape[1]}x{reference.shape[0]}, "
                                    f"not the --res {args.res[0]}x{args.res[1]}")
            height, width = reference.shape[:2]
            ref_info = {"file": args.reference[index]}
        else:
            width, height = args.res or (256, 256)
            print(f"{name}: reference, BDPT for {reference_seconds:g} s", file=sys.stderr)
            reference, stats = render(scene, args, width, height, wf.IntegratorType.Bdpt, reference_seconds,
                                      REFERENCE_SEED)
            wf.writeImage(str(folder / "reference.exr"), wf.Image(reference))
            device = device or stats["backend"]
            ref_info = {"integrator": "BDPT", "seconds": stats["seconds"],
                        "samplesPerPixel": stats["samples"] / (width * height), "file": f"{name}/reference.exr"}
        wf.writeImage(str(folder / "reference.png"), wf.Image(reference), args.exposure)
        runs = []
        for t in args.times:
            for label, integrator in INTEGRATORS:
                print(f"{name}: {label} for {t:g} s", file=sys.stderr)
                image, stats = render(scene, args, width, height, integrator, t, args.seed)
                if stats["seconds"] > 1.5 * t:
                    print(f"{name}: {label} took {stats['seconds']:.2f} s for {t:g} s: its first pass is longer "
                          "(a smaller --stream-capacity shortens it)", file=sys.stderr)
                device = device or stats["backend"]
                stem = f"{label.lower()}-{seconds_label(t)}"
                wf.writeImage(str(folder / f"{stem}.png"), wf.Image(image), args.exposure)
                plt.imsave(folder / f"{stem}-error.png", relative_error_map(image, reference), cmap="inferno",
                           vmin=0.0, vmax=ERROR_CLIP)
                mse = relative_mse(image, reference)
                runs.append({"integrator": label, "timeLimit": t, "seconds": stats["seconds"],
                             "samplesPerPixel": stats["samples"] / (width * height), "relativeMse": mse,
                             "relativeRmse": mse ** 0.5, "image": f"{name}/{stem}.png",
                             "errorMap": f"{name}/{stem}-error.png", "stats": stats})
        write_convergence_plot(folder / "convergence.png", name, runs)
        slopes = {label: fitted_slope([r for r in runs if r["integrator"] == label]) for label, _ in INTEGRATORS}
        results.append({"scene": scene_arg, "name": name, "width": width, "height": height, "reference": ref_info,
                        "runs": runs, "slopes": slopes, "convergencePlot": f"{name}/convergence.png"})
    report = {"command": command, "date": started.isoformat(timespec="seconds"), "device": device,
              "version": wf.__version__, "host": platform.node(), "times": args.times, "scenes": results}
    (out / "results.json").write_text(json.dumps(report, indent=1))
    (out / "index.html").write_text(page(report))
    print(f"wavefront-compare: wrote {out / 'index.html'}", file=sys.stderr)


def page(report):
    e = html.escape
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>wavefront-compare</title><style>"
        "body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse;margin:0.5em 0}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td:first-child,th:first-child{text-align:left}"
        "img.render{image-rendering:pixelated;width:256px}code{background:#f3f3f3;padding:2px}</style></head><body>",
        "<h1>PT, BDPT and MLT at equal time</h1>",
        f"<p>Command: <code>{e(report['command'])}</code><br>Date: {e(report['date'])}; device: "
        f"{e(str(report['device'] or 'not rendered here (references given)'))}; wavefront {e(report['version'])}; "
        f"host {e(report['host'])}</p>",
        "<p>Each method renders until its time is up and then finishes the pass in flight, so the time "
        "plotted is the one measured (a time taken far beyond the time asked, in bold, means one pass outlasts "
        "it: a smaller --stream-capacity shortens the passes). Relative MSE = mean squared error over pixels and "
        "channels / (mean of the reference)&sup2;; an unbiased Monte Carlo estimator's falls with slope &minus;1 "
        "on the log-log plots until the reference's own noise, part of every error, flattens it. Error maps: |image &minus; reference| / (reference + 1 % of its mean) per pixel, "
        "averaged over the channels:<br><img src='error-scale.png' alt='error colour scale'></p>",
    ]
    for s in report["scenes"]:
        ref = s["reference"]
        ref_text = (f"BDPT for {ref['seconds']:.2f} s ({ref['samplesPerPixel']:.0f} samples per pixel), "
                    f"saved as <a href='{e(ref['file'])}'>{e(ref['file'])}</a>"
                    if "integrator" in ref else f"read from {e(ref['file'])}")
        parts.append(f"<h2>{e(s['scene'])} ({s['width']}x{s['height']})</h2><p>Reference: {ref_text}</p>")
        parts.append(f"<p><img class='render' src='{e(s['name'])}/reference.png' alt='reference'> "
                     f"<img src='{e(s['convergencePlot'])}' alt='convergence plot'></p>")
        slopes = ", ".join(f"{k} {'&ndash;' if v is None else f'{v:.2f}'}" for k, v in s["slopes"].items())
        parts.append(f"<p>Fitted slopes of log relative MSE against log time: {slopes}.</p>")
        # Images: a row per time, a column per method, each with its error map.
        parts.append("<table><tr><th>time</th>" + "".join(f"<th>{n}</th>" for n, _ in INTEGRATORS) + "</tr>")
        for t in report["times"]:
            cells = []
            for label, _ in INTEGRATORS:
                r = next(r for r in s["runs"] if r["integrator"] == label and r["timeLimit"] == t)
                cells.append(f"<td><img class='render' src='{e(r['image'])}' alt='{label} {t:g} s'><br>"
                             f"<img class='render' src='{e(r['errorMap'])}' alt='{label} {t:g} s error'><br>"
                             f"rel. MSE {r['relativeMse']:.3g}</td>")
            parts.append(f"<tr><td>{t:g} s</td>{''.join(cells)}</tr>")
        parts.append("</table>")
        parts.append("<table><tr><th>method</th><th>time asked (s)</th><th>time taken (s)</th><th>samples per pixel</th>"
                     "<th>M samples/s</th><th>M rays/s</th><th>relative MSE</th><th>relative RMSE</th>"
                     "<th>MLT acceptance</th></tr>")
        for r in s["runs"]:
            st = r["stats"]
            parts.append(f"<tr><td>{r['integrator']}</td><td>{r['timeLimit']:g}</td><td>{seconds_cell(r)}</td>"
                         f"<td>{r['samplesPerPixel']:.1f}</td><td>{st['samplesPerSecond'] * 1e-6:.2f}</td>"
                         f"<td>{st['raysPerSecond'] * 1e-6:.2f}</td><td>{r['relativeMse']:.4g}</td>"
                         f"<td>{r['relativeRmse']:.4g}</td><td>{percent(st['acceptanceRate'])}</td></tr>")
        parts.append("</table>")
        longest = report["times"][-1]
        parts.append(f"<h3>Per-kernel time and SIMD figures ({longest:g} s renders)</h3>"
                     "<p>SIMD figures are measured only by a CUDA build with -DWAVEFRONT_STATS=ON "
                     "(&ndash;: not measured).</p>")
        for label, _ in INTEGRATORS:
            r = next(r for r in s["runs"] if r["integrator"] == label and r["timeLimit"] == longest)
            st = r["stats"]
            extra = ""
            if st["walkSimdEfficiency"] >= 0 or st["connectSimdEfficiency"] >= 0:
                extra = (f" Walk SIMD occupancy {percent(st['walkSimdEfficiency'])}, connect "
                         f"{percent(st['connectSimdEfficiency'])}.")
            parts.append(f"<h4>{label}</h4><p>{e(st['backend'])}, {st['streamCapacity']} slots, "
                         f"{st['bytesPerSampleSlot']} bytes per slot.{extra}</p>{kernel_table(st)}")
    parts.append("</body></html>")
    return "\n".join(parts)


if __name__ == "__main__":
    sys.exit(main())
