"""fricl.ipctk's drop-in calls against ipctk 1.6.1 in the same run, on
the cloth-on-a-box scene: each backend evaluates its own collision set
(built from the same positions; the sets are equal, docs/collisions.md).
Prints the median time per call and the ratio ipctk / fricl.

    python3 bench/python/dropin_vs_ipctk.py [--repeat 5] [--sizes 90,580]
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


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--sizes", default="90,580")
    args = ap.parse_args()
    import ipctk
    import fricl.ipctk as fi
    print("%-34s %10s %11s %11s %7s" % ("call", "collisions", "ipctk s",
                                        "fricl s", "ratio"))
    for n in [int(s) for s in args.sizes.split(",")]:
        V, E, F, dhat = cloth_over_box(n)
        mesh, fmesh = ipctk.CollisionMesh(V, E, F), fi.CollisionMesh(V, E, F)
        C, D = ipctk.NormalCollisions(), fi.NormalCollisions()
        C.build(mesh, V, dhat)
        D.build(fmesh, V, dhat)
        B, G = ipctk.BarrierPotential(dhat, 1.0), fi.BarrierPotential(dhat, 1.0)
        clamp = ipctk.PSDProjectionMethod.CLAMP
        rows = [
            ("NormalCollisions.build", lambda: C.build(mesh, V, dhat),
             lambda: D.build(fmesh, V, dhat)),
            ("BarrierPotential value", lambda: B(C, mesh, V),
             lambda: G(D, fmesh, V)),
            ("BarrierPotential gradient", lambda: B.gradient(C, mesh, V),
             lambda: G.gradient(D, fmesh, V)),
            ("BarrierPotential hessian (clamp)",
             lambda: B.hessian(C, mesh, V, clamp),
             lambda: G.hessian(D, fmesh, V, clamp)),
        ]
        for name, fa, fb in rows:
            fa()  # warm: first-use costs (contexts, plans) are timed below
            fb()
            ta, tb = [], []
            reps = args.repeat if len(C) > 20000 else 4 * args.repeat
            for _ in range(reps):  # interleaved: the same load
                ta.append(timed(fa, 1))
                tb.append(timed(fb, 1))
            a, b = float(np.median(ta)), float(np.median(tb))
            print("%-34s %10d %11.6f %11.6f %7.1f" % (name, len(C), a, b,
                                                      a / b))
        # first call on a new set against a repeated call
        D.build(fmesh, V, dhat)
        t1 = timed(lambda: G.hessian(D, fmesh, V, clamp), 1)
        t2 = timed(lambda: G.hessian(D, fmesh, V, clamp), args.repeat)
        print("%-34s %10d %11s %11.6f %7.2f" % (
            "hessian first/repeated (fricl)", len(D), "-", t1, t1 / t2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
