"""wavefront-compare and wavefront.compare(): the metrics and the statistics on synthetic images,
tiny comparisons on the CPU (seconds), a self-contained report, and bad input refused with one
line and exit 2."""
import json
import math
import os
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import wavefront as wf
from wavefront import compare, metrics

# 24x24 pixels and a stream no larger than the image, so that every pass (MLT: every mutation
# step) is short on the CPU.
TINY = ["--backend", "cpu", "--res", "24x24", "--stream-capacity", "576"]


def test_metrics_follow_their_definitions():
    r = np.full((2, 2, 3), 0.5)
    x = r.copy()
    x[0, 0] = 1.5  # one pixel off by 1 in every channel
    e = metrics.EPSILON
    assert metrics.relmse(x, r) == pytest.approx(1.0 / (0.25 + e) / 4)
    assert metrics.mape(x, r) == pytest.approx(1.0 / (0.5 + e) / 4)
    assert metrics.smape(x, r) == pytest.approx(2.0 / (2.0 + e) / 4)
    # 1000 pixels: trimming 0.1 % leaves out the one worst pixel.
    r = np.full((10, 100, 3), 1.0)
    x = r.copy()
    x[3, 7] = 100.0
    x[5, 5] = 1.1
    assert metrics.relmse(x, r) > 9.0
    assert metrics.relmse_trimmed(x, r) == pytest.approx(0.01 / (1 + e) / 999)


def test_student_t_quantiles_match_the_tables():
    assert metrics.t_quantile(0.975, 1) == pytest.approx(12.7062, abs=1e-4)
    assert metrics.t_quantile(0.975, 7) == pytest.approx(2.3646, abs=1e-4)
    assert metrics.t_quantile(0.99, 7) == pytest.approx(2.9980, abs=1e-4)
    assert metrics.t_quantile(0.975, 10000) == pytest.approx(1.9602, abs=1e-3)


def synthetic_seeds(rng, truth, k, bias=0.0, noise=0.3, jitter=0.0):
    """k independent 'renders': truth x (1 + bias) with per-pixel noise and, with jitter, a scale
    common to the whole image (errors correlated across pixels, as MLT's normalisation gives)."""
    return [(truth * (1 + bias) + noise * truth * rng.standard_normal(truth.shape)) * (1 + jitter * rng.standard_normal())
            for _ in range(k)]


def test_the_bias_test_flags_bias_and_not_noise():
    rng = np.random.default_rng(7)
    y, x = np.mgrid[0:32, 0:32] / 32.0  # smooth, as images are: the test weighs pixels by their block's mean
    truth = (0.1 + 0.95 * (1 + np.sin(3 * x + 2 * y)))[..., None] * np.array([1.0, 0.8, 0.6])
    trials = 200
    for jitter in (0.0, 0.05):
        alarms = sum(metrics.seed_statistics(synthetic_seeds(rng, truth, 8, jitter=jitter), [truth])["bias_significant"]
                     for _ in range(trials))
        assert alarms <= 0.03 * trials  # the test's level is 1 %: a few alarms at most
    # A rendered reference: 4 noisy seeds of its own, whose noise must not read as the method's bias.
    alarms = sum(metrics.seed_statistics(synthetic_seeds(rng, truth, 8), synthetic_seeds(rng, truth, 4, noise=0.2))
                 ["bias_significant"] for _ in range(trials // 2))
    assert alarms <= 0.03 * trials // 2
    hits = sum(metrics.seed_statistics(synthetic_seeds(rng, truth, 8, bias=0.05), [truth])["bias_significant"]
               for _ in range(trials))
    assert hits >= 0.9 * trials
    # Variance and bias^2 add up to the error of one render, on average.
    stats = [metrics.seed_statistics(synthetic_seeds(rng, truth, 8, bias=0.05), [truth]) for _ in range(50)]
    per_run = np.mean([metrics.relmse(x, truth) for x in synthetic_seeds(rng, truth, 400, bias=0.05)])
    split = np.mean([s["variance"]["mean"] + s["bias2"]["mean"] for s in stats])
    assert split == pytest.approx(per_run, rel=0.02)


def test_intervals_cover_the_mean_as_stated():
    rng = np.random.default_rng(3)
    covered = 0
    for _ in range(2000):
        s = metrics.summary(list(rng.normal(1.0, 0.2, 8)), floor=None)
        covered += s["ci_low"] <= 1.0 <= s["ci_high"]
    assert covered / 2000 == pytest.approx(0.95, abs=0.015)


def test_every_registry_option_makes_a_method():
    for info in wf.integrators():
        assert compare.Method(info.name).integrator == info.name
        for option in info.options:
            method = compare.Method(f"{info.name}:{option.name}={option.defaultValue}")
            assert method.apply(wf.RenderOptions()).integratorOption(option.name) == option.defaultValue
    methods = compare.parse_methods(["pt,bdpt:strategy=1,2,mlt:large-step=0.3:startup=uniform"])
    assert [m.text for m in methods] == ["pt", "bdpt:strategy=1,2", "mlt:large-step=0.3:startup=uniform"]
    assert compare.split_scene("a/b.gltf:envmap=sky.hdr:up=z") == ("a/b.gltf", {"envmap": "sky.hdr", "up": "z"})


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.sources, self.images = [], 0

    def handle_starttag(self, tag, attrs):
        self.images += tag == "img"
        self.sources += [value for name, value in attrs if name in ("src", "href")]


def test_a_report_from_the_command_line(tmp_path):
    out = tmp_path / "report"
    methods = "pt,bdpt,mlt,bdpt:strategy=0,2"  # the last renders one strategy alone: heavily biased
    assert compare.main(["cornell-box", *TINY, "--methods", methods, "--seeds", "4", "--spp", "2,8", "--times", "0.02",
                         "--reference-method", "pt", "--reference-spp", "128", "--crop", "4,4,8,8", "--pyramid", "2",
                         "--flip", "off", "--out", str(out)]) == 0
    results = json.loads((out / "results.json").read_text())
    scene = results["scenes"][0]
    assert [m["method"] for m in results["methods"]] == ["pt", "bdpt", "mlt", "bdpt:strategy=0,2"]
    assert len(scene["runs"]) == 4 * 3
    for run in scene["runs"]:
        assert len(run["seeds"]) == 4 and run["stats"]["backend"].startswith("cpu")
        for name in ("relmse", "relmse_trimmed", "mape", "smape", "flip", "efficiency", "variance", "bias2",
                     "time_to_unit_variance"):
            assert {"mean", "ci_low", "ci_high"} <= set(run["metrics"][name]), name
        relmse = run["metrics"]["relmse"]
        assert 0 <= relmse["ci_low"] <= relmse["mean"] <= relmse["ci_high"]
    # Unbiased methods are not flagged; one strategy alone is, where 4 seeds see it through the noise.
    flagged = {(r["method"], r["budget"]) for r in scene["runs"] if r["bias_significant"]}
    assert not {m for m, _ in flagged} & {"pt", "bdpt"}
    assert {("bdpt:strategy=0,2", 8), ("bdpt:strategy=0,2", 0.02)} <= flagged
    assert scene["reference"]["relative_variance"] > 0 and scene["reference"]["method"] == "pt"
    assert [(s["s"], s["t"]) for s in scene["pyramid"]["strategies"]] == [(0, 2), (1, 1), (0, 3), (1, 2), (2, 1)]
    assert scene["slopes"]["spp"]["pt"]["slope"] < 0
    assert next(r for r in scene["runs"] if r["method"] == "mlt")["stats"]["figures"]["acceptance"] > 0
    assert results["flip"]["reason"] == "not computed (flip off)" and scene["runs"][0]["metrics"]["flip"]["mean"] is None
    # Each budget renders seeds of its own: no image contains another budget's samples.
    seeds = [tuple(r["seeds"]) for r in scene["runs"] if r["method"] == "pt"]
    assert len(set(seeds)) == 3 and len(set(sum(seeds, ()))) == 12
    check_float_images(out, results)

    # One file: every image is a data URI, nothing is fetched from beside it.
    page = Page()
    page.feed((out / "index.html").read_text())
    assert page.images >= 1 + 2 * 4 * 2 + 5 and all(s.startswith("data:image/png;base64,") for s in page.sources)
    text = (out / "index.html").read_text()
    assert "wavefront-compare cornell-box" in text and "Equal time" in text and "Equal samples" in text
    assert "<svg" in text and "SIMD efficiency" in text
    # The first screen is the result; the definitions come last, folded.
    assert text.index("<b>Result</b>") < text.index("<h2>") < text.index("<details><summary>How each number")

    # --report-only writes the same page again from the folder.
    (out / "index.html").unlink()
    assert compare.main(["--report-only", str(out)]) == 0
    assert (out / "index.html").read_text() == text

    # The rendered reference can be given back; its size then sets the images' size.
    again = tmp_path / "again"
    assert compare.main(["cornell-box", *TINY[:2], *TINY[4:], "--methods", "pt", "--seeds", "2", "--spp", "4",
                         "--reference", str(out / "cornell-box-reference.exr"), "--pyramid", "0",
                         "--out", str(again)]) == 0
    results = json.loads((again / "results.json").read_text())
    assert results["scenes"][0]["width"] == 24 and results["scenes"][0]["reference"]["relative_variance"] is None


def check_float_images(out, results):
    """Every float image of results.json is on disk, and the numbers recompute from the files."""
    index = results["images"]
    for scene in results["scenes"]:
        reference = np.asarray(wf.readImage(str(out / index[scene["reference_image"]]["file"])))
        seeds = [np.asarray(wf.readImage(str(out / index[i]["file"]))) for i in scene["reference_seed_images"]]
        if seeds:
            assert np.allclose(reference, np.mean(seeds, axis=0, dtype=np.float64), rtol=1e-6, atol=1e-7)
        for run in scene["runs"]:
            images = [np.asarray(wf.readImage(str(out / index[i]["file"]))) for i in run["seed_images"]]
            assert len(images) == len(run["seeds"]) and index[run["seed_images"][0]]["seed"] == run["seeds"][0]
            for name in ("relmse", "relmse_trimmed", "mape", "smape"):
                recomputed = [getattr(metrics, name)(image, reference, results["epsilon"]) for image in images]
                assert recomputed == pytest.approx(run["per_seed"][name], rel=1e-9), (run["method"], name)
            mean = np.asarray(wf.readImage(str(out / index[run["mean_image"]]["file"])))
            assert np.allclose(mean, np.mean(images, axis=0, dtype=np.float64), rtol=1e-6, atol=1e-7)
            split = metrics.seed_statistics(images, seeds or [reference], results["epsilon"])
            assert split["bias2"]["estimate"] == pytest.approx(run["metrics"]["bias2"]["estimate"], rel=1e-9)


def test_the_python_api_returns_numbers_and_images():
    lines = []
    c = wf.compare("cornell-spheres", methods=["bdpt:variant=naive"], seeds=3, spp=[4], res=(16, 12),
                   backend="cpu", stream_capacity=192, reference_method="bdpt", reference_spp=32, pyramid=0,
                   progress=lines.append)
    run = c.run("cornell-spheres", "bdpt:variant=naive", "spp", 4)
    assert run["metrics"]["relmse"]["mean"] > 0 and run["samples_per_pixel"]["mean"] == 4
    try:  # HDR-FLIP where flip-evaluator is installed (scripts/install-deps.sh --pypi), said unavailable elsewhere
        import flip_evaluator  # noqa: F401

        assert c.results["flip"]["available"] and 0 < run["metrics"]["flip"]["mean"] < 1
    except ImportError:
        assert "flip-evaluator" in c.results["flip"]["reason"] and run["metrics"]["flip"]["mean"] is None
    assert c.images[run["mean_image"]].shape == (12, 16, 3) and c.images[run["image"]].dtype == np.float32
    reference = c.images[c.scene("cornell-spheres")["reference_image"]]
    assert np.isfinite(reference).all() and reference.mean() > 0
    assert any("bdpt:variant=naive 4 spp seed 3" in line for line in lines)
    assert len(run["seed_images"]) == 3 and c.images[run["seed_images"][2]].shape == (12, 16, 3)
    # A run that was not made is named, with what there is (no bare StopIteration).
    with pytest.raises(wf.InputError, match="no equal samples run at 8 .*spp budgets: 4"):
        c.run("cornell-spheres", "bdpt:variant=naive", "spp", 8)
    with pytest.raises(wf.InputError, match="no method 'pt'"):
        c.run("cornell-spheres", "pt", "spp", 4)
    with pytest.raises(wf.InputError, match="no scene 'cornell-box'"):
        c.run("cornell-box", "pt", "spp", 4)


def render_seeds(tmp_path, folder, seeds, spp, integrator="pt"):
    """Renders of cornell-box at 24x24 for `seeds` into folder (EXR), as another renderer would leave them."""
    folder = tmp_path / folder
    folder.mkdir()
    scene = wf.Scene.fromNameOrPath("cornell-box")
    if scene.cameraIsDefault():
        scene.frameCamera((0.0, 1.0, 0.0))
    entries = []
    for seed in seeds:
        o = wf.RenderOptions()
        o.backend, o.width, o.height, o.streamCapacity = wf.Backend.Cpu, 24, 24, 576
        o.integrator, o.samplesPerPixel, o.seed = wf.parseIntegrator(integrator), spp, seed
        r = wf.Renderer(scene, o)
        r.render()
        stats = r.stats()
        wf.writeImage(str(folder / f"seed{seed}.exr"), r.image())
        entries.append({"scene": "cornell-box", "budget": f"spp:{spp}", "seed": seed, "file": f"seed{seed}.exr",
                        "seconds": max(stats["seconds"], 1e-6), "samples": spp})
    (folder / "index.json").write_text(json.dumps(entries))
    return folder


def test_an_external_method_enters_the_tables_and_the_figure(tmp_path):
    other = render_seeds(tmp_path, "other", range(101, 104), 4, "bdpt")  # another seed range
    reference = render_seeds(tmp_path, "reference", range(500, 503), 32)
    out = tmp_path / "report"
    references = ",".join(str(reference / f"seed{k}.exr") for k in range(500, 503))
    assert compare.main(["cornell-box", *TINY[:2], *TINY[4:], "--methods", f"pt,ext:other={other}", "--seeds", "3",
                         "--spp", "4", "--reference", references, "--pyramid", "0", "--flip", "off",
                         "--baseline", "pt", "--crop", "2,2,10,10", "--out", str(out)]) == 0
    results = json.loads((out / "results.json").read_text())
    scene = results["scenes"][0]
    assert [m["method"] for m in results["methods"]] == ["pt", "other"]
    run = next(r for r in scene["runs"] if r["method"] == "other")
    assert run["integrator"] == "external" and run["seeds"] == [101, 102, 103] and run["budget"] == 4
    assert run["samples_per_pixel"]["mean"] == 4 and run["baseline"]["relmse_ratio"]["ci_low"] > 0
    assert "other" in scene["slopes"]["spp"]
    # The reference's seeds measure its noise.
    assert scene["reference"]["seeds"] == 3 and scene["reference"]["relative_variance"] > 0
    check_float_images(out, results)
    # A bdpt render of ours and of the "other renderer" agree within noise: not flagged biased.
    assert not run["bias_significant"]
    text = (out / "index.html").read_text()
    assert "other" in text and "relMSE / pt" in text
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "matplotlib" in results["figure"]["reason"]
        return
    assert (out / "figure.pdf").read_bytes().startswith(b"%PDF") and "other" in (out / "figure.svg").read_text()


def wavefront_render():
    """The built wavefront-render: $WAVEFRONT_RENDER, else build/examples/wavefront-render of this tree."""
    exe = os.environ.get("WAVEFRONT_RENDER") or str(Path(__file__).resolve().parents[2] / "build" / "examples" /
                                                    "wavefront-render")
    return exe if Path(exe).is_file() else None


def test_wavefront_render_images_enter_beside_pt_bdpt_mlt(tmp_path):
    exe = wavefront_render()
    if exe is None:
        pytest.skip("no built wavefront-render (set WAVEFRONT_RENDER)")
    folder = tmp_path / "render"
    folder.mkdir()
    entries = []
    for seed in (201, 202, 203):  # a seed range of its own
        started = time.monotonic()
        subprocess.run([exe, "cornell-box", "--backend", "cpu", "--res", "24x24", "--spp", "4", "--seed", str(seed),
                        "--stream-capacity", "576", "-t", "1", "-o", str(folder / f"s{seed}.exr")],
                       check=True, capture_output=True)
        entries.append({"scene": "cornell-box", "budget": "spp:4", "seed": seed, "file": f"s{seed}.exr",
                        "seconds": time.monotonic() - started, "samples": 4})
    (folder / "index.json").write_text(json.dumps(entries))
    out = tmp_path / "report"
    assert compare.main(["cornell-box", *TINY, "--methods", f"pt,bdpt,mlt,ext:wavefront-render={folder}",
                         "--seeds", "3", "--spp", "4", "--reference-method", "pt", "--reference-spp", "64",
                         "--pyramid", "0", "--flip", "off", "--out", str(out)]) == 0
    results = json.loads((out / "results.json").read_text())
    assert [m["method"] for m in results["methods"]] == ["pt", "bdpt", "mlt", "wavefront-render"]
    runs = {r["method"]: r for r in results["scenes"][0]["runs"]}
    assert runs["wavefront-render"]["seeds"] == [201, 202, 203] and not runs["wavefront-render"]["bias_significant"]
    ratio = runs["wavefront-render"]["metrics"]["relmse"]["mean"] / runs["pt"]["metrics"]["relmse"]["mean"]
    assert 0.25 < ratio < 4  # the same path tracer, other seeds
    check_float_images(out, results)
    if results["figure"]["svg"]:
        assert "wavefront-render" in (out / "figure.svg").read_text()


def test_external_index_mistakes_are_one_line(tmp_path, capsys):
    folder = tmp_path / "ext"
    folder.mkdir()
    for entries, message in ((["x"], "needs scene, budget"),
                             ([{"scene": "cornell-box", "budget": "samples:4", "seed": 1, "file": "a.exr",
                                "seconds": 1}], "is not spp:N or time:SECONDS"),
                             ([{"scene": "cornell-box", "budget": "spp:4", "seed": 1, "file": "../a.exr",
                                "seconds": 1}], "is not inside"),
                             ([{"scene": "cornell-box", "budget": "spp:4", "seed": 1, "file": "a.exr",
                                "seconds": 1}], "a.exr")):
        (folder / "index.json").write_text(json.dumps(entries))
        code = compare.main(["cornell-box", *TINY, "--methods", f"pt,ext:o={folder}", "--spp", "1",
                             "--out", str(tmp_path / "out")])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "out").exists()


def test_report_only_embeds_only_its_own_pngs(tmp_path):
    out = tmp_path / "report"
    assert compare.main(["cornell-box", *TINY, "--methods", "pt", "--seeds", "1", "--spp", "1", "--pyramid", "0",
                         "--flip", "off", "--figure", "off", "--keep-images", "means", "--out", str(out)]) == 0
    results = json.loads((out / "results.json").read_text())
    assert results["scenes"][0]["runs"][0]["seed_images"] == [None]  # --keep-images means
    assert all(e["kind"] != "seed" for e in results["images"].values())
    secret = tmp_path / "secret.png"
    secret.write_bytes((out / "images" / "error-scale.png").read_bytes())
    (out / "images" / "fake.png").write_text("not a png")
    results["scenes"][0]["reference_image"] = "../../secret"
    results["scenes"][0]["runs"][0]["image"] = "fake"
    (out / "results.json").write_text(json.dumps(results))
    assert compare.main(["--report-only", str(out)]) == 0
    text = (out / "index.html").read_text()
    assert text.count("no image") >= 2
    (out / "results.json").write_text(json.dumps({"scenes": 3}))
    assert compare.main(["--report-only", str(out)]) == 2


def test_bias2_and_its_test_agree_on_synthetic_data():
    """One number, one weighting: a flag means an interval above 0; unbiased data is flagged at
    about the test's level, not more; bias^2 below 0 is shown clamped with a note."""
    rng = np.random.default_rng(11)
    y, x = np.mgrid[0:24, 0:24] / 24.0
    truth = (0.1 + 0.95 * (1 + np.sin(3 * x + 2 * y)))[..., None] * np.array([1.0, 0.8, 0.6])
    trials, alarms, clamped = 400, 0, 0
    for _ in range(trials):
        s = metrics.seed_statistics(synthetic_seeds(rng, truth, 4), [truth])
        b = s["bias2"]
        assert s["bias_t"] == pytest.approx(b["t"]) and b["mean"] == max(b["estimate"], 0.0) >= 0
        assert not s["bias_significant"] or b["ci_low"] > 0  # a flag is never beside an interval reaching 0
        alarms += s["bias_significant"]
        clamped += b["estimate"] < 0
        if b["estimate"] < 0:
            assert "below 0" in b["note"]
    assert alarms <= 0.02 * trials  # level 1 %
    assert clamped > 0.2 * trials  # an unbiased method's raw estimate is below 0 about half the time
    estimates, hits = [], 0
    for _ in range(40):
        s = metrics.seed_statistics(synthetic_seeds(rng, truth, 8, bias=0.1), [truth])
        assert not s["bias_significant"] or s["bias2"]["ci_low"] > 0
        hits += s["bias_significant"]
        estimates.append(s["bias2"]["estimate"])
    assert hits >= 0.8 * 40
    # Unbiased for bias^2 = 0.1^2 x (truth^2 / (R^2 + epsilon)) averaged: a little under 0.1^2.
    assert np.mean(estimates) == pytest.approx(0.1 ** 2, rel=0.15)
    s = metrics.seed_statistics(synthetic_seeds(rng, truth, 2), [truth])
    assert s["bias_significant"] is None and "need 3 seeds" in s["bias2"]["note"]


def test_efficiency_intervals_exist_and_slopes_have_errors():
    rng = np.random.default_rng(5)
    # relmse spread so wide that its interval reaches 0: efficiency's interval still exists, on the log scale.
    relmse_values = [0.01, 0.02, 0.2]
    assert metrics.summary(relmse_values)["ci_low"] == 0.0
    e = metrics.efficiency(relmse_values, [1.0, 1.0, 1.0])
    assert 0 < e["ci_low"] < e["mean"] < e["ci_high"] < math.inf
    # Independent budgets with relmse = 1 / spp and 20 % noise: slope -1 within its error, two points included.
    covered = 0
    for _ in range(200):
        x = [4, 16]
        fit = metrics.fit_slope(x, [list((1 / v) * (1 + 0.2 * rng.standard_normal(6))) for v in x])
        assert fit["stderr"] is not None and fit["weighted"]
        covered += abs(fit["slope"] + 1) <= 2.0 * fit["stderr"]
    assert covered >= 0.85 * 200
    fit = metrics.fit_slope([1, 2], [[0.5], [0.25]])
    assert fit["stderr"] is None and "no error" in fit["note"]
    ratio = metrics.ratio(metrics.mean_parts([1.0, 1.1, 0.9]), metrics.mean_parts([2.0, 2.2, 1.8]))
    assert ratio["mean"] == pytest.approx(0.5) and ratio["ci_low"] < 0.5 < ratio["ci_high"]


def write_pfm(path, image):
    a = np.asarray(image, dtype="<f4")
    with open(path, "wb") as f:
        f.write(f"PF\n{a.shape[1]} {a.shape[0]}\n-1.0\n".encode())
        f.write(a[::-1].tobytes())


@pytest.mark.parametrize("arguments, message", [
    (["--methods", "pt,foo"], "no integrator 'foo'"),
    (["--methods", "mlt:bogus=1"], "mlt has no option 'bogus'"),
    (["--methods", "mlt:large-step=2"], "large-step probability"),
    (["--methods", "pt:variant=fast"], "pt:variant=fast"),
    (["--times", "0,1"], "above 0"),
    (["--times", "-1"], "above 0"),
    (["--spp", "0"], "above 0"),
    (["--seeds", "0"], "seeds must be at least 1"),
    (["--reference-seeds", "0"], "at least 1"),
    (["--crop", "20,20,28,28"], "outside"),
    (["--crop", "8,8,4,4"], "x1 > x0"),
    (["--seed", "-1"], "must lie in 0.."),
    (["--exposure", "nan"], "--exposure nan"),
    (["--baseline", "pt:variant=naive"], "is not one of the methods"),
    (["--methods", "pt,ext:pt=."], "is an integrator's name"),
    (["--methods", "ext:other"], "is not ext:NAME=DIR"),
    (["--reference", "small.pfm,nan.pfm"], "is 8x8"),
    (["--res", "24by16"], "WIDTHxHEIGHT"),
    (["--sky", "cloudy"], "not uniform, gradient or rtiow"),
    (["--camera", "0,0,0,0,0,0,0,1,0,40"], "same point"),
    (["--reference", "small.pfm"], "is 8x8, not 24x24"),
    (["--reference", "nan.pfm"], "non-finite"),
    (["--reference", "black.pfm"], "black"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch, arguments, message):
    monkeypatch.chdir(tmp_path)
    write_pfm("small.pfm", np.ones((8, 8, 3)))
    nan = np.ones((24, 24, 3))
    nan[3, 4, 1] = np.nan
    write_pfm("nan.pfm", nan)
    write_pfm("black.pfm", np.zeros((24, 24, 3)))
    code = compare.main(["cornell-box", *TINY, "--spp", "1", "--out", str(tmp_path / "out"), *arguments])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "out").exists()  # refused before anything was rendered or written


def test_out_as_a_file_is_one_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    assert compare.main(["cornell-box", *TINY, "--spp", "1", "--out", str(tmp_path / "file")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a file" in err


def test_an_unknown_scene_is_one_line_and_exit_2(tmp_path, capsys):
    assert compare.main(["no-such-scene", *TINY, "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_pip_installs_the_console_script():
    script = Path(sys.executable).parent / "wavefront-compare"
    if not script.exists():
        pytest.skip(f"no {script}: wavefront is not installed in this interpreter's environment")
    result = subprocess.run([str(script), "--help"], capture_output=True, text=True, check=True)
    for flag in ("--methods", "--seeds", "--times", "--spp", "--reference", "--reference-method", "--reference-seconds",
                 "--crop", "--sky", "--envmap", "--camera", "--res", "--backend", "--out", "--report-only"):
        assert flag in result.stdout, flag
