"""A figure of a comparison for a paper (figure.pdf and figure.svg, vector text and axes, images
embedded at their pixels): per scene a row of the reference and each method at the largest budget,
their error maps below, a row per crop, and the convergence plot beside them. Needs matplotlib
(Debian's python3-matplotlib); report.write calls it where it is installed.
"""
import math

import matplotlib

matplotlib.use("Agg")  # files only, no display
matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text in the SVG: editable, searchable
matplotlib.rcParams["pdf.fonttype"] = 42  # TrueType in the PDF, as publishers ask
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from wavefront import metrics, report  # noqa: E402

PANEL_INCHES = 1.45
PLOT_COLUMNS = 2  # the convergence plot is this many panels wide


def tone_map(image, exposure=0.0):
    """Linear radiance to display sRGB in [0, 1], as the report's PNGs (clamped, exposure in stops)."""
    v = np.clip(np.asarray(image, dtype=np.float64) * 2.0 ** exposure, 0.0, 1.0)
    return np.where(v <= 0.0031308, 12.92 * v, 1.055 * v ** (1 / 2.4) - 0.055)


def error_map(image, reference, epsilon):
    """The report's error map as sRGB: relative error per pixel, clipped at report.ERROR_CLIP."""
    linear = report.colour_map(metrics.relative_error_map(image, reference, epsilon) / report.ERROR_CLIP)
    return tone_map(linear)


def figure_mode(scene):
    """The mode the figure shows: equal time where there is one (what a paper compares), else equal samples."""
    modes = {r["mode"] for r in scene["runs"]}
    return "time" if "time" in modes else "spp"


def _panel(ax, picture, title=None, crops=(), colour_of_crop=None):
    ax.imshow(picture, interpolation="nearest")
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_linewidth(0.4)
    if title:
        ax.set_title(title, fontsize=7 if len(title) <= 20 else 5.5, pad=2)
    for index, (x0, y0, x1, y1) in enumerate(crops):
        ax.add_patch(matplotlib.patches.Rectangle((x0 - 0.5, y0 - 0.5), x1 - x0, y1 - y0, fill=False,
                                                  edgecolor=colour_of_crop(index), linewidth=0.8))


def _convergence(ax, scene, mode, colours):
    x_key = "seconds" if mode == "time" else "samples_per_pixel"
    for method, colour in colours.items():
        runs = sorted((r for r in scene["runs"] if r["method"] == method and r["mode"] == mode
                       and r[x_key]["mean"] is not None), key=lambda r: r[x_key]["mean"])
        if not runs:
            continue
        x = [r[x_key]["mean"] for r in runs]
        y = [r["metrics"]["relmse"]["mean"] for r in runs]
        low = [max(0.0, yi - (r["metrics"]["relmse"]["ci_low"] if r["metrics"]["relmse"]["ci_low"] is not None else yi))
               for yi, r in zip(y, runs)]
        high = [(r["metrics"]["relmse"]["ci_high"] if r["metrics"]["relmse"]["ci_high"] is not None else yi) - yi
                for yi, r in zip(y, runs)]
        fit = scene["slopes"].get(mode, {}).get(method)
        label = method + (f" (slope {report.slope_text(fit)})" if fit else "")
        ax.errorbar(x, y, yerr=[low, high], color=colour, marker="o", markersize=2.5, linewidth=1.0, capsize=1.5,
                    elinewidth=0.6, label=label)
        if fit and len(x) >= 2:
            xs = np.array([x[0], x[-1]])
            ax.plot(xs, math.exp(fit["intercept"]) * xs ** fit["slope"], color=colour, linestyle="--", linewidth=0.6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("seconds (measured)" if mode == "time" else "samples per pixel", fontsize=7)
    ax.set_ylabel("relMSE (mean, 95 % interval)", fontsize=7)
    ax.tick_params(which="both", labelsize=6)
    ax.yaxis.set_label_position("right")  # away from the images on its left
    ax.yaxis.tick_right()
    ax.grid(True, which="major", linewidth=0.3, alpha=0.5)
    ax.legend(fontsize=5.5, frameon=False, loc="best")


def write(results, images, out, exposure=0.0):
    """figure.pdf and figure.svg into `out` from a comparison's results and images; returns what
    results.json says of them."""
    colours = {m["method"]: report.PALETTE[i % len(report.PALETTE)] for i, m in enumerate(results["methods"])}
    crop_colours = ("#ffd700", "#00e5ff", "#ff4fd8", "#7CFC00")
    layout = []  # per scene: (scene, mode, shown runs, crops)
    for scene in results["scenes"]:
        mode = figure_mode(scene)
        shown = [r for r in report.shown_runs(scene) if r["mode"] == mode]
        layout.append((scene, mode, shown, scene["crops"]))
    columns = 1 + max(len(shown) for _, _, shown, _ in layout) + PLOT_COLUMNS
    rows = sum(2 + len(crops) for _, _, _, crops in layout)
    aspect = max(scene["height"] / scene["width"] for scene, _, _, _ in layout)
    fig = plt.figure(figsize=(columns * PANEL_INCHES, rows * PANEL_INCHES * min(1.5, max(0.5, aspect)) + 0.3))
    grid = fig.add_gridspec(rows, columns, wspace=0.05, hspace=0.25)
    row = 0
    for scene, mode, shown, crops in layout:
        reference = images[scene["reference_image"]]
        epsilon = results["epsilon"]
        height = 2 + len(crops)
        _panel(fig.add_subplot(grid[row, 0]), tone_map(reference, exposure), f"{scene['name']}: reference", crops,
               lambda i: crop_colours[i % len(crop_colours)])
        for column, r in enumerate(shown, start=1):
            image = images[r["image"]]
            _panel(fig.add_subplot(grid[row, column]), tone_map(image, exposure),
                   f"{r['method']}, {report._budget(mode, r['budget'])}")
            ax = fig.add_subplot(grid[row + 1, column])
            _panel(ax, error_map(image, reference, epsilon))
            ax.set_xlabel(f"relMSE {r['metrics']['relmse']['mean']:.3g}", fontsize=6, labelpad=1)
            for index, (x0, y0, x1, y1) in enumerate(crops):
                _panel(fig.add_subplot(grid[row + 2 + index, column]), tone_map(image[y0:y1, x0:x1], exposure))
        legend = fig.add_subplot(grid[row + 1, 0])
        _panel(legend, tone_map(report.colour_map(np.tile(np.linspace(0, 1, 64), (8, 1)))))
        legend.set_xlabel(f"relative error 0 .. {100 * report.ERROR_CLIP:g} %", fontsize=6, labelpad=1)
        for index, (x0, y0, x1, y1) in enumerate(crops):
            ax = fig.add_subplot(grid[row + 2 + index, 0])
            _panel(ax, tone_map(reference[y0:y1, x0:x1], exposure))
            for spine in ax.spines.values():
                spine.set_edgecolor(crop_colours[index % len(crop_colours)])
                spine.set_linewidth(1.2)
        _convergence(fig.add_subplot(grid[row:row + height, columns - PLOT_COLUMNS:]), scene, mode, colours)
        row += height
    out = report.Path(out)
    for suffix in ("pdf", "svg"):
        fig.savefig(out / f"figure.{suffix}", bbox_inches="tight", dpi=300)
    plt.close(fig)
    return {"pdf": "figure.pdf", "svg": "figure.svg", "reason": None,
            "modes": {scene["name"]: mode for scene, mode, _, _ in layout}}
