#!/usr/bin/env bash
# intel_opencl.sh DIR [FRICL]
#
# Makes Intel's OpenCL CPU runtime usable as a second OpenCL vendor, without
# touching /etc: installs the pip packages intel-opencl-rt and
# intel-cmplr-lib-rt when they are missing (into DIR/pip), writes
# DIR/intel-cpu.icd (one line: the absolute path of libintelocl.so) and,
# given the path of a built `fricl`, checks that `fricl devices` then lists
# an Intel device. Prints the environment assignments that select it:
#
#   OCL_ICD_VENDORS=DIR            the loader reads vendors from DIR only
#   LD_LIBRARY_PATH=DIR/lib        only when needed (see below)
#
# libintelocl.so finds libimf, libsvml, libirng, libintlc (from
# intel-cmplr-lib-rt) and libtbb through its RUNPATH $ORIGIN when pip put
# them in the same directory, as it does for one installation scheme. If
# some are not found there, DIR/lib gets symlinks to exactly those
# libraries: never the package's own libOpenCL.so.1, which would replace the
# system's ICD loader.
set -euo pipefail

dir=${1:?usage: $0 DIR [FRICL]}
fricl=${2:-}
mkdir -p "$dir"

# Where pip put a package's file whose name is $2 (empty if absent).
locate() {
  python3 - "$1" "$2" <<'EOF'
import importlib.metadata as m, sys
try:
    dist = m.distribution(sys.argv[1])
except m.PackageNotFoundError:
    sys.exit(0)
for f in dist.files or []:
    if f.name == sys.argv[2]:
        print(dist.locate_file(f).resolve())
        break
EOF
}

# An installation python3 already has is used as it is. Otherwise the
# packages go to a private prefix, DIR/pip, not into Python's environment:
# a system pip would put their libraries (the package's libOpenCL.so.1
# among them) in /usr/local/lib, where the next ldconfig would let them
# shadow the system's ICD loader for every program.
lib=$(locate intel-opencl-rt libintelocl.so)
if [ -n "$lib" ] && [ -z "$(locate intel-cmplr-lib-rt libimf.so)" ]; then
  lib="" # incomplete: use the private prefix instead
fi
# A file of the private prefix (pip's scheme may add local/ under it).
private() { find "$dir/pip" -name "$1" -print -quit 2>/dev/null || true; }
if [ -z "$lib" ] && [ -z "$(private libintelocl.so)" ]; then
  echo "intel_opencl: pip installing intel-opencl-rt intel-cmplr-lib-rt" \
    "into $dir/pip" >&2
  pkgs=(intel-opencl-rt intel-cmplr-lib-rt)
  opts=(-q --ignore-installed --prefix "$dir/pip")
  python3 -m pip install "${opts[@]}" "${pkgs[@]}" >&2 2>/dev/null ||
    python3 -m pip install "${opts[@]}" --break-system-packages \
      "${pkgs[@]}" >&2
fi
[ -n "$lib" ] || lib=$(private libintelocl.so)
if [ -z "$lib" ] || [ ! -f "$lib" ]; then
  echo "intel_opencl: libintelocl.so not found after installing" >&2
  exit 1
fi
echo "$lib" >"$dir/intel-cpu.icd"

# Dependencies the RUNPATH does not resolve: symlink each one into DIR/lib.
ldpath=""
missing=$(ldd "$lib" | awk '/not found/ {print $1}')
if [ -n "$missing" ]; then
  mkdir -p "$dir/lib"
  for so in $missing; do
    found=""
    found=$(private "$so")
    for pkg in intel-cmplr-lib-rt tbb intel-opencl-rt; do
      [ -n "$found" ] && break
      found=$(locate "$pkg" "$so")
    done
    if [ -z "$found" ]; then
      echo "intel_opencl: $so (needed by $lib) is not in any pip package" >&2
      exit 1
    fi
    ln -sf "$found" "$dir/lib/$so"
  done
  ldpath="$dir/lib"
fi

# With a fricl binary given: the loader must now list an Intel device.
# (Not checked through python3's ctypes: a Python whose RUNPATH is the pip
# prefix would load the package's libOpenCL.so.1 instead of the system's.)
if [ -n "$fricl" ]; then
  devs=$(OCL_ICD_VENDORS="$dir" \
    LD_LIBRARY_PATH="${ldpath:+$ldpath:}${LD_LIBRARY_PATH:-}" \
    "$fricl" devices 2>&1) || true
  if ! grep -q "Intel(R) OpenCL" <<<"$devs"; then
    echo "intel_opencl: no Intel device through $dir:" >&2
    echo "$devs" >&2
    exit 1
  fi
fi
echo "OCL_ICD_VENDORS=$dir"
[ -z "$ldpath" ] || echo "LD_LIBRARY_PATH=$ldpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
