"""Builds wavefront._wavefront with CMake (the library's objects and python/src/bindings.cpp) for
pip install . ; everything else is in pyproject.toml.

Environment: CMAKE_ARGS (extra configure arguments, e.g. -DWAVEFRONT_ENABLE_CUDA=OFF for a CPU-only
module), CMAKE_BUILD_PARALLEL_LEVEL (build jobs), CMAKE_GENERATOR (default: Ninja when present),
WAVEFRONT_PY_BUILD_DIR (the CMake build folder; default build-python/temp.*/cmake). A build folder
is reused, with its CMake cache: options once given stay until changed (as with any CMake build).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
VERSION = re.search(r"project\(wavefront VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())[1]


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        target = Path(self.get_ext_fullpath(ext.name)).resolve()
        build = Path(os.environ.get("WAVEFRONT_PY_BUILD_DIR") or Path(self.build_temp) / "cmake").resolve()
        args = [
            f"-DPython_EXECUTABLE={sys.executable}",
            "-DCMAKE_BUILD_TYPE=Release",
            "-DWAVEFRONT_BUILD_PYTHON=ON",
            # Only the library and the module: the tests, CLI and benchmarks need more packages and time.
            "-DWAVEFRONT_BUILD_TESTS=OFF",
            "-DWAVEFRONT_BUILD_EXAMPLES=OFF",
            "-DWAVEFRONT_BUILD_BENCHMARKS=OFF",
        ]
        try:  # pybind11 from PyPI (build isolation); otherwise CMake finds Debian's pybind11-dev
            import pybind11

            args.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
        except ImportError:
            pass
        if "CMAKE_GENERATOR" not in os.environ and shutil.which("ninja") and not (build / "CMakeCache.txt").exists():
            args += ["-G", "Ninja"]
        args += shlex.split(os.environ.get("CMAKE_ARGS", ""))  # last, so they override the defaults above
        env = dict(os.environ)
        # As scripts/test.sh does: find nvcc in its usual place even when it is not on PATH.
        if "CUDACXX" not in env and not shutil.which("nvcc") and Path("/usr/local/cuda/bin/nvcc").exists():
            env["CUDACXX"] = "/usr/local/cuda/bin/nvcc"
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), *args], check=True, env=env)
        subprocess.run(["cmake", "--build", str(build), "--target", "_wavefront"], check=True, env=env)
        built = sorted((build / "python" / "wavefront").glob("_wavefront*"))
        if len(built) != 1:
            raise RuntimeError(f"expected one _wavefront module in {build}/python/wavefront, found {built}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    version=VERSION,
    packages=["wavefront"],
    package_dir={"": "python"},
    ext_modules=[Extension("wavefront._wavefront", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # Not build/: that is where scripts/test.sh keeps its CMake build by default.
    options={"build": {"build_base": "build-python"}},
)
