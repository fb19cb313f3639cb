#!/usr/bin/env python3
"""fricl.ipctk's normal-potential additions (issue 22) against ipctk 1.6.1,
same machine, same run.

    PYTHONPATH=build/python python3 bench/normal_extras_vs_ipctk.py
        [--contacts 2000,100000] [--repeats 7] [--device host]

Scenes of two triangulated sheets half of d-hat apart (every 3-D contact
type occurs; bench/python_vs_ipctk.py's), ipctk's NormalCollisions built
with area weighting and shape derivatives. On each, medians of --repeats,
interleaved, on ipctk's own collision objects (fricl reads them out once,
as in a Newton loop): BarrierPotential's gauss_newton_hessian_diagonal,
gauss_newton_hessian_quadratic_form and shape_derivative;
NormalAdhesionPotential's value, gradient and Hessian (PSD clamp) and
Gauss-Newton diagonal. Prints a Markdown table with the agreement (max
|fricl - ipctk| / max |ipctk|). Exits 77 without numpy, scipy or ipctk.
"""
import argparse
import os
import sys

try:
    import numpy as np
    import ipctk
    import scipy.sparse  # noqa: F401
    import fricl.ipctk as fi
except ImportError as e:  # pragma: no cover
    print("SKIPPED: %s" % e, file=sys.stderr)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from python_vs_ipctk import interleaved, rel, sheets  # noqa: E402


def scene(target, dhat=1e-3):
    grid = max(4, int(round(np.sqrt(target / 9.35))))
    V, F = sheets(grid, 0.5 * dhat)
    E = np.asarray(ipctk.edges(F), np.int32)
    mesh = ipctk.CollisionMesh(V, np.asfortranarray(E), np.asfortranarray(F))
    mesh.init_area_jacobians()
    nc = ipctk.NormalCollisions()
    nc.use_area_weighting = True
    nc.enable_shape_derivatives = True
    nc.build(mesh, V, dhat)
    return V, mesh, nc


def dense(x):
    return x.toarray() if hasattr(x, "toarray") else np.asarray(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--contacts", default="2000,100000")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--device", default="host")
    args = ap.parse_args()
    dhat, kappa = 1e-3, 1e4
    rows = []
    for target in [int(t) for t in args.contacts.split(",")]:
        V, mesh, nc = scene(target, dhat)
        rng = np.random.default_rng(1)
        p = rng.uniform(-1, 1, V.size)
        bi = ipctk.BarrierPotential(dhat, kappa)
        bf = fi.BarrierPotential(dhat, kappa, device=args.device)
        ai = ipctk.NormalAdhesionPotential(0.4 * dhat, dhat, 1e6, 0.5)
        af = fi.NormalAdhesionPotential(0.4 * dhat, dhat, 1e6, 0.5,
                                        device=args.device)
        CLAMP = ipctk.PSDProjectionMethod.CLAMP
        ops = [
            ("barrier GN diagonal",
             lambda: bi.gauss_newton_hessian_diagonal(nc, mesh, V),
             lambda: bf.gauss_newton_hessian_diagonal(nc, mesh, V)),
            ("barrier GN quadratic form",
             lambda: bi.gauss_newton_hessian_quadratic_form(nc, mesh, V, p),
             lambda: bf.gauss_newton_hessian_quadratic_form(nc, mesh, V, p)),
            ("barrier shape derivative",
             lambda: bi.shape_derivative(nc, mesh, V),
             lambda: bf.shape_derivative(nc, mesh, V)),
            ("adhesion value", lambda: ai(nc, mesh, V),
             lambda: af(nc, mesh, V)),
            ("adhesion gradient", lambda: ai.gradient(nc, mesh, V),
             lambda: af.gradient(nc, mesh, V)),
            ("adhesion hessian (clamp)",
             lambda: ai.hessian(nc, mesh, V, CLAMP),
             lambda: af.hessian(nc, mesh, V, CLAMP)),
            ("adhesion GN diagonal",
             lambda: ai.gauss_newton_hessian_diagonal(nc, mesh, V),
             lambda: af.gauss_newton_hessian_diagonal(nc, mesh, V)),
        ]
        for name, fi_, ff in ops:
            ff()  # the first call reads the collisions out of ipctk
            ti, tf = interleaved([fi_, ff], args.repeats)
            a, b = fi_(), ff()
            if np.ndim(a) == 0 and not hasattr(a, "toarray"):
                err = abs(b - a) / max(abs(a), 1e-300)
            elif hasattr(a, "toarray") and a.shape[0] > 20000:
                d = (a - b).tocsr()
                err = (abs(d).max() / max(abs(a).max(), 1e-300)
                       if d.nnz else 0.0)
            else:
                err = rel(dense(b), dense(a))
            rows.append((len(nc), name, ti * 1e3, tf * 1e3, ti / tf, err))
    print("| collisions | operation | ipctk ms | fricl ms | speed-up | "
          "agreement |")
    print("|---:|---|---:|---:|---:|---:|")
    for n, name, ti, tf, s, err in rows:
        print("| %d | %s | %.3f | %.3f | %.1fx | %.1e |" % (n, name, ti, tf,
                                                           s, err))
    return 0


if __name__ == "__main__":
    sys.exit(main())
