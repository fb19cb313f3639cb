"""Collision-set builds, fricl against ipctk 1.6.1 in the same run:
NormalCollisions.build and Candidates.build on a cloth lying on a box, at
about 3k and 120k collisions. Prints medians and the ratio per row.

    python3 bench/python/collisions_vs_ipctk.py [--repeat 5] [--sizes 90,580]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from scenes import cloth_over_box  # noqa: E402


def median_time(fn, repeat):
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
    print("%-28s %10s %12s %12s %8s" % ("call", "collisions", "ipctk s",
                                         "fricl s", "ratio"))
    for n in [int(s) for s in args.sizes.split(",")]:
        V, E, F, dhat = cloth_over_box(n)
        mesh = ipctk.CollisionMesh(V, E, F)
        fmesh = fi.CollisionMesh(V, E, F)
        C, D = ipctk.NormalCollisions(), fi.NormalCollisions()
        ti, tf = [], []
        for _ in range(args.repeat):  # interleaved: the same load on both
            ti.append(median_time(lambda: C.build(mesh, V, dhat), 1))
            tf.append(median_time(lambda: D.build(fmesh, V, dhat), 1))
        assert len(C) == len(D), (len(C), len(D))
        print("%-28s %10d %12.5f %12.5f %8.1f" % (
            "NormalCollisions.build", len(C), np.median(ti), np.median(tf),
            np.median(ti) / np.median(tf)))
        V1 = V.copy()
        V1[:, 2] -= 0.5 * dhat
        A, B = ipctk.Candidates(), fi.Candidates()
        ti, tf = [], []
        for _ in range(args.repeat):
            ti.append(median_time(lambda: A.build(mesh, V, V1, dhat / 2), 1))
            tf.append(median_time(lambda: B.build(fmesh, V, V1, dhat / 2), 1))
        print("%-28s %10d %12.5f %12.5f %8.1f" % (
            "Candidates.build (motion)", len(B), np.median(ti),
            np.median(tf), np.median(ti) / np.median(tf)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
