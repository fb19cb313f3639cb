"""fricl.ipctk's drop-in calls against ipctk 1.6.1 in the same run, on
the cloth-on-a-box scene, from a few dozen collisions (per-call overhead)
to ~4k: each library evaluates its own collision set (built from the same
positions; the sets are equal, docs/collisions.md). Prints the median
time per call and the ratio ipctk / fricl; > 1 means fricl is faster.
The "first/rep." rows are fricl's first call on a new set (the median
over fresh sets) and its repeated call, with first / repeated as the
ratio (the target: <= 2).

    python3 bench/python/dropin_vs_ipctk.py [--repeat 5] [--sizes 3,5,30,90]

(--sizes 580 gives ~128k collisions; ipctk's Hessian then takes seconds.)
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from scenes import cloth_over_box  # noqa: E402
from timing import arguments, compare, first_vs_repeated, header  # noqa: E402


def main() -> int:
    args = arguments(__doc__, "3,5,30,90")
    import ipctk
    import fricl.ipctk as fi
    clamp = ipctk.PSDProjectionMethod.CLAMP
    header()
    worst, firsts = [], []
    for n in args.sizes:
        V, E, F, dhat = cloth_over_box(n)
        U = np.random.default_rng(n).normal(size=V.shape) * dhat
        mesh, fmesh = ipctk.CollisionMesh(V, E, F), fi.CollisionMesh(V, E, F)
        C, D = ipctk.NormalCollisions(), fi.NormalCollisions()
        C.build(mesh, V, dhat)
        D.build(fmesh, V, dhat)
        B, G = ipctk.BarrierPotential(dhat, 1.0), fi.BarrierPotential(dhat, 1.0)
        T, S = ipctk.TangentialCollisions(), fi.TangentialCollisions()
        T.build(mesh, V, C, B, 0.5)
        S.build(fmesh, V, D, G, 0.5)
        P, Q = ipctk.FrictionPotential(1e-3), fi.FrictionPotential(1e-3)
        # tangential adhesion: the sets lagged with a normal adhesion
        A = ipctk.NormalAdhesionPotential(0.3 * dhat, dhat, 1e3, 0.5)
        TA, SA = ipctk.TangentialCollisions(), fi.TangentialCollisions()
        TA.build(mesh, V, C, A, 0.5)
        SA.build(fmesh, V, D, A, 0.5)
        PA = ipctk.TangentialAdhesionPotential(1e-3)
        QA = fi.TangentialAdhesionPotential(1e-3)
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
            ("TangentialCollisions.build", lambda: T.build(mesh, V, C, B, 0.5),
             lambda: S.build(fmesh, V, D, G, 0.5)),
            ("TangentialCollisions.build (new)",
             lambda: ipctk.TangentialCollisions().build(mesh, V, C, B, 0.5),
             lambda: fi.TangentialCollisions().build(fmesh, V, D, G, 0.5)),
            ("FrictionPotential value", lambda: P(T, mesh, U),
             lambda: Q(S, fmesh, U)),
            ("FrictionPotential gradient", lambda: P.gradient(T, mesh, U),
             lambda: Q.gradient(S, fmesh, U)),
            ("FrictionPotential hessian (clamp)",
             lambda: P.hessian(T, mesh, U, clamp),
             lambda: Q.hessian(S, fmesh, U, clamp)),
            ("TangentialAdhesion value", lambda: PA(TA, mesh, U),
             lambda: QA(SA, fmesh, U)),
            ("TangentialAdhesion gradient", lambda: PA.gradient(TA, mesh, U),
             lambda: QA.gradient(SA, fmesh, U)),
            ("TangentialAdhesion hessian",
             lambda: PA.hessian(TA, mesh, U, clamp),
             lambda: QA.hessian(SA, fmesh, U, clamp)),
        ]
        worst.append(min(compare(rows, len(C), args.repeat)))
        # the first call on a new set (contacts, plan and pattern made)
        # against a repeated one: medians of fresh sets, fricl's columns
        # (first, repeated) and first / repeated as the ratio
        def new_normal():
            N = fi.NormalCollisions()
            N.build(fmesh, V, dhat)
            return N

        def new_tangential():
            N = fi.TangentialCollisions()
            N.build(fmesh, V, D, G, 0.5)
            return N
        cold = max(args.repeat, 21)
        for name, make, call in (
                ("barrier value", new_normal, lambda s: G(s, fmesh, V)),
                ("barrier gradient", new_normal,
                 lambda s: G.gradient(s, fmesh, V)),
                ("barrier hessian", new_normal,
                 lambda s: G.hessian(s, fmesh, V, clamp)),
                ("friction value", new_tangential, lambda s: Q(s, fmesh, U)),
                ("friction gradient", new_tangential,
                 lambda s: Q.gradient(s, fmesh, U)),
                ("friction hessian", new_tangential,
                 lambda s: Q.hessian(s, fmesh, U, clamp))):
            firsts.append(first_vs_repeated(name, make, call, len(D), cold))
    print("slowest row per size (ipctk / fricl): %s" % ", ".join(
        "%.2f" % w for w in worst))
    print("largest first / repeated: %.2f" % max(firsts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
