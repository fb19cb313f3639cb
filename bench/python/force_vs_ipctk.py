"""fricl.ipctk.FrictionPotential.force / force_jacobian against ipctk
1.6.1's in the same run, on the cloth-on-a-box scene (ipctk's normal and
tangential collisions; fricl reads them once and caches them, as in a
Newton loop; the "fricl-built" rows use fricl's own lagged build instead,
nothing read from ipctk). Prints the median time per call over --repeat
calls (after one warm-up call) and the ratio ipctk / fricl, and the
largest difference of each result from ipctk's relative to its scale.

    python3 bench/python/force_vs_ipctk.py [--repeat 5] [--sizes 75,527]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from scenes import cloth_over_box  # noqa: E402


def timed(fn, repeat):
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts))


def diff(a, b):
    if hasattr(a, "toarray"):
        d = abs(a - b)
        return float(d.max()) / max(float(abs(a).max()), 1e-300)
    return float(np.abs(a - b).max()) / max(float(np.abs(a).max()), 1e-300)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--sizes", default="75,527")
    args = ap.parse_args()
    import ipctk
    import fricl.ipctk as fi
    W = ipctk.FrictionPotential.DiffWRT
    print("%-40s %10s %10s %10s %7s %9s" % ("call", "collisions", "ipctk s",
                                            "fricl s", "ratio", "rel diff"))
    for n in [int(s) for s in args.sizes.split(",")]:
        V, E, F, dhat = cloth_over_box(n)
        V = np.asfortranarray(V)
        mesh = ipctk.CollisionMesh(V, E, F)
        C = ipctk.NormalCollisions()
        C.build(mesh, V, dhat)
        B = ipctk.BarrierPotential(dhat, 1.0)
        T = ipctk.TangentialCollisions()
        T.build(mesh, V, C, B, 0.5, 0.3)
        FT = fi.build_tangential_collisions(mesh, V, C, B, 0.5, 0.3)
        rng = np.random.default_rng(1)
        eps_v = 1e-3
        U = np.asfortranarray(1e-3 * dhat * rng.standard_normal(V.shape))
        R = np.asfortranarray(V - U)
        Vel = np.asfortranarray(eps_v * rng.standard_normal(V.shape))
        ip, fp = ipctk.FrictionPotential(eps_v), fi.FrictionPotential(eps_v)
        rows = [("force", lambda c: (c, mesh, R, U, Vel, B))]
        for w in (W.VELOCITIES, W.LAGGED_DISPLACEMENTS):
            rows.append(("force_jacobian " + w.name.lower(),
                         lambda c, w=w: (c, mesh, R, U, Vel, B, w)))
        for name, argf in rows:
            meth = "force" if name == "force" else "force_jacobian"
            fa = getattr(ip, meth)
            fb = getattr(fp, meth)
            ref = fa(*argf(T))
            t0 = time.perf_counter()
            got = fb(*argf(T))  # cold: reads the collisions, makes a plan
            cold = time.perf_counter() - t0
            ta = timed(lambda: fa(*argf(T)), args.repeat)
            tb = timed(lambda: fb(*argf(T)), args.repeat)
            print("%-40s %10d %10.4f %10.4f %7.1f %9.1e" % (
                name, len(T), ta, tb, ta / tb, diff(ref, got)))
            print("%-40s %10s %10s %10.4f" % ("  (first call, cold)", "", "",
                                             cold))
            fb(*argf(FT))
            tc = timed(lambda: fb(*argf(FT)), args.repeat)
            print("%-40s %10d %10.4f %10.4f %7.1f %9.1e" % (
                "  fricl-built collisions", len(FT), ta, tc, ta / tc,
                diff(ref, fb(*argf(FT)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
