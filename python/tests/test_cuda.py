"""The CUDA backend through Python: skipped without a CUDA build or a device (CI has neither; the
GPU machine runs it, scripts/gpu-check.sh). The image comes back as a NumPy array, the CUDA and
CPU renders agree, the GIL is released while the GPU works, and the report runs on the GPU."""
import json
import threading

import numpy as np
import pytest

import wavefront as wf
from wavefront import compare

pytestmark = pytest.mark.skipif(not wf.HAS_CUDA or wf.cudaDeviceCount() == 0, reason="no CUDA build or no CUDA device")


def options(backend, integrator, size=64, spp=64, seed=0):
    o = wf.RenderOptions()
    o.backend = backend
    o.integrator = integrator
    o.width = o.height = size
    o.samplesPerPixel = spp
    o.seed = seed
    return o


@pytest.mark.parametrize("integrator", [wf.IntegratorType.PathTracer, wf.IntegratorType.Bdpt, wf.IntegratorType.Mlt])
def test_cuda_renders_what_the_cpu_renders(integrator):
    scene = wf.Scene.builtin("cornell-box")
    gpu = wf.Renderer(scene, options(wf.Backend.Cuda, integrator))
    gpu.render()
    assert gpu.stats()["backend"].startswith("cuda")
    assert gpu.stats()["memoryBytes"] > 0
    a = np.asarray(gpu.image())
    assert a.shape == (64, 64, 3) and a.dtype == np.float32 and np.isfinite(a).all()
    cpu = wf.Renderer(scene, options(wf.Backend.Cpu, integrator, seed=1))
    cpu.render()
    b = np.asarray(cpu.image())
    # Image means of 262,144 samples each: a few tenths of a percent of noise apart.
    assert a.mean() == pytest.approx(b.mean(), rel=0.03)


def test_the_gil_is_free_while_the_gpu_renders():
    r = wf.Renderer(wf.Scene.builtin("cornell-box"), options(wf.Backend.Cuda, wf.IntegratorType.Bdpt, 256, 256))
    ticks = 0
    worker = threading.Thread(target=r.render)
    worker.start()
    while worker.is_alive():
        ticks += 1
    worker.join()
    assert ticks > 1000 and r.stats()["samples"] == 256 * 256 * 256


def test_a_report_on_the_gpu(tmp_path):
    out = tmp_path / "report"
    assert compare.main(["cornell-box", "--backend", "cuda", "--res", "64x64", "--seeds", "3", "--times", "0.05,0.1",
                         "--spp", "16", "--reference-seconds", "1", "--flip", "off", "--out", str(out)]) == 0
    assert (out / "index.html").is_file() and "cuda (" in (out / "index.html").read_text()
    results = json.loads((out / "results.json").read_text())
    runs = results["scenes"][0]["runs"]
    assert results["device"].startswith("cuda") and len(runs) == 3 * 3
    assert all(r["metrics"]["relmse"]["mean"] > 0 and r["stats"]["memoryBytes"] > 0 for r in runs)
