#!/usr/bin/env python3
"""Writes the pbrt-v4 scene files of the tests (tests/data/pbrt) and the examples
(examples/scenes/pbrt), with the images and meshes they use: small, hand-made geometry in the
style of the pbrt-v4-scenes collection, no third-party assets.

    scripts/make-pbrt-scenes.py            # from the repository root; rewrites the files

pbrt's world is left-handed: seen through `LookAt` with +y up, +x points to the LEFT of the image.
The Cornell box of the tests is the built-in `cornell-box` (src/host/scene/builtin_scenes.cpp)
mirrored in x, so that pbrt draws it as wavefront draws the built-in one.
"""
import math
import os
import struct

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def fmt(v):
    text = "%.6g" % v
    return "0" if text == "-0" else text


def vec(values):
    return " ".join(fmt(v) for v in values)


def sub(a, b):
    return [a[i] - b[i] for i in range(3)]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def dot(a, b):
    return sum(a[i] * b[i] for i in range(3))


def quad(corner, u, v, facing, indent="    "):
    """A parallelogram as a pbrt trianglemesh whose normal cross(p1 - p0, p2 - p0) points along `facing`."""
    p = [corner, [corner[i] + u[i] for i in range(3)], [corner[i] + u[i] + v[i] for i in range(3)],
         [corner[i] + v[i] for i in range(3)]]
    n = cross(sub(p[1], p[0]), sub(p[2], p[0]))
    indices = "0 1 2 0 2 3" if dot(n, facing) > 0 else "0 2 1 0 3 2"
    return (f'{indent}Shape "trianglemesh"\n{indent}    "point3 P" [ {" ".join(vec(q) for q in p)} ]\n'
            f'{indent}    "integer indices" [ {indices} ]\n')


def box(indent="    "):
    """A unit box, x and z in [-0.5, 0.5], y in [0, 1], four sides and the top, facing out."""
    out = ""
    x, y, z = [1, 0, 0], [0, 1, 0], [0, 0, 1]
    out += quad([0.5, 0, -0.5], z, y, [1, 0, 0], indent)
    out += quad([-0.5, 0, -0.5], z, y, [-1, 0, 0], indent)
    out += quad([-0.5, 0, 0.5], x, y, [0, 0, 1], indent)
    out += quad([-0.5, 0, -0.5], x, y, [0, 0, -1], indent)
    out += quad([-0.5, 1, -0.5], x, z, [0, 1, 0], indent)
    return out


def write(path, text):
    full = os.path.join(ROOT, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def cornell_box_test():
    """The built-in cornell-box, x mirrored (pbrt's x = -wavefront's x)."""
    m = lambda p: [-p[0], p[1], p[2]]
    mv = lambda v: [-v[0], v[1], v[2]]
    x, y, z = [1, 0, 0], [0, 1, 0], [0, 0, 1]
    s = 1 / 555
    out = """# The built-in cornell-box (src/host/scene/builtin_scenes.cpp) as a pbrt-v4 file: the classic box
# scaled to [0, 1]^3 and mirrored in x, since pbrt's world is left-handed (+x to the left here).
# Written by scripts/make-pbrt-scenes.py.
LookAt -0.5 0.5 %s  -0.5 0.5 0  0 1 0
Camera "perspective" "float fov" [ 39.3 ]
Film "rgb" "integer xresolution" [ 32 ] "integer yresolution" [ 32 ] "string filename" [ "cornell-box.exr" ]
Sampler "independent" "integer pixelsamples" [ 16 ]
Integrator "path" "integer maxdepth" [ 7 ]

WorldBegin

MakeNamedMaterial "white" "string type" [ "diffuse" ] "rgb reflectance" [ 0.73 0.73 0.73 ]
MakeNamedMaterial "red" "string type" [ "diffuse" ] "rgb reflectance" [ 0.65 0.05 0.05 ]
MakeNamedMaterial "green" "string type" [ "diffuse" ] "rgb reflectance" [ 0.12 0.45 0.15 ]

AttributeBegin
    NamedMaterial "white"
""" % fmt(1 + 800 / 555)
    out += quad(m([0, 0, 0]), mv(x), mv(z), mv(y))
    out += quad(m([0, 1, 0]), mv(x), mv(z), mv([0, -1, 0]))
    out += quad(m([0, 0, 0]), mv(x), mv(y), mv(z))
    out += "    NamedMaterial \"red\"\n"
    out += quad(m([0, 0, 0]), mv(y), mv(z), mv(x))
    out += "    NamedMaterial \"green\"\n"
    out += quad(m([1, 0, 0]), mv(y), mv(z), mv([-1, 0, 0]))
    out += "AttributeEnd\n\n"
    sx, sz, h = 130 * s, 105 * s, 1 - 0.002
    out += """# The light: 130 x 105 units just below the ceiling, facing down.
AttributeBegin
    AreaLightSource "diffuse" "rgb L" [ 17 12 4 ]
    Material "diffuse" "rgb reflectance" [ 0.78 0.78 0.78 ]
"""
    out += quad(m([0.5 - sx / 2, h, 0.5 - sz / 2]), mv([sx, 0, 0]), mv([0, 0, sz]), [0, -1, 0])
    out += "AttributeEnd\n"
    for (cx, cz), size, angle in (((0.337, 0.37), (165, 330, 165), 15), ((0.665, 0.70), (165, 165, 165), -18)):
        out += f"""
AttributeBegin
    NamedMaterial "white"
    Translate {fmt(-cx)} 0 {fmt(cz)}
    Rotate {fmt(-angle)} 0 1 0
    Scale {vec([c * s for c in size])}
"""
        out += box()
        out += "AttributeEnd\n"
    write("tests/data/pbrt/cornell-box.pbrt", out)


if __name__ == "__main__":
    cornell_box_test()
