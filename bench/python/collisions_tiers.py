"""The collision build's tiers in the same run: NormalCollisions.build by
ipctk 1.6.1 (BruteForce is not used: its default broad phase), by
fricl.ipctk on a "host" context, and on an OpenCL fp64 device's context
with the narrow phase on the device (device_min_candidates = 1), on its
fused host path (2**64 - 1: classified as the broad phase finds them) and
below the threshold (candidates collected, then classified on the host
threads), on a cloth lying on a
box at about 4k and 120k collisions. Calls interleaved, medians; the sets
of the tiers are checked equal bit for bit first. Prints seconds and
ipctk / tier.

    python3 bench/python/collisions_tiers.py [--repeat 7] [--sizes 90,580]
        [--device opencl:0:0]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from scenes import cloth_over_box  # noqa: E402

NEVER = 2**64 - 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--sizes", default="90,580")
    ap.add_argument("--device", default=None)
    args = ap.parse_args()
    import ipctk
    import fricl
    import fricl.ipctk as fi
    dev = args.device or next((d["spec"] for d in fricl.devices()
                               if d["has_fp64"]), None)
    if dev is None:
        print("collisions_tiers: no OpenCL fp64 device")
        return 77
    names = [d["device_name"] for d in fricl.devices() if d["spec"] == dev]
    print("device %s (%s)" % (dev, names[0] if names else "?"))
    print("%-28s %10s %11s %8s" % ("tier", "collisions", "median s",
                                   "ipctk/x"))
    for n in (int(s) for s in args.sizes.split(",")):
        V, E, F, dhat = cloth_over_box(n)
        mesh = ipctk.CollisionMesh(V, E, F)
        mh = fi.CollisionMesh(V, E, F)
        md = fi.CollisionMesh(V, E, F, device=dev)
        C = ipctk.NormalCollisions()
        tiers = [("ipctk", lambda: C.build(mesh, V, dhat))]
        sets = []
        for label, m, min_c in (("fricl host context", mh, 0),
                                ("fricl OpenCL narrow phase", md, 1),
                                ("fricl OpenCL ctx, fused host", md, NEVER),
                                ("fricl OpenCL ctx, below min", md,
                                 10**12)):
            D = fi.NormalCollisions()
            D.device_min_candidates = min_c
            D.build(m, V, dhat)
            sets.append(D)
            tiers.append((label, (lambda D=D, m=m: D.build(m, V, dhat))))
        C.build(mesh, V, dhat)
        assert all(len(D) == len(C) for D in sets)
        for kind in ("vv", "ev", "ee", "fv", "pv"):
            ref = sets[0].arrays(kind)
            for D in sets[1:]:
                a = D.arrays(kind)
                for f in ref:
                    if ref[f] is not None:
                        assert np.asarray(ref[f]).tobytes() == \
                            np.asarray(a[f]).tobytes(), (kind, f)
        times = [[] for _ in tiers]
        for fn in (f for _, f in tiers):
            fn()  # warm: kernels built, scratch grown
        for _ in range(args.repeat):
            for i, (_, fn) in enumerate(tiers):
                t = time.perf_counter()
                fn()
                times[i].append(time.perf_counter() - t)
        med = [float(np.median(t)) for t in times]
        for (label, _), m in zip(tiers, med):
            print("%-28s %10d %11.6f %8.2f" % (label, len(C), m, med[0] / m))
    return 0


if __name__ == "__main__":
    sys.exit(main())
