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
#
# The per-work-item stack: every kernel's nvptx64 PTX keeps its private
# arrays that stay in memory in `.local ... __local_depotN[BYTES]`, which an
# NVIDIA GPU holds in slow off-chip memory. Each kernel's depot (and that
# of any function it calls) is printed with the largest per kernel name
# over the program variants; one over FRICL_PTX_STACK_MAX bytes (default
# 512) fails the check, except a kernel listed in KNOWN_OVER below with its
# own, larger cap (a known excess with its follow-up; the cap stops it
# from growing; the list is empty now). The PTX files stay in
# BUILD_DIR/gpu_programs/ptx.
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
mkdir -p "$out/log" "$out/ptx"
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
  local name log out=/dev/null
  name=$(basename "$prog" .cl)
  log=$COMPILE_OUT/log/$name.$target
  [ "$target" = nvptx64 ] && out=$COMPILE_OUT/ptx/$name.ptx
  # shellcheck disable=SC2046,SC2086
  if ! "$COMPILE_CLANG" -x cl $(cat "${prog%.cl}.opts") \
    -Xclang -finclude-default-header $flags -o "$out" "$prog" \
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
  # (head closes the pipe early: under pipefail that is not a failure)
  grep -h "warning:" "$out"/log/* | sort | uniq -c | sort -rn | head -20 ||
    true
fi
echo "compile_variants: $nprog programs x nvptx64, amdgcn (gfx90a), spir64:" \
  "all compiled with $($clang --version | head -1) ($warnings warnings)"

# ---------------------------------------------------- per-work-item stack
max=${FRICL_PTX_STACK_MAX:-512}
# KERNEL STENCIL-FAMILY CAP: a known excess (see docs/kernel-resources.md).
# None now: the barrier's edge-edge kernels, the last ones over, keep the
# mollified edges' 9 x 9 projection in __local memory.
KNOWN_OVER=""
# One line per kernel and program: KERNEL PROGRAM BYTES, where BYTES is the
# kernel's own depot plus the largest of the functions it calls (clang
# inlines nearly everything; a called function's depot adds to the
# caller's stack).
awk '
  FNR == 1 { if (NR > 1) flush(); prog = FILENAME; sub(/.*\//, "", prog);
             sub(/\.ptx$/, "", prog); nk = 0; delete own; delete fdep; cur = "" }
  /^\.visible \.entry/ { cur = $3; sub(/\(.*/, "", cur); kind[cur] = "k";
                          names[++nk] = cur; own[cur] = 0 }
  /^\.func/ { match($0, /[A-Za-z_][A-Za-z0-9_$]*\(/);
              cur = substr($0, RSTART, RLENGTH - 1) }
  /__local_depot[0-9]+\[/ && /\.local/ {
    match($0, /\[[0-9]+\]/); b = substr($0, RSTART + 1, RLENGTH - 2) + 0;
    if (kind[cur] == "k") own[cur] = b; else fdep[cur] = b }
  function flush(   i, fm, f) {
    fm = 0; for (f in fdep) if (fdep[f] > fm) fm = fdep[f];
    for (i = 1; i <= nk; ++i) print names[i], prog, own[names[i]] + fm }
  END { flush() }' "$out"/ptx/*.ptx >"$out/ptx_stack.txt"
# The stencil of a barrier program (FRICL_STENCIL in its defines).
stencil_of() {
  case $(grep -m1 -o "FRICL_STENCIL [0-9]" "$out/src/$1.cl" | awk '{print $2}') in
  0) echo vv ;; 1) echo ev ;; 2) echo ee ;; 3) echo fv ;; 4) echo pv ;; *) echo - ;;
  esac
}
over=0
echo "== nvptx64 PTX stack per kernel and program (bytes; 0 not shown)"
while read -r k prog b; do
  cap=$max
  # shellcheck disable=SC2086
  set -- $KNOWN_OVER
  while [ $# -ge 2 ]; do
    [ "$1" = "$k:$(stencil_of "$prog")" ] && cap=$2
    shift 2
  done
  [ "$b" -gt 0 ] && printf "%-34s %-22s %6d\n" "$k" "$prog" "$b"
  if [ "$b" -gt "$cap" ]; then
    echo "STACK $k in $prog: $b bytes > $cap" >&2
    over=$((over + 1))
  fi
done <"$out/ptx_stack.txt"
# The summary: the largest depot per kernel name over every program.
echo "== largest per kernel"
printf "%-34s %-22s %6s\n" kernel "program (largest)" "bytes"
sort -k1,1 -k3,3nr "$out/ptx_stack.txt" | awk '!seen[$1]++' |
  while read -r k prog b; do printf "%-34s %-22s %6d\n" "$k" "$prog" "$b"; done
if [ "$over" -gt 0 ]; then
  echo "compile_variants: $over kernel(s) over the PTX stack bound" \
    "($max bytes; per-kernel caps in KNOWN_OVER)" >&2
  exit 1
fi
echo "compile_variants: every kernel's nvptx64 stack within $max bytes" \
  "(known excess: ${KNOWN_OVER:-none})"
