#!/usr/bin/env python3
"""VCM's merging bias per 8 x 8 block against BDPT, over seeds, on the CPU (no numpy): renders
SEEDS images of each method with wavefront-render, then for every block the relative difference
of the means over seeds, its z-score (from the spread over seeds), and the standard error of one
VCM render's block mean (VCM's own noise at that sample count). A Markdown table on stdout.

    vcm_block_bias.py RENDER SCENE RES SEEDS VCM_SPP BDPT_SPP RADIUS...
    e.g. vcm_block_bias.py build/examples/wavefront-render door-ajar 48x48 4 64 512 1 0.5 0.25
"""
import math
import os
import struct
import subprocess
import sys
import tempfile


def read_pfm(path):
    with open(path, "rb") as f:
        assert f.readline().strip() == b"PF"
        width, height = (int(v) for v in f.readline().split())
        scale = float(f.readline())
        data = f.read()
    values = struct.unpack(("<" if scale < 0 else ">") + "f" * (width * height * 3), data)
    return width, height, values


def block_means(path, size=8):
    w, h, v = read_pfm(path)
    out = []
    for by in range(h // size):
        for bx in range(w // size):
            total = 0.0
            for y in range(by * size, (by + 1) * size):
                for x in range(bx * size, (bx + 1) * size):
                    i = 3 * (y * w + x)
                    total += v[i] + v[i + 1] + v[i + 2]
            out.append(total / (3 * size * size))
    return out


def render(binary, scene, res, spp, seed, extra, out):
    cmd = [binary, scene, "--backend", "cpu", "--res", res, "--spp", str(spp), "--seed", str(seed), "--out", out] + extra
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return block_means(out)


def stats(runs):
    n = len(runs)
    means = [sum(r[b] for r in runs) / n for b in range(len(runs[0]))]
    var = [sum((r[b] - means[b]) ** 2 for r in runs) / (n - 1) for b in range(len(runs[0]))]
    return means, var


def main(argv):
    if len(argv) < 8:
        raise SystemExit(__doc__)
    binary, scene, res, seeds, vcm_spp, bdpt_spp = argv[1], argv[2], argv[3], int(argv[4]), int(argv[5]), int(argv[6])
    radii = argv[7:]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "image.pfm")
        ref = [render(binary, scene, res, bdpt_spp, 1000 + s, ["--integrator", "bdpt"], out) for s in range(seeds)]
        rm, rv = stats(ref)
        print(f"{scene} {res}, {seeds} seeds, VCM {vcm_spp} spp, BDPT {bdpt_spp} spp; blocks of 8 x 8 pixels")
        print("| radius (px) | image mean / BDPT - 1 | worst block / BDPT - 1 | its z | blocks with z > 3 | "
              "VCM block noise (median, one render) |")
        print("|---:|---:|---:|---:|---:|---:|")
        for r in radii:
            runs = [render(binary, scene, res, vcm_spp, 2000 + s, ["--integrator", "vcm", "--radius", r], out)
                    for s in range(seeds)]
            m, v = stats(runs)
            rel = [m[b] / rm[b] - 1.0 for b in range(len(m))]
            z = [(m[b] - rm[b]) / math.sqrt(v[b] / seeds + rv[b] / seeds + 1e-30) for b in range(len(m))]
            worst = max(range(len(m)), key=lambda b: abs(rel[b]))
            noise = sorted(math.sqrt(v[b]) / m[b] for b in range(len(m)))[len(m) // 2]
            image = sum(m) / sum(rm) - 1.0
            print(f"| {r} | {image:+.2%} | {rel[worst]:+.2%} | {z[worst]:+.1f} | {sum(abs(x) > 3 for x in z)} of {len(z)} | "
                  f"{noise:.2%} |")


if __name__ == "__main__":
    main(sys.argv)
