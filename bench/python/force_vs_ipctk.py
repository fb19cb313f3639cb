"""fricl.ipctk.FrictionPotential.force / force_jacobian against ipctk
1.6.1's in the same run, on the cloth-on-a-box scene: ipctk's normal and
tangential collisions (fricl reads them once and caches them, as in a
Newton loop; the first call, which reads them and makes the plan, is timed
apart, and the "1st, ipctk set" rows time it against ipctk's call as medians over
fresh ipctk sets), then fricl's own lagged build in place of ipctk's ("fricl-built"
rows: nothing read from ipctk). Calls interleaved, medians, ratio ipctk /
fricl (bench/python/timing.py); then the largest difference of each result
from ipctk's relative to its largest entry.

    python3 bench/python/force_vs_ipctk.py [--repeat 5] [--sizes 75,527]
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from scenes import cloth_over_box  # noqa: E402
from timing import arguments, compare, first_on_new, header, once  # noqa: E402,E501


def rel_diff(a, b) -> float:
    d = abs(a - b)
    return float(d.max()) / max(float(abs(a).max()), 1e-300)


def main() -> int:
    args = arguments(__doc__, "75,527")
    import ipctk
    import fricl.ipctk as fi
    W = ipctk.FrictionPotential.DiffWRT
    for n in args.sizes:
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
        calls = [("force", "force", ())]
        for w in (W.VELOCITIES, W.LAGGED_DISPLACEMENTS):
            calls.append(("force_jacobian " + w.name.lower()[:12],
                          "force_jacobian", (w,)))
        cold = []
        for name, meth, extra in calls:
            cold.append(once(lambda: getattr(fp, meth)(T, mesh, R, U, Vel,
                                                       B, *extra)))
        header()
        rows = []
        for name, meth, extra in calls:
            fa = (lambda m=meth, e=extra:
                  getattr(ip, m)(T, mesh, R, U, Vel, B, *e))
            fb = (lambda m=meth, e=extra:
                  getattr(fp, m)(T, mesh, R, U, Vel, B, *e))
            fc = (lambda m=meth, e=extra:
                  getattr(fp, m)(FT, mesh, R, U, Vel, B, *e))
            rows.append((name, fa, fb))
            rows.append(("  fricl-built " + name[:20], fa, fc))
        compare(rows, len(T), args.repeat)
        # tangential adhesion (NormalAdhesionPotential's N, lagged at
        # rest + lagged displacements): force and velocity Jacobian
        A = ipctk.NormalAdhesionPotential(0.3 * dhat, dhat, 100.0, 0.5)
        TA = ipctk.TangentialCollisions()
        TA.build(mesh, V, C, A, 0.5, 0.3)
        FTA = fi.TangentialCollisions()
        FTA.build(mesh, V, C, A, 0.5, 0.3)
        ipa = ipctk.TangentialAdhesionPotential(eps_v)
        fpa = fi.TangentialAdhesionPotential(eps_v)
        rows = []
        for name, meth, extra in calls[:2]:
            fa = (lambda m=meth, e=extra:
                  getattr(ipa, m)(TA, mesh, R, U, Vel, A, *e))
            fb = (lambda m=meth, e=extra:
                  getattr(fpa, m)(TA, mesh, R, U, Vel, A, *e))
            fc = (lambda m=meth, e=extra:
                  getattr(fpa, m)(FTA, mesh, R, U, Vel, A, *e))
            fb()  # the first call (reads ipctk's set) is not timed here
            rows.append(("adhesion " + name[:25], fa, fb))
            rows.append(("  fricl-built adh. " + name[:15], fa, fc))
            print("%-34s rel. diff %.1e (fricl-built %.1e)"
                  % ("adhesion " + name[:25], rel_diff(fa(), fb()),
                     rel_diff(fa(), fc())))
        compare(rows, len(TA), args.repeat)
        # fricl's first call on a new ipctk set (read, plan made) against
        # ipctk's call on it: medians over fresh sets
        def new_tangential():
            S = ipctk.TangentialCollisions()
            S.build(mesh, V, C, B, 0.5, 0.3)
            return S

        def new_adhesion():
            S = ipctk.TangentialCollisions()
            S.build(mesh, V, C, A, 0.5, 0.3)
            return S

        def new_normal():
            S = ipctk.NormalCollisions()
            S.build(mesh, V, dhat)
            return S
        GB = fi.BarrierPotential(dhat, 1.0)
        Vel0 = Vel
        for name, make, fa, fb in (
                ("force", new_tangential,
                 lambda s: ip.force(s, mesh, R, U, Vel0, B),
                 lambda s: fp.force(s, mesh, R, U, Vel0, B)),
                ("force_jac. vel.", new_tangential,
                 lambda s: ip.force_jacobian(s, mesh, R, U, Vel0, B,
                                             W.VELOCITIES),
                 lambda s: fp.force_jacobian(s, mesh, R, U, Vel0, B,
                                             W.VELOCITIES)),
                ("adh. force", new_adhesion,
                 lambda s: ipa.force(s, mesh, R, U, Vel0, A),
                 lambda s: fpa.force(s, mesh, R, U, Vel0, A)),
                ("adh. jac. vel.", new_adhesion,
                 lambda s: ipa.force_jacobian(s, mesh, R, U, Vel0, A,
                                              W.VELOCITIES),
                 lambda s: fpa.force_jacobian(s, mesh, R, U, Vel0, A,
                                              W.VELOCITIES)),
                ("friction grad.", new_tangential,
                 lambda s: ip.gradient(s, mesh, U),
                 lambda s: fp.gradient(s, mesh, U)),
                ("barrier value", new_normal, lambda s: B(s, mesh, V),
                 lambda s: GB(s, mesh, V)),
                ("barrier grad.", new_normal,
                 lambda s: B.gradient(s, mesh, V),
                 lambda s: GB.gradient(s, mesh, V))):
            first_on_new(name, make, fa, fb, len(T),
                         max(args.repeat, 5))
        for (name, meth, extra), c in zip(calls, cold):
            ref = getattr(ip, meth)(T, mesh, R, U, Vel, B, *extra)
            got = getattr(fp, meth)(T, mesh, R, U, Vel, B, *extra)
            own = getattr(fp, meth)(FT, mesh, R, U, Vel, B, *extra)
            print("%-34s first call %.4f s; rel. diff %.1e (fricl-built "
                  "%.1e)" % (name, c, rel_diff(ref, got), rel_diff(ref, own)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
