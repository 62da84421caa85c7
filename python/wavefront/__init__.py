"""wavefront: wavefront path tracing (PT), bidirectional path tracing (BDPT) and Metropolis light
transport (MLT) on the CPU and CUDA.

The names mirror the C++ API (include/wavefront): Scene, RenderOptions, Renderer, Image, Film, the
enums Backend, IntegratorType, PtVariant, BdptVariant, LightSampler, MaterialType, MediumType, and readImage /
writeImage. numpy.asarray(renderer.image()) is a float32 (height, width, 3) array; renderer.stats()
is a dict. Errors are wavefront.Error (a RuntimeError); bad input is wavefront.InputError, which is
also a ValueError.

wavefront.compare(scenes, ...) measures rendering methods against a reference from independent
seeds (the harness of the wavefront-compare command; wavefront.metrics holds its definitions).
wavefront.denoise.denoise(image, aovs) is a denoised preview through Intel Open Image Denoise
(the optional pyoidn package).
"""
from . import _wavefront
from ._wavefront import *  # noqa: F401,F403
from ._wavefront import __version__, HAS_CUDA  # noqa: F401

# ---- Pythonic value classes: keyword construction, enum fields from their names, reprs -----------
# (copies, docstrings and the Image's array protocol are in the bindings, python/src/bindings.cpp)

_PARSERS = {"IntegratorType": "parseIntegrator", "Backend": "parseBackend", "PtVariant": "parsePtVariant",
            "BdptVariant": "parseBdptVariant", "LightSampler": "parseLightSampler", "BvhBuilder": "parseBvhBuilder"}
_VALUE_CLASSES = ("RenderOptions", "Camera", "Material", "Light", "Sphere", "SkyGradient", "SceneLoadOptions",
                  "PtOptions", "BdptOptions", "MltOptions", "VcmOptions", "TriangleMesh", "Medium")


def _simple(name):
    return name.replace("-", "").replace("_", "").replace(" ", "").lower()


def _enum_value(enum_type, value, field):
    """An enum member from itself or its name: the command line's (parseIntegrator('bdpt')) or the
    member's own, case and '-'/'_' ignored; InputError naming the choices otherwise."""
    if not isinstance(value, str):
        return value
    parser = _PARSERS.get(enum_type.__name__)
    if parser is not None:
        try:
            return getattr(_wavefront, parser)(value)
        except _wavefront.InputError:
            pass
    for name, member in enum_type.__members__.items():
        if _simple(name) == _simple(value):
            return member
    names = [_wavefront.toString(m) if parser else n.lower() for n, m in enum_type.__members__.items()]
    raise _wavefront.InputError(f"{field}: '{value}' is not one of {', '.join(names)}")


def _properties(cls):
    """{name: property} of a bound class and its bases, in definition order."""
    found = {}
    for klass in reversed(cls.__mro__):
        for name, value in vars(klass).items():
            if isinstance(value, property) and not name.startswith("_"):
                found[name] = value
    return found


def _pythonic(cls):
    default = cls()
    properties = _properties(cls)
    for name, prop in properties.items():
        current = getattr(default, name, None)
        if prop.fset is not None and hasattr(type(current), "__members__"):  # an enum field: take names too
            def setter(self, value, _set=prop.fset, _type=type(current), _field=f"{cls.__name__}.{name}"):
                _set(self, _enum_value(_type, value, _field))
            setattr(cls, name, property(prop.fget, setter, None, prop.__doc__))
    original_init = cls.__init__

    def __init__(self, *args, **fields):
        original_init(self, *args)
        for key, value in fields.items():
            if key not in properties or properties[key].fset is None:
                raise TypeError(f"{cls.__name__}() has no settable field '{key}'")
            setattr(self, key, value)

    __init__.__doc__ = (original_init.__doc__ or "") + f"\n\nKeywords set fields: {cls.__name__}(" + ", ".join(
        f"{n}=..." for n, p in list(properties.items())[:3] if p.fset is not None) + ")."
    cls.__init__ = __init__

    def __repr__(self):
        shown = []
        for key in properties:
            try:
                value = getattr(self, key)
            except Exception:  # a field that cannot be read in this state
                continue
            if callable(value) or (key == "progress" and value is None):
                continue
            if hasattr(value, "shape") and not isinstance(value, tuple):
                text = f"<{'x'.join(str(n) for n in value.shape)} array>"
            elif hasattr(type(value), "__members__"):
                text = str(value).split(".")[-1]
            else:
                text = repr(value)
            if len(text) <= 120:
                shown.append(f"{key}={text}")
        return f"{cls.__name__}({', '.join(shown)})"

    cls.__repr__ = __repr__


for _name in _VALUE_CLASSES:
    _pythonic(getattr(_wavefront, _name))
del _name


def __getattr__(name):
    # wavefront.compare is a module that is also callable; imported on first use, so that
    # `python3 -m wavefront.compare` runs it once, as __main__ alone.
    if name in ("compare", "metrics", "report", "denoise"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
