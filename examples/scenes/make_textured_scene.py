#!/usr/bin/env python3
"""Writes the example scene of issue 14: textured-spheres.gltf (a textured globe, a rough-metal
ball with base colour, metallic-roughness and normal textures, a checkered floor with a normal
map and a small lamp with an emissive texture and KHR_materials_emissive_strength; glTF 2.0
metallic-roughness with embedded PNG textures) and sky.hdr (a Radiance RGBE sky with a sun). Standard library only; the outputs are committed,
this script says how they were made:  python3 examples/scenes/make_textured_scene.py
"""
import base64
import json
import math
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def png(width, height, pixel):
    """An 8-bit RGB PNG; pixel(x, y) -> (r, g, b) bytes, rows top to bottom."""
    raw = b"".join(b"\0" + bytes(c for x in range(width) for c in pixel(x, y)) for y in range(height))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def globe(x, y):
    """Longitude-latitude bands with a marker at the top-left: orientation shows at a glance."""
    u, v = x / 128.0, y / 64.0
    if u < 0.12 and v < 0.2:
        return (240, 40, 30)
    band = int(v * 8) % 2
    stripe = int(u * 16) % 2
    return (30 + 180 * band, 90 + 100 * stripe, 200 - 120 * band)


def checker(x, y):
    return (220, 215, 200) if (x // 8 + y // 8) % 2 == 0 else (50, 60, 80)


def roughness_stripes(x, y):
    """metallicRoughness data: G = roughness in bands from 0.15 to 0.9, B = metallic 1."""
    band = (y // 8) % 4
    return (0, int(255 * (0.15 + 0.25 * band)), 255)


def normal_map(gradient, size):
    """Tangent-space normals of a height field h(u, v) given its gradient (dh/du, dh/dv): x along
    +u, y up in the image (against v)."""
    def pixel(x, y):
        u, v = (x + 0.5) / size, (y + 0.5) / size
        dhdu, dhdv = gradient(u, v)
        n = (-dhdu, dhdv, 1.0)
        length = math.sqrt(sum(c * c for c in n))
        return tuple(int(round(255 * (0.5 + 0.5 * c / length))) for c in n)
    return pixel


def bumps(u, v):
    """Gradient of 0.02 sin(8 pi u) sin(8 pi v): four rows of round bumps per repeat."""
    k = 8 * math.pi
    return (0.02 * k * math.cos(k * u) * math.sin(k * v), 0.02 * k * math.sin(k * u) * math.cos(k * v))


def lamp_glow(x, y):
    """Emissive texture: warm rings."""
    return (255, 200, 120) if (y // 4) % 2 == 0 else (40, 30, 20)


def sphere(cx, cy, cz, r, stacks=32, slices=64):
    pos, nrm, uv, idx = [], [], [], []
    for i in range(stacks + 1):
        theta = math.pi * i / stacks
        for j in range(slices + 1):
            phi = 2 * math.pi * j / slices
            n = (math.sin(theta) * math.cos(phi), math.cos(theta), -math.sin(theta) * math.sin(phi))
            pos.append((cx + r * n[0], cy + r * n[1], cz + r * n[2]))
            nrm.append(n)
            uv.append((j / slices, i / stacks))  # glTF: v = 0 at the top of the image
    for i in range(stacks):
        for j in range(slices):
            a, b = i * (slices + 1) + j, (i + 1) * (slices + 1) + j
            if i > 0:
                idx += [a, b, a + 1]
            if i < stacks - 1:
                idx += [a + 1, b, b + 1]
    return pos, nrm, uv, idx


def floor(size, repeat):
    s = size
    pos = [(-s, 0, -s), (-s, 0, s), (s, 0, s), (s, 0, -s)]
    nrm = [(0, 1, 0)] * 4
    uv = [(0, 0), (0, repeat), (repeat, repeat), (repeat, 0)]
    return pos, nrm, uv, [0, 1, 2, 0, 2, 3]


def write_gltf(path):
    meshes = [sphere(-0.6, 0.5, 0.0, 0.5), sphere(0.6, 0.45, 0.3, 0.45), floor(3.0, 6),
              sphere(0.05, 0.15, 0.9, 0.15, 16, 32)]
    materials = [
        {"name": "globe", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}, "metallicFactor": 0.0,
                                                   "roughnessFactor": 0.5}},
        {"name": "metal", "pbrMetallicRoughness": {"baseColorFactor": [1.0, 0.85, 0.6, 1.0],
                                                   "baseColorTexture": {"index": 1}, "metallicFactor": 1.0,
                                                   "roughnessFactor": 0.6, "metallicRoughnessTexture": {"index": 2}},
         "normalTexture": {"index": 3, "scale": 1.0}},
        {"name": "floor", "pbrMetallicRoughness": {"baseColorTexture": {"index": 1}, "metallicFactor": 0.0,
                                                   "roughnessFactor": 0.8},
         "normalTexture": {"index": 3, "scale": 0.5}},
        {"name": "lamp", "pbrMetallicRoughness": {"baseColorFactor": [0.2, 0.2, 0.2, 1.0], "metallicFactor": 0.0},
         "emissiveFactor": [1.0, 1.0, 1.0], "emissiveTexture": {"index": 4},
         "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 6.0}}},
    ]
    blob, views, accessors, gltf_meshes = b"", [], [], []

    def add(data, fmt, count, kind, target, minmax=None):
        nonlocal blob
        while len(blob) % 4:
            blob += b"\0"
        views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(data), "target": target})
        blob += data
        acc = {"bufferView": len(views) - 1, "componentType": fmt, "count": count, "type": kind}
        if minmax:
            acc["min"], acc["max"] = minmax
        accessors.append(acc)
        return len(accessors) - 1

    for m, (pos, nrm, uv, idx) in enumerate(meshes):
        lo = [min(p[k] for p in pos) for k in range(3)]
        hi = [max(p[k] for p in pos) for k in range(3)]
        p = add(b"".join(struct.pack("<3f", *v) for v in pos), 5126, len(pos), "VEC3", 34962, (lo, hi))
        n = add(b"".join(struct.pack("<3f", *v) for v in nrm), 5126, len(nrm), "VEC3", 34962)
        t = add(b"".join(struct.pack("<2f", *v) for v in uv), 5126, len(uv), "VEC2", 34962)
        i = add(b"".join(struct.pack("<I", v) for v in idx), 5125, len(idx), "SCALAR", 34963)
        gltf_meshes.append({"primitives": [{"attributes": {"POSITION": p, "NORMAL": n, "TEXCOORD_0": t},
                                            "indices": i, "material": m}]})
    images = [png(128, 64, globe), png(64, 64, checker), png(32, 32, roughness_stripes),
              png(64, 64, normal_map(bumps, 64)), png(32, 32, lamp_glow)]
    doc = {
        "asset": {"version": "2.0", "generator": "wavefront examples/scenes/make_textured_scene.py"},
        "scene": 0,
        "extensionsUsed": ["KHR_materials_emissive_strength"],
        "scenes": [{"nodes": [0, 1, 2, 3, 4]}],
        "nodes": [{"mesh": 0}, {"mesh": 1}, {"mesh": 2}, {"mesh": 3},
                  {"camera": 0, "translation": [0.0, 1.1, 3.4], "rotation": [-0.0998, 0.0, 0.0, 0.995]}],
        "cameras": [{"type": "perspective", "perspective": {"yfov": 0.7, "aspectRatio": 1.0, "znear": 0.01}}],
        "meshes": gltf_meshes,
        "materials": materials,
        "textures": [{"source": k} for k in range(len(images))],
        "images": [{"uri": "data:image/png;base64," + base64.b64encode(d).decode()} for d in images],
        "buffers": [{"byteLength": len(blob), "uri": "data:application/octet-stream;base64," +
                     base64.b64encode(blob).decode()}],
        "bufferViews": views,
        "accessors": accessors,
    }
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))


def write_hdr(path, width=128, height=64):
    """Radiance RGBE, flat (not run-length encoded) scanlines: a blue sky, a warm sun, a dim ground."""
    def rgbe(r, g, b):
        m = max(r, g, b)
        if m < 1e-32:
            return b"\0\0\0\0"
        e = math.frexp(m)[1]
        scale = 256.0 / (2.0 ** e)
        return bytes([int(r * scale), int(g * scale), int(b * scale), e + 128])

    sun = (math.radians(40), math.radians(35))  # azimuth, elevation
    sx, sy, sz = (math.cos(sun[1]) * math.cos(sun[0]), math.sin(sun[1]), math.cos(sun[1]) * math.sin(sun[0]))
    rows = []
    for y in range(height):
        elevation = math.pi / 2 - math.pi * (y + 0.5) / height
        row = b""
        for x in range(width):
            azimuth = 2 * math.pi * (x + 0.5) / width
            d = (math.cos(elevation) * math.cos(azimuth), math.sin(elevation), math.cos(elevation) * math.sin(azimuth))
            if elevation > 0:
                t = elevation / (math.pi / 2)
                c = (0.45 + 0.2 * (1 - t), 0.6 + 0.15 * (1 - t), 1.0)
            else:
                c = (0.25, 0.22, 0.2)
            if d[0] * sx + d[1] * sy + d[2] * sz > math.cos(math.radians(4.0)):
                c = (900.0, 800.0, 650.0)
            row += rgbe(*c)
        rows.append(row)
    with open(path, "wb") as f:
        f.write(b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n")
        f.write(("-Y %d +X %d\n" % (height, width)).encode())
        for row in rows:
            f.write(row)


if __name__ == "__main__":
    write_gltf(os.path.join(HERE, "textured-spheres.gltf"))
    write_hdr(os.path.join(HERE, "sky.hdr"))
