"""wavefront: wavefront path tracing (PT), bidirectional path tracing (BDPT) and Metropolis light
transport (MLT) on the CPU and CUDA.

The names mirror the C++ API (include/wavefront): Scene, RenderOptions, Renderer, Image, Film, the
enums Backend, IntegratorType, PtVariant, BdptVariant, LightSampler, MaterialType, and readImage /
writeImage. numpy.asarray(renderer.image()) is a float32 (height, width, 3) array; renderer.stats()
is a dict. Errors are wavefront.Error (a RuntimeError); bad input is wavefront.InputError, which is
also a ValueError.
"""
from ._wavefront import *  # noqa: F401,F403
from ._wavefront import __version__, HAS_CUDA  # noqa: F401
