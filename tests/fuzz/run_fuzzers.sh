#!/usr/bin/env bash
# run_fuzzers.sh BUILD_DIR SECONDS
#
# Runs each libFuzzer target of a FRICL_FUZZ=ON build for SECONDS
# (-max_total_time), one after the other, on a scratch copy of its seed
# corpus (tests/fuzz/corpus/<name>), so that the inputs the run discovers
# never land in the source tree. Fails if a target reports a crash, a
# sanitizer error, an invariant violation (abort), a leak, a timeout or an
# out-of-memory.
#
# Environment:
#   FUZZ_ARTIFACT_DIR  where crash/leak/timeout reproducers are kept
#                      (default BUILD_DIR/fuzz-artifacts); a failing input
#                      reruns with  BUILD_DIR/tests/fuzz/<target> FILE
#   FUZZ_KEEP_CORPUS   a directory: copy each grown corpus there afterwards
#   FUZZ_EXTRA_ARGS    extra libFuzzer flags (e.g. "-jobs=4 -workers=4")
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
seconds=$2
here=$(cd "$(dirname "$0")" && pwd)
artifacts=${FUZZ_ARTIFACT_DIR:-$build/fuzz-artifacts}
mkdir -p "$artifacts"
artifacts=$(cd "$artifacts" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/fricl-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

status=0
# target  corpus  extra flags
for spec in "fuzz_npy npy -dict=$here/npy.dict" "fuzz_npz npz -dict=$here/npz.dict" \
  "fuzz_scalar_api scalar"; do
  read -r target corpus extra <<<"$spec"
  exe=$build/tests/fuzz/$target
  if [ ! -x "$exe" ]; then
    echo "run_fuzzers: $exe not built (configure with CC=clang -DFRICL_FUZZ=ON)" >&2
    exit 2
  fi
  mkdir -p "$work/$corpus"
  cp "$here/corpus/$corpus"/* "$work/$corpus/"
  echo "== $target: ${seconds}s on $(ls "$work/$corpus" | wc -l) seed inputs =="
  log=$work/$target.log
  rc=0
  # shellcheck disable=SC2086 # extra and FUZZ_EXTRA_ARGS are flag lists
  "$exe" "$work/$corpus" -max_total_time="$seconds" -rss_limit_mb=2048 \
    -timeout=10 -print_final_stats=1 -artifact_prefix="$artifacts/$target-" \
    $extra ${FUZZ_EXTRA_ARGS:-} >"$log" 2>&1 || rc=$?
  # The final statistics, and everything after the first report on failure.
  if [ "$rc" -ne 0 ] || grep -q -E '^==[0-9]+==ERROR|^SUMMARY:|runtime error' "$log"; then
    echo "run_fuzzers: $target FAILED (exit $rc); log:" >&2
    first=$(grep -n -m1 -E "^$target:|==[0-9]+==ERROR|runtime error|^SUMMARY:" \
      "$log" | cut -d: -f1 || true)
    tail -n +"${first:-1}" "$log" | grep -v -E '^ +#[0-9]+ 0x' | head -n 40 >&2
    ls -1 "$artifacts"/"$target"-* 2>/dev/null | sed 's/^/reproducer: /' >&2 || true
    status=1
  else
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|Done )' "$log" || true
  fi
  if [ -n "${FUZZ_KEEP_CORPUS:-}" ]; then
    mkdir -p "$FUZZ_KEEP_CORPUS/$corpus"
    cp "$work/$corpus"/* "$FUZZ_KEEP_CORPUS/$corpus/"
  fi
done
exit "$status"
