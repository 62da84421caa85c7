"""The HTML report of wavefront-compare: one self-contained file (images as data URIs, plots as
inline SVG), written from results.json and the PNG files beside it, so that --report-only can write
it again from a copied folder; every float image as EXR under images/float (results.json "images"
indexes them); and, where matplotlib is installed, a figure for a paper (wavefront.figure). The
page needs NumPy and the module's own image writer (wf.writeImage) only, so it is written on the
GPU machine too.
"""
import base64
import html
import json
import math
import re
from pathlib import Path

import numpy as np

import wavefront as wf
from wavefront import metrics

ERROR_CLIP = 1.0  # error maps saturate at 100 % relative error
# matplotlib's inferno at 17 points (sRGB, 0..255): the error maps' colour scale.
INFERNO = np.array([(0, 0, 4), (11, 7, 36), (33, 12, 74), (61, 9, 101), (87, 16, 110), (113, 25, 110),
                    (138, 34, 106), (163, 44, 97), (188, 55, 84), (210, 70, 68), (228, 90, 49), (241, 115, 29),
                    (249, 142, 9), (252, 172, 17), (249, 203, 53), (242, 234, 105), (252, 255, 164)], dtype=np.float64)
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf")
METRIC_TITLES = {"relmse": "relMSE", "relmse_trimmed": "relMSE trimmed", "mape": "MAPE", "smape": "SMAPE",
                 "flip": "HDR-FLIP", "variance": "variance", "bias2": "bias&sup2;", "efficiency": "efficiency",
                 "time_to_unit_variance": "time to unit variance (s)",
                 "relmse_at_budget": "relMSE &times; s / budget"}


# ---- Images -------------------------------------------------------------------------------------

def colour_map(values):
    """values in [0, 1] -> linear RGB of the inferno scale (wf.writeImage encodes sRGB again)."""
    v = np.clip(np.nan_to_num(values), 0.0, 1.0) * (len(INFERNO) - 1)
    low = np.minimum(v.astype(int), len(INFERNO) - 2)
    f = (v - low)[..., None]
    srgb = (INFERNO[low] * (1 - f) + INFERNO[low + 1] * f) / 255.0
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4).astype(np.float32)


def shrink(image, width):
    """Box-filtered by the smallest whole factor that makes it at most `width` pixels wide."""
    factor = max(1, math.ceil(image.shape[1] / width))
    if factor == 1:
        return np.ascontiguousarray(image, dtype=np.float32)
    h, w = image.shape[0] // factor * factor, image.shape[1] // factor * factor
    a = np.asarray(image[:h, :w], dtype=np.float64).reshape(h // factor, factor, w // factor, factor, -1)
    return a.mean(axis=(1, 3)).astype(np.float32)


def _png(path, image, exposure=0.0):
    wf.writeImage(str(path), np.ascontiguousarray(image, dtype=np.float32), exposure)


def shown_runs(scene):
    """The runs whose images the report shows: every method at the largest budget of each mode."""
    largest = {}
    for r in scene["runs"]:
        largest[r["mode"]] = max(largest.get(r["mode"], r["budget"]), r["budget"])
    return [r for r in scene["runs"] if r["budget"] == largest[r["mode"]]]


# An image id of results.json names files under images/; --report-only reads ids from a file that
# may come from anyone, so an id is used only when it is a plain name (no folder, no '..').
IMAGE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def files(image_id):
    return {"image": f"images/{image_id}.png", "error": f"images/{image_id}-error.png"}


def crop_file(image_id, index):
    return f"images/{image_id}-crop{index}.png"


def float_file(image_id):
    return f"images/float/{image_id}.exr"


def float_index(results):
    """{id: entry} of every float image a comparison keeps: each run's seeds and mean, each
    scene's reference and its seeds, with what each is (results.json "images")."""
    index = {}
    for scene in results["scenes"]:
        index[scene["reference_image"]] = {"scene": scene["name"], "kind": "reference"}
        for i, sid in enumerate(scene.get("reference_seed_images", [])):
            index[sid] = {"scene": scene["name"], "kind": "reference seed", "index": i}
        for r in scene["runs"]:
            what = {"scene": scene["name"], "method": r["method"], "mode": r["mode"], "budget": r["budget"]}
            index[r["mean_image"]] = dict(what, kind="mean", seeds=r["seeds"])
            for seed, sid in zip(r["seeds"], r.get("seed_images", [])):
                if sid is not None:
                    index[sid] = dict(what, kind="seed", seed=seed)
    for image_id, entry in index.items():
        entry["file"] = float_file(image_id)
    return index


def figure_module():
    """wavefront.figure, which needs matplotlib (ImportError without it)."""
    from wavefront import figure

    return figure


def write(comparison, out, exposure=0.0, display_width=256, figure="auto"):
    """results.json, images/*.png, every float image (images/float/*.exr, indexed in results.json
    "images"), each rendered reference as NAME-reference.exr, index.html and, with matplotlib,
    figure.pdf and figure.svg into `out`; returns the page's path. figure: auto (when matplotlib
    is installed), on, off."""
    out = Path(out)
    if not math.isfinite(exposure):
        raise wf.InputError(f"exposure {exposure} is not a finite number")
    if out.exists() and not out.is_dir():
        raise wf.InputError(f"{out} is a file, not a folder")
    (out / "images" / "float").mkdir(parents=True, exist_ok=True)
    results = dict(comparison.results)
    results["report"] = {"exposure": exposure, "display_width": display_width}
    images = comparison.images
    results["images"] = float_index(results)
    for image_id, entry in results["images"].items():
        wf.writeImage(str(out / entry["file"]), np.ascontiguousarray(images[image_id], dtype=np.float32))
    _png(out / "images" / "error-scale.png", colour_map(np.tile(np.linspace(0, 1, 256), (12, 1))))
    for scene in results["scenes"]:
        ref_id = scene["reference_image"]
        reference = images[ref_id]
        if scene["reference"].get("method"):  # to be given back with --reference
            scene["reference"]["file"] = f"{scene['name']}-reference.exr"
            wf.writeImage(str(out / scene["reference"]["file"]), np.ascontiguousarray(reference))
        _png(out / files(ref_id)["image"], shrink(reference, display_width), exposure)
        shown = [ref_id] + [r["image"] for r in shown_runs(scene)]
        for image_id in shown[1:]:
            _png(out / files(image_id)["image"], shrink(images[image_id], display_width), exposure)
            error = metrics.relative_error_map(images[image_id], reference, results["epsilon"]) / ERROR_CLIP
            _png(out / files(image_id)["error"], shrink(colour_map(error), display_width))
        for index, (x0, y0, x1, y1) in enumerate(scene["crops"]):
            for image_id in shown:
                _png(out / crop_file(image_id, index), images[image_id][y0:y1, x0:x1], exposure)
        for entry in scene["pyramid"]["strategies"]:
            _png(out / files(entry["image"])["image"], shrink(images[entry["image"]], display_width // 2 or 1),
                 exposure)
    results["figure"] = {"pdf": None, "svg": None, "reason": "not asked for (figure off)"}
    if figure != "off":
        try:
            module = figure_module()
        except ImportError as e:
            if figure == "on":
                raise
            results["figure"]["reason"] = f"not written: matplotlib is not installed ({e}; scripts/install-deps.sh)"
        else:
            results["figure"] = module.write(results, images, out, exposure)
    (out / "results.json").write_text(json.dumps(results, indent=1, default=_json_default))
    page = out / "index.html"
    page.write_text(build_page(results, out))
    return page


def rewrite(folder):
    """index.html again from folder/results.json and folder/images (--report-only)."""
    folder = Path(folder)
    try:
        results = json.loads((folder / "results.json").read_text())
    except (OSError, ValueError) as e:
        raise wf.InputError(f"--report-only {folder}: cannot read results.json ({e})") from None
    try:
        text = build_page(results, folder)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        raise wf.InputError(f"--report-only {folder}: results.json is not one wavefront-compare wrote "
                            f"({type(e).__name__}: {e})") from None
    page = folder / "index.html"
    page.write_text(text)
    return page


def _json_default(value):
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON")


# ---- Plots: inline SVG --------------------------------------------------------------------------

def _decades(values):
    low, high = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    return low, high if high > low else low + 1


def _tick_label(exponent):
    return f"{10.0 ** exponent:g}" if -3 <= exponent <= 3 else f"1e{exponent}"


def loglog_svg(series, x_label, y_label, width=520, height=340):
    """series: [{"label", "colour", "points": [(x, y, y_low, y_high)], "fit": {"slope", "intercept"} | None}]."""
    xs = [p[0] for s in series for p in s["points"] if p[0] and p[0] > 0]
    ys = [v for s in series for p in s["points"] for v in p[1:] if v is not None and v > 0]
    if not xs or not ys:
        return "<p>(nothing to plot)</p>"
    (x0, x1), (y0, y1) = _decades(xs), _decades(ys)
    left, right, top, bottom = 64, 12, 12, 44
    legend_height = 16 * len(series) + 8
    plot_h = height - top - bottom

    def px(x):
        return left + (math.log10(x) - x0) / (x1 - x0) * (width - left - right)

    def py(y):
        y = max(y, 10.0 ** y0)
        return top + (y1 - math.log10(y)) / (y1 - y0) * plot_h

    e = html.escape
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height + legend_height}' "
             f"font-family='sans-serif' font-size='11'>",
             f"<rect x='{left}' y='{top}' width='{width - left - right}' height='{plot_h}' fill='none' stroke='#888'/>"]
    for k in range(x0, x1 + 1):
        x = px(10.0 ** k)
        parts.append(f"<line x1='{x:.1f}' y1='{top}' x2='{x:.1f}' y2='{top + plot_h}' stroke='#ddd'/>"
                     f"<text x='{x:.1f}' y='{top + plot_h + 14}' text-anchor='middle'>{_tick_label(k)}</text>")
    for k in range(y0, y1 + 1):
        y = py(10.0 ** k)
        parts.append(f"<line x1='{left}' y1='{y:.1f}' x2='{width - right}' y2='{y:.1f}' stroke='#ddd'/>"
                     f"<text x='{left - 4}' y='{y + 4:.1f}' text-anchor='end'>{_tick_label(k)}</text>")
    parts.append(f"<text x='{(left + width - right) / 2}' y='{height - 8}' text-anchor='middle'>{e(x_label)}</text>"
                 f"<text transform='translate(14,{top + plot_h / 2}) rotate(-90)' text-anchor='middle'>{e(y_label)}</text>")
    for index, s in enumerate(series):
        c = s["colour"]
        points = sorted(p for p in s["points"] if p[0] and p[0] > 0 and p[1] and p[1] > 0)
        if s.get("fit") and len(points) >= 2:
            f = s["fit"]
            a, b = points[0][0], points[-1][0]
            ya, yb = math.exp(f["intercept"]) * a ** f["slope"], math.exp(f["intercept"]) * b ** f["slope"]
            parts.append(f"<line x1='{px(a):.1f}' y1='{py(ya):.1f}' x2='{px(b):.1f}' y2='{py(yb):.1f}' stroke='{c}' "
                         "stroke-dasharray='4 3'/>")
        path = " ".join(f"{'M' if i == 0 else 'L'}{px(x):.1f},{py(y):.1f}" for i, (x, y, _, _) in enumerate(points))
        if path:
            parts.append(f"<path d='{path}' fill='none' stroke='{c}' stroke-width='1.5'/>")
        for x, y, low, high in points:
            if low is not None or high is not None:
                lo = py(low if low is not None and low > 0 else 10.0 ** y0)
                hi = py(high if high is not None else y)
                parts.append(f"<line x1='{px(x):.1f}' y1='{lo:.1f}' x2='{px(x):.1f}' y2='{hi:.1f}' stroke='{c}'/>"
                             f"<line x1='{px(x) - 3:.1f}' y1='{lo:.1f}' x2='{px(x) + 3:.1f}' y2='{lo:.1f}' stroke='{c}'/>"
                             f"<line x1='{px(x) - 3:.1f}' y1='{hi:.1f}' x2='{px(x) + 3:.1f}' y2='{hi:.1f}' stroke='{c}'/>")
            parts.append(f"<circle cx='{px(x):.1f}' cy='{py(y):.1f}' r='3' fill='{c}'/>")
        ly = height + 12 + 16 * index
        parts.append(f"<rect x='{left}' y='{ly - 9}' width='14' height='3' fill='{c}'/>"
                     f"<text x='{left + 20}' y='{ly}'>{e(s['label'])}</text>")
    parts.append("</svg>")
    return "".join(parts)


# ---- The page -----------------------------------------------------------------------------------

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _data_uri(folder, name):
    """The PNG images/NAME of the report's folder as a data URI; None unless the name is a plain
    file name under images/ (results.json may name anything) and the file a PNG."""
    folder = Path(folder)
    prefix, _, file_name = name.partition("/")
    if prefix != "images" or not IMAGE_ID.fullmatch(file_name) or ".." in file_name or not file_name.endswith(".png"):
        return None
    path = folder / "images" / file_name
    try:
        if path.is_symlink() or not path.is_file() or folder.resolve() / "images" not in path.resolve().parents:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(PNG_SIGNATURE):
        return None
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def _img(folder, name, alt, css="", style=""):
    uri = _data_uri(folder, name)
    if uri is None:
        return f"<span class='missing'>({html.escape(alt)}: no image)</span>"
    return f"<img src='{uri}' alt='{html.escape(alt)}' class='{css}' style='{style}'>"


def _num(v, digits=3):
    if v is None:
        return "&ndash;"
    if isinstance(v, float) and (v == 0 or 1e-3 <= abs(v) < 1e4):
        return f"{v:.{digits}g}"
    return f"{v:.{digits - 1}e}" if isinstance(v, float) else str(v)


def _with_interval(s):
    if s is None or s.get("mean") is None:
        return "&ndash;"
    text = _num(s["mean"])
    if s.get("ci_low") is not None or s.get("ci_high") is not None:
        text += f" <span class='ci'>[{_num(s.get('ci_low'), 2)}, {_num(s.get('ci_high'), 2)}]</span>"
    return text


def _budget(mode, budget):
    return f"{budget:g} s" if mode == "time" else f"{budget:g} spp"


def _percent(v):
    return "&ndash;" if v is None or v < 0 else f"{100 * v:.1f} %"


def _bias_cell(r):
    """bias^2 clamped at 0, its raw estimate and t beside it, and a note where it needs care."""
    b = r["metrics"]["bias2"]
    text = _with_interval(b)
    if b.get("t") is not None:
        text += f" <span class='ci'>t {b['t']:.2f}</span>"
    if r["bias_significant"]:
        text = f"<span class='bias'>{text} &#9888;</span>"
    if b.get("note"):
        text += f" <abbr title='{html.escape(b['note'])}'>&#9432;</abbr>"
    return text


def _best(runs, key, lowest):
    """The run with the lowest (highest) key at each budget."""
    best = {}
    for r in runs:
        v = key(r)
        if v is None:
            continue
        b = best.get(r["budget"])
        if b is None or (v < key(b) if lowest else v > key(b)):
            best[r["budget"]] = r
    return best


def _error_table(scene, mode, results, colours):
    runs = [r for r in scene["runs"] if r["mode"] == mode]
    columns = ["relmse", "relmse_trimmed", "mape", "smape", "flip", "variance", "bias2", "efficiency",
               "time_to_unit_variance"]
    # Bold at each budget: the lowest relMSE (equal time: at the budget itself, so that a method that
    # overran is not favoured) and the highest efficiency.
    error_key = "relmse_at_budget" if mode == "time" else "relmse"
    best = {error_key: _best(runs, lambda r: r["metrics"][error_key]["mean"], True),
            "efficiency": _best(runs, lambda r: r["metrics"]["efficiency"]["mean"], False)}
    baseline = results.get("baseline")
    head = "".join(f"<th>{METRIC_TITLES[c]}</th>" for c in columns)
    if mode == "time":
        head = f"<th>{METRIC_TITLES['relmse_at_budget']}</th>" + head
    if baseline:
        head += (f"<th>relMSE / {html.escape(baseline)}</th><th>efficiency / {html.escape(baseline)}</th>")
    rows = []
    for r in sorted(runs, key=lambda r: (r["budget"], list(colours).index(r["method"]))):
        cells = []
        for c in ([error_key] if mode == "time" else []) + columns:
            text = _bias_cell(r) if c == "bias2" else _with_interval(r["metrics"][c])
            if c in best and best[c].get(r["budget"]) is r and len(runs) > 1:
                text = f"<b>{text}</b>"
            cells.append(f"<td>{text}</td>")
        if baseline:
            ratios = r.get("baseline") or {}
            cells += [f"<td>{_with_interval(ratios.get('relmse_ratio'))}</td>",
                      f"<td>{_with_interval(ratios.get('efficiency_ratio'))}</td>"]
        seconds = _with_interval(r["seconds"])
        if r.get("overrun") and r["overrun"] > 1.1:
            seconds += f" <span class='bias' title='ran {r['overrun']:.2f} x its budget'>(x{r['overrun']:.2f})</span>"
        rows.append(f"<tr><td><span style='color:{colours[r['method']]}'>&#9632;</span> {html.escape(r['method'])}</td>"
                    f"<td>{_budget(mode, r['budget'])}</td><td>{seconds}</td>"
                    f"<td>{_with_interval(r['samples_per_pixel'])}</td>{''.join(cells)}</tr>")
    return (f"<table><tr><th>method</th><th>budget</th><th>seconds taken</th><th>samples per pixel</th>{head}</tr>"
            + "".join(rows) + "</table>")


def _plot(scene, mode, colours):
    x_key = "seconds" if mode == "time" else "samples_per_pixel"
    series = []
    for method, colour in colours.items():
        runs = [r for r in scene["runs"] if r["method"] == method and r["mode"] == mode]
        if not runs:
            continue
        fit = scene["slopes"].get(mode, {}).get(method)
        label = method + (f"  slope {slope_text(fit)}" if fit else "")
        series.append({"label": label, "colour": colour, "fit": fit,
                       "points": [(r[x_key]["mean"], r["metrics"]["relmse"]["mean"], r["metrics"]["relmse"]["ci_low"],
                                   r["metrics"]["relmse"]["ci_high"]) for r in runs]})
    x_label = "seconds (measured)" if mode == "time" else "samples per pixel"
    return loglog_svg(series, x_label, "relMSE (mean, 95 % interval)")


def slope_text(fit):
    """slope +- its standard error, or the slope and why it has no error."""
    if fit["stderr"] is not None:
        return f"{fit['slope']:.2f} \u00b1 {fit['stderr']:.2g}"
    return f"{fit['slope']:.2f} ({fit.get('note') or 'no error'})"


def _performance_table(scene):
    rows = []
    for r in shown_runs(scene):
        if r["integrator"] == "external":
            continue
        st = r["stats"]
        # Negative: not measured (SIMD figures without WAVEFRONT_STATS, acceptance outside MLT).
        figures = ", ".join(f"{html.escape(k)} {_num(float(v))}" for k, v in st.get("figures", {}).items() if v >= 0)
        rows.append(f"<tr><td>{html.escape(r['method'])}</td><td>{_budget(r['mode'], r['budget'])}</td>"
                    f"<td>{_with_interval(metrics.scaled(r['samples_per_second'], 1e-6))}</td>"
                    f"<td>{_with_interval(metrics.scaled(r['rays_per_second'], 1e-6))}</td>"
                    f"<td>{st['memoryBytes'] / 2 ** 20:.1f}</td><td>{st['peakMemoryBytes'] / 2 ** 20:.1f}</td>"
                    f"<td>{st['streamCapacity']}</td><td>{st['bytesPerSampleSlot']}</td><td>{figures or '&ndash;'}</td></tr>")
    return ("<table><tr><th>method</th><th>budget</th><th>M samples/s</th><th>M rays/s</th><th>memory (MiB)</th>"
            "<th>peak (MiB)</th><th>stream slots</th><th>bytes per slot</th><th>integrator figures (first seed)</th></tr>"
            + "".join(rows) + "</table>")


def _kernel_tables(scene):
    parts = []
    for r in shown_runs(scene):
        if r["integrator"] == "external":
            continue
        st = r["stats"]
        total = sum(k["milliseconds"] for k in st["kernels"]) or 1.0
        rows = "".join(f"<tr><td>{html.escape(k['label'])}</td><td>{k['milliseconds']:.2f}</td><td>{k['launches']}</td>"
                       f"<td>{_percent(k['milliseconds'] / total)}</td><td>{_percent(k['simdOccupancy'])}</td>"
                       f"<td>{_percent(k['simdEfficiency'])}</td></tr>" for k in st["kernels"])
        parts.append(f"<details><summary>{html.escape(r['method'])}, {_budget(r['mode'], r['budget'])}, first seed: "
                     f"{html.escape(st['backend'])}</summary><table><tr><th>kernel</th><th>ms</th><th>launches</th>"
                     f"<th>share of time</th><th>SIMD occupancy</th><th>SIMD efficiency</th></tr>{rows}</table></details>")
    return "".join(parts)


def _reference_text(scene):
    ref = scene["reference"]
    e = html.escape
    if ref.get("method"):
        text = (f"{e(ref['method'])}, {ref['seeds']} seeds, {ref['seconds']:.2f} s in total, "
                f"{ref['samples_per_pixel']:.0f} samples per pixel each")
        if ref.get("file"):
            text += f" (saved as {e(ref['file'])}, for --reference)"
    elif ref.get("files") and len(ref["files"]) > 1:
        text = f"the mean of {len(ref['files'])} seed files, {e(', '.join(ref['files']))}"
    else:
        text = f"read from {e(str(ref.get('file')))}; its own noise is not known (give its seeds' files to measure it)"
    if ref.get("relative_variance") is not None:
        text += f". Its relative variance: {_num(ref['relative_variance'])}"
        if ref.get("noise_share") is not None:
            smallest = ref["smallest_error"]
            text += (f", {100 * ref['noise_share']:.1f} % of the smallest error it measures ({e(smallest['method'])} "
                     f"at {_budget(smallest['mode'], smallest['budget'])})")
    text += "."
    if ref.get("warning"):
        text += f"<br><span class='warning'>&#9888; {e(ref['warning'])}</span>"
    if ref.get("note"):
        text += f"<br>{e(ref['note'])}"
    return text


def _lighting_text(scene):
    light = {k: v for k, v in scene["lighting"].items() if v is not None and not (k == "up" and v == "y")}
    return ", ".join(f"{html.escape(k)} {html.escape(str(v))}" for k, v in light.items()) or "as the scene file has it"


def build_page(results, folder):
    e = html.escape
    colours = {m["method"]: PALETTE[i % len(PALETTE)] for i, m in enumerate(results["methods"])}
    zoom_css = "image-rendering:pixelated"
    # Shown at the display width whatever their size: small renders are magnified, not left tiny.
    display_width = int(results.get("report", {}).get("display_width", 256))
    full, half = f"width:{display_width}px", f"width:{display_width // 2}px"
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>wavefront-compare</title><style>"
        "body{font-family:sans-serif;margin:1.5em;max-width:1500px}table{border-collapse:collapse;margin:0.5em 0}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;vertical-align:top}"
        "td:first-child,th:first-child{text-align:left}.ci{color:#777;font-size:85%}.bias{color:#b00}"
        ".warning{color:#b00;font-weight:bold}figure{display:inline-block;margin:0 6px 6px 0;text-align:center;vertical-align:top}"
        "figcaption{font-size:85%}code{background:#f3f3f3;padding:2px}dt{font-weight:bold}"
        f"img.zoom{{{zoom_css}}}.missing{{color:#b00}}</style></head><body>",
        "<h1>wavefront-compare</h1>",
        _headline(results, colours),
    ]
    setup = [
        f"<p>Command: <code>{e(str(results.get('command') or 'wavefront.compare() from Python'))}</code><br>"
        f"Date {e(results['date'])}; device {e(str(results.get('device')))}; wavefront {e(results['version'])}"
        f"{', commit ' + e(results['commit']) if results.get('commit') else ''}; host {e(results['host'])}.<br>"
        f"{results['seeds']} independent seeds (first {results['first_seed']}) per method and budget; "
        f"methods: {', '.join(e(m['method']) + ' (' + e(m['description']) + ')' for m in results['methods'])}.</p>",
        f"<p>{_figure_text(results)} Float images: {len(results.get('images', {}))} EXR files under images/float, "
        "indexed in results.json (\"images\").</p>",
        "<details><summary>How each number is defined</summary><dl>"
        + "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in results["definitions"].items())
        + f"<dt>flip in this report</dt><dd>{'computed' if results['flip']['available'] else e(results['flip']['reason'])}</dd>"
        "<dt>images</dt><dd>each method's first seed at the largest budget of each mode, tone-mapped with "
        f"exposure {results.get('report', {}).get('exposure', 0):g}; error maps: |x &minus; r| / (r + &epsilon;) per "
        f"pixel, channels averaged, clipped at {100 * ERROR_CLIP:g} %: {_img(folder, 'images/error-scale.png', 'scale')} "
        "0 to 100 %</dd></dl></details>",
    ]
    for scene in results["scenes"]:
        parts.append(f"<h2>{e(scene['scene'])} ({scene['width']}x{scene['height']})</h2>"
                     f"<p>Lighting: {_lighting_text(scene)}. Reference: {_reference_text(scene)}</p>")
        shown = shown_runs(scene)
        reference = (f"<figure>{_img(folder, files(scene['reference_image'])['image'], 'reference', 'zoom', full)}"
                     "<figcaption>reference</figcaption></figure>")
        for mode in dict.fromkeys(r["mode"] for r in shown):  # a row per mode, the reference first in each
            figures = [reference]
            for r in (r for r in shown if r["mode"] == mode):
                caption = f"{e(r['method'])}, {_budget(mode, r['budget'])}<br>relMSE {_num(r['metrics']['relmse']['mean'])}"
                figures.append(f"<figure>{_img(folder, files(r['image'])['image'], r['method'], 'zoom', full)}<br>"
                               f"{_img(folder, files(r['image'])['error'], r['method'] + ' error', 'zoom', full)}"
                               f"<figcaption>{caption}</figcaption></figure>")
            parts.append("<div>" + "".join(figures) + "</div>")
        for index, (x0, y0, x1, y1) in enumerate(scene["crops"]):
            w, h = x1 - x0, y1 - y0
            zoom = max(1, min(16, 160 // max(w, h)))
            style = f"width:{w * zoom}px"
            cells = [f"<figure>{_img(folder, crop_file(scene['reference_image'], index), 'reference', 'zoom', style)}"
                     "<figcaption>reference</figcaption></figure>"]
            cells += [f"<figure>{_img(folder, crop_file(r['image'], index), r['method'], 'zoom', style)}"
                      f"<figcaption>{e(r['method'])}, {_budget(r['mode'], r['budget'])}</figcaption></figure>"
                      for r in shown]
            parts.append(f"<h3>Inset {x0},{y0},{x1},{y1} (x{zoom})</h3><div>{''.join(cells)}</div>")
        for mode, title in (("time", "Equal time"), ("spp", "Equal samples")):
            if not any(r["mode"] == mode for r in scene["runs"]):
                continue
            parts.append(f"<h3>{title}</h3>{_plot(scene, mode, colours)}{_error_table(scene, mode, results, colours)}")
        parts.append("<p>Bold: the lowest relMSE (equal time: relMSE &times; seconds / budget, so that an overrun "
                     "does not help) and the highest efficiency at each budget. (x1.8): the seeds ran 1.8 times their "
                     "budget on average. &#9888;: a bias significant at the stated level; &#9432;: a note on bias&sup2; "
                     "(hover).</p>")
        parts.append(f"<h3>Throughput and memory</h3>{_performance_table(scene)}"
                     "<p>SIMD figures are measured by a CUDA build with -DWAVEFRONT_STATS=ON (&ndash;: not measured).</p>"
                     f"{_kernel_tables(scene)}")
        pyramid = scene["pyramid"]
        if pyramid["strategies"]:
            parts.append(f"<h3>BDPT strategies (s, t) of {e(pyramid['method'])}, {pyramid['samples_per_pixel']} samples "
                         "per pixel, first seed</h3><p>s light-subpath vertices, t eye-subpath vertices, each image "
                         "its MIS-weighted contribution alone; a row per path length in segments.</p>")
            for length in sorted({s["length"] for s in pyramid["strategies"]}):
                row = [f"<figure>{_img(folder, files(s['image'])['image'], 's=%d, t=%d' % (s['s'], s['t']), 'zoom', half)}"
                       f"<figcaption>s={s['s']}, t={s['t']}</figcaption></figure>"
                       for s in pyramid["strategies"] if s["length"] == length]
                parts.append(f"<div><b>{length}</b> {''.join(row)}</div>")
    parts.append("<h2>Setup and definitions</h2>")
    parts += setup
    parts.append("</body></html>")
    return "\n".join(parts)


def _figure_text(results):
    f = results.get("figure") or {}
    if f.get("pdf"):
        return f"Figure for a paper: {html.escape(f['pdf'])} and {html.escape(f['svg'])}."
    return f"Figure: {html.escape(f.get('reason') or 'not written')}."


def _headline(results, colours):
    """The first screen: each scene's largest budget of each mode, the methods best first."""
    baseline = results.get("baseline")
    rows = []
    for scene in results["scenes"]:
        shown = shown_runs(scene)
        for mode in dict.fromkeys(r["mode"] for r in shown):
            key = "relmse_at_budget" if mode == "time" else "relmse"
            runs = sorted((r for r in shown if r["mode"] == mode),
                          key=lambda r: r["metrics"][key]["mean"] if r["metrics"][key]["mean"] is not None else math.inf)
            for i, r in enumerate(runs):
                ratio = (r.get("baseline") or {}).get("efficiency_ratio") if baseline else None
                rows.append(f"<tr><td>{html.escape(scene['name']) if i == 0 else ''}</td>"
                            f"<td>{(MODES_TEXT[mode] + ', ' + _budget(mode, r['budget'])) if i == 0 else ''}</td>"
                            f"<td><span style='color:{colours[r['method']]}'>&#9632;</span> {html.escape(r['method'])}</td>"
                            f"<td>{_with_interval(r['seconds'])}</td><td>{_with_interval(r['metrics'][key])}</td>"
                            f"<td>{_with_interval(r['metrics']['efficiency'])}</td>"
                            + (f"<td>{_with_interval(ratio)}</td>" if baseline else "")
                            + f"<td>{_bias_cell(r)}</td></tr>")
    extra = f"<th>efficiency / {html.escape(baseline)}</th>" if baseline else ""
    return ("<p><b>Result</b> at the largest budgets, best first (equal time: relMSE &times; seconds / budget); "
            "details per scene below, definitions at the end.</p><table><tr><th>scene</th><th>budget</th>"
            f"<th>method</th><th>seconds</th><th>relMSE</th><th>efficiency</th>{extra}<th>bias&sup2;</th></tr>"
            + "".join(rows) + "</table>")


MODES_TEXT = {"time": "equal time", "spp": "equal samples"}


BIAS_WORDS = {True: "yes", False: "no", None: "untested"}  # None: fewer than 3 seeds


def summary_rows(results):
    """The headline numbers as Markdown table rows (the command line prints them; logs keep them)."""
    rows = ["| scene | method | budget | seconds | spp | relMSE [95 %] | variance | bias^2 | biased | efficiency |",
            "|---|---|---:|---:|---:|---:|---:|---:|---|---:|"]

    def number(v):
        return "-" if v is None else f"{v:.3g}"

    def cell(s):
        if s["ci_low"] is None and s["ci_high"] is None:
            return number(s["mean"])
        return f"{number(s['mean'])} [{number(s['ci_low'])}, {number(s['ci_high'])}]"

    for scene in results["scenes"]:
        for r in scene["runs"]:
            m = r["metrics"]
            spp = r["samples_per_pixel"]["mean"]
            rows.append(f"| {scene['name']} | {r['method']} | {_budget(r['mode'], r['budget'])} | "
                        f"{r['seconds']['mean']:.3f} | {'-' if spp is None else f'{spp:.1f}'} | {cell(m['relmse'])} | "
                        f"{cell(m['variance'])} | {cell(m['bias2'])} | {BIAS_WORDS[r['bias_significant']]} | "
                        f"{cell(m['efficiency'])} |")
    return rows
