// wavefront._wavefront: the C++ API for Python, names as in C++ (python/wavefront/__init__.py
// re-exports it). Images and films become NumPy arrays, RenderStats a dict, wavefront::Error
// Python exceptions; rendering runs with the GIL released.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "wavefront/wavefront.h"

namespace py = pybind11;
using namespace pybind11::literals;
using namespace wavefront;

// glm::vec3 <-> any sequence of three numbers (tuple, list, NumPy row); returned as a tuple.
namespace pybind11::detail {
template <>
struct type_caster<glm::vec3> {
    PYBIND11_TYPE_CASTER(glm::vec3, const_name("tuple[float, float, float]"));
    bool load(handle src, bool) {
        if (!isinstance<sequence>(src) || isinstance<str>(src)) return false;
        auto seq = reinterpret_borrow<sequence>(src);
        if (seq.size() != 3) return false;
        for (std::size_t i = 0; i < 3; ++i) {
            make_caster<float> c;
            if (!c.load(seq[i], true)) return false;  // ints and NumPy scalars are fine in a vector
            value[int(i)] = cast_op<float>(c);
        }
        return true;
    }
    static handle cast(const glm::vec3& v, return_value_policy, handle) { return make_tuple(v.x, v.y, v.z).release(); }
};
}  // namespace pybind11::detail

namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

/// The device pointer and row count of a CUDA array (__cuda_array_interface__, version 2 or
/// later: CuPy, Numba, PyTorch) of shape (N, 3), float32, C-contiguous; InputError otherwise.
std::pair<const float*, std::size_t> devicePositionsOf(const py::object& obj) {
    if (!py::hasattr(obj, "__cuda_array_interface__"))
        throw InputError("positions on the device must be a CUDA array (with __cuda_array_interface__, e.g. CuPy); "
                         "setMeshPositions takes host arrays");
    const py::dict i = obj.attr("__cuda_array_interface__");
    const py::tuple shape = i["shape"];
    if (shape.size() != 2 || shape[1].cast<std::size_t>() != 3 || i["typestr"].cast<std::string>() != "<f4")
        throw InputError("positions on the device must be float32 of shape (N, 3)");
    if (i.contains("strides") && !i["strides"].is_none()) {
        const py::tuple strides = i["strides"];
        if (strides[0].cast<std::size_t>() != 12 || strides[1].cast<std::size_t>() != 4)
            throw InputError("positions on the device must be C-contiguous");
    }
    const py::tuple data = i["data"];
    return {reinterpret_cast<const float*>(data[0].cast<std::uintptr_t>()), shape[0].cast<std::size_t>()};
}

/// A (rows, columns) C-contiguous array, or InputError naming `what`.
void checkShape(const py::array& a, py::ssize_t columns, const char* what) {
    if (a.ndim() != 2 || a.shape(1) != columns)
        throw InputError(std::string(what) + " must be an array of shape (N, " + std::to_string(columns) + ")");
}

template <class Vec>
std::vector<Vec> vectorsFromArray(const py::object& obj, const char* what) {
    constexpr int n = Vec::length();
    FloatArray a = FloatArray::ensure(obj);
    if (!a) throw InputError(std::string(what) + " must be an array of numbers");
    if (a.size() == 0) return {};
    checkShape(a, n, what);
    std::vector<Vec> out(std::size_t(a.shape(0)));
    std::memcpy(out.data(), a.data(), out.size() * sizeof(Vec));  // glm vectors are n packed floats
    return out;
}

template <class Vec>
py::array_t<float> arrayFromVectors(const std::vector<Vec>& v) {
    constexpr int n = Vec::length();
    py::array_t<float> a({py::ssize_t(v.size()), py::ssize_t(n)});
    if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(Vec));
    return a;
}

/// A 4x4 (or 3x4: the bottom row 0 0 0 1 implied) row-major array as a glm matrix (column-major).
glm::mat4 matrixFromArray(const py::object& obj, const char* what) {
    FloatArray a = FloatArray::ensure(obj);
    if (!a || a.ndim() != 2 || a.shape(1) != 4 || (a.shape(0) != 4 && a.shape(0) != 3))
        throw InputError(std::string(what) + " must be an array of shape (4, 4) or (3, 4)");
    glm::mat4 m(1.0f);
    for (py::ssize_t r = 0; r < a.shape(0); ++r)
        for (int c = 0; c < 4; ++c) m[c][int(r)] = a.at(r, c);
    return m;
}

py::array_t<float> arrayFromMatrix(const glm::mat4& m) {
    py::array_t<float> a({py::ssize_t(4), py::ssize_t(4)});
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) a.mutable_at(r, c) = m[c][r];
    return a;
}

/// Grid density values from an array of any shape, read in C order: a (nz, ny, nx) array gives
/// Medium::density's x-fastest order. Checking the count against nx*ny*nz is Scene::addMedium's.
std::vector<float> densityFromArray(const py::object& obj) {
    FloatArray a = FloatArray::ensure(obj);
    if (!a) throw InputError("density must be an array of numbers");
    return std::vector<float>(a.data(), a.data() + a.size());
}

Image imageFromArray(const py::object& obj) {
    FloatArray a = FloatArray::ensure(obj);
    if (!a || a.ndim() != 3 || a.shape(2) != 3)
        throw InputError("an image must be an array of shape (height, width, 3)");
    Image image(int(a.shape(1)), int(a.shape(0)));
    if (!image.rgb.empty()) std::memcpy(image.rgb.data(), a.data(), image.rgb.size() * sizeof(float));
    return image;
}

/// Texture from (height, width, 4) texels: uint8 (rgba8, sRGB unless srgb is false) or float (linear).
Texture textureFromArray(const py::array& a, bool srgb) {
    if (a.ndim() != 3 || a.shape(2) != 4) throw InputError("a texture must be an array of shape (height, width, 4)");
    Texture t;
    t.height = int(a.shape(0));
    t.width = int(a.shape(1));
    t.srgb = srgb;
    if (a.dtype().is(py::dtype::of<std::uint8_t>())) {
        auto c = py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>::ensure(a);
        t.rgba8.assign(c.data(), c.data() + c.size());
    } else {
        FloatArray c = FloatArray::ensure(a);
        t.rgbaFloat.assign(c.data(), c.data() + c.size());
    }
    return t;
}

py::dict kernelDict(const KernelStats& k) {
    py::dict d;
    d["label"] = k.label;
    d["milliseconds"] = k.milliseconds;
    d["launches"] = k.launches;
    d["simdOccupancy"] = k.simdOccupancy;
    d["simdEfficiency"] = k.simdEfficiency;
    return d;
}

py::dict editDict(const EditStats& e) {
    py::dict d;
    d["what"] = e.what;
    d["bytesUploaded"] = e.bytesUploaded;
    d["bvh"] = e.bvh;
    d["bvhCostRatio"] = e.bvhCostRatio;
    d["lightsRebuilt"] = e.lightsRebuilt;
    d["filmReset"] = e.filmReset;
    d["seconds"] = e.seconds;
    d["bvhSeconds"] = e.bvhSeconds;
    d["count"] = e.count;
    return d;
}

/// RenderStats as a dict; `figures` are the integrator's own (integratorFigures: MLT's acceptance,
/// BDPT's connections, ... by name, negative when not measured), so a tool reads any integrator's.
py::dict statsDict(const RenderStats& s, IntegratorType integrator) {
    py::dict d;
    d["integrator"] = toString(integrator);
    d["backend"] = s.backend;
    d["seconds"] = s.seconds;
    d["samples"] = s.samples;
    d["cancelled"] = s.cancelled;
    d["extensionRays"] = s.extensionRays;
    d["shadowRays"] = s.shadowRays;
    d["nonFiniteSamples"] = s.nonFiniteSamples;
    d["skippedDegenerateTriangles"] = s.skippedDegenerateTriangles;
    d["bytesPerSampleSlot"] = s.bytesPerSampleSlot;
    d["triangles"] = s.triangles;
    d["spheres"] = s.spheres;
    d["instances"] = s.instances;
    d["textures"] = s.textures;
    d["textureBytes"] = s.textureBytes;
    d["sceneSetupSeconds"] = s.sceneSetupSeconds;
    d["bvhBuilder"] = s.bvhBuilder;
    d["memoryBytes"] = s.memoryBytes;
    d["peakMemoryBytes"] = s.peakMemoryBytes;
    d["streamCapacity"] = s.streamCapacity;
    py::list kernels;
    for (const KernelStats& k : s.kernels) kernels.append(kernelDict(k));
    d["kernels"] = kernels;
    py::list devices;
    for (const DeviceStats& dev : s.devices) {
        py::dict e;
        e["name"] = dev.name;
        e["samples"] = dev.samples;
        e["seconds"] = dev.seconds;
        e["pieces"] = dev.pieces;
        devices.append(e);
    }
    d["devices"] = devices;
    py::list edits;
    for (const EditStats& e : s.edits) edits.append(editDict(e));
    d["edits"] = edits;
    d["connections"] = s.bdpt.connections;
    d["connectPhases"] = s.bdpt.connectPhases;
    d["walkSimdEfficiency"] = s.bdpt.walkSimdEfficiency;
    d["connectSimdEfficiency"] = s.bdpt.connectSimdEfficiency;
    d["acceptanceRate"] = s.mlt.acceptanceRate;
    d["largeStepFraction"] = s.mlt.largeStepFraction;
    d["normalization"] = s.mlt.normalization;
    d["startupSamples"] = s.mlt.startupSamples;
    d["pilotSamples"] = s.mlt.pilotSamples;
    d["poolSamples"] = s.mlt.poolSamples;
    d["startupSeconds"] = s.mlt.startupSeconds;
    d["mutationsPerChain"] = s.mlt.mutationsPerChain;
    d["lengthChains"] = s.mlt.lengthChains;                // multiplexed MLT: per path length 1 .. maxDepth
    d["lengthNormalization"] = s.mlt.lengthNormalization;
    d["samplesPerSecond"] = s.samplesPerSecond();
    d["raysPerSecond"] = s.raysPerSecond();
    py::dict figures;
    for (const auto& [name, value] : integratorFigures(integrator, s)) figures[py::str(name)] = value;
    d["figures"] = figures;
    return d;
}

/// The Python side of one renderer's progress callback: the Python callable (or None) and the
/// exception it raised, kept until the render call returns. The render runs without the GIL and
/// the renderer copies its options there, so the callback holds this through a shared_ptr (copies
/// touch no Python reference count) whose deleter takes the GIL.
struct ProgressState {
    py::object callable;
    std::exception_ptr error;
};

std::shared_ptr<ProgressState> makeProgressState(py::object callable) {
    auto* s = new ProgressState{std::move(callable), nullptr};
    return std::shared_ptr<ProgressState>(s, [](ProgressState* p) {
        py::gil_scoped_acquire gil;
        delete p;
    });
}

/// Always installed, with or without a Python callable, so that Ctrl-C stops a render. An
/// exception from the callable (or KeyboardInterrupt) cancels the render and is raised again when
/// render() returns; the render loop itself never sees it.
ProgressCallback progressTrampoline(std::shared_ptr<ProgressState> state) {
    return [state](std::uint64_t done, std::uint64_t total, double seconds) -> bool {
        py::gil_scoped_acquire gil;
        if (state->error) return false;
        try {
            if (PyErr_CheckSignals() != 0) throw py::error_already_set();
            if (state->callable.is_none()) return true;
            py::object keep = state->callable(done, total, seconds);
            return keep.is_none() || py::bool_(keep);  // None: never cancels, as a void callable in C++
        } catch (...) {
            state->error = std::current_exception();
            return false;
        }
    };
}

const char* kProgressKey = "_progress";

py::object progressOf(const py::object& options) {
    py::dict attrs = options.attr("__dict__");
    return attrs.contains(kProgressKey) ? py::object(attrs[kProgressKey]) : py::object(py::none());
}

/// A Renderer and what Python needs around it: the progress state, and a lock that turns a second
/// thread's call during a render into an error instead of a data race.
struct PyRenderer {
    std::unique_ptr<Renderer> renderer;
    std::shared_ptr<ProgressState> progress;
    std::mutex busy;
    std::atomic<std::thread::id> owner{};  // the thread inside a call, so that a refusal names the right cause

    template <class F>
    auto locked(F&& f) {
        std::unique_lock<std::mutex> lock(busy, std::try_to_lock);
        if (!lock.owns_lock()) {
            if (owner.load() == std::this_thread::get_id())  // the progress callback runs on the rendering thread
                throw Error("this Renderer is already rendering: its own progress callback cannot call it (render, "
                            "image, stats, ...); return False to cancel, then call it after render() returns");
            throw std::runtime_error("this Renderer is rendering on another thread");
        }
        owner = std::this_thread::get_id();
        struct Release {
            std::atomic<std::thread::id>& owner;
            ~Release() { owner = std::thread::id(); }
        } release{owner};
        return f(*renderer);
    }

    /// An edit: refused with wavefront.Error while a call runs (from another thread or the
    /// progress callback), as the C++ Renderer refuses it; the GIL is released for its device work.
    template <class F>
    py::dict edit(F&& f) {
        std::unique_lock<std::mutex> lock(busy, std::try_to_lock);
        if (!lock.owns_lock())
            throw Error(owner.load() == std::this_thread::get_id()
                            ? "this Renderer is already rendering: an edit from its own progress callback must wait "
                              "until render() returns (return False to cancel)"
                            : "this Renderer is already rendering: an edit must not overlap a render() or renderMore() "
                              "call");
        EditStats st;
        {
            py::gil_scoped_release release;
            st = f(*renderer);
        }
        return editDict(st);
    }

    template <class F>
    void run(F&& f) {
        locked([&](Renderer& r) {
            progress->error = nullptr;  // left over when the last call failed in C++ after the callback raised
            {
                py::gil_scoped_release release;
                f(r);
            }
            if (progress->error) std::rethrow_exception(std::exchange(progress->error, nullptr));
            return 0;
        });
    }
};

/// copy.copy and copy.deepcopy of a value type bound as module attribute `name`: a C++ copy.
template <class T>
void addCopies(py::module_& m, const char* name) {
    py::object cls = m.attr(name);
    py::setattr(cls, "__copy__", py::cpp_function([](const T& t) { return T(t); }, py::is_method(cls)));
    py::setattr(cls, "__deepcopy__",
                py::cpp_function([](const T& t, const py::object&) { return T(t); }, py::is_method(cls), "memo"_a));
}

/// Exception types: Error(RuntimeError), InputError(Error, ValueError), CudaError(Error).
void registerExceptions(py::module_& m) {
    static py::handle error, inputError, cudaError;  // module objects live for the process
    py::object builtins = py::module_::import("builtins");
    py::object type = builtins.attr("type");
    error = type("Error", py::make_tuple(builtins.attr("RuntimeError")), py::dict("__module__"_a = "wavefront"))
                .release();
    inputError = type("InputError", py::make_tuple(error, builtins.attr("ValueError")),
                      py::dict("__module__"_a = "wavefront"))
                     .release();
    cudaError = type("CudaError", py::make_tuple(error), py::dict("__module__"_a = "wavefront")).release();
    m.attr("Error") = error;
    m.attr("InputError") = inputError;
    m.attr("CudaError") = cudaError;
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const InputError& e) {
            PyErr_SetString(inputError.ptr(), e.what());
        } catch (const CudaError& e) {
            PyErr_SetString(cudaError.ptr(), e.what());
        } catch (const Error& e) {
            PyErr_SetString(error.ptr(), e.what());
        }
    });
}

}  // namespace

PYBIND11_MODULE(_wavefront, m) {
    m.doc() = "wavefront: wavefront path tracing, BDPT and MLT on the CPU and CUDA";
    m.attr("__version__") = WAVEFRONT_VERSION;
#ifdef WAVEFRONT_HAS_CUDA
    m.attr("HAS_CUDA") = true;
#else
    m.attr("HAS_CUDA") = false;
#endif
    registerExceptions(m);

    py::enum_<Backend>(m, "Backend").value("Auto", Backend::Auto).value("Cuda", Backend::Cuda).value("Cpu", Backend::Cpu);
    {
        py::enum_<IntegratorType> integratorType(m, "IntegratorType");
        for (const IntegratorInfo& info : integrators()) integratorType.value(info.typeName.c_str(), info.type);
    }
    py::enum_<PtVariant>(m, "PtVariant")
        .value("Megakernel", PtVariant::Megakernel)
        .value("PtR", PtVariant::PtR)
        .value("Spt", PtVariant::Spt)
        .value("SptR", PtVariant::SptR);
    py::enum_<BdptVariant>(m, "BdptVariant").value("Streaming", BdptVariant::Streaming).value("Naive", BdptVariant::Naive);
    py::enum_<EditMode>(m, "EditMode")
        .value("ResetFilm", EditMode::ResetFilm)
        .value("Accumulate", EditMode::Accumulate);
    py::enum_<BvhUpdate>(m, "BvhUpdate")
        .value("Auto", BvhUpdate::Auto)
        .value("Refit", BvhUpdate::Refit)
        .value("Rebuild", BvhUpdate::Rebuild);
    py::enum_<BvhBuilder>(m, "BvhBuilder")
        .value("Auto", BvhBuilder::Auto)
        .value("Lbvh", BvhBuilder::Lbvh)
        .value("Ploc", BvhBuilder::Ploc);
    py::enum_<LightSampler>(m, "LightSampler")
        .value("BinarySearch", LightSampler::BinarySearch)
        .value("GuideTable", LightSampler::GuideTable)
        .value("RadixForest", LightSampler::RadixForest)
        .value("Alias", LightSampler::Alias);
    {
        py::enum_<MaterialType> materialType(m, "MaterialType");
        for (const auto& [type, name] : materialTypeNames()) materialType.value(name.c_str(), type);
    }

    m.def("toString", py::overload_cast<Backend>(&toString));
    m.def("toString", py::overload_cast<PtVariant>(&toString));
    m.def("toString", py::overload_cast<IntegratorType>(&toString));
    m.def("toString", py::overload_cast<BdptVariant>(&toString));
    m.def("toString", py::overload_cast<LightSampler>(&toString));
    m.def("toString", py::overload_cast<BvhBuilder>(&toString));
    m.def("cudaDeviceCount", &cudaDeviceCount, "CUDA devices this build can use (0 without CUDA or a GPU)");
    m.def("parseBackend", &parseBackend);
    m.def("parsePtVariant", &parsePtVariant);
    m.def("parseIntegrator", &parseIntegrator);
    m.def("parseBdptVariant", &parseBdptVariant);
    m.def("parseLightSampler", &parseLightSampler);
    m.def("parseBvhBuilder", &parseBvhBuilder);
    m.def("cudaDeviceCount", &cudaDeviceCount);

    // ---- Images --------------------------------------------------------------------------------
    // The buffer protocol makes numpy.asarray(image) a float32 (height, width, 3) view of the
    // image's own memory (which the array keeps alive); Renderer.image() returns a fresh Image.
    py::class_<Image>(m, "Image",
                      "Linear RGB float32, row-major from the top row (wavefront::Image). It is a NumPy array "
                      "without a copy: .shape (height, width, 3), indexing and numpy functions work on it directly",
                      py::buffer_protocol())
        .def(py::init<>())
        .def(py::init<int, int>(), "width"_a, "height"_a)
        .def(py::init(&imageFromArray), "array"_a, "A copy of a (height, width, 3) array of linear RGB")
        .def_readonly("width", &Image::width)
        .def_readonly("height", &Image::height)
        .def_buffer([](Image& im) {
            return py::buffer_info(im.rgb.data(), sizeof(float), py::format_descriptor<float>::format(), 3,
                                   {py::ssize_t(im.height), py::ssize_t(im.width), py::ssize_t(3)},
                                   {py::ssize_t(sizeof(float)) * 3 * im.width, py::ssize_t(sizeof(float)) * 3,
                                    py::ssize_t(sizeof(float))});
        })
        .def("__repr__", [](const Image& im) {
            return "<wavefront.Image " + std::to_string(im.width) + "x" + std::to_string(im.height) + ">";
        })
        // As a NumPy array without numpy.asarray: shape, dtype, indexing and NumPy functions (a view).
        .def_property_readonly("shape", [](const Image& im) { return py::make_tuple(im.height, im.width, 3); })
        .def_property_readonly("ndim", [](const Image&) { return 3; })
        .def_property_readonly("dtype", [](const Image&) { return py::dtype::of<float>(); })
        .def("__len__", [](const Image& im) { return im.height; })
        .def("__array__", [](py::object self, py::object dtype, py::object) {
                 py::object view = py::module_::import("numpy").attr("asarray")(py::memoryview(self));
                 return dtype.is_none() ? view : view.attr("astype")(dtype);
             },
             "dtype"_a = py::none(), "copy"_a = py::none())
        .def("__getitem__", [](py::object self, py::object key) {
            return py::module_::import("numpy").attr("asarray")(py::memoryview(self)).attr("__getitem__")(key);
        });
    py::implicitly_convertible<py::array, Image>();

    py::class_<Film>(m, "Film")
        .def_readonly("width", &Film::width)
        .def_readonly("height", &Film::height)
        .def_property_readonly(
            "sum",
            [](py::object self) {
                Film& f = self.cast<Film&>();
                return py::array_t<double>({py::ssize_t(f.height), py::ssize_t(f.width), py::ssize_t(3)}, f.sum.data(),
                                           self);
            },
            "(height, width, 3) float64 view of the per-pixel radiance sums")
        .def_property_readonly(
            "samples",
            [](py::object self) {
                Film& f = self.cast<Film&>();
                return py::array_t<std::uint32_t>({py::ssize_t(f.height), py::ssize_t(f.width)}, f.samples.data(), self);
            },
            "(height, width) uint32 view of the per-pixel sample counts")
        .def("resolve", [](const Film& f) { return f.resolve(); });

    py::enum_<PixelFilter>(m, "PixelFilter")
        .value("Box", PixelFilter::Box)
        .value("Gaussian", PixelFilter::Gaussian)
        .value("Mitchell", PixelFilter::Mitchell);
    py::enum_<ToneMap>(m, "ToneMap").value("Clamp", ToneMap::Clamp).value("Reinhard", ToneMap::Reinhard).value("Aces", ToneMap::Aces);
    m.def("writeImage", &writeImage, "path"_a, "image"_a, "exposure"_a = 0.0f, "toneMap"_a = ToneMap::Clamp,
          py::call_guard<py::gil_scoped_release>());
    m.def("filterImage", &filterImage, "image"_a, "filter"_a);
    py::class_<AovImages>(m, "AovImages", "First-hit albedo, normal, depth and the variance of the estimate (empty: not rendered)")
        .def_readonly("albedo", &AovImages::albedo)
        .def_readonly("normal", &AovImages::normal)
        .def_readonly("depth", &AovImages::depth)
        .def_readonly("variance", &AovImages::variance);
    m.def("writeImageWithAovs", &writeImageWithAovs, "path"_a, "image"_a, "aovs"_a,
          py::call_guard<py::gil_scoped_release>());
    m.def("readImageLayer", &readImageLayer, "path"_a, "layer"_a);
    m.def("checkImagePath", &checkImagePath, "path"_a);
    m.def("readImage", &readImage, "path"_a, py::call_guard<py::gil_scoped_release>());

    // ---- Scenes ---------------------------------------------------------------------------------
    py::class_<Material>(m, "Material",
                         "A surface (wavefront::Material): type and its parameters; Material(type='dielectric', "
                         "ior=1.5) or the static constructors diffuse(), mirror(), dielectric(), ...")
        .def(py::init<>())
        .def_readwrite("type", &Material::type)
        .def_readwrite("diffuse", &Material::diffuse)
        .def_readwrite("specular", &Material::specular)
        .def_readwrite("exponent", &Material::exponent)
        .def_readwrite("ior", &Material::ior)
        .def_readwrite("emission", &Material::emission)
        .def_readwrite("roughness", &Material::roughness)
        .def_readwrite("metallic", &Material::metallic)
        .def_readwrite("complexIor", &Material::complexIor)
        .def_readwrite("eta", &Material::eta)
        .def_readwrite("k", &Material::k)
        .def_readwrite("baseRoughness", &Material::baseRoughness)
        .def_readwrite("thickness", &Material::thickness)
        .def_readwrite("mediumAlbedo", &Material::mediumAlbedo)
        .def_readwrite("mediumG", &Material::mediumG)
        .def_readwrite("layerDepth", &Material::layerDepth)
        .def_readwrite("layerSamples", &Material::layerSamples)
        .def_readwrite("baseColorTexture", &Material::baseColorTexture)
        .def_readwrite("metallicRoughnessTexture", &Material::metallicRoughnessTexture)
        .def_readwrite("normalTexture", &Material::normalTexture)
        .def_readwrite("normalScale", &Material::normalScale)
        .def_readwrite("emissionTexture", &Material::emissionTexture)
        .def_static("lambertian", &Material::lambertian, "albedo"_a, "emission"_a = glm::vec3(0.0f))
        .def_static("glossy", &Material::glossy, "diffuse"_a, "specular"_a, "exponent"_a)
        .def_static("mirror", &Material::mirror, "tint"_a = glm::vec3(1.0f))
        .def_static("dielectric", &Material::dielectric, "ior"_a = 1.5f)
        .def_static("conductor", &Material::conductor, "tint"_a, "roughness"_a)
        .def_static("conductorIor", &Material::conductorIor, "eta"_a, "k"_a, "roughness"_a)
        .def_static("roughDielectric", &Material::roughDielectric, "ior"_a, "roughness"_a)
        .def_static("metallicRoughness", &Material::metallicRoughness, "baseColour"_a, "metallic"_a, "roughness"_a)
        .def_static("coatedDiffuse", &Material::coatedDiffuse, "reflectance"_a, "roughness"_a = 0.0f, "ior"_a = 1.5f,
                    "thickness"_a = 0.01f)
        .def_static("coatedConductor", &Material::coatedConductor, "eta"_a, "k"_a, "baseRoughness"_a = 0.0f,
                    "roughness"_a = 0.0f, "ior"_a = 1.5f, "thickness"_a = 0.01f)
        .def_static("interface", &Material::interface,
                    "No surface, only a medium's boundary: give the shape mediumInside and mediumOutside")
        .def("isEmissive", &Material::isEmissive);

    // Mesh arrays are NumPy arrays both ways (copies): positions and normals (N, 3) float32, uvs
    // (N, 2), indices (M, 3) triangles or a flat list of three per triangle.
    py::class_<TriangleMesh>(m, "TriangleMesh",
                             "Triangles sharing a material (wavefront::TriangleMesh): positions, normals, uvs as "
                             "NumPy arrays and integer indices (M, 3)")
        .def(py::init<>())
        .def_property(
            "positions", [](const TriangleMesh& t) { return arrayFromVectors(t.positions); },
            [](TriangleMesh& t, py::object a) { t.positions = vectorsFromArray<glm::vec3>(a, "positions"); })
        .def_property(
            "normals", [](const TriangleMesh& t) { return arrayFromVectors(t.normals); },
            [](TriangleMesh& t, py::object a) { t.normals = vectorsFromArray<glm::vec3>(a, "normals"); })
        .def_property(
            "uvs", [](const TriangleMesh& t) { return arrayFromVectors(t.uvs); },
            [](TriangleMesh& t, py::object a) { t.uvs = vectorsFromArray<glm::vec2>(a, "uvs"); })
        .def_property(
            "indices",
            [](const TriangleMesh& t) {
                py::array_t<std::uint32_t> a({py::ssize_t(t.indices.size() / 3), py::ssize_t(3)});
                if (!t.indices.empty()) std::memcpy(a.mutable_data(), t.indices.data(), t.indices.size() * 4);
                return a;
            },
            [](TriangleMesh& t, py::object obj) {
                // Whole numbers only: a float array would be truncated (1.7 -> 1) without a word.
                const py::array raw = py::array::ensure(obj);
                if (raw && raw.size() > 0 && raw.dtype().kind() != 'i' && raw.dtype().kind() != 'u')
                    throw InputError("indices must be integers, not " + std::string(py::str(raw.dtype())) +
                                     " (a float index would be truncated)");
                // Read as int64 so that a negative index is an error rather than a wrapped uint32.
                auto a = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(obj);
                if (!a || a.size() % 3 != 0) throw InputError("indices must be three integers per triangle");
                std::vector<std::uint32_t> out(std::size_t(a.size()));
                for (py::ssize_t i = 0; i < a.size(); ++i) {
                    std::int64_t v = a.data()[i];
                    if (v < 0 || v > std::int64_t(UINT32_MAX)) throw InputError("index " + std::to_string(v) + " out of range");
                    out[std::size_t(i)] = std::uint32_t(v);
                }
                t.indices = std::move(out);
            })
        .def_readwrite("material", &TriangleMesh::material)
        .def_readwrite("mediumInside", &TriangleMesh::mediumInside,
                       "the medium behind the surface (against the geometric normal): Scene.addMedium's index, "
                       "kVacuum for none")
        .def_readwrite("mediumOutside", &TriangleMesh::mediumOutside, "the medium on the normal's side, or kVacuum");

    m.attr("kVacuum") = kVacuum;

    py::class_<Sphere>(m, "Sphere", "An analytic sphere: center, radius and a material index")
        .def(py::init<>())
        .def(py::init([](glm::vec3 c, float r, int mat) { return Sphere{c, r, mat}; }), "center"_a, "radius"_a,
             "material"_a = 0)
        .def_readwrite("center", &Sphere::center)
        .def_readwrite("radius", &Sphere::radius)
        .def_readwrite("material", &Sphere::material)
        .def_readwrite("mediumInside", &Sphere::mediumInside, "the medium within the sphere, or kVacuum")
        .def_readwrite("mediumOutside", &Sphere::mediumOutside, "the medium around it, or kVacuum");

    py::enum_<MediumType>(m, "MediumType")
        .value("Homogeneous", MediumType::Homogeneous)
        .value("Grid", MediumType::Grid);
    // density is a NumPy array both ways (a copy): float32, flat, x fastest; any shape goes in,
    // read in C order, so a (nz, ny, nx) array is the grid as it is indexed.
    py::class_<Medium>(m, "Medium",
                       "A participating medium (wavefront::Medium): sigmaA and sigmaS per unit length (RGB), times "
                       "scale, Henyey-Greenstein g in (-1, 1); a grid's density (nx*ny*nz, x fastest) spans the box "
                       "boundsMin..boundsMax placed by mediumToWorld; Medium.homogeneous() or Medium.grid()")
        .def(py::init<>())
        .def_readwrite("type", &Medium::type)
        .def_readwrite("sigmaA", &Medium::sigmaA)
        .def_readwrite("sigmaS", &Medium::sigmaS)
        .def_readwrite("scale", &Medium::scale)
        .def_readwrite("g", &Medium::g)
        .def_readwrite("nx", &Medium::nx)
        .def_readwrite("ny", &Medium::ny)
        .def_readwrite("nz", &Medium::nz)
        .def_property(
            "density",
            [](const Medium& md) {
                py::array_t<float> a(py::ssize_t(md.density.size()));
                if (!md.density.empty())
                    std::memcpy(a.mutable_data(), md.density.data(), md.density.size() * sizeof(float));
                return a;
            },
            [](Medium& md, const py::object& a) { md.density = densityFromArray(a); },
            "grid density values (float32, nx*ny*nz, x fastest); a (nz, ny, nx) array is read in C order")
        .def_readwrite("boundsMin", &Medium::boundsMin)
        .def_readwrite("boundsMax", &Medium::boundsMax)
        .def_property(
            "mediumToWorld", [](const Medium& md) { return arrayFromMatrix(md.mediumToWorld); },
            [](Medium& md, const py::object& a) { md.mediumToWorld = matrixFromArray(a, "mediumToWorld"); },
            "a grid's placement: a (4, 4) or (3, 4) row-major affine transform")
        .def_static("homogeneous", &Medium::homogeneous, "sigmaA"_a, "sigmaS"_a, "g"_a = 0.0f)
        .def_static(
            "grid",
            [](glm::vec3 sigmaA, glm::vec3 sigmaS, float g, int nx, int ny, int nz, const py::object& density,
               glm::vec3 boundsMin, glm::vec3 boundsMax) {
                return Medium::grid(sigmaA, sigmaS, g, nx, ny, nz, densityFromArray(density), boundsMin, boundsMax);
            },
            "sigmaA"_a, "sigmaS"_a, "g"_a, "nx"_a, "ny"_a, "nz"_a, "density"_a, "boundsMin"_a = glm::vec3(0.0f),
            "boundsMax"_a = glm::vec3(1.0f))
        .def("sigmaT", &Medium::sigmaT, "extinction: (sigmaA + sigmaS) * scale");

    py::class_<Texture>(m, "Texture")
        .def(py::init(&textureFromArray), "texels"_a, "srgb"_a = true,
             "A texture from (height, width, 4) texels: uint8 (sRGB unless srgb=False) or float (linear)")
        .def_readonly("width", &Texture::width)
        .def_readonly("height", &Texture::height)
        .def_readonly("srgb", &Texture::srgb)
        .def("bytes", &Texture::bytes);

    py::class_<Camera>(m, "Camera",
                       "A pinhole or thin-lens camera (wavefront::Camera): position, target, up, vertical field "
                       "of view in degrees; lensRadius > 0 focuses at focusDistance")
        .def(py::init<>())
        .def_readwrite("position", &Camera::position)
        .def_readwrite("target", &Camera::target)
        .def_readwrite("up", &Camera::up)
        .def_readwrite("verticalFovDegrees", &Camera::verticalFovDegrees)
        .def_readwrite("lensRadius", &Camera::lensRadius)
        .def_readwrite("focusDistance", &Camera::focusDistance)
        .def_readwrite("medium", &Camera::medium, "the medium the camera sits in (Scene.addMedium's index), or kVacuum");

    py::class_<SkyGradient>(m, "SkyGradient", "A sky blending nadir to zenith radiance (the rtiow sky)")
        .def(py::init<>())
        .def_readwrite("nadir", &SkyGradient::nadir)
        .def_readwrite("zenith", &SkyGradient::zenith);

    py::enum_<LightType>(m, "LightType")
        .value("Point", LightType::Point)
        .value("Spot", LightType::Spot)
        .value("Directional", LightType::Directional);
    py::class_<Light>(m, "Light", "A point, spot or directional light (wavefront::Light)")
        .def(py::init<>())
        .def_readwrite("type", &Light::type)
        .def_readwrite("position", &Light::position)
        .def_readwrite("direction", &Light::direction)
        .def_readwrite("intensity", &Light::intensity)
        .def_readwrite("innerConeDegrees", &Light::innerConeDegrees)
        .def_readwrite("outerConeDegrees", &Light::outerConeDegrees)
        .def_readwrite("medium", &Light::medium,
                       "the medium the light sits in (point, spot) or arrives through (directional), or kVacuum")
        .def_static("point", &Light::point, "position"_a, "intensity"_a)
        .def_static("spot", &Light::spot, "position"_a, "direction"_a, "intensity"_a, "innerConeDegrees"_a,
                    "outerConeDegrees"_a)
        .def_static("directional", &Light::directional, "direction"_a, "irradiance"_a);

    py::class_<SceneLoadOptions>(m, "SceneLoadOptions")
        .def(py::init<>())
        .def(py::init([](bool allow) { return SceneLoadOptions{allow}; }), "allowExternalFiles"_a)
        .def_readwrite("allowExternalFiles", &SceneLoadOptions::allowExternalFiles);

    auto load = py::call_guard<py::gil_scoped_release>();
    py::class_<Scene>(m, "Scene",
                      "Geometry, materials, textures, lights, camera and environment (wavefront::Scene); "
                      "Scene.fromNameOrPath('cornell-box') loads a built-in scene or a file")
        .def(py::init<>())
        .def("copy", [](const Scene& s) { return Scene(s); })
        .def("addMaterial", &Scene::addMaterial, "material"_a)
        .def("addTexture", &Scene::addTexture, "texture"_a)
        .def("addMesh", &Scene::addMesh, "mesh"_a)
        .def("addSphere", &Scene::addSphere, "sphere"_a)
        .def("addObject", &Scene::addObject, "meshes"_a,
             "Adds meshes drawn only where addInstance places them; returns the object's index")
        .def(
            "addInstance",
            [](Scene& s, int object, const py::object& m) { return s.addInstance(object, matrixFromArray(m, "objectToWorld")); },
            "object"_a, "objectToWorld"_a, "Places an object by a (4, 4) or (3, 4) row-major affine transform; returns the instance's index")
        .def("objectCount", [](const Scene& s) { return s.objects().size(); })
        .def("instances",
             [](const Scene& s) {
                 py::list out;
                 for (const Instance& i : s.instances())
                     out.append(py::dict("object"_a = i.object, "objectToWorld"_a = arrayFromMatrix(i.objectToWorld)));
                 return out;
             })
        .def("addLight", &Scene::addLight, "light"_a)
        .def("addMedium", &Scene::addMedium, "medium"_a,
             "Adds a participating medium; returns its index for mediumInside/mediumOutside and Camera.medium")
        .def("media", &Scene::media, "Copies of the media")
        .def("hasMedia", &Scene::hasMedia)
        .def("lights", &Scene::lights)
        .def("setCamera", &Scene::setCamera, "camera"_a)
        .def("camera", &Scene::camera)
        .def("frameCamera", &Scene::frameCamera, "up"_a = glm::vec3(0.0f, 1.0f, 0.0f), "verticalFovDegrees"_a = 40.0f)
        .def("cameraIsDefault", &Scene::cameraIsDefault)
        .def("setEnvironment", &Scene::setEnvironment, "image"_a, "scale"_a = 1.0f)
        .def("environment", &Scene::environment)
        .def("hasEnvironment", &Scene::hasEnvironment)
        .def("setSkyGradient", &Scene::setSkyGradient, "sky"_a)
        .def("hasSkyGradient", &Scene::hasSkyGradient)
        .def("skyGradient", &Scene::skyGradient)
        .def("validate", &Scene::validate, "requireEmitter"_a = true)
        .def("materials", &Scene::materials, "Copies of the materials; change one with setMaterial")
        .def("setMaterial", &Scene::setMaterial, "index"_a, "material"_a)
        .def("setTexture", &Scene::setTexture, "index"_a, "texture"_a)
        .def("setLight", &Scene::setLight, "index"_a, "light"_a)
        .def(
            "setInstanceTransform",
            [](Scene& s, int index, const py::object& m) { s.setInstanceTransform(index, matrixFromArray(m, "objectToWorld")); },
            "index"_a, "objectToWorld"_a)
        .def(
            "setMeshPositions",
            [](Scene& s, int mesh, const py::object& positions, const py::object& normals) {
                s.setMeshPositions(mesh, vectorsFromArray<glm::vec3>(positions, "positions"),
                                   normals.is_none() ? std::vector<glm::vec3>{} : vectorsFromArray<glm::vec3>(normals, "normals"));
            },
            "mesh"_a, "positions"_a, "normals"_a = py::none())
        .def("meshes",
             [](const Scene& s) {
                 py::list out;
                 for (const MeshRange& r : s.meshes())
                     out.append(py::dict("firstVertex"_a = r.firstVertex, "vertexCount"_a = r.vertexCount,
                                         "material"_a = r.material, "mediumInside"_a = r.mediumInside,
                                         "mediumOutside"_a = r.mediumOutside, "hasNormals"_a = r.hasNormals));
                 return out;
             })
        .def("spheres", &Scene::spheres)
        .def("positions", [](const Scene& s) { return arrayFromVectors(s.positions()); })
        .def("triangles",
             [](const Scene& s) {
                 py::array_t<std::uint32_t> a({py::ssize_t(s.triangles().size()), py::ssize_t(3)});
                 if (!s.triangles().empty()) std::memcpy(a.mutable_data(), s.triangles().data(), s.triangles().size() * 12);
                 return a;
             })
        .def("primitiveCount", &Scene::primitiveCount)
        .def("skippedDegenerateTriangles", &Scene::skippedDegenerateTriangles)
        .def("warnings", &Scene::warnings)
        .def("addWarning", &Scene::addWarning, "message"_a)
        .def_static("builtin", &Scene::builtin, "name"_a)
        .def_static("builtinSceneNames", &Scene::builtinSceneNames)
        .def_static("loadObj", &Scene::loadObj, "path"_a, "options"_a = SceneLoadOptions{}, load)
        .def_static("loadAssimp", &Scene::loadAssimp, "path"_a, "options"_a = SceneLoadOptions{}, load)
        .def_static("loadFile", &Scene::loadFile, "path"_a, "options"_a = SceneLoadOptions{}, load)
        .def_static("fromNameOrPath", &Scene::fromNameOrPath, "nameOrPath"_a, "options"_a = SceneLoadOptions{}, load)
        .def_readonly_static("kMaxCoordinate", &Scene::kMaxCoordinate)
        .def_readonly_static("kMaxMedia", &Scene::kMaxMedia)
        .def_readonly_static("kMaxGridValues", &Scene::kMaxGridValues);
    m.def("skyEnvironment", &skyEnvironment, "kind"_a, "up"_a = glm::vec3(0.0f, 1.0f, 0.0f));

    // ---- Rendering ------------------------------------------------------------------------------
    py::class_<PtOptions>(m, "PtOptions", "Path tracing's options (RenderOptions.pt)")
        .def(py::init<>())
        .def_readwrite("variant", &PtOptions::variant)
        .def_readwrite("nextEventEstimation", &PtOptions::nextEventEstimation);
    py::class_<BidirectionalOptions>(m, "BidirectionalOptions")
        .def_readwrite("connectThreshold", &BidirectionalOptions::connectThreshold)
        .def_readwrite("cameraConnections", &BidirectionalOptions::cameraConnections)
        .def_readwrite("coalescedVertexWrites", &BidirectionalOptions::coalescedVertexWrites);
    py::class_<BdptOptions, BidirectionalOptions>(m, "BdptOptions", "Bidirectional path tracing's options (RenderOptions.bdpt)")
        .def(py::init<>())
        .def_readwrite("variant", &BdptOptions::variant)
        .def_readwrite("strategyS", &BdptOptions::strategyS)
        .def_readwrite("strategyT", &BdptOptions::strategyT)
        .def("connectThresholdOrDefault", &BdptOptions::connectThresholdOrDefault);
    py::class_<MltOptions, BidirectionalOptions>(m, "MltOptions", "Metropolis light transport's options (RenderOptions.mlt)")
        .def(py::init<>())
        .def_readwrite("largeStepProbability", &MltOptions::largeStepProbability)
        .def_readwrite("smallStep", &MltOptions::smallStep)
        .def_readwrite("relativeImportance", &MltOptions::relativeImportance)
        .def_readwrite("startupResampling", &MltOptions::startupResampling)
        .def_readwrite("chains", &MltOptions::chains)
        .def_readwrite("poolSize", &MltOptions::poolSize)
        .def_static("multiplexed", &MltOptions::multiplexed)  // MMLT's defaults
        .def("connectThresholdOrDefault", &MltOptions::connectThresholdOrDefault);
    py::class_<VcmOptions>(m, "VcmOptions", "Vertex connection and merging's options (RenderOptions.vcm)")
        .def(py::init<>())
        .def_readwrite("radius", &VcmOptions::radius)
        .def_readwrite("alpha", &VcmOptions::alpha)
        .def_readwrite("lightPaths", &VcmOptions::lightPaths)
        .def_readwrite("variant", &VcmOptions::variant);

    py::class_<IntegratorOptionInfo>(m, "IntegratorOptionInfo")
        .def_readonly("name", &IntegratorOptionInfo::name)
        .def_readonly("flag", &IntegratorOptionInfo::flag)
        .def_readonly("help", &IntegratorOptionInfo::help)
        .def_readonly("defaultValue", &IntegratorOptionInfo::defaultValue);
    py::class_<IntegratorInfo>(m, "IntegratorInfo")
        .def_readonly("type", &IntegratorInfo::type)
        .def_readonly("name", &IntegratorInfo::name)
        .def_readonly("description", &IntegratorInfo::description)
        .def_readonly("options", &IntegratorInfo::options)
        .def_readonly("rendersSampleRanges", &IntegratorInfo::rendersSampleRanges)
        .def_readonly("typeName", &IntegratorInfo::typeName);
    m.def("integrators", &integrators, "Every integrator of the registry, with its options");

    // dynamic_attr: the Python progress callable is kept in the object's __dict__ (the C++
    // ProgressCallback cannot give it back); Renderer wraps it when it is constructed.
    py::class_<RenderOptions>(m, "RenderOptions",
                              "What a render does (wavefront::RenderOptions): integrator, backend, resolution, "
                              "samples per pixel or a time limit, seed, depth, the integrators' own blocks. "
                              "RenderOptions(width=64, integrator='bdpt') sets fields by keyword; enum fields take "
                              "their names; copy.copy() copies (the progress callable included)",
                              py::dynamic_attr())
        .def(py::init<>())
        .def_readwrite("integrator", &RenderOptions::integrator)
        .def_readwrite("backend", &RenderOptions::backend)
        .def_readwrite("width", &RenderOptions::width)
        .def_readwrite("height", &RenderOptions::height)
        .def_readwrite("samplesPerPixel", &RenderOptions::samplesPerPixel)
        .def_readwrite("timeLimitSeconds", &RenderOptions::timeLimitSeconds)
        .def_readwrite("maxDepth", &RenderOptions::maxDepth)
        .def_readwrite("rouletteDepth", &RenderOptions::rouletteDepth)
        .def_readwrite("seed", &RenderOptions::seed)
        .def_readwrite("firstPass", &RenderOptions::firstPass)
        .def_readwrite("devices", &RenderOptions::devices)
        .def_readwrite("lightSampler", &RenderOptions::lightSampler)
        .def_readwrite("bvhBuilder", &RenderOptions::bvhBuilder)
        .def_readwrite("environmentMap", &RenderOptions::environmentMap)
        .def_readwrite("environmentScale", &RenderOptions::environmentScale)
        .def_readwrite("streamCapacity", &RenderOptions::streamCapacity)
        .def_readwrite("cpuThreads", &RenderOptions::cpuThreads)
        .def_readwrite("aovs", &RenderOptions::aovs)
        .def_readwrite("filter", &RenderOptions::filter)
        .def_property(
            "crop",
            [](const RenderOptions& o) -> py::object {
                if (!o.crop) return py::none();
                return py::make_tuple(o.crop->x0, o.crop->y0, o.crop->x1, o.crop->y1);
            },
            [](RenderOptions& o, py::object v) {
                if (v.is_none()) {
                    o.crop.reset();
                    return;
                }
                auto c = v.cast<std::tuple<int, int, int, int>>();
                o.crop = CropWindow{std::get<0>(c), std::get<1>(c), std::get<2>(c), std::get<3>(c)};
            },
            "crop window (x0, y0, x1, y1): columns x0..x1-1 and rows y0..y1-1 of the frame, or None; the film "
            "and image are the window's size (validate() checks it against the resolution)")
        .def_property(
            "cudaStream", [](const RenderOptions& o) { return reinterpret_cast<std::uintptr_t>(o.cudaStream); },
            [](RenderOptions& o, py::object v) {
                o.cudaStream = v.is_none() ? nullptr : reinterpret_cast<void*>(v.cast<std::uintptr_t>());
            },
            "a host's CUDA stream as an integer handle (e.g. cupy.cuda.Stream().ptr), or 0 / None: the renderer "
            "works on it instead of a stream of its own (CUDA, one device; RenderOptions::cudaStream)")
        .def("filmWidth", &RenderOptions::filmWidth)
        .def("filmHeight", &RenderOptions::filmHeight)
        .def_readwrite("pt", &RenderOptions::pt)
        .def_readwrite("bdpt", &RenderOptions::bdpt)
        .def_readwrite("mlt", &RenderOptions::mlt)
        .def_readwrite("mmlt", &RenderOptions::mmlt)
        .def_readwrite("vcm", &RenderOptions::vcm)
        .def_readwrite("bpm", &RenderOptions::bpm)
        .def_readwrite("ppm", &RenderOptions::ppm)
        .def_property(
            "progress", [](py::object self) { return progressOf(self); },
            [](py::object self, py::object callable) {
                if (!callable.is_none() && !PyCallable_Check(callable.ptr()))
                    throw InputError("progress must be a callable (done, total, seconds) or None");
                self.attr("__dict__")[kProgressKey] = callable;
            },
            "callable(done, total, seconds) called between passes; returning False cancels the render")
        .def("setIntegratorOption", &setIntegratorOption, "name"_a, "value"_a,
             "Sets an option of the chosen integrator by its registry name (e.g. 'large-step', '0.3')")
        .def("integratorOption", &integratorOption, "name"_a)
        .def("validate", &RenderOptions::validate);

    py::class_<DeviceImage>(m, "DeviceImage",
                            "The film's estimate where the backend keeps it (Renderer.deviceImage()): owned by the "
                            "renderer, valid until its next call; CUDA consumers read it through "
                            "__cuda_array_interface__ (shape (height, width, 3), float32, read-only)")
        .def_readonly("width", &DeviceImage::width)
        .def_readonly("height", &DeviceImage::height)
        .def_readonly("onDevice", &DeviceImage::onDevice)
        .def_property_readonly("pointer", [](const DeviceImage& d) { return reinterpret_cast<std::uintptr_t>(d.rgb); })
        .def_property_readonly("__cuda_array_interface__",
                               [](const DeviceImage& d) {
                                   if (!d.onDevice) throw py::attribute_error("a CPU renderer's image is host memory");
                                   py::dict i;
                                   i["shape"] = py::make_tuple(d.height, d.width, 3);
                                   i["typestr"] = "<f4";
                                   i["data"] = py::make_tuple(reinterpret_cast<std::uintptr_t>(d.rgb), true);
                                   i["strides"] = py::none();
                                   i["version"] = 3;
                                   // A consumer on another stream waits for the host's stream first.
                                   if (d.stream) i["stream"] = reinterpret_cast<std::uintptr_t>(d.stream);
                                   return i;
                               })
        .def("copyToHost", [](const DeviceImage& d) { return copyToHost(d); }, "An Image on the host (waits for the device)");

    py::class_<PyRenderer>(m, "Renderer",
                           "Renders a copy of a scene with options (wavefront::Renderer): render(), renderMore(n), "
                           "image() (a NumPy-compatible Image), stats() (a dict), edits between renders")
        .def(py::init([](const Scene& scene, py::object optionsObject) {
                 RenderOptions options = optionsObject.cast<RenderOptions>();
                 auto self = std::make_unique<PyRenderer>();
                 self->progress = makeProgressState(progressOf(optionsObject));
                 options.progress = progressTrampoline(self->progress);
                 Scene copy = scene;  // the Python scene stays usable
                 py::gil_scoped_release release;  // validation, BVH build and upload
                 self->renderer = std::make_unique<Renderer>(std::move(copy), std::move(options));
                 return self;
             }),
             "scene"_a, "options"_a)
        .def("render", [](PyRenderer& r) { r.run([](Renderer& x) { x.render(); }); })
        .def("renderMore", [](PyRenderer& r, int spp) { r.run([spp](Renderer& x) { x.renderMore(spp); }); },
             "samplesPerPixel"_a)
        .def("cancel", [](PyRenderer& r) { r.renderer->cancel(); })  // thread-safe, no lock
        .def("image", [](PyRenderer& r) { return r.locked([](Renderer& x) { return x.image(); }); })
        .def("film", [](PyRenderer& r) { return r.locked([](Renderer& x) { return x.film(); }); },
             "A copy of the film")
        .def("stats",
             [](PyRenderer& r) {
                 return r.locked([](Renderer& x) { return statsDict(x.stats(), x.options().integrator); });
             })
        .def("aovs", [](PyRenderer& r) { return r.locked([](Renderer& x) { return x.aovs(); }); })
        .def("deviceImage", [](PyRenderer& r) { return r.locked([](Renderer& x) { return x.deviceImage(); }); },
             py::keep_alive<0, 1>(),
             "The film's estimate where the backend keeps it, without a copy (Renderer::deviceImage()); keeps the "
             "renderer alive")
        .def("scene", [](PyRenderer& r) { return r.locked([](Renderer& x) { return Scene(x.scene()); }); },
             "A copy of the scene as edited")
        .def("setCamera",
             [](PyRenderer& r, const Camera& c, EditMode mode) { return r.edit([&](Renderer& x) { return x.setCamera(c, mode); }); },
             "camera"_a, "mode"_a = EditMode::ResetFilm)
        .def("setMaterial",
             [](PyRenderer& r, int index, const Material& m, EditMode mode) {
                 return r.edit([&](Renderer& x) { return x.setMaterial(index, m, mode); });
             },
             "index"_a, "material"_a, "mode"_a = EditMode::ResetFilm)
        .def("setTexture",
             [](PyRenderer& r, int index, const Texture& t, EditMode mode) {
                 return r.edit([&](Renderer& x) { return x.setTexture(index, t, mode); });
             },
             "index"_a, "texture"_a, "mode"_a = EditMode::ResetFilm)
        .def("setLight",
             [](PyRenderer& r, int index, const Light& l, EditMode mode) {
                 return r.edit([&](Renderer& x) { return x.setLight(index, l, mode); });
             },
             "index"_a, "light"_a, "mode"_a = EditMode::ResetFilm)
        .def("setEnvironment",
             [](PyRenderer& r, const Image& image, float scale, EditMode mode) {
                 return r.edit([&](Renderer& x) { return x.setEnvironment(image, scale, mode); });
             },
             "image"_a, "scale"_a = 1.0f, "mode"_a = EditMode::ResetFilm)
        .def("setSkyGradient",
             [](PyRenderer& r, const SkyGradient& sky, EditMode mode) {
                 return r.edit([&](Renderer& x) { return x.setSkyGradient(sky, mode); });
             },
             "sky"_a, "mode"_a = EditMode::ResetFilm)
        .def("setMeshPositions",
             [](PyRenderer& r, int mesh, const py::object& positions, const py::object& normals, EditMode mode,
                BvhUpdate bvh) {
                 std::vector<glm::vec3> p = vectorsFromArray<glm::vec3>(positions, "positions");
                 std::vector<glm::vec3> n =
                     normals.is_none() ? std::vector<glm::vec3>{} : vectorsFromArray<glm::vec3>(normals, "normals");
                 return r.edit([&](Renderer& x) { return x.setMeshPositions(mesh, p, n, mode, bvh); });
             },
             "mesh"_a, "positions"_a, "normals"_a = py::none(), "mode"_a = EditMode::ResetFilm,
             "bvh"_a = BvhUpdate::Auto)
        .def("setMeshPositionsOnDevice",
             [](PyRenderer& r, int mesh, const py::object& positions, EditMode mode, BvhUpdate bvh) {
                 const auto [pointer, count] = devicePositionsOf(positions);
                 return r.edit([&](Renderer& x) { return x.setMeshPositionsOnDevice(mesh, pointer, count, mode, bvh); });
             },
             "mesh"_a, "positions"_a, "mode"_a = EditMode::ResetFilm, "bvh"_a = BvhUpdate::Auto,
             "setMeshPositions from a CUDA array of shape (N, 3), float32 (Renderer::setMeshPositionsOnDevice): "
             "copied device to device, the CUDA backend only; a stream in its __cuda_array_interface__ is not "
             "waited for: synchronise it, or give the renderer that stream (options.cudaStream)")
        .def("setInstanceTransform",
             [](PyRenderer& r, int index, const py::object& m, EditMode mode, BvhUpdate bvh) {
                 const glm::mat4 matrix = matrixFromArray(m, "objectToWorld");
                 return r.edit([&](Renderer& x) { return x.setInstanceTransform(index, matrix, mode, bvh); });
             },
             "index"_a, "objectToWorld"_a, "mode"_a = EditMode::ResetFilm, "bvh"_a = BvhUpdate::Auto)
        .def("backend", [](PyRenderer& r) { return r.renderer->backend(); })
        .def("options", [](PyRenderer& r) {
            py::object o = py::cast(RenderOptions(r.renderer->options()));
            o.attr("__dict__")[kProgressKey] = r.progress->callable;
            return o;
        });

    addCopies<Image>(m, "Image");
    addCopies<Material>(m, "Material");
    addCopies<TriangleMesh>(m, "TriangleMesh");
    addCopies<Sphere>(m, "Sphere");
    addCopies<Camera>(m, "Camera");
    addCopies<SkyGradient>(m, "SkyGradient");
    addCopies<Light>(m, "Light");
    addCopies<Medium>(m, "Medium");
    addCopies<SceneLoadOptions>(m, "SceneLoadOptions");
    addCopies<PtOptions>(m, "PtOptions");
    addCopies<BdptOptions>(m, "BdptOptions");
    addCopies<MltOptions>(m, "MltOptions");
    addCopies<VcmOptions>(m, "VcmOptions");
    addCopies<Scene>(m, "Scene");
    // RenderOptions keeps its Python progress callable beside the C++ object: the copy takes it too.
    {
        py::object cls = m.attr("RenderOptions");
        auto copy = [](const py::object& self) {
            py::object o = py::cast(RenderOptions(self.cast<const RenderOptions&>()));
            o.attr("__dict__")[kProgressKey] = progressOf(self);
            return o;
        };
        py::setattr(cls, "__copy__", py::cpp_function(copy, py::is_method(cls)));
        py::setattr(cls, "__deepcopy__",
                    py::cpp_function([copy](const py::object& self, const py::object&) { return copy(self); },
                                     py::is_method(cls), "memo"_a));
    }
}
