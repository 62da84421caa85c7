"""A denoised preview (issue 38): Intel Open Image Denoise through the optional pyoidn package
(Debian packages no OIDN; scripts/install-deps.sh --pypi PYTHON installs it from PyPI).

    import wavefront as wf
    from wavefront.denoise import denoise
    options.aovs = True                      # albedo and normal help the denoiser
    renderer = wf.Renderer(scene, options); renderer.render()
    preview = denoise(renderer.image(), renderer.aovs())

The preview is for display: a denoiser trades noise for bias, so never measure an integrator with
it (wavefront-compare measures the undenoised images)."""
import numpy as np

from . import _wavefront as _wf


def available():
    """(True, "") when pyoidn can be imported, else (False, why)."""
    try:
        import pyoidn  # noqa: F401
    except Exception as e:  # an ImportError, or a shared library that does not load
        return False, f"the pyoidn package is not usable ({e}); scripts/install-deps.sh --pypi PYTHON installs it"
    return True, ""


def _rgb(a, what, shape=None):
    a = np.ascontiguousarray(np.asarray(a, dtype=np.float32))
    if a.ndim != 3 or a.shape[2] != 3 or a.shape[0] == 0 or a.shape[1] == 0:
        raise _wf.InputError(f"{what} must be an array of shape (height, width, 3), not {a.shape}")
    if shape is not None and a.shape != shape:
        raise _wf.InputError(f"{what} has shape {a.shape}, the image {shape}")
    if not np.all(np.isfinite(a)):
        raise _wf.InputError(f"{what} has NaN or infinite values")
    return a


def denoise(image, aovs=None, *, quality="high"):
    """The denoised image (float32, height x width x 3) of `image` (Renderer.image(), linear HDR),
    guided by the first-hit albedo and normal of `aovs` (Renderer.aovs() of a render with
    RenderOptions.aovs; None or empty AOVs: the colour alone). Negative values (a Mitchell
    filter's ringing) are clipped to 0 first, as OIDN takes non-negative HDR colour. Raises
    wavefront.Error when pyoidn is unavailable and wavefront.InputError for bad arrays."""
    ok, why = available()
    if not ok:
        raise _wf.Error(f"denoise: {why}")
    import pyoidn

    color = _rgb(image, "the image")
    color = np.maximum(color, 0.0)
    albedo = normal = None
    if aovs is not None and np.asarray(aovs.albedo).size > 0:
        albedo = np.clip(_rgb(aovs.albedo, "the albedo AOV", color.shape), 0.0, 1.0)
        normal = np.clip(_rgb(aovs.normal, "the normal AOV", color.shape), -1.0, 1.0)
    return np.asarray(pyoidn.denoise(color, albedo, normal, hdr=True, quality=quality), dtype=np.float32)
