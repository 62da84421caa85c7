"""The HTML report of wavefront-compare: one self-contained file (images as data URIs, plots as
inline SVG), written from results.json and the PNG files beside it, so that --report-only can write
it again from a copied folder. Needs NumPy and the module's own PNG writer (wf.writeImage); no
matplotlib, so it runs on the GPU machine too.
"""
import base64
import html
import json
import math
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
                 "time_to_unit_variance": "time to unit variance (s)"}


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


def files(image_id):
    return {"image": f"images/{image_id}.png", "error": f"images/{image_id}-error.png"}


def crop_file(image_id, index):
    return f"images/{image_id}-crop{index}.png"


def write(comparison, out, exposure=0.0, display_width=256):
    """results.json, images/*.png, each rendered reference as NAME-reference.exr and index.html
    into `out`; returns the page's path."""
    out = Path(out)
    (out / "images").mkdir(parents=True, exist_ok=True)
    results = dict(comparison.results)
    results["report"] = {"exposure": exposure, "display_width": display_width}
    images = comparison.images
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
        for index, (x, y, w, h) in enumerate(scene["crops"]):
            for image_id in shown:
                _png(out / crop_file(image_id, index), images[image_id][y:y + h, x:x + w], exposure)
        for entry in scene["pyramid"]["strategies"]:
            _png(out / files(entry["image"])["image"], shrink(images[entry["image"]], display_width // 2 or 1),
                 exposure)
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
    page = folder / "index.html"
    page.write_text(build_page(results, folder))
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

def _data_uri(folder, name):
    path = Path(folder) / name
    if not path.is_file():
        return None
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


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


def _error_table(scene, mode, results, colours):
    runs = [r for r in scene["runs"] if r["mode"] == mode]
    columns = ["relmse", "relmse_trimmed", "mape", "smape", "flip", "variance", "bias2", "efficiency",
               "time_to_unit_variance"]
    best = {}
    for r in runs:  # the best relmse and efficiency at each budget, in bold
        b = best.setdefault(r["budget"], {"relmse": r, "efficiency": r})
        if (r["metrics"]["relmse"]["mean"] or math.inf) < (b["relmse"]["metrics"]["relmse"]["mean"] or math.inf):
            b["relmse"] = r
        if (r["metrics"]["efficiency"]["mean"] or 0) > (b["efficiency"]["metrics"]["efficiency"]["mean"] or 0):
            b["efficiency"] = r
    head = "".join(f"<th>{METRIC_TITLES[c]}</th>" for c in columns)
    rows = []
    for r in sorted(runs, key=lambda r: (r["budget"], list(colours).index(r["method"]))):
        cells = []
        for c in columns:
            text = _with_interval(r["metrics"][c])
            if c == "bias2" and r["bias_significant"]:
                text = f"<span class='bias'>{text} &#9888;</span>"
            if c in ("relmse", "efficiency") and best[r["budget"]][c] is r and len(runs) > 1:
                text = f"<b>{text}</b>"
            cells.append(f"<td>{text}</td>")
        rows.append(f"<tr><td><span style='color:{colours[r['method']]}'>&#9632;</span> {html.escape(r['method'])}</td>"
                    f"<td>{_budget(mode, r['budget'])}</td><td>{_with_interval(r['seconds'])}</td>"
                    f"<td>{_with_interval(r['samples_per_pixel'])}</td>{''.join(cells)}</tr>")
    return (f"<table><tr><th>method</th><th>budget</th><th>seconds</th><th>samples per pixel</th>{head}</tr>"
            + "".join(rows) + "</table>")


def _plot(scene, mode, colours):
    x_key = "seconds" if mode == "time" else "samples_per_pixel"
    series = []
    for method, colour in colours.items():
        runs = [r for r in scene["runs"] if r["method"] == method and r["mode"] == mode]
        if not runs:
            continue
        fit = scene["slopes"].get(mode, {}).get(method)
        label = method
        if fit:
            label += f"  slope {fit['slope']:.2f}" + (f" \u00b1 {fit['stderr']:.2g}" if fit["stderr"] is not None else "")
        series.append({"label": label, "colour": colour, "fit": fit,
                       "points": [(r[x_key]["mean"], r["metrics"]["relmse"]["mean"], r["metrics"]["relmse"]["ci_low"],
                                   r["metrics"]["relmse"]["ci_high"]) for r in runs]})
    x_label = "seconds (measured)" if mode == "time" else "samples per pixel"
    return loglog_svg(series, x_label, "relMSE (mean, 95 % interval)")


def _performance_table(scene):
    rows = []
    for r in shown_runs(scene):
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
    else:
        text = f"read from {e(str(ref.get('file')))}; its own noise is not known"
    if ref.get("relative_variance") is not None:
        text += f". Its relative variance: {_num(ref['relative_variance'])}"
        if ref.get("noise_share") is not None:
            smallest = ref["smallest_error"]
            text += (f", {100 * ref['noise_share']:.1f} % of the smallest error it measures ({e(smallest['method'])} "
                     f"at {_budget(smallest['mode'], smallest['budget'])})")
    text += "."
    if ref.get("warning"):
        text += f"<br><span class='warning'>&#9888; {e(ref['warning'])}</span>"
    return text


def _lighting_text(scene):
    light = {k: v for k, v in scene["lighting"].items() if v is not None and not (k == "up" and v == "y")}
    return ", ".join(f"{html.escape(k)} {html.escape(str(v))}" for k, v in light.items()) or "as the scene file has it"


def build_page(results, folder):
    e = html.escape
    colours = {m["method"]: PALETTE[i % len(PALETTE)] for i, m in enumerate(results["methods"])}
    zoom_css = "image-rendering:pixelated"
    # Shown at the display width whatever their size: small renders are magnified, not left tiny.
    full = f"width:{results.get('report', {}).get('display_width', 256)}px"
    half = f"width:{results.get('report', {}).get('display_width', 256) // 2}px"
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>wavefront-compare</title><style>"
        "body{font-family:sans-serif;margin:1.5em;max-width:1500px}table{border-collapse:collapse;margin:0.5em 0}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;vertical-align:top}"
        "td:first-child,th:first-child{text-align:left}.ci{color:#777;font-size:85%}.bias{color:#b00}"
        ".warning{color:#b00;font-weight:bold}figure{display:inline-block;margin:0 6px 6px 0;text-align:center;vertical-align:top}"
        "figcaption{font-size:85%}code{background:#f3f3f3;padding:2px}dt{font-weight:bold}"
        f"img.zoom{{{zoom_css}}}.missing{{color:#b00}}</style></head><body>",
        "<h1>wavefront-compare</h1>",
        f"<p>Command: <code>{e(str(results.get('command') or 'wavefront.compare() from Python'))}</code><br>"
        f"Date {e(results['date'])}; device {e(str(results.get('device')))}; wavefront {e(results['version'])}"
        f"{', commit ' + e(results['commit']) if results.get('commit') else ''}; host {e(results['host'])}.<br>"
        f"{results['seeds']} independent seeds (first {results['first_seed']}) per method and budget; "
        f"methods: {', '.join(e(m['method']) + ' (' + e(m['description']) + ')' for m in results['methods'])}.</p>",
        "<details open><summary>How each number is defined</summary><dl>"
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
        for index, (x, y, w, h) in enumerate(scene["crops"]):
            zoom = max(1, min(16, 160 // max(w, h)))
            style = f"width:{w * zoom}px"
            cells = [f"<figure>{_img(folder, crop_file(scene['reference_image'], index), 'reference', 'zoom', style)}"
                     "<figcaption>reference</figcaption></figure>"]
            cells += [f"<figure>{_img(folder, crop_file(r['image'], index), r['method'], 'zoom', style)}"
                      f"<figcaption>{e(r['method'])}, {_budget(r['mode'], r['budget'])}</figcaption></figure>"
                      for r in shown]
            parts.append(f"<h3>Inset {x},{y},{w},{h} (x{zoom})</h3><div>{''.join(cells)}</div>")
        for mode, title in (("time", "Equal time"), ("spp", "Equal samples")):
            if not any(r["mode"] == mode for r in scene["runs"]):
                continue
            parts.append(f"<h3>{title}</h3>{_plot(scene, mode, colours)}{_error_table(scene, mode, results, colours)}")
        parts.append("<p>Bold: the lowest relMSE and the highest efficiency at each budget. &#9888;: a bias "
                     "significant at the stated level.</p>")
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
    parts.append("</body></html>")
    return "\n".join(parts)


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
            rows.append(f"| {scene['name']} | {r['method']} | {_budget(r['mode'], r['budget'])} | "
                        f"{r['seconds']['mean']:.3f} | {r['samples_per_pixel']['mean']:.1f} | {cell(m['relmse'])} | "
                        f"{cell(m['variance'])} | {cell(m['bias2'])} | {BIAS_WORDS[r['bias_significant']]} | "
                        f"{cell(m['efficiency'])} |")
    return rows
