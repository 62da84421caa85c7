"""Participating media from Python: a homogeneous medium in an interface box renders alike in PT and
BDPT, a grid medium's density round-trips through NumPy, and bad media raise one line. Tiny images
on the CPU backend: seconds."""
import copy

import numpy as np
import pytest

import wavefront as wf


def options(integrator, seed=0, spp=8):
    return wf.RenderOptions(backend="cpu", width=16, height=12, samplesPerPixel=spp, integrator=integrator, seed=seed)


def box(lo, hi, material, inside=wf.kVacuum, outside=wf.kVacuum):
    """A closed box, its triangles facing out (the outside is the geometric normal's side)."""
    lo, hi = np.asarray(lo, dtype=np.float32), np.asarray(hi, dtype=np.float32)
    ends = (lo, hi)
    corners = np.array([[ends[x][0], ends[y][1], ends[z][2]] for z in (0, 1) for y in (0, 1) for x in (0, 1)])
    quads = [(0, 1, 3, 2), (4, 5, 7, 6), (0, 1, 5, 4), (2, 3, 7, 6), (0, 2, 6, 4), (1, 3, 7, 5)]
    triangles = []
    for a, b, c, d in quads:
        for t in ((a, b, c), (a, c, d)):
            p = corners[list(t)]
            if np.dot(np.cross(p[1] - p[0], p[2] - p[0]), p.mean(axis=0) - (lo + hi) / 2) < 0:
                t = (t[0], t[2], t[1])
            triangles.append(t)
    mesh = wf.TriangleMesh(material=material, mediumInside=inside, mediumOutside=outside)
    mesh.positions = corners.astype(np.float32)
    mesh.indices = triangles
    return mesh


def fog_scene(with_medium=True):
    """A floor, an emissive ball above it and a box of fog between them, seen from outside."""
    scene = wf.Scene()
    white = scene.addMaterial(wf.Material.lambertian((0.8, 0.8, 0.8)))
    floor = wf.TriangleMesh(material=white)
    floor.positions = np.array([[-2, 0, -2], [2, 0, -2], [2, 0, 2], [-2, 0, 2]], dtype=np.float32)
    floor.indices = [[0, 2, 1], [0, 3, 2]]
    scene.addMesh(floor)
    light = scene.addMaterial(wf.Material.lambertian((0, 0, 0), emission=(20, 20, 20)))
    scene.addSphere(wf.Sphere((0, 2.5, 0), 0.3, light))
    interface = scene.addMaterial(wf.Material.interface())
    fog = scene.addMedium(wf.Medium.homogeneous((0.5, 0.5, 0.5), (2.0, 2.0, 2.0), g=0.3)) if with_medium else wf.kVacuum
    scene.addMesh(box((-0.6, 0.2, -0.6), (0.6, 1.4, 0.6), interface, inside=fog))
    scene.setCamera(wf.Camera(position=(0, 1.2, 4), target=(0, 0.6, 0)))
    return scene


def mean_over_seeds(scene, integrator, seeds=(1, 2, 3)):
    means = []
    for seed in seeds:
        r = wf.Renderer(scene, options(integrator, seed, spp=32))
        r.render()
        image = np.asarray(r.image())
        assert np.isfinite(image).all() and image.min() >= 0 and image.mean() > 0
        means.append(image.mean())
    return float(np.mean(means))


def test_a_homogeneous_medium_in_an_interface_box_renders_alike_in_pt_and_bdpt():
    scene = fog_scene()
    assert scene.hasMedia() and len(scene.media()) == 1 and scene.media()[0].type == wf.MediumType.Homogeneous
    assert scene.media()[0].sigmaT() == pytest.approx((2.5, 2.5, 2.5))
    assert scene.meshes()[1]["mediumInside"] == 0 and scene.meshes()[1]["mediumOutside"] == wf.kVacuum
    pt = mean_over_seeds(scene, wf.IntegratorType.PathTracer)
    bdpt = mean_over_seeds(scene, wf.IntegratorType.Bdpt)
    assert abs(pt - bdpt) < 0.15 * max(pt, bdpt), (pt, bdpt)
    # The fog is seen: where the box stands against the black sky it scatters light; the same box
    # holding vacuum shows the sky.
    above_horizon = []
    for with_medium in (True, False):
        r = wf.Renderer(fog_scene(with_medium), options(wf.IntegratorType.PathTracer, seed=1))
        r.render()
        above_horizon.append(np.asarray(r.image())[2:5, 6:10].mean())
    assert above_horizon[0] > 0.05 and above_horizon[1] == 0, above_horizon


def test_a_grid_medium_round_trips_through_numpy():
    density = np.random.default_rng(7).random((4, 3, 2), dtype=np.float32)  # (nz, ny, nx): x fastest
    m = wf.Medium.grid((0.1, 0.1, 0.1), (1, 2, 3), 0.2, 2, 3, 4, density, boundsMin=(-1, 0, -1), boundsMax=(1, 2, 1))
    placement = np.eye(4, dtype=np.float32)
    placement[:3, 3] = (0.5, 0, 0)
    m.mediumToWorld = placement[:3]  # (3, 4): the bottom row implied
    scene = wf.Scene()
    assert scene.addMedium(m) == 0 and scene.addMedium(wf.Medium(sigmaA=(0, 0, 0), scale=2.0)) == 1
    back = scene.media()[0]
    assert back.type == wf.MediumType.Grid and (back.nx, back.ny, back.nz) == (2, 3, 4)
    assert back.density.dtype == np.float32 and back.density.shape == (24,)
    np.testing.assert_array_equal(back.density, density.ravel())
    np.testing.assert_array_equal(back.mediumToWorld, placement)
    assert back.sigmaS == (1, 2, 3) and back.boundsMin == (-1, 0, -1) and back.g == pytest.approx(0.2)
    assert scene.media()[1].sigmaT() == pytest.approx((2, 2, 2))
    c = copy.copy(back)
    c.density = [0.5] * 24  # a list goes in too
    assert c.density.dtype == np.float32 and back.density[0] == density.flat[0]
    assert "Medium(type=Grid" in repr(back) and "density=<24 array>" in repr(back)


def test_bad_media_raise_one_line():
    scene = wf.Scene()
    scene.addMaterial(wf.Material.lambertian((0.5, 0.5, 0.5)))
    bad = [wf.Medium.homogeneous((-0.1, 0, 0), (1, 1, 1)),
           wf.Medium.homogeneous((0, 0, 0), (1, 1, 1), g=1.0),
           wf.Medium.grid((0, 0, 0), (1, 1, 1), 0.0, 2, 2, 2, np.ones(7, dtype=np.float32))]
    for medium, message in zip(bad, ("non-negative", "g", "7 density values")):
        with pytest.raises(wf.InputError, match=message) as e:
            scene.addMedium(medium)
        assert "\n" not in str(e.value)
    with pytest.raises(wf.InputError, match="density must be an array of numbers"):
        wf.Medium().density = ["thick"]
    with pytest.raises(wf.InputError, match="mediumToWorld"):
        wf.Medium().mediumToWorld = np.eye(3)
    assert not scene.media()
    with pytest.raises(wf.InputError, match="medium index 3 is out of range") as e:
        scene.addMesh(box((0, 0, 0), (1, 1, 1), 0, inside=3))
    assert "\n" not in str(e.value)
    with pytest.raises(wf.InputError, match="out of range"):
        scene.addSphere(wf.Sphere((0, 0, 0), 1.0, 0, mediumOutside=0))


def test_interface_material_and_medium_fields():
    assert wf.MaterialType.Interface in wf.MaterialType.__members__.values()
    assert wf.Material.interface().type == wf.MaterialType.Interface
    assert wf.Material(type="interface").type == wf.MaterialType.Interface
    assert wf.kVacuum == -1 and wf.Camera().medium == wf.kVacuum and wf.Light().medium == wf.kVacuum
    assert wf.Sphere().mediumInside == wf.TriangleMesh().mediumOutside == wf.kVacuum
    assert wf.Light(medium=2).medium == 2 and wf.Medium(type="grid").type == wf.MediumType.Grid
    assert not wf.Scene.builtin("cornell-box").hasMedia() and wf.Scene.builtin("cornell-fog").hasMedia()
    assert wf.Scene.builtin("cornell-fog").lights()[0].medium == 0


def test_bpm_refuses_a_scene_with_media():
    with pytest.raises(wf.InputError, match="does not render participating media"):
        wf.Renderer(fog_scene(), options(wf.IntegratorType.Bpm)).render()
