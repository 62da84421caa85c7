#!/usr/bin/env python3
"""Bias of images against a reference: for each PFM after the first (the reference), the relative
difference of the image means and the RMS of the relative differences of 16 x 16-pixel blocks.
Noise enters both figures: render the reference much longer than the images, and read a trend
over a parameter (the merge radius), not one value. A Markdown table on stdout.

    image_bias.py REFERENCE.pfm IMAGE.pfm...
"""
import sys

import numpy as np


def read_pfm(path):
    with open(path, "rb") as f:
        if f.readline().strip() != b"PF":
            raise SystemExit(f"image_bias: {path} is not a colour PFM")
        width, height = (int(v) for v in f.readline().split())
        scale = float(f.readline())
        data = np.frombuffer(f.read(), dtype="<f4" if scale < 0 else ">f4")
    return data.reshape(height, width, 3)[::-1].astype(np.float64)


def blocks(image, size=16):
    h, w = image.shape[0] // size * size, image.shape[1] // size * size
    return image[:h, :w].reshape(h // size, size, w // size, size, 3).mean(axis=(1, 3, 4))


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    ref = read_pfm(argv[1])
    ref_blocks = blocks(ref)
    print("| image | mean / reference - 1 | RMS of block / reference - 1 |")
    print("|---|---:|---:|")
    for path in argv[2:]:
        img = read_pfm(path)
        if img.shape != ref.shape:
            raise SystemExit(f"image_bias: {path} is {img.shape[1]}x{img.shape[0]}, the reference {ref.shape[1]}x{ref.shape[0]}")
        mean = img.mean() / ref.mean() - 1.0
        rel = blocks(img) / np.maximum(ref_blocks, 1e-6) - 1.0
        print(f"| {path.rsplit('/', 1)[-1]} | {mean:+.4f} | {np.sqrt((rel ** 2).mean()):.4f} |")


if __name__ == "__main__":
    main(sys.argv)
