#!/usr/bin/env bash
# Installs the Debian packages wavefront needs to build, but only those that are missing:
# when everything is present it touches neither the network nor apt.
#   scripts/install-deps.sh
#   scripts/install-deps.sh --pypi PYTHON   the PyPI packages below into PYTHON's environment (a venv)
# Set WAVEFRONT_SKIP_DEPS=1 to skip the check (e.g. on a non-Debian system with its own packages).
set -euo pipefail

# PyPI only where Debian has nothing (docs/decisions.md), and only optional features: a package
# that cannot be installed (no network) is reported, and what needs it says it is unavailable.
PYPI_PACKAGES=(
  flip-evaluator  # HDR-FLIP, a metric of wavefront-compare
  pyoidn          # Intel Open Image Denoise, wavefront.denoise's preview (Debian has no OIDN)
)

PACKAGES=(
  cmake ninja-build g++ pkg-config
  libglm-dev catch2 libstb-dev libtinyobjloader-dev libtinyexr-dev libcli11-dev libassimp-dev nlohmann-json3-dev zlib1g-dev
  # The Python module (pip install --no-build-isolation . in a venv that sees these) and its tests.
  python3-dev python3-venv python3-pip python3-setuptools python3-wheel pybind11-dev python3-numpy
  python3-pytest
  # wavefront-compare's figure for a paper (figure.pdf, figure.svg; the report is written without it).
  python3-matplotlib
  # wavefront-render-mpi and its test (Open MPI 4.1 on Debian 12).
  libopenmpi-dev openmpi-bin
  # Real models for the import tests (glTF 2.0, OBJ, PLY); the tests skip what is absent.
  assimp-testmodels glmark2-data
)

if [[ "${WAVEFRONT_SKIP_DEPS:-0}" == 1 ]]; then
  exit 0
fi

if [[ "${1:-}" == --pypi ]]; then
  python=${2:?usage: install-deps.sh --pypi PYTHON}
  for pkg in "${PYPI_PACKAGES[@]}"; do
    if "$python" -m pip show "$pkg" >/dev/null 2>&1; then
      continue
    fi
    echo "install-deps: installing $pkg from PyPI into $("$python" -c 'import sys; print(sys.prefix)')"
    "$python" -m pip install --disable-pip-version-check --quiet "$pkg" ||
      echo "install-deps: could not install $pkg from PyPI (no network?); what needs it reports itself unavailable" >&2
  done
  exit 0
fi
if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: no dpkg/apt here; make sure these (or their equivalents) are installed: ${PACKAGES[*]}" >&2
  exit 0
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  # "ii " = wanted install, currently installed. Anything else (absent, half-installed) counts as missing.
  status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != ii* ]]; then
    missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=()
if [[ "$(id -u)" -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "install-deps: missing packages: ${missing[*]}" >&2
    echo "install-deps: not root and sudo is not available; install them as root and re-run" >&2
    exit 1
  fi
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
