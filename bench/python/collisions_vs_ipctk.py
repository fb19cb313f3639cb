"""Collision-set builds, fricl against ipctk 1.6.1 in the same run:
NormalCollisions.build, Candidates.build and the collision-free step over
those candidates (AdditiveCCD, fricl_ccd_stepsize) on a cloth lying on a
box, at about 3k and 120k collisions. Prints medians and the ratio per row.

    python3 bench/python/collisions_vs_ipctk.py [--repeat 5] [--sizes 90,580]
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from scenes import cloth_over_box  # noqa: E402
from timing import arguments, compare, header  # noqa: E402


def main() -> int:
    args = arguments(__doc__, "90,580")
    import ipctk
    import fricl.ipctk as fi
    header()
    for n in args.sizes:
        V, E, F, dhat = cloth_over_box(n)
        mesh = ipctk.CollisionMesh(V, E, F)
        fmesh = fi.CollisionMesh(V, E, F)
        C, D = ipctk.NormalCollisions(), fi.NormalCollisions()
        C.build(mesh, V, dhat)
        D.build(fmesh, V, dhat)
        assert len(C) == len(D), (len(C), len(D))
        compare([("NormalCollisions.build", lambda: C.build(mesh, V, dhat),
                  lambda: D.build(fmesh, V, dhat))], len(C), args.repeat)
        V1 = V.copy()
        V1[:, 2] -= 0.5 * dhat
        A, B = ipctk.Candidates(), fi.Candidates()
        B.build(fmesh, V, V1, dhat / 2)
        compare([("Candidates.build (motion)",
                  lambda: A.build(mesh, V, V1, dhat / 2),
                  lambda: B.build(fmesh, V, V1, dhat / 2))], len(B),
                args.repeat)
        A.build(mesh, V, V1, dhat / 2)
        ccd = ipctk.AdditiveCCD()
        assert A.compute_collision_free_stepsize(mesh, V, V1, 0.0, ccd) == \
            B.compute_collision_free_stepsize(fmesh, V, V1, 0.0, ccd)
        compare([("CCD step, AdditiveCCD",
                  lambda: A.compute_collision_free_stepsize(mesh, V, V1, 0.0,
                                                            ccd),
                  lambda: B.compute_collision_free_stepsize(fmesh, V, V1, 0.0,
                                                            ccd))],
                len(B), args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
