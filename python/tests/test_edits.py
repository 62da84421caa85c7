"""Edits of a Renderer's scene and AOVs from Python (issue 38): an edit gives the image of a fresh
Renderer on the edited scene, reports its cost, and bad edits raise without changing anything; a
loaded scene's materials can be edited."""
import numpy as np
import pytest

import wavefront as wf


def options(aovs=False):
    o = wf.RenderOptions()
    o.backend = wf.Backend.Cpu
    o.width, o.height, o.samplesPerPixel = 16, 12, 2
    o.cpuThreads = 2
    o.aovs = aovs
    return o


def close(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return np.max(np.abs(a - b)) <= 1e-4 * max(np.mean(b), 1e-6)


def test_edits_match_a_fresh_renderer():
    scene = wf.Scene.builtin("cornell-spheres")
    r = wf.Renderer(scene, options())
    r.render()
    before = np.asarray(r.image()).copy()
    cam = r.scene().camera()
    cam.position = (cam.position[0] + 0.1, cam.position[1], cam.position[2])
    st = r.setCamera(cam)
    assert st["what"] == "camera" and st["bytesUploaded"] == 0 and st["bvh"] == "none"
    m = r.scene().materials()[0]
    m.diffuse = (0.2, 0.7, 0.3)
    st = r.setMaterial(0, m)
    assert st["bytesUploaded"] > 0 and st["filmReset"]
    mesh = r.scene().meshes()[0]
    first, count = mesh["firstVertex"], mesh["vertexCount"]
    moved = r.scene().positions()[first:first + count] * 1.02
    st = r.setMeshPositions(0, moved, bvh=wf.BvhUpdate.Refit)
    assert st["bvh"] == "refit"
    r.render()
    assert [e["what"] for e in r.stats()["edits"]] == ["camera", "material 0", "mesh 0"]
    fresh = wf.Renderer(r.scene(), options())
    fresh.render()
    assert close(r.image(), fresh.image())
    assert not close(r.image(), before)


def test_bad_edits_raise_and_change_nothing():
    r = wf.Renderer(wf.Scene.builtin("cornell-spheres"), options())
    with pytest.raises(wf.InputError, match="out of range"):
        r.setMaterial(99, wf.Material.lambertian((0.5, 0.5, 0.5)))
    with pytest.raises(wf.InputError, match="keeps the topology"):
        r.setMeshPositions(0, np.zeros((3, 3), np.float32))
    with pytest.raises(wf.InputError):
        r.setMeshPositions(0, np.full((r.scene().meshes()[0]["vertexCount"], 3), np.nan, np.float32))
    # Positions on the device take a CUDA array; a host array, or a CPU renderer, is refused.
    with pytest.raises(wf.InputError, match="CUDA array"):
        r.setMeshPositionsOnDevice(0, np.zeros((r.scene().meshes()[0]["vertexCount"], 3), np.float32))

    class FakeCudaArray:  # a CUDA array's interface, pointing nowhere: refused before it is read
        def __init__(self, rows, typestr="<f4"):
            self.__cuda_array_interface__ = {"shape": (rows, 3), "typestr": typestr, "data": (0, True),
                                             "strides": None, "version": 3}

    rows = r.scene().meshes()[0]["vertexCount"]
    with pytest.raises(wf.InputError, match="float32"):
        r.setMeshPositionsOnDevice(0, FakeCudaArray(rows, "<f8"))
    if r.backend() == wf.Backend.Cpu:
        with pytest.raises(wf.InputError, match="needs the CUDA backend"):
            r.setMeshPositionsOnDevice(0, FakeCudaArray(rows))
    # An edit from the progress callback, during the render: wavefront.Error, the render goes on.
    errors = []
    cam = r.scene().camera()

    def progress(done, total, seconds):
        try:
            busy.setCamera(cam)
        except wf.Error as e:
            errors.append(str(e))

    o = options()
    o.progress = progress
    busy = wf.Renderer(wf.Scene.builtin("cornell-spheres"), o)
    busy.render()
    assert errors and "already rendering" in errors[0]
    assert busy.stats()["samples"] == 16 * 12 * 2


def test_a_loaded_scenes_materials_can_be_edited():
    scene = wf.Scene.builtin("cornell-box")
    m = scene.materials()[0]
    m.diffuse = (0.1, 0.2, 0.3)
    scene.setMaterial(0, m)
    assert scene.materials()[0].diffuse == pytest.approx((0.1, 0.2, 0.3))


def test_aovs_and_their_exr_layers(tmp_path):
    r = wf.Renderer(wf.Scene.builtin("cornell-spheres"), options(aovs=True))
    r.render()
    a = r.aovs()
    albedo = np.asarray(a.albedo)
    assert albedo.shape == (12, 16, 3) and albedo.min() >= 0.0 and albedo.max() <= 1.0
    assert np.asarray(a.depth).max() > 0.0 and np.asarray(a.variance).max() > 0.0
    path = str(tmp_path / "layers.exr")
    wf.writeImageWithAovs(path, r.image(), a)
    assert np.array_equal(np.asarray(wf.readImageLayer(path, "albedo")), albedo)


def _cudart():
    """The CUDA runtime through ctypes (no CuPy needed), or None."""
    import ctypes
    import ctypes.util
    for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12", ctypes.util.find_library("cudart")):
        if name:
            try:
                return ctypes.CDLL(name)
            except OSError:
                pass
    return None


@pytest.mark.skipif(wf.cudaDeviceCount() == 0 or _cudart() is None, reason="needs a CUDA device and libcudart")
def test_positions_from_a_cuda_array_match_host_positions():
    import ctypes
    cudart = _cudart()
    scene = wf.Scene.builtin("cornell-spheres")
    o = options()
    o.backend, o.cpuThreads = wf.Backend.Cuda, 0
    via_host, via_device = wf.Renderer(scene, o), wf.Renderer(scene, o)
    mesh = via_host.scene().meshes()[0]
    first, count = mesh["firstVertex"], mesh["vertexCount"]
    moved = np.ascontiguousarray(via_host.scene().positions()[first:first + count] * 1.02, dtype=np.float32)
    pointer = ctypes.c_void_p()
    assert cudart.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(moved.nbytes)) == 0
    try:
        assert cudart.cudaMemcpy(pointer, moved.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(moved.nbytes), 1) == 0

        class CudaArray:  # what CuPy, Numba and PyTorch arrays offer
            __cuda_array_interface__ = {"shape": (count, 3), "typestr": "<f4", "data": (pointer.value, False),
                                        "strides": None, "version": 3}

        a = via_host.setMeshPositions(0, moved, bvh=wf.BvhUpdate.Refit)
        b = via_device.setMeshPositionsOnDevice(0, CudaArray(), bvh=wf.BvhUpdate.Refit)
        assert b["bytesUploaded"] == 0 and b["bvh"] == a["bvh"] == "refit"
        via_host.render()
        via_device.render()
        assert close(via_device.image(), via_host.image())
        assert np.array_equal(via_device.scene().positions(), via_host.scene().positions())
    finally:
        cudart.cudaFree(pointer)
