"""Error metrics and seed statistics of wavefront-compare. NumPy only (no SciPy), so that a report's
numbers can be made wherever the module imports, the GPU machine included.

Images are float arrays of shape (height, width, 3), linear radiance. A per-pixel metric is
averaged over the three channels, then over the pixels. `DEFINITIONS` says the same in words, for
the report.
"""
import functools
import math

import numpy as np

EPSILON = 1e-2          # keeps near-black reference pixels from dominating the relative metrics
TRIM_FRACTION = 1e-3    # relmse_trimmed leaves out this fraction of the pixels, the worst ones
CONFIDENCE = 0.95       # two-sided confidence of every interval
BIAS_LEVEL = 0.01       # one-sided false-alarm rate of the bias test, per (method, budget)
BIAS_BLOCK = 8          # the bias test weighs pixels by their reference block's mean, blocks this wide

METRICS = ("relmse", "relmse_trimmed", "mape", "smape", "flip")


def definitions(epsilon=EPSILON):
    """Each number of a report in words (the HTML prints these; results.json keeps them)."""
    e = f"{epsilon:g}"
    return {
        "relmse": f"relative MSE: mean over pixels of (x - r)^2 / (r^2 + {e}), x the image, r the reference, "
                  "averaged over the three channels",
        "relmse_trimmed": f"relmse without the {100 * TRIM_FRACTION:g} % of pixels with the largest (x - r)^2 / "
                          f"(r^2 + {e}) (floor(N / {round(1 / TRIM_FRACTION)}) of N pixels), which keeps single "
                          "fireflies from deciding a ranking",
        "mape": f"mean absolute percentage error: mean of |x - r| / (r + {e})",
        "smape": f"symmetric MAPE: mean of 2 |x - r| / (x + r + {e}), between 0 and 2",
        "flip": "HDR-FLIP (Andersson et al. 2021, the flip-evaluator package) of the image against the reference, "
                "mean over pixels, exposures chosen from the reference",
        "efficiency": "1 / (relmse x seconds), from the mean relmse and the mean seconds of the seeds; the interval "
                      "is Student's t on the log scale (the relative standard errors of relmse and seconds added in "
                      "quadrature), so that it exists whenever the seeds vary and is never cut at 0",
        "variance": f"relative variance of one run: mean over pixels of s^2 / (r^2 + {e}), s^2 the unbiased "
                    "variance of a pixel across the seeds (what relmse would be with no bias and an exact reference)",
        "bias2": f"squared bias: the error of the seeds' mean image, minus the variance of that mean (variance / K, "
                 "K seeds) and minus the reference's own variance (when it has seeds), each pixel weighted by "
                 f"1 / (R^2 + {e}), R the mean of the reference over the pixel's {BIAS_BLOCK}x{BIAS_BLOCK} block: the "
                 "very number the bias test tests. Its expectation is the bias^2 against the reference's "
                 "expectation, 0 for an unbiased method; the estimate can fall below 0 by noise, and is then shown "
                 "as 0 with its raw value, its t statistic and a note beside it (results.json: bias2.estimate, "
                 "bias2.t, bias2.note)",
        "time_to_unit_variance": "variance x seconds: the time one run would need for a relative variance of 1 "
                                 "(lower is better; an unbiased method's stays constant as it renders longer)",
        "intervals": f"mean and {100 * CONFIDENCE:g} % confidence interval over K independent seeds: Student's t "
                     "on the K per-seed values (relmse, relmse_trimmed, mape, smape, flip, seconds), the jackknife "
                     "over the method's seeds and, from 3 on, the reference's (variance, bias2; needs K >= 3); "
                     "lower bounds of quantities that cannot be "
                     "negative are cut at 0 (bias2 is shown clamped at 0, its raw estimate beside it)",
        "bias_flag": "bias significant: bias2's raw estimate over its jackknife standard error (over the "
                     f"method's seeds and the reference's), t, exceeds Student's t at one-sided level {BIAS_LEVEL:g} "
                     "(Welch-Satterthwaite degrees of freedom); the block weights are ones no single pixel's noise "
                     "moves. A flagged bias2's interval lies above 0. Untested below 3 seeds",
        "slope": "slope of log relmse against log seconds (equal time) or log samples per pixel (equal samples), "
                 "weighted least squares with each budget's variance of log relmse from its seeds (the budgets "
                 "render independent seeds, so the points are independent); its standard error comes from those "
                 "variances, widened by the fit's reduced chi^2 where that exceeds 1 (3 budgets or more); no "
                 "error without 2 seeds per budget. -1 for an unbiased method until the reference's noise or a "
                 "bias flattens it",
        "equal_time": "equal-time renders stop at the end of a pass and can overrun their budget: the tables give "
                      "the seconds each took, and relmse x seconds / budget (what relmse would be at the budget "
                      "for an error falling as 1 / time), on which the bold at each budget is decided",
        "baseline": "ratios to the baseline method at the same budget: relmse / the baseline's relmse and "
                    "efficiency / the baseline's efficiency, each with a Student's t interval on the log scale "
                    "(relative standard errors in quadrature, the smaller seed count's degrees of freedom)",
    }


# ---- Per-image metrics --------------------------------------------------------------------------

def _pair(image, reference):
    return np.asarray(image, dtype=np.float64), np.asarray(reference, dtype=np.float64)


def relmse_map(image, reference, epsilon=EPSILON):
    """(height, width): (x - r)^2 / (r^2 + epsilon), averaged over the channels."""
    x, r = _pair(image, reference)
    d = x - r
    return np.mean(d * d / (r * r + epsilon), axis=2)


def relative_error_map(image, reference, epsilon=EPSILON):
    """(height, width): |x - r| / (r + epsilon), averaged over the channels (the report's error maps)."""
    x, r = _pair(image, reference)
    return np.mean(np.abs(x - r) / (np.abs(r) + epsilon), axis=2)


def relmse(image, reference, epsilon=EPSILON):
    return float(np.mean(relmse_map(image, reference, epsilon)))


def relmse_trimmed(image, reference, epsilon=EPSILON, trim=TRIM_FRACTION):
    per_pixel = relmse_map(image, reference, epsilon).ravel()
    keep = per_pixel.size - int(math.floor(trim * per_pixel.size))
    if keep == per_pixel.size:
        return float(np.mean(per_pixel))
    return float(np.mean(np.partition(per_pixel, keep - 1)[:keep]))


def mape(image, reference, epsilon=EPSILON):
    x, r = _pair(image, reference)
    return float(np.mean(np.abs(x - r) / (np.abs(r) + epsilon)))


def smape(image, reference, epsilon=EPSILON):
    x, r = _pair(image, reference)
    return float(np.mean(2.0 * np.abs(x - r) / (np.abs(x) + np.abs(r) + epsilon)))


class Flip:
    """HDR-FLIP through the optional flip-evaluator package (scripts/install-deps.sh installs it where
    it can). mode: "on" (an error where it is missing), "off", or "auto" (on when installed)."""

    def __init__(self, mode="auto"):
        self.module, self.reason = None, None
        if mode not in ("auto", "on", "off"):
            raise ValueError(f"flip must be auto, on or off, not '{mode}'")
        if mode == "off":
            self.reason = "not computed (flip off)"
            return
        try:
            import flip_evaluator
        except ImportError:
            if mode == "on":
                raise
            self.reason = "unavailable: the flip-evaluator package is not installed (scripts/install-deps.sh)"
            return
        self.module = flip_evaluator

    @property
    def available(self):
        return self.module is not None

    def __call__(self, image, reference):
        if self.module is None:
            return None
        test = np.ascontiguousarray(np.maximum(image, 0.0), dtype=np.float32)
        ref = np.ascontiguousarray(np.maximum(reference, 0.0), dtype=np.float32)
        return float(self.module.evaluate(ref, test, "HDR", applyMagma=False)[1])


def image_metrics(image, reference, epsilon=EPSILON, flip=None):
    """Every per-image metric of METRICS (flip None when not computed)."""
    return {"relmse": relmse(image, reference, epsilon), "relmse_trimmed": relmse_trimmed(image, reference, epsilon),
            "mape": mape(image, reference, epsilon), "smape": smape(image, reference, epsilon),
            "flip": flip(image, reference) if flip is not None else None}


# ---- Student's t, without SciPy ----------------------------------------------------------------

def _beta_fraction(a, b, x):
    """Continued fraction of the regularised incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _incomplete_beta(a, b, x):
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def t_cdf(t, df):
    tail = 0.5 * _incomplete_beta(0.5 * df, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


@functools.lru_cache(maxsize=None)
def t_quantile(p, df):
    """The p-quantile of Student's t with df degrees of freedom (0.5 < p < 1), by bisection."""
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(200):
        mid = 0.5 * (low + high)
        low, high = (mid, high) if t_cdf(mid, df) < p else (low, mid)
    return 0.5 * (low + high)


# ---- Summaries over seeds -----------------------------------------------------------------------

def interval(mean, standard_error, df, confidence=CONFIDENCE, floor=None):
    """{"mean", "ci_low", "ci_high"}: mean +- t * standard error (bounds None where not defined), the
    lower bound cut at `floor` for a quantity that cannot go below it (an error, a variance)."""
    if mean is None:
        return {"mean": None, "ci_low": None, "ci_high": None}
    if standard_error is None or df < 1:
        return {"mean": float(mean), "ci_low": None, "ci_high": None}
    half = t_quantile(0.5 + 0.5 * confidence, df) * standard_error
    low = float(mean - half) if floor is None else max(float(mean - half), floor)
    return {"mean": float(mean), "ci_low": low, "ci_high": float(mean + half)}


def summary(values, confidence=CONFIDENCE, floor=0.0):
    """Mean and Student's t interval of independent values (one per seed; every quantity summarised
    this way is >= 0, hence the floor); None values: not computed."""
    if not values or any(v is None for v in values):
        return interval(None, None, 0)
    v = np.asarray(values, dtype=np.float64)
    if v.size < 2:
        return interval(v.mean(), None, 0)
    return interval(v.mean(), v.std(ddof=1) / math.sqrt(v.size), v.size - 1, confidence, floor)


def log_interval(mean, relative_error, df, confidence=CONFIDENCE):
    """mean x exp(+- t x relative error): the interval of a positive quantity on the log scale (delta
    method), which never reaches 0."""
    if mean is None or not mean > 0:
        return interval(None, None, 0)
    if relative_error is None or df < 1 or not math.isfinite(relative_error):
        return interval(mean, None, 0)
    factor = math.exp(t_quantile(0.5 + 0.5 * confidence, df) * relative_error)
    return {"mean": float(mean), "ci_low": float(mean / factor), "ci_high": float(mean * factor)}


def relative_standard_error(values):
    """Standard error of the mean of `values` over their mean (None below 2 values or at mean 0)."""
    if not values or any(v is None for v in values) or len(values) < 2:
        return None
    v = np.asarray(values, dtype=np.float64)
    m = v.mean()
    return float(v.std(ddof=1) / math.sqrt(v.size) / m) if m > 0 else None


def efficiency_parts(relmse_values, seconds_values):
    """(1 / (mean relmse x mean seconds), its relative standard error, the seed count); the value
    None where relmse or seconds is not positive, the error None below 2 seeds."""
    if not relmse_values or any(v is None for v in list(relmse_values) + list(seconds_values)):
        return None, None, 0
    m, s = float(np.mean(relmse_values)), float(np.mean(seconds_values))
    if not (m > 0 and s > 0):
        return None, None, 0
    rel_m, rel_s = relative_standard_error(relmse_values), relative_standard_error(seconds_values)
    relative = None if rel_m is None else math.sqrt(rel_m ** 2 + (rel_s or 0.0) ** 2)
    return 1.0 / (m * s), relative, len(relmse_values)


def efficiency(relmse_values, seconds_values, confidence=CONFIDENCE):
    """1 / (mean relmse x mean seconds) from per-seed values, its interval on the log scale (the
    relative errors of both in quadrature): it exists whenever the seeds vary, never cut at 0."""
    value, relative, n = efficiency_parts(relmse_values, seconds_values)
    return log_interval(value, relative, n - 1, confidence)


def ratio(a, b, confidence=CONFIDENCE):
    """a / b of two independent positive estimates, each (value, relative standard error, count),
    with a log-scale interval (the smaller count's degrees of freedom)."""
    (va, ra, na), (vb, rb, nb) = a, b
    if va is None or vb is None or not (va > 0 and vb > 0):
        return interval(None, None, 0)
    relative = None if ra is None or rb is None else math.sqrt(ra ** 2 + rb ** 2)
    return log_interval(va / vb, relative, min(na, nb) - 1, confidence)


def mean_parts(values):
    """(mean, relative standard error, count) of per-seed values, for ratio()."""
    if not values or any(v is None for v in values):
        return None, None, 0
    return float(np.mean(values)), relative_standard_error(values), len(values)


def scaled(s, factor):
    return {k: None if v is None else v * factor for k, v in s.items()}


def block_mean(a, size):
    """Each pixel replaced by the mean of its size x size block (smaller blocks at the edges)."""
    ys, xs = np.arange(0, a.shape[0], size), np.arange(0, a.shape[1], size)
    sums = np.add.reduceat(np.add.reduceat(a, ys, axis=0), xs, axis=1)
    ny, nx = np.diff(np.append(ys, a.shape[0])), np.diff(np.append(xs, a.shape[1]))
    means = sums / (ny[:, None, None] * nx[None, :, None])
    return np.repeat(np.repeat(means, ny, axis=0), nx, axis=1)


def seed_statistics(images, reference_seeds, epsilon=EPSILON, confidence=CONFIDENCE, level=BIAS_LEVEL):
    """Variance and bias^2 of K independent renders against a reference (metrics.definitions()).

    images: the K renders (height, width, 3); reference_seeds: the reference's own independent
    renders, whose mean is the reference (one image: a reference taken as exact). Intervals and the
    bias test come from the jackknife over both sets of seeds (the method's and, from 3 on, the
    reference's). bias2 and the test are one number with one pixel weighting: the test's t is
    bias2's raw estimate over its standard error, so a flag and the interval shown cannot disagree.
    Returns {"variance", "bias2"} summaries (bias2 also with "estimate", the raw value that may be
    negative, "t", "df" and "note": None or why the number needs care), "bias_significant" and
    "bias_t" (None below 3 seeds) and "mean_image_relmse"."""
    x = [np.asarray(v, dtype=np.float64) for v in images]
    r = [np.asarray(v, dtype=np.float64) for v in reference_seeds]
    k, n_ref = len(x), len(r)
    sx, sxx = sum(x), sum(v * v for v in x)
    sr, srr = sum(r), sum(v * v for v in r)

    def reference_part(sr, srr, n):
        mean = sr / n
        variance_of_mean = np.maximum(srr - sr * mean, 0.0) / (n - 1) / n if n > 1 else 0.0
        # The relmse weights (the variance's, as relmse's), and for bias^2 and its test weights that no
        # single pixel's noise moves (the reference's 8x8 block means): per-pixel weights grow where
        # the reference happens to be low, just where its error is large, which with a million
        # pixels reads as a bias.
        weights = (1.0 / (mean * mean + epsilon), 1.0 / (block_mean(mean, BIAS_BLOCK) ** 2 + epsilon))
        return mean, variance_of_mean, weights

    def split(sx, sxx, n, ref):
        """(variance with the relmse weights, the mean image's relmse, bias^2 with the block weights)."""
        ref_mean, ref_variance, (w_pixel, w_block) = ref
        mean = sx / n
        variance = np.maximum(sxx - sx * mean, 0.0) / (n - 1) if n > 1 else None
        d2 = (mean - ref_mean) ** 2
        mean_error = float(np.mean(w_pixel * d2))
        if variance is None:
            return None, mean_error, None
        bias2 = float(np.mean(w_block * (d2 - variance / n - ref_variance)))
        return float(np.mean(w_pixel * variance)), mean_error, bias2

    ref = reference_part(sr, srr, n_ref)
    variance, mean_error, bias2 = split(sx, sxx, k, ref)
    out = {"mean_image_relmse": mean_error, "bias_significant": None, "bias_t": None}
    if k < 3:  # the jackknife needs a variance of K - 1 seeds
        out["variance"] = interval(variance, None, 0)
        out["bias2"] = dict(interval(None if bias2 is None else max(bias2, 0.0), None, 0), estimate=bias2, t=None,
                            df=None, note=f"untested: bias^2 and its test need 3 seeds or more, not {k}")
        return out
    parts = [[split(sx - v, sxx - v * v, k - 1, ref) for v in x]]
    if n_ref >= 3:
        parts.append([split(sx, sxx, k, reference_part(sr - v, srr - v * v, n_ref - 1)) for v in r])

    def jackknife(pick):
        """Standard error and Welch-Satterthwaite degrees of freedom over both sets of seeds."""
        components = []
        for leave_one_out in parts:
            values = np.array([pick(s) for s in leave_one_out])
            m = len(values)
            components.append(((m - 1) / m * float(np.sum((values - values.mean()) ** 2)), m - 1))
        total = sum(c for c, _ in components)
        denominator = sum(c * c / df for c, df in components)
        return math.sqrt(total), (total * total / denominator if denominator > 0 else k - 1)

    variance_error, variance_df = jackknife(lambda s: s[0])
    bias_error, bias_df = jackknife(lambda s: s[2])
    out["variance"] = interval(variance, variance_error, variance_df, confidence, floor=0.0)
    raw = interval(bias2, bias_error, bias_df, confidence)
    note = None
    if bias_error > 0:
        t = bias2 / bias_error
        out["bias_t"] = t
        out["bias_significant"] = bool(t > t_quantile(1.0 - level, max(1, round(bias_df))))
    else:  # every seed gave the same image: any difference from the reference is bias
        t = None
        out["bias_significant"] = bool(bias2 > 0)
    if raw["ci_high"] is not None and raw["ci_high"] < 0:
        note = (f"the raw estimate {bias2:.3g} and its whole interval [{raw['ci_low']:.3g}, {raw['ci_high']:.3g}] lie "
                f"below 0: the spread of {k} seeds underestimates the variance (rare bright samples?); "
                "render more seeds")
    elif bias2 < 0:
        note = f"the raw estimate {bias2:.3g} is below 0 by noise (t = {t:.2f}); shown as 0"
    out["bias2"] = {"mean": max(bias2, 0.0),
                    "ci_low": None if raw["ci_low"] is None else max(raw["ci_low"], 0.0),
                    "ci_high": None if raw["ci_high"] is None else max(raw["ci_high"], 0.0),
                    "estimate": bias2, "estimate_ci": [raw["ci_low"], raw["ci_high"]], "t": t, "df": bias_df,
                    "note": note}
    return out


def fit_slope(xs, per_point_values):
    """Slope of log(mean y) against log x over independent points (each budget's own seeds).

    xs: one x per point; per_point_values: each point's per-seed y values. Weighted least squares,
    each point weighted by 1 / the variance of its log mean (delta method: relative standard error
    squared); the slope's standard error from those variances, widened by sqrt(reduced chi^2) where
    that exceeds 1 (3 points or more). Points without a variance (1 seed): unweighted, with the
    residuals' error from 3 points. Returns {"slope", "stderr", "intercept", "points", "weighted",
    "note"} or None below 2 distinct x or with a y <= 0."""
    points = {}
    for x, values in zip(xs, per_point_values):
        values = [v for v in values if v is not None]
        if x is None or not values:
            continue
        points.setdefault(float(x), values)
    points = sorted(points.items())
    if len(points) < 2 or any(x <= 0 or np.mean(v) <= 0 for x, v in points):
        return None
    lx = np.log([x for x, _ in points])
    ly = np.log([float(np.mean(v)) for _, v in points])
    relative = [relative_standard_error(v) for _, v in points]
    weighted = all(r is not None and r > 0 for r in relative)
    w = np.array([1.0 / r ** 2 for r in relative]) if weighted else np.ones(len(points))
    mx = float(np.sum(w * lx) / np.sum(w))
    sxx = float(np.sum(w * (lx - mx) ** 2))
    slope = float(np.sum(w * (lx - mx) * ly) / sxx)
    intercept = float(np.sum(w * ly) / np.sum(w) - slope * mx)
    residual = ly - (slope * lx + intercept)
    n = len(points)
    note = None
    if weighted:
        stderr = math.sqrt(1.0 / sxx)
        if n > 2:
            reduced_chi2 = float(np.sum(w * residual ** 2)) / (n - 2)
            stderr *= math.sqrt(max(1.0, reduced_chi2))
    elif n > 2:
        stderr = math.sqrt(float(np.sum(residual ** 2)) / (n - 2) / sxx)
        note = "unweighted: a budget has fewer than 2 seeds"
    else:
        stderr = None
        note = "no error: 2 budgets with fewer than 2 seeds each"
    return {"slope": slope, "stderr": stderr, "intercept": intercept, "points": n, "weighted": weighted, "note": note}
