#!/usr/bin/env python3
"""fricl's barrier against ipctk 1.6.1's BarrierPotential, same machine,
same run.

    python3 bench/barrier_vs_ipctk.py FRICL_EXE [--contacts 100000]
        [--repeats 5] [--device host] [--workdir DIR]

A scene of two triangulated sheets half of d-hat apart (shifted by a third
of a cell so that every 3-D contact type occurs), built with ipctk's
NormalCollisions. Timed, median of --repeats:
  ipctk  BarrierPotential.gradient + .hessian(..., CLAMP) (all threads)
  fricl  fricl_barrier_eval with the gradient and the global BSR Hessian
         (PSD clamp), the plan made once (`fricl barrier --repeat`, the
         library call alone, reported by --verbose)
and the agreement of the two (max |fricl - ipctk| / max |ipctk|).
Exits 77 without numpy or ipctk.
"""
import argparse
import os
import re
import subprocess
import sys
import time

try:
    import numpy as np
    import ipctk
except ImportError as exc:
    print("SKIPPED: %s" % exc)
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "ipctk"))
from barrier_crosscheck import fricl_input  # noqa: E402


def sheets(n, gap):
    h = 1.0 / (n - 1)
    x, y = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n))
    P = np.c_[x.ravel(), y.ravel(), np.zeros(n * n)]
    i, j = np.meshgrid(np.arange(n - 1), np.arange(n - 1), indexing="ij")
    a = (i * n + j).ravel()
    tri = np.concatenate([np.c_[a, a + 1, a + n + 1],
                          np.c_[a, a + n + 1, a + n]])
    # Shifted off the grid so that no vertex lies exactly on an edge of the
    # other sheet (a tie between distance types, where the Hessian jumps).
    Q = P + np.array([0.31 * h, 0.37 * h, gap])
    return (np.asfortranarray(np.vstack([P, Q])),
            np.vstack([tri, tri + n * n]).astype(np.int32))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fricl")
    ap.add_argument("--contacts", type=int, default=100000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--device", default="host")
    ap.add_argument("--workdir", default="/tmp/fricl_barrier_bench")
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    dhat, kappa = 1e-3, 1e4
    grid = max(4, int(round(np.sqrt(args.contacts / 9.35))))
    V, F = sheets(grid, 0.5 * dhat)
    E = np.asarray(ipctk.edges(F), np.int32)
    mesh = ipctk.CollisionMesh(V, np.asfortranarray(E), np.asfortranarray(F))
    nc = ipctk.NormalCollisions()
    nc.build(mesh, V, dhat)
    B = ipctk.BarrierPotential(dhat, kappa)
    clamp = ipctk.PSDProjectionMethod.CLAMP
    ts = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        g_i = B.gradient(nc, mesh, V)
        H_i = B.hessian(nc, mesh, V, clamp)
        ts.append(time.perf_counter() - t0)
    t_ipctk = float(np.median(ts))
    inp = os.path.join(args.workdir, "in.npz")
    out = os.path.join(args.workdir, "out.npz")
    fricl_input(inp, V, E, F, nc, None, dict(dhat=dhat, kappa=kappa))
    p = subprocess.run([args.fricl, "barrier", inp, "-o", out, "--psd",
                        "clamp", "--hessian", "global", "--repeat",
                        str(args.repeats), "--verbose", "--device",
                        args.device], capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr)
        return 1
    m = re.search(r"plan ([0-9.]+) ms, eval min ([0-9.]+) ms, median "
                  r"([0-9.]+) ms", p.stderr)
    plan_ms, tmin, tmed = (float(v) for v in m.groups())
    r = np.load(out)
    H_f = ipctk_sparse = None
    import scipy.sparse as sp
    n = V.size
    H_f = sp.coo_matrix((r["hessian_values"], (r["hessian_rows"],
                                               r["hessian_cols"])),
                        shape=(n, n)).tocsc()
    ipctk_sparse = H_i.tocsc()
    eh = abs(H_f - ipctk_sparse).max() / abs(ipctk_sparse).max()
    eg = np.abs(r["gradient"] - g_i).max() / np.abs(g_i).max()
    print("collisions %d (grid %d, %d vertices), cores %d" %
          (len(nc), grid, len(V), os.cpu_count()))
    print("ipctk gradient + hessian(CLAMP): %.1f ms (median of %d)" %
          (1e3 * t_ipctk, args.repeats))
    print("fricl gradient + global Hessian (clamp): %.1f ms median, %.1f ms "
          "min; plan %.1f ms once" % (tmed, tmin, plan_ms))
    print("speed-up (median): %.1fx; contacts/s %.3g" %
          (1e3 * t_ipctk / tmed, len(nc) / (tmed * 1e-3)))
    print("agreement: gradient %.2g, Hessian %.2g (max abs diff / max abs)" %
          (eg, eh))
    return 0


if __name__ == "__main__":
    sys.exit(main())
