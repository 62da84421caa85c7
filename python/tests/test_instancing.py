"""Instancing from Python (issue 38): an object placed by transforms renders as the same mesh
placed by hand, memory grows with the object, and bad transforms raise one line."""
import numpy as np
import pytest

import wavefront as wf


def cube(material):
    mesh = wf.TriangleMesh()
    corners = [[x, y, z] for z in (-1, 1) for y in (-1, 1) for x in (-1, 1)]
    mesh.positions = np.array(corners, dtype=np.float32)
    mesh.indices = np.array([0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                             2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5], dtype=np.uint32)
    mesh.material = material
    return mesh


def placement(k):
    m = np.eye(4, dtype=np.float32)
    angle = 0.4 * k
    m[0, 0], m[0, 2], m[2, 0], m[2, 2] = np.cos(angle), np.sin(angle), -np.sin(angle), np.cos(angle)
    m[:3, :3] *= 0.06
    m[:3, 3] = [0.2 + 0.15 * (k % 5), 0.1 + 0.2 * (k // 5), 0.5]
    return m


def scene_with_cubes(instanced):
    scene = wf.Scene.builtin("cornell-box")
    blue = scene.addMaterial(wf.Material.lambertian((0.2, 0.4, 0.8)))
    if instanced:
        obj = scene.addObject([cube(blue)])
    for k in range(10):
        m = placement(k)
        if instanced:
            scene.addInstance(obj, m)
        else:
            mesh = cube(blue)
            p = np.asarray(mesh.positions)
            mesh.positions = (p @ m[:3, :3].T + m[:3, 3]).astype(np.float32)
            scene.addMesh(mesh)
    return scene


def options(seed):
    o = wf.RenderOptions()
    o.backend = wf.Backend.Cpu
    o.width = o.height = 32
    o.samplesPerPixel = 8
    o.seed = seed
    return o


def test_instances_render_as_placed_meshes():
    a, b = scene_with_cubes(True), scene_with_cubes(False)
    assert a.objectCount() == 1 and len(a.instances()) == 10
    np.testing.assert_allclose(a.instances()[3]["objectToWorld"], placement(3), rtol=1e-6, atol=1e-7)
    ra, rb = wf.Renderer(a, options(5)), wf.Renderer(b, options(5))
    ra.render()
    rb.render()
    ia, ib = np.asarray(ra.image()), np.asarray(rb.image())
    assert ra.stats()["instances"] == 10
    # Paths meeting the same surfaces draw the same numbers: the images agree closely.
    assert abs(ia.mean() / ib.mean() - 1) < 0.01
    assert np.mean(np.abs(ia - ib) <= 1e-3 * np.maximum(1, np.abs(ib))) > 0.9


def test_bad_instances_raise_one_line():
    scene = wf.Scene.builtin("cornell-box")
    obj = scene.addObject([cube(0)])
    with pytest.raises(wf.InputError, match="shape"):
        scene.addInstance(obj, np.eye(3))
    with pytest.raises(wf.InputError, match="singular"):
        scene.addInstance(obj, np.diag([1, 0, 1, 1]))
    with pytest.raises(wf.InputError, match="out of range"):
        scene.addInstance(obj + 1, np.eye(4))
    glow = scene.addMaterial(wf.Material.lambertian((0, 0, 0), (1, 1, 1)))
    with pytest.raises(wf.InputError, match="emissive"):
        scene.addObject([cube(glow)])
    assert scene.instances() == []


def test_moving_an_instance_matches_a_fresh_renderer():
    scene = scene_with_cubes(True)
    r = wf.Renderer(scene, options(3))
    r.render()
    before = np.asarray(r.image()).copy()
    moved = placement(2)
    moved[:3, 3] += [0.1, 0.3, -0.2]
    st = r.setInstanceTransform(2, moved)
    assert st["what"] == "instance 2" and st["bvh"] == "rebuild" and st["bytesUploaded"] < 256
    r.render()
    after = np.asarray(r.image())
    fresh = wf.Renderer(r.scene(), options(3))
    fresh.render()
    assert np.max(np.abs(after - before)) > 1e-3
    assert np.max(np.abs(after - np.asarray(fresh.image()))) <= 1e-4 * max(after.mean(), 1e-6)
    with pytest.raises(wf.InputError, match="singular"):
        r.setInstanceTransform(2, np.diag([0, 1, 1, 1]))
