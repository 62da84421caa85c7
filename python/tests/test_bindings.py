"""The Python bindings: scenes, options, rendering, images as NumPy arrays, stats, progress, errors.
Tiny images on the CPU backend, so the whole file runs in a few seconds."""
import threading
import time

import numpy as np
import pytest

import wavefront as wf


def options(width=16, height=12, spp=2, integrator=wf.IntegratorType.PathTracer):
    o = wf.RenderOptions()
    o.backend = wf.Backend.Cpu
    o.width, o.height, o.samplesPerPixel = width, height, spp
    o.integrator = integrator
    return o


def test_options_mirror_the_cpp_defaults():
    o = wf.RenderOptions()
    assert (o.width, o.height, o.samplesPerPixel) == (512, 512, 16)
    assert o.integrator == wf.IntegratorType.PathTracer
    assert o.pt.variant == wf.PtVariant.SptR
    assert o.backend == wf.Backend.Auto
    assert o.bdpt.connectThreshold is None and o.progress is None
    assert o.bdpt.connectThresholdOrDefault() == pytest.approx(0.6)
    assert o.mlt.connectThresholdOrDefault() == pytest.approx(1.0)
    o.bdpt.connectThreshold = 0.5
    assert o.bdpt.connectThreshold == pytest.approx(0.5)
    assert wf.parseIntegrator("bdpt") == wf.IntegratorType.Bdpt and wf.toString(wf.IntegratorType.Mlt) == "mlt"


def test_integrator_options_come_from_the_registry():
    names = [i.name for i in wf.integrators()]
    assert names[:3] == ["pt", "bdpt", "mlt"]
    # The IntegratorType enum is made from the registry: one value per row, in its order.
    assert list(wf.IntegratorType.__members__) == [i.typeName for i in wf.integrators()]
    assert [wf.IntegratorType.__members__[i.typeName] for i in wf.integrators()] == [i.type for i in wf.integrators()]
    assert wf.IntegratorType.PathTracer == wf.parseIntegrator("pt")
    mlt = next(i for i in wf.integrators() if i.name == "mlt")
    large = next(o for o in mlt.options if o.name == "large-step")
    assert large.flag == "--large-step" and float(large.defaultValue) == pytest.approx(0.3)
    o = options(integrator=wf.IntegratorType.Mlt)
    o.setIntegratorOption("large-step", "0.5")
    assert o.mlt.largeStepProbability == pytest.approx(0.5) and o.integratorOption("large-step") == "0.5"
    # The target function: relative importance unless set.
    assert o.mlt.relativeImportance and o.integratorOption("importance") == "relative"
    o.setIntegratorOption("importance", "luminance")
    assert not o.mlt.relativeImportance
    # The small step's largest offset: 1/128 unless set.
    assert o.mlt.smallStep == pytest.approx(1.0 / 128.0)
    o.setIntegratorOption("small-step", "0.015625")
    assert o.mlt.smallStep == pytest.approx(1.0 / 64.0) and o.integratorOption("small-step") == "0.015625"
    with pytest.raises(ValueError, match="not of integrator mlt"):
        o.setIntegratorOption("variant", "megakernel")
    # An option of another integrator is refused, not ignored.
    p = options()
    p.mlt.largeStepProbability = 0.5
    with pytest.raises(ValueError, match="does not apply to integrator pt"):
        wf.Renderer(wf.Scene.builtin("cornell-box"), p)
    # MMLT: MLT's options in a block of its own; a chain integrator, like MLT.
    mmlt = next(i for i in wf.integrators() if i.name == "mmlt")
    assert [o.name for o in mmlt.options] == [o.name for o in mlt.options]
    assert not mmlt.rendersSampleRanges and not mlt.rendersSampleRanges
    q = options(integrator=wf.IntegratorType.Mmlt)
    q.setIntegratorOption("chains", "64")
    assert q.mmlt.chains == 64 and q.mlt.chains == 0
    # MMLT's own defaults: a small step of 1/16 (MltOptions.multiplexed()).
    assert q.mmlt.smallStep == pytest.approx(1.0 / 16.0) and wf.MltOptions.multiplexed().smallStep == pytest.approx(1.0 / 16.0)
    # VCM, BPM, PPM: one option table, a block each; sample ranges like BDPT.
    vcm = next(i for i in wf.integrators() if i.name == "vcm")
    assert [o.name for o in vcm.options] == ["radius", "alpha", "light-paths", "variant"] and vcm.rendersSampleRanges
    v = options(integrator=wf.IntegratorType.Bpm)
    v.setIntegratorOption("radius", "0.5")
    assert v.bpm.radius == pytest.approx(0.5) and v.vcm.radius == pytest.approx(0.25)
    assert v.bpm.variant == wf.BdptVariant.Streaming
    v.setIntegratorOption("variant", "naive")
    assert v.bpm.variant == wf.BdptVariant.Naive and v.vcm.variant == wf.BdptVariant.Streaming
    v.ppm.alpha = 0.5
    with pytest.raises(ValueError, match="does not apply to integrator bpm"):
        wf.Renderer(wf.Scene.builtin("cornell-box"), v)


@pytest.mark.parametrize("integrator", [wf.IntegratorType.PathTracer, wf.IntegratorType.Bdpt, wf.IntegratorType.Mlt,
                                        wf.IntegratorType.Mmlt, wf.IntegratorType.Vcm, wf.IntegratorType.Bpm,
                                        wf.IntegratorType.Ppm])
def test_render_gives_a_numpy_image_film_and_stats(integrator):
    r = wf.Renderer(wf.Scene.builtin("cornell-box"), options(integrator=integrator))
    r.render()
    image = np.asarray(r.image())
    assert image.shape == (12, 16, 3) and image.dtype == np.float32
    assert np.isfinite(image).all() and image.min() >= 0 and image.mean() > 0
    film = r.film()
    assert film.sum.shape == (12, 16, 3) and film.sum.dtype == np.float64
    assert film.samples.shape == (12, 16) and film.samples.dtype == np.uint32
    np.testing.assert_allclose(np.asarray(film.resolve()), image)
    stats = r.stats()
    assert stats["backend"].startswith("cpu") and stats["samples"] == 16 * 12 * 2 and not stats["cancelled"]
    assert stats["peakMemoryBytes"] >= stats["memoryBytes"] > 0
    assert stats["kernels"] and {"label", "milliseconds", "launches", "simdOccupancy", "simdEfficiency"} <= set(
        stats["kernels"][0])
    assert r.backend() == wf.Backend.Cpu and r.options().width == 16


def test_render_is_repeatable_and_render_more_adds_samples():
    r = wf.Renderer(wf.Scene.builtin("cornell-box"), options())
    r.render()
    first = np.asarray(r.image()).copy()
    r.render()
    np.testing.assert_array_equal(np.asarray(r.image()), first)
    r.renderMore(3)
    assert (r.film().samples == 5).all() and r.stats()["samples"] == 16 * 12 * 5
    with pytest.raises(ValueError):
        r.renderMore(0)


def test_several_devices_render_the_image_of_one():
    # The CPU backend reads a device list as workers: the same samples, split between them.
    one = wf.Renderer(wf.Scene.builtin("cornell-box"), options(spp=4))
    one.render()
    o = options(spp=4)
    o.devices = [0, 1]
    assert o.devices == [0, 1]
    two = wf.Renderer(wf.Scene.builtin("cornell-box"), o)
    two.render()
    np.testing.assert_allclose(np.asarray(two.image()), np.asarray(one.image()), rtol=1e-5, atol=1e-7)
    devices = two.stats()["devices"]
    assert len(devices) == 2 and sum(d["samples"] for d in devices) == 16 * 12 * 4


def test_progress_callback_reports_and_cancels():
    calls = []
    o = options()
    o.progress = lambda done, total, seconds: calls.append((done, total, seconds))
    r = wf.Renderer(wf.Scene.builtin("cornell-box"), o)
    r.render()
    assert calls and calls[-1][0] == calls[-1][1] == 16 * 12 * 2 and not r.stats()["cancelled"]
    o.progress = lambda done, total, seconds: False
    r = wf.Renderer(wf.Scene.builtin("cornell-box"), o)
    r.render()
    assert r.stats()["cancelled"]


def test_an_exception_in_the_progress_callback_cancels_and_propagates():
    def fail(done, total, seconds):
        raise KeyError("from the callback")

    o = options()
    o.progress = fail
    r = wf.Renderer(wf.Scene.builtin("cornell-box"), o)
    with pytest.raises(KeyError, match="from the callback"):
        r.render()
    assert r.stats()["cancelled"]
    with pytest.raises(ValueError):
        o.progress = 3  # not callable


def test_render_releases_the_gil_so_another_thread_can_cancel():
    started = threading.Event()
    o = options(64, 48)
    o.timeLimitSeconds = 20.0
    o.progress = lambda done, total, seconds: started.set()
    r = wf.Renderer(wf.Scene.builtin("cornell-box"), o)
    t0 = time.monotonic()
    worker = threading.Thread(target=r.render)
    worker.start()
    assert started.wait(10.0)
    with pytest.raises(RuntimeError, match="rendering on another thread"):
        r.image()  # this thread runs while the render holds no GIL
    r.cancel()
    worker.join(20.0)
    assert not worker.is_alive() and time.monotonic() - t0 < 10.0
    assert r.stats()["cancelled"]


def test_errors_are_python_exceptions_with_one_line_messages():
    with pytest.raises(wf.InputError) as e:
        wf.Scene.builtin("no-such-scene")
    assert isinstance(e.value, ValueError) and isinstance(e.value, wf.Error) and "\n" not in str(e.value)
    with pytest.raises(ValueError, match="resolution|width|height"):
        wf.Renderer(wf.Scene.builtin("cornell-box"), options(width=0))
    with pytest.raises(ValueError):
        wf.Scene.loadFile("/nonexistent/model.obj")
    assert issubclass(wf.Error, RuntimeError) and issubclass(wf.CudaError, wf.Error)


def test_a_scene_built_from_numpy_arrays_renders():
    scene = wf.Scene()
    white = scene.addMaterial(wf.Material.lambertian((0.8, 0.8, 0.8)))
    light = scene.addMaterial(wf.Material.lambertian((0, 0, 0), emission=np.array([5.0, 5.0, 5.0])))
    floor = wf.TriangleMesh()
    floor.positions = np.array([[-2, 0, -2], [2, 0, -2], [2, 0, 2], [-2, 0, 2]], dtype=np.float64)
    floor.indices = [[0, 2, 1], [0, 3, 2]]
    floor.material = white
    scene.addMesh(floor)
    scene.addSphere(wf.Sphere((0, 2, 0), 0.5, light))
    camera = wf.Camera()
    camera.position, camera.target = (0, 1, 4), (0, 0.5, 0)
    scene.setCamera(camera)
    assert scene.primitiveCount() == 3 and scene.positions().shape == (4, 3)
    np.testing.assert_array_equal(floor.indices, [[0, 2, 1], [0, 3, 2]])
    r = wf.Renderer(scene, options())
    r.render()
    assert np.asarray(r.image()).mean() > 0
    bad = wf.TriangleMesh()
    bad.positions = floor.positions
    with pytest.raises(ValueError):
        bad.indices = [0, 1, -2]
    bad.indices = [0, 1, 7]
    with pytest.raises(ValueError):
        scene.addMesh(bad)
    with pytest.raises(ValueError):
        floor.positions = np.zeros((4, 2))


def test_a_scene_lit_by_delta_lights_alone_renders_in_every_integrator():
    scene = wf.Scene()
    floor = wf.TriangleMesh()
    floor.positions = np.array([[-2, 0, -2], [2, 0, -2], [2, 0, 2], [-2, 0, 2]], dtype=np.float64)
    floor.indices = [[0, 2, 1], [0, 3, 2]]
    floor.material = scene.addMaterial(wf.Material.lambertian((0.8, 0.8, 0.8)))
    scene.addMesh(floor)
    scene.addLight(wf.Light.point((0, 1, 0), (2, 2, 2)))
    scene.addLight(wf.Light.spot((1, 2, 0), (0, -1, 0), (4, 4, 4), 10, 30))
    scene.addLight(wf.Light.directional((0, -1, -1), (0.5, 0.5, 0.5)))
    assert [l.type for l in scene.lights()] == [wf.LightType.Point, wf.LightType.Spot, wf.LightType.Directional]
    camera = wf.Camera()
    camera.position, camera.target = (0, 1, 4), (0, 0, 0)
    scene.setCamera(camera)
    for integrator in (wf.IntegratorType.PathTracer, wf.IntegratorType.Bdpt, wf.IntegratorType.Mlt,
                       wf.IntegratorType.Mmlt, wf.IntegratorType.Vcm, wf.IntegratorType.Bpm):
        r = wf.Renderer(scene, options(integrator=integrator))
        r.render()
        assert np.asarray(r.image()).mean() > 0
    with pytest.raises(ValueError, match="inner"):
        scene.addLight(wf.Light.spot((0, 1, 0), (0, -1, 0), (1, 1, 1), 40, 20))


def test_images_round_trip_through_exr(tmp_path):
    pixels = np.random.default_rng(1).random((5, 7, 3), dtype=np.float32)
    path = str(tmp_path / "image.exr")
    wf.writeImage(path, pixels)  # a (height, width, 3) array converts to an Image
    back = np.asarray(wf.readImage(path))
    np.testing.assert_array_equal(back, pixels)
    image = wf.Image(pixels)
    assert (image.width, image.height) == (7, 5)
    with pytest.raises(ValueError):
        wf.Image(np.zeros((4, 4)))
    with pytest.raises(ValueError):
        wf.writeImage(str(tmp_path / "image.unknown"), image)


def test_device_image_without_a_copy_and_the_cuda_stream_option():
    r = wf.Renderer(wf.Scene.builtin("cornell-box"), options(integrator=wf.IntegratorType.Mlt))
    r.render()
    d = r.deviceImage()
    assert (d.width, d.height) == (16, 12) and not d.onDevice and d.pointer != 0
    # On the CPU backend the image is host memory: no CUDA interface, a copy gives the image.
    with pytest.raises(AttributeError):
        d.__cuda_array_interface__
    np.testing.assert_array_equal(np.asarray(d.copyToHost()), np.asarray(r.image()))
    o = options()
    assert o.cudaStream == 0
    o.cudaStream = 12345  # refused on the CPU before it is used
    with pytest.raises(ValueError, match="CUDA backend"):
        wf.Renderer(wf.Scene.builtin("cornell-box"), o)
    o.cudaStream = None
    assert o.cudaStream == 0


def test_value_classes_are_pythonic():
    import copy

    o = wf.RenderOptions(width=64, height=32, integrator="bdpt", backend="cpu")
    assert (o.width, o.height, o.integrator, o.backend) == (64, 32, wf.IntegratorType.Bdpt, wf.Backend.Cpu)
    o.integrator = "mlt"
    o.pt.variant = "megakernel"
    o.lightSampler = wf.LightSampler.BinarySearch  # the enum itself still works
    assert o.integrator == wf.IntegratorType.Mlt and o.pt.variant == wf.PtVariant.Megakernel
    with pytest.raises(wf.InputError, match="'foo' is not one of .*bdpt"):
        o.integrator = "foo"
    with pytest.raises(TypeError, match="no settable field 'bogus'"):
        wf.RenderOptions(bogus=1)
    assert "width=64" in repr(o) and "integrator=Mlt" in repr(o) and repr(wf.Camera()).startswith("Camera(")
    assert wf.Material(type="dielectric", ior=1.5).type == wf.MaterialType.Dielectric
    o.progress = lambda done, total, seconds: None
    for c in (copy.copy(o), copy.deepcopy(o)):
        assert c.width == 64 and c.integrator == wf.IntegratorType.Mlt and c.progress is o.progress
        c.width = 8
        assert o.width == 64
    assert copy.copy(wf.Camera(verticalFovDegrees=30.0)).verticalFovDegrees == 30.0
    assert "RenderOptions" in wf.RenderOptions.__doc__ and wf.Renderer.__doc__ and wf.Image.__doc__


def test_image_is_an_array_and_float_indices_are_refused():
    scene = wf.Scene.fromNameOrPath("cornell-box")
    scene.frameCamera((0.0, 1.0, 0.0))
    r = wf.Renderer(scene, wf.RenderOptions(width=8, height=6, samplesPerPixel=2, backend="cpu"))
    r.render()
    image = r.image()
    assert image.shape == (6, 8, 3) and image.dtype == np.float32 and image.ndim == 3 and len(image) == 6
    assert image[2, 3].shape == (3,) and np.mean(image) > 0 and np.array_equal(np.asarray(image), image[...])
    assert np.array(image, dtype=np.float64).dtype == np.float64
    mesh = wf.TriangleMesh()
    with pytest.raises(wf.InputError, match="indices must be integers, not float64"):
        mesh.indices = np.array([[0, 1, 2.7]])
    mesh.indices = np.array([[0, 1, 2]], dtype=np.int32)
    assert mesh.indices.tolist() == [[0, 1, 2]]


def test_render_from_its_own_progress_callback_says_so():
    scene = wf.Scene.fromNameOrPath("cornell-box")
    scene.frameCamera((0.0, 1.0, 0.0))
    renderer = None

    def progress(done, total, seconds):
        renderer.render()

    renderer = wf.Renderer(scene, wf.RenderOptions(width=8, height=6, samplesPerPixel=2, backend="cpu",
                                                    progress=progress))
    with pytest.raises(wf.Error, match="own progress callback"):
        renderer.render()
