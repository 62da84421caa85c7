#!/usr/bin/env python3
"""A denoised preview (issue 38): renders a scene with AOVs at a few samples per pixel, denoises it
with Intel Open Image Denoise (the optional pyoidn package, wavefront.denoise) guided by the
first-hit albedo and normal, and writes the noisy and the denoised image.

    python3 examples/denoise_preview.py [SCENE] [--spp N] [--res WxH] [--out PREFIX] [--cpu]

Writes PREFIX.noisy.png and PREFIX.denoised.png (default prefix: preview)."""
import argparse
import sys
import time

import wavefront as wf
from wavefront.denoise import available, denoise


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("scene", nargs="?", default="cornell-spheres", help="a built-in scene or a scene file")
    p.add_argument("--spp", type=int, default=4, help="samples per pixel (default 4)")
    p.add_argument("--res", default="512x512", help="WxH (default 512x512)")
    p.add_argument("--out", default="preview", help="output prefix (default preview)")
    p.add_argument("--cpu", action="store_true", help="render on the CPU backend")
    a = p.parse_args()
    ok, why = available()
    if not ok:
        print(f"denoise_preview: {why}", file=sys.stderr)
        return 2
    try:
        width, height = (int(v) for v in a.res.lower().split("x"))
        o = wf.RenderOptions()
        o.width, o.height, o.samplesPerPixel = width, height, a.spp
        o.aovs = True
        if a.cpu:
            o.backend = wf.Backend.Cpu
        renderer = wf.Renderer(wf.Scene.fromNameOrPath(a.scene), o)
        renderer.render()
        image = renderer.image()
        start = time.perf_counter()
        preview = denoise(image, renderer.aovs())
        seconds = time.perf_counter() - start
        wf.writeImage(f"{a.out}.noisy.png", image)
        wf.writeImage(f"{a.out}.denoised.png", preview)
    except (ValueError, wf.Error) as e:
        print(f"denoise_preview: {e}", file=sys.stderr)
        return 2
    print(f"denoise_preview: {a.scene} at {width}x{height}, {a.spp} spp on {renderer.stats()['backend']}; "
          f"denoised in {seconds:.3f} s; wrote {a.out}.noisy.png and {a.out}.denoised.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
