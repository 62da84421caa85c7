"""wavefront: wavefront path tracing (PT), bidirectional path tracing (BDPT) and Metropolis light
transport (MLT) on the CPU and CUDA.

The names mirror the C++ API (include/wavefront): Scene, RenderOptions, Renderer, Image, Film, the
enums Backend, IntegratorType, PtVariant, BdptVariant, LightSampler, MaterialType, and readImage /
writeImage. numpy.asarray(renderer.image()) is a float32 (height, width, 3) array; renderer.stats()
is a dict. Errors are wavefront.Error (a RuntimeError); bad input is wavefront.InputError, which is
also a ValueError.

wavefront.compare(scenes, ...) measures rendering methods against a reference from independent
seeds (the harness of the wavefront-compare command; wavefront.metrics holds its definitions).
wavefront.denoise.denoise(image, aovs) is a denoised preview through Intel Open Image Denoise
(the optional pyoidn package).
"""
from ._wavefront import *  # noqa: F401,F403
from ._wavefront import __version__, HAS_CUDA  # noqa: F401


def __getattr__(name):
    # wavefront.compare is a module that is also callable; imported on first use, so that
    # `python3 -m wavefront.compare` runs it once, as __main__ alone.
    if name in ("compare", "metrics", "report", "denoise"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
