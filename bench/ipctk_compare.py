#!/usr/bin/env python3
"""fricl against the IPC Toolkit (ipctk) on the same collisions, same machine.

    python3 bench/ipctk_compare.py [--lib build/libfricl.so] [--grid 160]
                                   [--repeats 5] [--device auto]

A mesh-like scene (two triangulated sheets a fraction of d-hat apart) gets
its normal and tangential collisions from ipctk. Then, interleaved, median
of --repeats:

  ipctk   TangentialCollisions.build, FrictionPotential.gradient and
          .hessian (global sparse matrix, PSD clamp);
  fricl   fricl_build (lagged build from the same positions), a plan, and
          fricl_tangential_eval (gradient + global BSR Hessian, PSD clamp,
          profile ipctk) on ipctk's own lagged data,

and prints the ratios. fricl is called through ctypes on the shared library
(no process start or file I/O in the timings). ipctk's threading is its own
(TBB, all cores), fricl runs on the chosen OpenCL device. Needs numpy and
ipctk; exits 77 (skipped) without them.
"""
import argparse
import ctypes as C
import os
import sys
import time

try:
    import numpy as np
    import ipctk
except ImportError as e:  # pragma: no cover
    print("SKIPPED: %s" % e, file=sys.stderr)
    sys.exit(77)

TYPES = ("vv", "ev", "ee", "fv", "pv")
CLASS_TYPE = {"VertexVertexTangentialCollision": "vv",
              "EdgeVertexTangentialCollision": "ev",
              "EdgeEdgeTangentialCollision": "ee",
              "FaceVertexTangentialCollision": "fv",
              "PlaneVertexTangentialCollision": "pv"}
K = {"vv": 2, "ev": 3, "ee": 4, "fv": 4, "pv": 1}
NB = {"vv": 0, "ev": 1, "ee": 2, "fv": 2, "pv": 0}
VP = C.c_void_p


class Group(C.Structure):  # fricl_contact_group
    _fields_ = [("type", C.c_int), ("count", C.c_size_t)] + [
        (n, VP) for n in ("vertices", "closest_point", "tangent_basis",
                          "normal_force", "weight", "mu_s", "mu_k",
                          "mu_aniso", "potential", "local_hessian",
                          "factored_gamma", "factored_grad",
                          "factored_hessian")]


class Batch(C.Structure):  # fricl_tangential_batch
    _fields_ = [("struct_size", C.c_uint32), ("precision", C.c_int),
                ("mu_profile", C.c_int), ("psd", C.c_int),
                ("flags", C.c_uint32), ("dim", C.c_int),
                ("n_vertices", C.c_size_t), ("velocities", VP),
                ("eps_v", C.c_double), ("n_groups", C.c_size_t),
                ("groups", VP), ("plan", VP), ("direction", VP),
                ("potential", VP), ("gradient", VP),
                ("hessian_values", VP), ("hessian_product", VP)]


def ptr(a):
    return a.ctypes.data_as(VP) if a is not None else None


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


def lagged(tc, E, F):
    by = dict((t, []) for t in TYPES)
    for i in range(len(tc)):
        by[CLASS_TYPE[type(tc[i]).__name__]].append(tc[i])
    out = {}
    for t in TYPES:
        lst = by[t]
        if not lst:
            continue
        m = len(lst)
        ids = np.zeros((m, K[t]), np.int32)
        cp = np.zeros((m, max(NB[t], 1)))
        P = np.zeros((m, 3, 2))
        N, w, ms, mk = (np.zeros(m) for _ in range(4))
        for i, c in enumerate(lst):
            ids[i] = np.asarray(c.vertex_ids(E, F))[:K[t]]
            cp[i, :NB[t]] = np.asarray(c.closest_point).reshape(-1)[:NB[t]]
            P[i] = np.asarray(c.tangent_basis).reshape(3, 2)
            N[i] = c.normal_force_magnitude
            w[i] = c.weight
            ms[i] = c.mu_s_effective_lagged
            mk[i] = c.mu_k_effective_lagged
        out[t] = dict(ids=ids, cp=np.ascontiguousarray(cp[:, :NB[t]]),
                      P=P, N=N, w=w, ms=ms, mk=mk)
    return out


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
    ap.add_argument("--lib", default=os.path.join(
        os.path.dirname(__file__), "..", "build", "libfricl.so"))
    ap.add_argument("--grid", type=int, default=160)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--device", default="auto")
    args = ap.parse_args()
    lib = C.CDLL(os.path.abspath(args.lib))

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
    data = lagged(tc, E, F)
    counts = dict((t, len(d["N"])) for t, d in data.items())
    print("scene: %d vertices, %d tangential collisions %s" %
          (len(V), len(tc), counts))

    # fricl through ctypes.
    ctx = VP()
    dev = args.device.encode()

    class Params(C.Structure):  # fricl_context_params
        _fields_ = [("struct_size", C.c_uint32), ("device", C.c_char_p),
                    ("max_chunk_elements", C.c_size_t),
                    ("flags", C.c_uint32), ("build_options", C.c_char_p),
                    ("error_buffer", C.c_char_p),
                    ("error_buffer_size", C.c_size_t)]
    p = Params()
    lib.fricl_context_params_init(C.byref(p))
    p.device = dev
    if lib.fricl_context_create(C.byref(ctx), C.byref(p)) != 0:
        sys.exit("fricl: cannot create a context on %s" % args.device)
    lib.fricl_context_device_name.restype = C.c_char_p
    lib.fricl_context_last_error.restype = C.c_char_p
    print("fricl device: %s" % lib.fricl_context_device_name(ctx).decode())
    types = [t for t in TYPES if t in data]
    groups = (Group * len(types))()
    keep = []
    for g, t in enumerate(types):
        d = data[t]
        groups[g].type = TYPES.index(t)
        groups[g].count = len(d["N"])
        for f, a in (("vertices", d["ids"]),
                     ("closest_point", d["cp"] if NB[t] else None),
                     ("tangent_basis", d["P"]), ("normal_force", d["N"]),
                     ("weight", d["w"]), ("mu_s", d["ms"]),
                     ("mu_k", d["mk"])):
            if a is not None:
                a = np.ascontiguousarray(a)
                keep.append(a)
                setattr(groups[g], f, ptr(a))
    plan = VP()

    def make_plan():
        if plan:
            lib.fricl_tangential_plan_destroy(plan)
        st = lib.fricl_tangential_plan_create(
            ctx, 3, C.c_size_t(len(V)), C.c_size_t(len(types)), groups,
            C.byref(plan))
        assert st == 0, lib.fricl_context_last_error(ctx)

    make_plan()
    nnz = C.c_size_t()
    lib.fricl_tangential_plan_bsr(plan, None, C.byref(nnz), None, None)
    v_c = np.ascontiguousarray(vel)
    grad = np.zeros(V.size)
    hess = np.zeros(nnz.value * 9)
    total = np.zeros(1)
    b = Batch()
    lib.fricl_tangential_batch_init(C.byref(b))
    b.mu_profile, b.psd, b.dim = 1, 1, 3  # ipctk profile, clamp
    b.n_vertices, b.velocities, b.eps_v = len(V), ptr(v_c), eps_v
    b.n_groups, b.groups, b.plan = len(types), C.cast(groups, VP), plan
    b.potential, b.gradient, b.hessian_values = ptr(total), ptr(grad), \
        ptr(hess)

    def fricl_eval():
        b.plan = plan
        st = lib.fricl_tangential_eval(ctx, C.byref(b))
        assert st == 0, lib.fricl_context_last_error(ctx)

    def fricl_plan_eval():
        make_plan()
        fricl_eval()

    def ipctk_grad_hess():
        pot.gradient(tc, mesh, vel)
        pot.hessian(tc, mesh, vel, clamp)

    def ipctk_hess():
        pot.hessian(tc, mesh, vel, clamp)

    # Agreement first (same collisions, profile ipctk).
    fricl_eval()
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
    lib.fricl_tangential_plan_destroy(plan)
    lib.fricl_context_destroy(ctx)


if __name__ == "__main__":
    main()
