#!/usr/bin/env python3
"""Cross-check `fricl tangential --mu-profile ipctk` against the ipctk package.

    ipctk_crosscheck.py FRICL_EXE WORKDIR [--scenes N] [--seed S] [--device SPEC]...

Random small scenes are built in ipctk (stacked tetrahedra and triangles in
3-D, often over a tilted ground plane, stacked polylines in 2-D, so that the
bodies never intersect while many vertex-vertex, edge-vertex, edge-edge,
face-vertex and plane-vertex pairs lie within dhat).
ipctk builds the NormalCollisions and then the TangentialCollisions (the
lagged data: closest point, tangent basis, normal force, weight, mu_s/mu_k
effective lagged values), and its FrictionPotential gives D, the gradient
and the Hessian (PSD projection NONE, CLAMP and ABS) at random velocities
in every regime (all zero, static, around eps_v, kinetic, mixed). The same
lagged data are written as an .npz in fricl's schema, `fricl tangential
--hessian global` (and `--hessian local`) evaluates them, and the results
must agree:

  * D:         |D_f - D_i| <= 1e-10 * max(|D_i|, S_D)
  * gradient:  max|g_f - g_i| <= 1e-10 * max(max|g_i|, 1e-6 * S_g)
  * Hessian:   max|H_f - H_i| <= 1e-10 * max(max|H_i|, 1e-6 * S_H)
               (dense, global; and every contact's local Hessian against
               ipctk's per-collision Hessian, the same way)
  * per-contact D against ipctk's per-collision potential, as D.

The absolute floors use the natural scales of the scene, with
s_c = |w_c N_c| max(mu_s, mu_k)_c:  S_D = sum_c s_c eps_v (a contact's D
at y = 0 is of that size; D itself can cancel to ~0 when mu_s/mu_k is
large, spec 3.7), S_g = sum_c s_c and S_H = sum_c s_c / eps_v. The floors
matter only where the reference is (nearly) all zero, e.g. the gradient at
zero velocity, which must then be zero in both.

Also checked: the displacement convention (spec 4.8): ipctk with eps_v*h
on displacements h*v against fricl on the same, and fricl's own
homogeneity D(hv; h eps_v) = h D(v; eps_v), same gradient, Hessian / h, to
1e-12 relative (h a power of two). Weights come from area weighting and
from IMPROVED_MAX_APPROX collision sets; in those scenes (and a few more)
some weights are also negated in ipctk (collision.weight), so that negative
w N is always exercised (ABS is compared with --ipctk-abs, the documented
ipctk behaviour). Some scenes set a random per-collision anisotropy
mu_aniso in ipctk and pass it along.

ipctk is limited to one thread (TBB sums are otherwise not reproducible at
the rounding level, spec 8). Exit status: 0 pass, 1 mismatch, 77 SKIPPED
(only when `import ipctk` fails), 2 usage or setup error.
"""
import argparse
import os
import subprocess
import sys

try:
    import numpy as np
    import ipctk
except ImportError as exc:  # numpy is a dependency of ipctk
    print("*" * 72)
    print("SKIPPED: ipctk not installed (%s)" % exc)
    print("  the fricl <-> IPC Toolkit cross-check did NOT run;")
    print("  install it with: python3 -m pip install ipctk")
    print("*" * 72)
    sys.exit(77)

TOL = 1e-10
HOMOGENEITY_TOL = 1e-12
FLOOR = 1e-6
TYPES = ("vv", "ev", "ee", "fv", "pv")
CLASS_TYPE = {"VertexVertexTangentialCollision": "vv",
              "EdgeVertexTangentialCollision": "ev",
              "EdgeEdgeTangentialCollision": "ee",
              "FaceVertexTangentialCollision": "fv",
              "PlaneVertexTangentialCollision": "pv"}
PSD = {"none": ipctk.PSDProjectionMethod.NONE,
       "clamp": ipctk.PSDProjectionMethod.CLAMP,
       "abs": ipctk.PSDProjectionMethod.ABS}


def random_rotation(rng, dim):
    q, r = np.linalg.qr(rng.normal(size=(dim, dim)))
    q = q * np.sign(np.diag(r))
    if np.linalg.det(q) < 0:
        q[:, 0] = -q[:, 0]
    return q


def stack(layers, gap, dim):
    """Translate the layers (vertex arrays) along the last axis so that
    each starts `gap` above the previous one's top: separated slabs."""
    out, top = [], 0.0
    for i, L in enumerate(layers):
        L = L.copy()
        if i > 0:
            L[:, dim - 1] += top + gap - L[:, dim - 1].min()
        top = L[:, dim - 1].max()
        out.append(L)
    return out


def scene_tets(rng):
    T = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1.0]])
    tf = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    n = int(rng.integers(2, 4))
    layers = [(T - 0.25) @ random_rotation(rng, 3).T * rng.uniform(0.7, 1.3)
              + np.r_[rng.uniform(-0.2, 0.2, 2), 0] for _ in range(n)]
    gap = rng.uniform(0.01, 0.05)
    V = np.vstack(stack(layers, gap, 3))
    F = np.vstack([tf + 4 * i for i in range(n)])
    return V, F, gap


def scene_triangles(rng):
    n = int(rng.integers(2, 5))
    gap = rng.uniform(0.01, 0.05)
    layers = []
    for _ in range(n):
        L = np.c_[rng.uniform(0, 1, (3, 2)), rng.uniform(0, gap, 3)]
        layers.append(L)
    V = np.vstack(stack(layers, gap, 3))
    F = np.arange(3 * n).reshape(n, 3)
    return V, F, gap


def scene_polylines(rng):
    n = int(rng.integers(2, 4))
    gap = rng.uniform(0.01, 0.05)
    layers, edges, off = [], [], 0
    for _ in range(n):
        k = int(rng.integers(3, 6))
        x = np.sort(rng.uniform(0, 1, k))
        L = np.c_[x, rng.uniform(0, gap, k)]
        layers.append(L)
        edges += [[off + j, off + j + 1] for j in range(k - 1)]
        off += k
    V = np.vstack(stack(layers, gap, 2))
    return V, np.array(edges), gap


def build(rng, kind):
    """A scene with its tangential collisions (at least one contact)."""
    for _ in range(50):
        if kind == "tets":
            V, F, gap = scene_tets(rng)
        elif kind == "triangles":
            V, F, gap = scene_triangles(rng)
        else:
            V, F, gap = scene_polylines(rng)
        dim = V.shape[1]
        if dim == 3:
            F = np.asarray(F, dtype=np.int32)
            E = np.asarray(ipctk.edges(F), dtype=np.int32)
        else:
            E, F = np.asarray(F, dtype=np.int32), np.zeros((0, 3), np.int32)
        V = np.asfortranarray(V)
        mesh = ipctk.CollisionMesh(V, np.asfortranarray(E),
                                   np.asfortranarray(F))
        if ipctk.has_intersections(mesh, V):
            continue
        plane = dim == 3 and rng.uniform() < 0.6
        if plane:  # a tilted ground plane `gap` below every vertex
            nrm = np.r_[rng.uniform(-0.2, 0.2, 2), 1.0]
            nrm /= np.linalg.norm(nrm)
            off = float((V @ nrm).min()) - gap * rng.uniform(0.5, 1.5)
            mesh.planes = [ipctk.Hyperplane(nrm, nrm * off)]
        nc = ipctk.NormalCollisions()
        # ipctk warns that the improved max approximator needs area weights.
        improved = dim == 3 and rng.uniform() < 0.35
        nc.use_area_weighting = improved or rng.uniform() < 0.5
        if improved:
            nc.collision_set_type = \
                ipctk.NormalCollisions.CollisionSetType.IMPROVED_MAX_APPROX
        dhat = gap * rng.uniform(2.0, 6.0)
        nc.build(mesh, V, dhat)
        if len(nc) == 0:
            continue
        kappa = 10.0 ** rng.uniform(0, 4)
        B = ipctk.BarrierPotential(dhat, kappa)
        tc = ipctk.TangentialCollisions()
        if rng.uniform() < 0.2:
            mu = rng.uniform(0.1, 1.0)
            tc.build(mesh, V, nc, B, mu, mu)
        else:
            mu_s = rng.uniform(0.2, 1.0, len(V))
            mu_k = rng.uniform(0.1, 0.8, len(V))
            tc.build(mesh, V, nc, B, mu_s, mu_k)
        if len(tc) == 0:
            continue
        aniso = dim == 3 and rng.uniform() < 0.6
        negate = improved or rng.uniform() < 0.2
        for i in range(len(tc)):
            c = tc[i]
            if aniso:
                c.mu_aniso = rng.uniform(0.5, 2.0, 2)
            # Improved max-approximation sets have negative weights where
            # they subtract; make sure a few exist in every such scene.
            if negate and rng.uniform() < 0.3:
                c.weight = -abs(c.weight)
            del c  # see compare_scene: no item may outlive tc
        info = dict(kind=kind, dim=dim, n=len(V), dhat=dhat, kappa=kappa,
                    area=nc.use_area_weighting, improved=improved,
                    aniso=aniso, negate=negate, plane=plane)
        return mesh, V, E, F, tc, info
    raise RuntimeError("could not build a %s scene with contacts" % kind)


def lagged(tc, E, F, dim, rng):
    """The per-contact lagged data in fricl's schema, per type, and the
    collisions in the same order. The container's items (tc[i]) hold every
    type, plane-vertex included (the vv/ev/ee/fv lists have no pv)."""
    arrays, colls = {}, {}
    by_type = dict((t, []) for t in TYPES)
    for i in range(len(tc)):
        by_type[CLASS_TYPE[type(tc[i]).__name__]].append(tc[i])
    for t in TYPES:
        lst = by_type[t]
        if dim == 2 and t in ("ee", "fv"):
            assert not lst
            continue
        if not lst and rng.uniform() < 0.5:
            continue  # absent type; otherwise written with m = 0
        k = {"vv": 2, "ev": 3, "ee": 4, "fv": 4, "pv": 1}[t]
        nb = {"vv": 0, "ev": 1, "ee": 2, "fv": 2, "pv": 0}[t]
        m = len(lst)
        ids = np.zeros((m, k), np.int64 if rng.uniform() < 0.5 else np.int32)
        cp = np.zeros((m, nb))
        P = np.zeros((m, dim, dim - 1))
        N, w, ms, mk = (np.zeros(m) for _ in range(4))
        a = np.ones((m, dim - 1))
        for i, c in enumerate(lst):
            assert c.num_vertices() == k, (t, c.num_vertices())
            ids[i] = np.asarray(c.vertex_ids(E, F))[:k]
            cp[i] = np.asarray(c.closest_point).reshape(-1)
            P[i] = np.asarray(c.tangent_basis).reshape(dim, dim - 1)
            N[i] = c.normal_force_magnitude
            w[i] = c.weight
            ms[i] = c.mu_s_effective_lagged
            mk[i] = c.mu_k_effective_lagged
            a[i] = np.asarray(c.mu_aniso).reshape(-1)[:dim - 1]
        arrays[t] = ids
        if nb:
            arrays[t + "_closest_point"] = cp[:, 0] if nb == 1 else cp
        arrays[t + "_tangent_basis"] = P
        arrays[t + "_normal_force"] = N
        arrays[t + "_mu_s"] = ms
        arrays[t + "_mu_k"] = mk
        if np.any(w != 1) or rng.uniform() < 0.5:
            arrays[t + "_weight"] = w
        if np.any(a != 1):
            arrays[t + "_mu_aniso"] = a
        colls[t] = lst
    return arrays, colls


def natural_scales(arrays, eps_v):
    s = 0.0
    for t in TYPES:
        if t in arrays:
            w = arrays.get(t + "_weight", np.ones(len(arrays[t])))
            mu = np.maximum(arrays[t + "_mu_s"], arrays[t + "_mu_k"])
            s += float(np.sum(np.abs(w * arrays[t + "_normal_force"]) * mu))
    return s * eps_v, s, s / eps_v


def velocities(rng, V, eps_v, regime):
    n, dim = V.shape
    if regime == "zero":
        return np.zeros((n, dim))
    if regime == "mixed":
        scale = eps_v * 10.0 ** rng.uniform(-2, 2, (n, 1))
    else:
        scale = eps_v * {"static": 0.2, "around": 1.0, "kinetic": 5.0}[regime]
    return rng.normal(size=(n, dim)) * scale / np.sqrt(dim)


def run_fricl(args, npz_in, npz_out, extra):
    cmd = [args.fricl, "tangential", npz_in, "-o", npz_out,
           "--mu-profile", "ipctk"] + extra
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd),
                                                   r.returncode, r.stderr))
    with np.load(npz_out) as z:
        return {k: z[k] for k in z.files}


def coo_dense(out, ndofs):
    rows, cols = out["hessian_rows"], out["hessian_cols"]
    assert tuple(out["hessian_shape"]) == (ndofs, ndofs)
    if len(rows) > 1:  # rows ascending, columns ascending in a row, unique
        key = rows * ndofs + cols
        assert np.all(np.diff(key) > 0), "COO not sorted or duplicated"
    H = np.zeros((ndofs, ndofs))
    np.add.at(H, (rows, cols), out["hessian_values"])
    return H


class Stats:
    def __init__(self):
        self.worst = {}
        self.failures = []
        self.count = 0
        self.contacts = dict.fromkeys(TYPES, 0)
        self.negative_weights = 0
        self.anisotropic = 0
        self.projected = 0  # (scene, velocities) where CLAMP != NONE

    def check(self, what, label, got, ref, floor, tol=TOL):
        what = "%s [%s]" % (what, label.split("device ")[-1].split()[0])
        got, ref = np.asarray(got, float), np.asarray(ref, float)
        if got.shape != ref.shape:
            self.failures.append("%s %s: shape %s vs %s" %
                                 (label, what, got.shape, ref.shape))
            return
        scale = max(float(np.max(np.abs(ref))) if ref.size else 0.0, floor)
        diff = float(np.max(np.abs(got - ref))) if ref.size else 0.0
        err = diff / scale if scale > 0 else diff
        self.count += 1
        if err > self.worst.get(what, (-1, ""))[0]:
            self.worst[what] = (err, label)
        if not err <= tol:
            self.failures.append("%s %s: max|diff| %.3e, scale %.3e, "
                                 "relative %.3e > %.0e" %
                                 (label, what, diff, scale, err, tol))


def compare_scene(args, rng, stats, idx, kind):
    mesh, V, E, F, tc, info = build(rng, kind)
    eps_v = 10.0 ** rng.uniform(-4, -2)
    arrays, colls = lagged(tc, E, F, info["dim"], rng)
    # ipctk 1.6.1: an item of the container (tc[i]) is a reference into it
    # that does not keep it alive; freeing tc first and such an item later
    # reads freed memory (a segfault, at the latest at interpreter exit).
    # Drop every item before tc goes.
    try:
        compare_collisions(args, rng, stats, idx, kind, mesh, V, tc, info,
                           eps_v, arrays, colls)
    finally:
        colls.clear()
        del colls


def compare_collisions(args, rng, stats, idx, kind, mesh, V, tc, info,
                       eps_v, arrays, colls):
    dim, n = info["dim"], info["n"]
    ndofs = n * dim
    SD, Sg, SH = natural_scales(arrays, eps_v)
    counts = " ".join("%s %d" % (t, len(colls[t])) for t in colls)
    for t in colls:
        stats.contacts[t] += len(colls[t])
        if t + "_weight" in arrays:
            stats.negative_weights += int(np.sum(arrays[t + "_weight"] < 0))
        if t + "_mu_aniso" in arrays:
            stats.anisotropic += len(colls[t])
    print("scene %d: %s dim %d, %d vertices, eps_v %.2e, dhat %.3g, "
          "kappa %.3g, area weights %s, improved max %s, aniso %s, "
          "negated weights %s, plane %s; %s" %
          (idx, kind, dim, n, eps_v, info["dhat"], info["kappa"],
           info["area"], info["improved"], info["aniso"], info["negate"],
           info["plane"], counts))
    regimes = ["zero", "static", "around", "kinetic", "mixed"]
    for regime in regimes:
        v = velocities(rng, V, eps_v, regime)
        for disp in ([False, True] if regime in ("around", "mixed")
                     else [False]):
            h = 2.0 ** -6 if disp else 1.0
            x = v * h
            e = eps_v * h
            fp = ipctk.FrictionPotential(e)
            Xf = np.asfortranarray(x)
            D_i = fp(tc, mesh, Xf)
            g_i = np.asarray(fp.gradient(tc, mesh, Xf)).reshape(-1)
            data = dict(arrays, velocities=x, eps_v=np.float64(e))
            base = os.path.join(args.workdir, "s%d_%s%s" %
                                (idx, regime, "_disp" if disp else ""))
            np.savez(base + "_in.npz", **data)
            H_none = None
            for psd in ("none", "clamp", "abs"):
                H_i = fp.hessian(tc, mesh, Xf, PSD[psd]).toarray()
                if psd == "none":
                    H_none = H_i
                elif psd == "clamp" and np.any(H_i != H_none):
                    stats.projected += 1
                extra = ["--psd", psd]
                if psd == "abs":
                    extra.append("--ipctk-abs")
                for dev in args.device:
                    # OpenCL runs cost a context each: a subset of them.
                    if dev != "reference" and (disp or regime not in
                                               ("zero", "around", "mixed")):
                        continue
                    label = "scene %d %s%s psd %s device %s" % (
                        idx, regime, " (displacement)" if disp else "",
                        psd, dev)
                    out = run_fricl(args, base + "_in.npz",
                                    base + "_out.npz",
                                    extra + ["--hessian", "global",
                                             "--device", dev])
                    stats.check("D", label, out["potential"], D_i, SD * h)
                    stats.check("gradient", label, out["gradient"], g_i, Sg)
                    stats.check("Hessian", label, coo_dense(out, ndofs),
                                H_i, SH / h)
                    if dev != "reference":
                        continue
                    loc = run_fricl(args, base + "_in.npz",
                                    base + "_out.npz",
                                    extra + ["--hessian", "local",
                                             "--device", dev])
                    for t, lst in colls.items():
                        if not lst:
                            assert loc[t + "_potential"].shape == (0,)
                            continue
                        ids = arrays[t]
                        Dc = [fp(c, x[ids[i]].reshape(-1))
                              for i, c in enumerate(lst)]
                        Hc = [fp.hessian(c, x[ids[i]].reshape(-1), PSD[psd])
                              for i, c in enumerate(lst)]
                        stats.check("contact D", label + " " + t,
                                    loc[t + "_potential"], Dc,
                                    SD * h / len(lst))
                        stats.check("contact Hessian", label + " " + t,
                                    loc[t + "_hessian"], Hc,
                                    SH / h / len(lst))
                    if not disp and regime == "around" and psd == "none":
                        args._base_results[(idx, dev)] = out
                    if disp and psd == "none":
                        ref = args._base_results.get((idx, dev))
                        if ref is not None and regime == "around":
                            hl = "%s homogeneity" % label
                            stats.check("homogeneity D", hl,
                                        out["potential"] / h,
                                        ref["potential"], SD,
                                        HOMOGENEITY_TOL)
                            stats.check("homogeneity gradient", hl,
                                        out["gradient"], ref["gradient"],
                                        Sg, HOMOGENEITY_TOL)
                            stats.check("homogeneity Hessian", hl,
                                        coo_dense(out, ndofs) * h,
                                        coo_dense(ref, ndofs), SH,
                                        HOMOGENEITY_TOL)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("fricl")
    p.add_argument("workdir")
    p.add_argument("--scenes", type=int, default=9)
    p.add_argument("--seed", type=int, default=20240611)
    p.add_argument("--device", action="append",
                   help="fricl --device (repeatable; default reference and "
                        "auto). Devices other than reference run the "
                        "global Hessian of three velocity regimes only")
    args = p.parse_args()
    if not args.device:
        args.device = ["reference", "auto"]
    args._base_results = {}
    os.makedirs(args.workdir, exist_ok=True)
    ipctk.set_num_threads(1)
    version = getattr(ipctk, "__version__", "?")
    print("ipctk %s, numpy %s, one thread" % (version, np.__version__))
    rng = np.random.default_rng(args.seed)
    stats = Stats()
    kinds = ["tets", "triangles", "polylines"]
    for i in range(args.scenes):
        compare_scene(args, rng, stats, i, kinds[i % len(kinds)])
    print("coverage: contacts %s; %d with negative weight, %d anisotropic; "
          "%d evaluations where CLAMP changed the Hessian" %
          (", ".join("%s %d" % kv for kv in stats.contacts.items()),
           stats.negative_weights, stats.anisotropic, stats.projected))
    missing = [t for t in TYPES if stats.contacts[t] == 0]
    if (missing or stats.projected == 0 or stats.negative_weights == 0 or
            stats.anisotropic == 0):
        stats.failures.append("coverage: a stencil type, PSD projection, "
                              "negative weights or anisotropy was never "
                              "exercised (change --seed or --scenes)")
    print("ipctk cross-check: %d comparisons; worst relative differences:" %
          stats.count)
    for what, (err, label) in sorted(stats.worst.items()):
        print("  %-34s %.3e  (%s)" % (what, err, label))
    if stats.failures:
        print("FAILED: %d comparison(s) above tolerance:" %
              len(stats.failures))
        for f in stats.failures[:40]:
            print("  " + f)
        return 1
    print("PASSED (tolerance %.0e; homogeneity %.0e)" %
          (TOL, HOMOGENEITY_TOL))
    return 0


if __name__ == "__main__":
    sys.exit(main())
