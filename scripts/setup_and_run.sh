#!/usr/bin/env bash
# setup_and_run.sh bench|test [extra arguments]
#
# One command from a fresh Debian machine (as root, or with sudo) to a
# result: installs what is missing (compiler, CMake, OpenCL headers, the ICD
# loader, PoCL as the CPU OpenCL device), builds fricl in ./build, then
#   bench  runs `fricl bench` on the default device (extra args go to it)
#   test   runs the whole test suite with CTest (extra args go to ctest)
set -euo pipefail

mode=${1:-}
shift || true
case "$mode" in
bench | test) ;;
*)
  echo "usage: $0 bench|test [args...]" >&2
  exit 2
  ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
build=${FRICL_BUILD_DIR:-$root/build}

# Debian packages fricl needs to build and to run its OpenCL tests (zlib:
# the .npz reader/writer of the CLI).
packages=(gcc g++ make cmake pkg-config opencl-headers ocl-icd-opencl-dev
  ocl-icd-libopencl1 pocl-opencl-icd zlib1g-dev)
# The Python package and its tests (test mode): headers for the extension,
# venv and pip for the `pip install .` check. The optional MPI + PETSc part
# (fricl_petsc, fricl-mpi) and its tests.
if [ "$mode" = test ]; then
  packages+=(python3 python3-dev python3-venv python3-pip)
  packages+=(openmpi-bin libopenmpi-dev petsc-dev)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Python packages the tests use (numpy for the NPZ fixtures, ipctk for the
# IPC Toolkit cross-checks; scipy, pytest and scikit-build-core for the
# Python package's tests). Best effort: without them those tests report
# SKIPPED loudly, the rest of the suite still runs. Entries: module[:pip
# requirement]; ipctk is pinned to the release the cross-checks target.
if [ "$mode" = test ] && command -v python3 >/dev/null; then
  for entry in numpy ipctk:ipctk==1.6.1 scipy pytest \
    scikit_build_core:scikit-build-core; do
    mod=${entry%%:*}
    pkg=${entry#*:}
    python3 -c "import $mod" 2>/dev/null && continue
    echo "setup: pip installing $pkg"
    python3 -m pip install -q "$pkg" 2>/dev/null ||
      python3 -m pip install -q --user "$pkg" 2>/dev/null ||
      python3 -m pip install -q --break-system-packages "$pkg" 2>/dev/null ||
      echo "setup: WARNING: could not install $pkg; its tests will be SKIPPED" >&2
  done
fi

# Test mode also builds the Python package (FRICL_PYTHON) when python3 and
# its headers are there, for the interpreter on PATH.
cmake_args=()
if [ "$mode" = test ] && command -v python3 >/dev/null &&
  python3 -c 'import os, sysconfig; assert os.path.exists(os.path.join(
    sysconfig.get_paths()["include"], "Python.h"))' 2>/dev/null; then
  cmake_args+=(-DFRICL_PYTHON=ON "-DPython_EXECUTABLE=$(command -v python3)")
elif [ "$mode" = test ]; then
  echo "setup: WARNING: no python3 headers; the Python package is not built" >&2
fi

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release ${cmake_args[@]+"${cmake_args[@]}"} >/dev/null
cmake --build "$build" -j "$jobs"

if [ "$mode" = bench ]; then
  exec "$build/src/cli/fricl" bench "$@"
fi
cd "$build"
exec ctest --output-on-failure -j "$jobs" "$@"
