#!/usr/bin/env python3
"""The fricl Python package against ipctk 1.6.1, same machine, same run.

    PYTHONPATH=build/python python3 bench/python_vs_ipctk.py
        [--contacts 2000,10000,40000,120000] [--repeats 7] [--device auto]
        [--json bench_python.json] [--quick]

1. Drop-in vs ipctk. Scenes of two triangulated sheets a fraction of d-hat
   apart (every contact type occurs), built with ipctk: NormalCollisions,
   then TangentialCollisions (mu_s != mu_k). On each, medians of
   --repeats, interleaved:
     ipctk  FrictionPotential.hessian (PSD clamp), .gradient, __call__
     fricl  fricl.ipctk.FrictionPotential: the same calls on the same
            ipctk objects, collisions reused (as in a Newton loop), every
            Python-side cost included (X conversion, the cache check,
            the evaluation, the CSC matrix);
   plus the first call (reading the collisions out of ipctk, the plan),
   TangentialCollisions.build against fricl.ipctk's lagged build, and the
   agreement (max |fricl - ipctk| / max |ipctk|).
2. numpy API overhead. Contacts.evaluate (D + gradient + BSR Hessian
   values, plan reused) and the scalar family (all twelve terms), from
   Python, against the same C call on the same arrays timed inside the
   extension (the C API alone), at 10 and 10^5 contacts / elements.

Prints Markdown tables; --json writes every number. Needs numpy, scipy,
ipctk and the fricl package (the build tree's python/ on PYTHONPATH, or
`pip install .`); exits 77 (skipped) without them.
"""
import argparse
import json
import os
import platform
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
    and shifted by a third of a cell so that every contact type occurs."""
    h = 1.0 / (n - 1)
    x, y = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n))
    P = np.c_[x.ravel(), y.ravel(), np.zeros(n * n)]
    i, j = np.meshgrid(np.arange(n - 1), np.arange(n - 1), indexing="ij")
    a = (i * n + j).ravel()
    tri = np.concatenate([np.c_[a, a + 1, a + n + 1], np.c_[a, a + n + 1,
                                                             a + n]])
    Q = P + np.array([h / 3, h / 3, gap])
    V = np.vstack([P, Q])
    F = np.vstack([tri, tri + n * n]).astype(np.int32)
    return np.asfortranarray(V), F


def interleaved(fns, repeats):
    """Median time of each function over `repeats` rounds; in each round
    every function runs twice and the second call is timed. Rounds spread
    machine noise over all functions alike; the untimed call puts each
    library back in its steady state (on 2 cores, ipctk's TBB workers still
    spinning after its call slow down the next OpenCL call, and the reverse)
    as in a solver loop that calls one library only."""
    ts = [[] for _ in fns]
    for _ in range(repeats):
        for k, f in enumerate(fns):
            f()
            t0 = time.perf_counter()
            f()
            ts[k].append(time.perf_counter() - t0)
    return [float(np.median(t)) for t in ts]


def rel(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300))


def scene(target, dhat=1e-3, kappa=1e4, mu_s=0.5, mu_k=0.3):
    grid = max(4, int(round(np.sqrt(target / 9.35))))
    V, F = sheets(grid, 0.5 * dhat)
    E = np.asarray(ipctk.edges(F), np.int32)
    mesh = ipctk.CollisionMesh(V, np.asfortranarray(E), np.asfortranarray(F))
    nc = ipctk.NormalCollisions()
    nc.build(mesh, V, dhat)
    B = ipctk.BarrierPotential(dhat, kappa)
    tc = ipctk.TangentialCollisions()
    tc.build(mesh, V, nc, B, mu_s, mu_k)
    return dict(V=V, mesh=mesh, nc=nc, B=B, tc=tc, grid=grid,
                mu_s=mu_s, mu_k=mu_k)


def bench_dropin(target, args, ctx):
    s = scene(target)
    V, mesh, tc = s["V"], s["mesh"], s["tc"]
    eps_v = 1e-3
    rng = np.random.default_rng(1)
    X = np.asfortranarray(rng.normal(size=V.shape) * eps_v)
    clamp = ipctk.PSDProjectionMethod.CLAMP
    ip = ipctk.FrictionPotential(eps_v)
    fp = fi.FrictionPotential(eps_v, context=ctx)
    t0 = time.perf_counter()
    fp.hessian(tc, mesh, X, clamp)  # first call: read + plan + kernels
    first = time.perf_counter() - t0
    backend = ctx.last_backend  # with "auto": the per-call choice
    r = args.repeats
    t_ih, t_fh = interleaved([lambda: ip.hessian(tc, mesh, X, clamp),
                              lambda: fp.hessian(tc, mesh, X, clamp)], r)
    t_ig, t_fg = interleaved([lambda: ip.gradient(tc, mesh, X),
                              lambda: fp.gradient(tc, mesh, X)], r)
    t_id, t_fd = interleaved([lambda: ip(tc, mesh, X),
                              lambda: fp(tc, mesh, X)], r)
    H_i = ip.hessian(tc, mesh, X, clamp)
    H_f = fp.hessian(tc, mesh, X, clamp)
    err_h = float(abs(H_f - H_i).max() / abs(H_i).max())
    err_g = rel(fp.gradient(tc, mesh, X), ip.gradient(tc, mesh, X))
    # Time spent in fricl_tangential_eval itself (hessian values only).
    c = fp._contacts(tc, mesh, np.ascontiguousarray(X))
    Xc = np.ascontiguousarray(X)
    t_c = float(np.median(c._timed(Xc, eps_v, max(r, 5), potential=False,
                                   hessian=True, psd="clamp",
                                   mu_profile="ipctk")))
    # The lagged build: ipctk's against fricl.ipctk's (read nc + build).
    def ipctk_build():
        t = ipctk.TangentialCollisions()
        t.build(mesh, V, s["nc"], s["B"], s["mu_s"], s["mu_k"])

    def fricl_build():
        fi.build_tangential_collisions(mesh, V, s["nc"], s["B"], s["mu_s"],
                                       s["mu_k"], context=ctx,
                                       kappa=1e4, physical_barrier=False)
    t_ib, t_fb = interleaved([ipctk_build, fricl_build], max(3, r // 2))
    types = dict((k, 0) for k in ("vv", "ev", "ee", "fv", "pv"))
    for g in c.groups:
        types[g.type] = g.count
    return dict(contacts=len(tc), vertices=len(V), grid=s["grid"],
                backend=backend,
                types=types, nnz=int(H_f.nnz),
                ipctk_hessian_ms=t_ih * 1e3, fricl_hessian_ms=t_fh * 1e3,
                hessian_speedup=t_ih / t_fh,
                fricl_hessian_c_eval_ms=t_c * 1e3,
                ipctk_gradient_ms=t_ig * 1e3, fricl_gradient_ms=t_fg * 1e3,
                gradient_speedup=t_ig / t_fg,
                ipctk_potential_ms=t_id * 1e3, fricl_potential_ms=t_fd * 1e3,
                potential_speedup=t_id / t_fd,
                fricl_first_hessian_ms=first * 1e3,
                ipctk_build_ms=t_ib * 1e3, fricl_build_ms=t_fb * 1e3,
                err_hessian=err_h, err_gradient=err_g)


def bench_overhead(n, args, ctx):
    """numpy API against the C call alone, same arrays, same run."""
    rng = np.random.default_rng(2)
    nv = max(16, n // 3)
    eps_v = 1e-3
    groups = []
    for t, k, nb, frac in (("ev", 3, 1, 0.3), ("ee", 4, 2, 0.35),
                           ("fv", 4, 2, 0.35)):
        m = max(1, int(round(n * frac)))
        # mesh-like locality: a contact's vertices lie close in the
        # numbering, as neighbouring surface vertices do
        base = rng.integers(0, nv - 8, m)
        ids = (base[:, None] + np.argsort(rng.uniform(size=(m, 8)),
                                          axis=1)[:, :k]).astype(np.int32)
        q, _ = np.linalg.qr(rng.normal(size=(m, 3, 3)))
        groups.append(fricl.ContactGroup(
            t, ids, closest_point=rng.uniform(0, 1, (m, nb)),
            tangent_basis=np.ascontiguousarray(q[:, :, :2]),
            normal_force=rng.uniform(0, 10, m), mu_s=rng.uniform(0.3, 1, m),
            mu_k=rng.uniform(0.1, 0.3, m)))
    c = ctx.contacts(groups, nv)
    v = rng.normal(size=(nv, 3)) * eps_v
    reps = args.repeats * (40 if n < 1000 else 3)

    def py_tan():
        c.evaluate(v, eps_v, gradient=True, hessian="values", psd="clamp",
                   mu_profile="ipctk")
    c_times, py_times = [], []
    py_tan()
    for _ in range(reps):
        c_times += c._timed(v, eps_v, 1, gradient=True, hessian=True,
                            psd="clamp", mu_profile="ipctk")
        t0 = time.perf_counter()
        py_tan()
        py_times.append(time.perf_counter() - t0)
    tan = (float(np.median(py_times)), float(np.median(c_times)))
    # The scalar family, all twelve terms.
    y = rng.uniform(0, 3 * eps_v, n)
    terms = fricl.TERMS

    def py_scalar():
        ctx.scalar("all", y, eps_v, 0.5, 0.3)
    c_times, py_times = [], []
    py_scalar()
    for _ in range(reps):
        c_times += fricl.scalar._timed(ctx, terms, y, eps_v, 0.5, 0.3, 1)
        t0 = time.perf_counter()
        py_scalar()
        py_times.append(time.perf_counter() - t0)
    sca = (float(np.median(py_times)), float(np.median(c_times)))
    out = []
    for what, (tp, tc_) in (("tangential D+grad+Hessian", tan),
                            ("scalar family, 12 terms", sca)):
        out.append(dict(what=what, n=n if what.startswith("scalar")
                        else c.count, python_us=tp * 1e6, c_us=tc_ * 1e6,
                        overhead_us=(tp - tc_) * 1e6,
                        overhead_pct=100.0 * (tp - tc_) / tc_))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--contacts", default="2000,10000,40000,120000")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--json", default=None)
    ap.add_argument("--quick", action="store_true",
                    help="2k and 10k contacts, 3 repeats")
    args = ap.parse_args()
    if args.quick:
        args.contacts, args.repeats = "2000,10000", 3
    ctx = fricl.Context(args.device)
    info = dict(fricl=fricl.__version__, ipctk=getattr(ipctk, "__version__",
                                                       "?"),
                numpy=np.__version__, python=platform.python_version(),
                device=ctx.device_name, backend=ctx.backend,
                ipctk_threads=ipctk.get_num_threads(),
                machine=platform.machine(), cpus=os.cpu_count())
    print("fricl %(fricl)s on %(backend)s (%(device)s); ipctk %(ipctk)s on "
          "%(ipctk_threads)d threads; %(cpus)s CPUs" % info)
    rows = []
    print("\n| contacts | fricl backend | ipctk hessian ms | fricl hessian ms | x | "
          "(eval alone ms) | ipctk grad ms | fricl grad ms | x | ipctk D ms "
          "| fricl D ms | x | first call ms | ipctk build ms | fricl build "
          "ms | err H | err g |")
    print("|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
          "--:|--:|")
    for target in [int(t) for t in args.contacts.split(",")]:
        r = bench_dropin(target, args, ctx)
        rows.append(r)
        print("| %(contacts)d | %(backend)s | %(ipctk_hessian_ms).2f | %(fricl_hessian_ms).2f"
              " | %(hessian_speedup).1f | %(fricl_hessian_c_eval_ms).2f | "
              "%(ipctk_gradient_ms).2f | %(fricl_gradient_ms).2f | "
              "%(gradient_speedup).1f | %(ipctk_potential_ms).2f | "
              "%(fricl_potential_ms).2f | %(potential_speedup).1f | "
              "%(fricl_first_hessian_ms).0f | %(ipctk_build_ms).1f | "
              "%(fricl_build_ms).1f | %(err_hessian).1e | %(err_gradient).1e |"
              % r, flush=True)
    over = []
    print("\n| numpy API | backend | n | Python us | C API us | overhead us "
          "| overhead % |")
    print("|---|---|--:|--:|--:|--:|--:|")
    # On the reference backend the C call is short and steady, so the
    # binding's own cost shows; on OpenCL it is the users' case.
    ctxs = [ctx] if ctx.backend == "reference" else \
        [ctx, fricl.Context("reference")]
    for c in ctxs:
        for n in (10, 100000):
            for o in bench_overhead(n, args, c):
                o["backend"] = c.last_backend  # auto: the per-call choice
                over.append(o)
                print("| %(what)s | %(backend)s | %(n)d | %(python_us).1f | "
                      "%(c_us).1f | %(overhead_us).1f | %(overhead_pct).1f |"
                      % o, flush=True)
    small = [r for r in rows if r["contacts"] < 5000]
    large = [r for r in rows if r["contacts"] > 100000]
    targets = dict(
        hessian_2k_ge_3x=[r["hessian_speedup"] >= 3 for r in small],
        hessian_120k_ge_10x=[r["hessian_speedup"] >= 10 for r in large],
        overhead_1e5_le_20pct=[o["overhead_pct"] <= 20 for o in over
                               if o["n"] > 1000],
        overhead_10_le_30us=[o["overhead_us"] <= 30 for o in over
                             if o["n"] < 1000])
    print("\ntargets: " + ", ".join(
        "%s %s" % (k, "PASS" if v and all(v) else ("MISS" if v else "n/a"))
        for k, v in targets.items()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(info=info, dropin=rows, overhead=over,
                           targets=targets), f, indent=1)
        print("wrote %s" % args.json)


if __name__ == "__main__":
    main()
