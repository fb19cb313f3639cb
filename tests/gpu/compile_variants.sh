#!/usr/bin/env bash
# compile_variants.sh BUILD_DIR [CLANG]
#
# GPU-target compile check: every OpenCL program the library builds
# (written out by the test-only tool BUILD_DIR/tests/fricl_programs, on the
# default OpenCL device), compiled by clang with the library's own build
# options for three targets no machine here has:
#   nvptx64   NVIDIA PTX         (-target nvptx64-nvidia-cuda, code generation)
#   amdgcn    AMD CDNA2 gfx90a   (-target amdgcn-amd-amdhsa -mcpu=gfx90a)
#   spir64    SPIR (LLVM IR), as Intel GPU and other SPIR consumers take it
# clang defines __OPENCL_C_VERSION__ but not __OPENCL_VERSION__ for these
# targets, which fricl_cl_compat.h must accept. Any error fails the check
# (its log is printed); warnings are counted and shown.
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR [CLANG]}" && pwd)
clang=${2:-}
if [ -z "$clang" ]; then
  for c in clang-14 clang; do
    command -v "$c" >/dev/null && clang=$c && break
  done
fi
[ -n "$clang" ] || { echo "compile_variants: no clang found" >&2; exit 1; }
out=$build/gpu_programs
rm -rf "$out"
mkdir -p "$out"
"$build/tests/fricl_programs" "$out/src"
mkdir -p "$out/log"
nprog=$(ls "$out/src"/*.cl | wc -l)
if [ "$nprog" -lt 200 ]; then
  echo "compile_variants: only $nprog programs written" >&2
  exit 1
fi

# One compile: PROGRAM TARGET; the log lands in log/NAME.TARGET.
compile_one() {
  local prog=$1 target=$2 flags
  case $target in
  nvptx64) flags="-target nvptx64-nvidia-cuda -S" ;;
  amdgcn) flags="-target amdgcn-amd-amdhsa -mcpu=gfx90a -nogpulib -S" ;;
  spir64) flags="-target spir64 -emit-llvm -S" ;;
  esac
  local name log
  name=$(basename "$prog" .cl)
  log=$COMPILE_OUT/log/$name.$target
  # shellcheck disable=SC2046,SC2086
  if ! "$COMPILE_CLANG" -x cl $(cat "${prog%.cl}.opts") \
    -Xclang -finclude-default-header $flags -o /dev/null "$prog" \
    >"$log" 2>&1; then
    echo "FAILED $name $target"
  fi
}
export -f compile_one
export COMPILE_OUT=$out COMPILE_CLANG=$clang
failed=$(for p in "$out/src"/*.cl; do
  for t in nvptx64 amdgcn spir64; do echo "$p $t"; done
done | xargs -P "$(nproc 2>/dev/null || echo 2)" -n 2 bash -c \
  'compile_one "$0" "$1"')
warnings=$(cat "$out"/log/* | grep -c "warning:" || true)
if [ -n "$failed" ]; then
  echo "$failed"
  for f in $(echo "$failed" | awk '{print $2 "." $3}'); do
    echo "== $f"
    head -40 "$out/log/$f"
  done
  echo "compile_variants: $(echo "$failed" | wc -l) of $((nprog * 3)) compiles failed" >&2
  exit 1
fi
if [ "$warnings" -gt 0 ]; then
  grep -h "warning:" "$out"/log/* | sort | uniq -c | sort -rn | head -20
fi
echo "compile_variants: $nprog programs x nvptx64, amdgcn (gfx90a), spir64:" \
  "all compiled with $($clang --version | head -1) ($warnings warnings)"
