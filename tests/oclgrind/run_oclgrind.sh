#!/usr/bin/env bash
# run_oclgrind.sh BUILD_DIR
#
# Every kernel program family under oclgrind's checks (--data-races
# --uninitialized --check-api): out-of-bounds accesses, uses of
# uninitialized values, data races, invalid API use. Any diagnostic fails
# the run (each run logs to its own file; a non-empty log is a failure).
#   programs     BUILD_DIR/tests/fricl_programs: every program variant the
#                library builds, each run on a tiny batch (scalar with every
#                term, profile and per-element array; tangential with every
#                output and PSD mode; the lagged build; every law with every
#                integrator; the barrier's host and cl_mem tiers per stencil
#                with every option; all in f64 and f32).
#                FRICL_PROGRAMS_ONLY=barrier (or another family) in the
#                environment runs that family alone
#   tangential   `fricl tangential --build` (f64, f32; global and local
#                Hessians): the build and the evaluation in one context, the
#                case oclgrind once reported (see README.md here)
#   eval, law    the CLI's scalar and LuGre (exp integrator) paths
#   copy         `fricl bench` on one tiny group: the copy kernel runs
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
command -v oclgrind >/dev/null || { echo "run_oclgrind: oclgrind not found" >&2; exit 1; }
fricl=$build/src/cli/fricl
work=$build/oclgrind
rm -rf "$work"
mkdir -p "$work"
# oclgrind's device is the only one; named, since "auto" keeps batches this
# small on the host backend.
export FRICL_DEVICE=opencl:0:0
failed=0

check() { # NAME COMMAND...: run under oclgrind, fail on exit status or log
  local name=$1
  shift
  local t0=$SECONDS
  if ! oclgrind --data-races --uninitialized --check-api \
    --log "$work/$name.log" "$@" >"$work/$name.out" 2>&1; then
    echo "oclgrind: $name: exit status $?:"
    tail -20 "$work/$name.out"
    failed=1
  elif [ -s "$work/$name.log" ]; then
    echo "oclgrind: $name: $(grep -c . "$work/$name.log") lines of diagnostics:"
    head -40 "$work/$name.log"
    failed=1
  else
    echo "oclgrind: $name: clean ($((SECONDS - t0)) s)"
  fi
}

check programs "$build/tests/fricl_programs" "$work/programs"
grep -q "Oclgrind" "$work/programs.out" || {
  echo "oclgrind: the programs did not run on oclgrind's device:"
  cat "$work/programs.out"
  failed=1
}

python3 - "$work" <<'PY'
import sys
import numpy as np
w = sys.argv[1]
rng = np.random.default_rng(7)
n = 14
X = rng.normal(0, 0.05, (n, 3))
X[:, 2] = np.abs(X[:, 2])
np.savez(f"{w}/build.npz", lagged_positions=X, dhat=np.array(0.2),
         kappa=np.array(1e3), mu_s=rng.uniform(0.3, 0.6, n),
         mu_k=rng.uniform(0.1, 0.3, n),
         vv=np.array([[0, 5]], np.int32), ev=np.array([[1, 2, 3]], np.int32),
         ee=np.array([[0, 1, 2, 3], [8, 9, 10, 11]], np.int32),
         fv=np.array([[0, 1, 2, 3], [4, 5, 6, 7], [12, 2, 9, 13]], np.int32),
         pv=np.array([[4], [13]], np.int32),
         pv_plane_normal=np.array([[0, 0, 1.0], [0.1, 0, 1]]),
         pv_plane_offset=np.array([0.01, 0.02]),
         velocities=rng.normal(0, 1e-3, (n, 3)), eps_v=np.array(1e-3))
np.save(f"{w}/y.npy", np.linspace(0, 2e-3, 37))
np.save(f"{w}/v.npy", 0.02 * np.sin(np.arange(5 * 6.0)).reshape(5, 6))
PY

for p in f64 f32; do
  check "tangential_build_global_$p" "$fricl" tangential "$work/build.npz" \
    -o "$work/t_$p.npz" --build --precision "$p" --hessian global
  check "tangential_build_local_$p" "$fricl" tangential "$work/build.npz" \
    -o "$work/tl_$p.npz" --build --precision "$p" --hessian local \
    --psd abs --mu-profile ipctk
  check "eval_$p" "$fricl" eval --term all --eps-v 1e-3 --mu-s 0.5 \
    --mu-k 0.3 --precision "$p" --in "$work/y.npy" --out "$work/e_$p.npy"
  check "law_lugre_exp_$p" "$fricl" law lugre --param static_coefficient=0.5 \
    --param coulomb_coefficient=0.3 --param stribeck_velocity=0.01 \
    --param stiffness=1e4 --param damping=100 --param viscous_damping=0.4 \
    --param shape_parameter=2 --param normal=10 --integrator exp --h 1e-3 \
    --precision "$p" --in "$work/v.npy" --out "$work/l_$p.npy"
done
check copy "$fricl" bench --suite scalar --group smooth_friction_f1 --n 256 \
  --repeats 1 --precision f32 --profile cubic

if [ "$failed" -ne 0 ]; then
  echo "run_oclgrind: FAILED (logs in $work)" >&2
  exit 1
fi
echo "run_oclgrind: every run clean"
