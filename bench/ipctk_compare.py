#!/usr/bin/env python3
"""fricl against the IPC Toolkit (ipctk) on the same collisions, same machine.

    PYTHONPATH=build/python python3 bench/ipctk_compare.py [--grid 160]
                                   [--repeats 5] [--device auto]

A mesh-like scene (two triangulated sheets a fraction of d-hat apart) gets
its normal and tangential collisions from ipctk. Then, interleaved, median
of --repeats:

  ipctk   TangentialCollisions.build, FrictionPotential.gradient and
          .hessian (global sparse matrix, PSD clamp);
  fricl   a plan and fricl_tangential_eval (gradient + global BSR Hessian,
          PSD clamp, profile ipctk) on ipctk's own lagged data,

and prints the ratios. fricl is called through its Python package (the
build tree's python/ on PYTHONPATH, or `pip install .`): the lagged data
is read out of ipctk once (fricl.ipctk.read_tangential_collisions), and
the timed calls are Contacts.evaluate (no process start or file I/O).
ipctk's threading is its own (TBB, all cores), fricl runs on the chosen
device. bench/python_vs_ipctk.py times the ipctk drop-in itself. Needs
numpy, ipctk and fricl; exits 77 (skipped) without them.
"""
import argparse
import sys
import time

try:
    import numpy as np
    import ipctk
    import fricl
    import fricl.ipctk as fi
except ImportError as e:  # pragma: no cover
    print("SKIPPED: %s" % e, file=sys.stderr)
    sys.exit(77)


def sheets(n, gap):
    """Two n x n triangulated unit sheets, the second `gap` above the first
    and shifted by a third of a cell so that every kind of contact occurs."""
    h = 1.0 / (n - 1)
    x, y = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n))
    P = np.c_[x.ravel(), y.ravel(), np.zeros(n * n)]
    tri = []
    for i in range(n - 1):
        for j in range(n - 1):
            a = i * n + j
            tri += [[a, a + 1, a + n + 1], [a, a + n + 1, a + n]]
    tri = np.array(tri, np.int32)
    Q = P + np.array([h / 3, h / 3, gap])
    V = np.vstack([P, Q])
    F = np.vstack([tri, tri + n * n]).astype(np.int32)
    return np.asfortranarray(V), F


def median_time(fn, repeats):
    fn()  # warm-up (kernel builds, first touch)
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--grid", type=int, default=160)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--device", default="auto")
    args = ap.parse_args()

    dhat, kappa, eps_v, mu_s, mu_k = 1e-3, 1e4, 1e-3, 0.5, 0.3
    V, F = sheets(args.grid, 0.5 * dhat)
    E = np.asarray(ipctk.edges(F), np.int32)
    mesh = ipctk.CollisionMesh(V, np.asfortranarray(E), np.asfortranarray(F))
    nc = ipctk.NormalCollisions()
    nc.build(mesh, V, dhat)
    B = ipctk.BarrierPotential(dhat, kappa)
    tc = ipctk.TangentialCollisions()
    tc.build(mesh, V, nc, B, mu_s, mu_k)
    rng = np.random.default_rng(1)
    vel = np.asfortranarray(rng.normal(size=V.shape) * eps_v)
    pot = ipctk.FrictionPotential(eps_v)
    clamp = ipctk.PSDProjectionMethod.CLAMP
    groups = fi.read_tangential_collisions(tc, mesh)
    counts = dict((g.type, g.count) for g in groups)
    print("scene: %d vertices, %d tangential collisions %s" %
          (len(V), len(tc), counts))

    ctx = fricl.Context(args.device)
    print("fricl device: %s" % ctx.device_name)
    contacts = ctx.contacts(groups, len(V))
    v_c = np.ascontiguousarray(vel)
    opts = dict(mu_profile="ipctk", psd="clamp", gradient=True,
                hessian="values")

    def fricl_eval():
        contacts.evaluate(v_c, eps_v, **opts)

    def fricl_plan_eval():
        ctx.contacts(groups, len(V)).evaluate(v_c, eps_v, **opts)

    def ipctk_grad_hess():
        pot.gradient(tc, mesh, vel)
        pot.hessian(tc, mesh, vel, clamp)

    def ipctk_hess():
        pot.hessian(tc, mesh, vel, clamp)

    # Agreement first (same collisions, profile ipctk).
    grad = contacts.evaluate(v_c, eps_v, **opts).gradient.reshape(-1)
    g_ipc = np.asarray(pot.gradient(tc, mesh, vel))
    err = np.abs(grad - g_ipc).max() / max(np.abs(g_ipc).max(), 1e-300)
    print("gradient agreement: max |fricl - ipctk| / max |ipctk| = %.2e" % err)

    r = args.repeats
    t_ih = median_time(ipctk_hess, r)
    t_igh = median_time(ipctk_grad_hess, r)
    t_fe = median_time(fricl_eval, r)
    t_fpe = median_time(fricl_plan_eval, r)
    print("\n| operation | ipctk ms | fricl ms | ipctk / fricl |")
    print("|---|---|---|---|")
    print("| global Hessian (fricl: D + gradient + BSR Hessian, plan reused) "
          "| %.1f | %.1f | %.1fx |" % (t_ih * 1e3, t_fe * 1e3, t_ih / t_fe))
    print("| gradient + global Hessian (fricl: plan rebuilt every call) "
          "| %.1f | %.1f | %.1fx |" % (t_igh * 1e3, t_fpe * 1e3,
                                       t_igh / t_fpe))

    def ipctk_build_hess():
        t2 = ipctk.TangentialCollisions()
        t2.build(mesh, V, nc, B, mu_s, mu_k)
        pot.hessian(t2, mesh, vel, clamp)

    t_ibh = median_time(ipctk_build_hess, r)
    print("| TangentialCollisions.build + Hessian (fricl: lagged data "
          "given, plan + eval) | %.1f | %.1f | %.1fx |"
          % (t_ibh * 1e3, t_fpe * 1e3, t_ibh / t_fpe))
    ctx.close()


if __name__ == "__main__":
    main()
