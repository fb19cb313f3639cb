#!/usr/bin/env bash
# setup_and_run.sh bench|test [extra arguments]
#
# One command from a fresh Debian machine (as root, or with sudo) to a
# result: installs what is missing (compiler, CMake, OpenCL headers, the ICD
# loader, PoCL as the CPU OpenCL device), builds fricl in ./build, then
#   bench  runs `fricl bench --suite headline` on the default device: the
#          few rows that matter most, in a few minutes; `bench --full` runs
#          every suite at full size (other extra args go to `fricl bench`)
#   test   runs the test suite with CTest (extra args go to ctest), less the
#          build checks (label build_check: `pip install .` into a fresh
#          venv, a second build without OpenCL, the install consumers),
#          which are builds rather than tests; FRICL_BUILD_CHECKS=1 runs
#          them too (.ci/run does)
# FRICL_INTEL_OPENCL=1 also runs it on Intel's OpenCL CPU runtime (below).
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

# Debian packages fricl needs to build and to run its OpenCL tests (libzip:
# the .npz reader/writer of the CLI).
packages=(gcc g++ make cmake pkg-config opencl-headers ocl-icd-opencl-dev
  ocl-icd-libopencl1 pocl-opencl-icd libzip-dev)
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

# Intel's OpenCL CPU runtime as a second vendor: FRICL_INTEL_OPENCL=1 runs
# the tests (or the benchmark) on the default device, then again with
# Intel's runtime as the only ICD vendor (CI does this); =only runs on Intel
# alone. scripts/intel_opencl.sh installs it (pip) and registers it through
# OCL_ICD_VENDORS, nothing under /etc.
intel=${FRICL_INTEL_OPENCL:-0}
intel_env=()
if [ "$intel" != 0 ]; then
  mapfile -t intel_env < <("$root/scripts/intel_opencl.sh" \
    "$build/intel-icd" "$build/src/cli/fricl")
  ((${#intel_env[@]})) || exit 1
fi
# default_extra, intel_extra: arguments added to the command on the
# default device, on Intel. Intel's runtime is then the only vendor with
# one CPU device, so the tests that name a second PoCL device (label
# pocl_pair) are left out of that pass.
default_extra=()
intel_extra=()
run() { # run CMD...: on the default device unless only Intel, then Intel
  local status=0
  if [ "$intel" != only ]; then
    "$@" ${default_extra[@]+"${default_extra[@]}"} || status=$?
  fi
  if [ "$intel" != 0 ]; then
    echo "== on Intel's OpenCL CPU runtime (${intel_env[*]}) =="
    env "${intel_env[@]}" FRICL_DEVICE= "$@" ${intel_extra[@]+"${intel_extra[@]}"} ||
      status=$?
  fi
  return $status
}

if [ "$mode" = bench ]; then
  # Default: the headline rows only; --full (anywhere) runs every suite at
  # full size, as `fricl bench` does without --suite. An explicit --suite
  # is passed through as given.
  bench_args=()
  full=0
  suite=0
  for a in "$@"; do
    case "$a" in
    --full) full=1 ;;
    --suite | --suite=* | --group | --group=*) suite=1 ;& # and keep it
    *) bench_args+=("$a") ;;
    esac
  done
  if [ $full = 0 ] && [ $suite = 0 ]; then
    bench_args=(--suite headline ${bench_args[@]+"${bench_args[@]}"})
  fi
  run "$build/src/cli/fricl" bench ${bench_args[@]+"${bench_args[@]}"}
  exit
fi
cd "$build"
# Labels left out: build_check unless FRICL_BUILD_CHECKS=1, and on Intel
# also pocl_pair (above). As one -LE regex per pass.
exclude=build_check
[ "${FRICL_BUILD_CHECKS:-0}" = 0 ] || exclude=
default_extra=()
[ -z "$exclude" ] || default_extra=(-LE "^($exclude)\$")
intel_extra=(-LE "^(${exclude:+$exclude|}pocl_pair)\$")
run ctest --output-on-failure -j "$jobs" "$@"
