#!/usr/bin/env python3
"""Cross-check `fricl barrier` against ipctk's BarrierPotential.

    barrier_crosscheck.py FRICL_EXE WORKDIR [--scenes N] [--seed S]

Random scenes are built in ipctk (stacked tetrahedra and triangles in 3-D,
often over a tilted ground plane, stacked polylines in 2-D; the scene
builders of ipctk_crosscheck.py), and ipctk's NormalCollisions gives the
contacts (vv, ev, ee, fv, pv; area weighting on or off, sometimes the
improved max approximation with negative weights, dmin = 0 or > 0). Every
scene also gets a pair of nearly parallel edges within dhat (mollified).
The contacts, weights and dmin of every collision are written in fricl's
barrier schema; `fricl barrier` evaluates them with --psd none, clamp and
abs, the physical barrier off and on, --hessian global and local,
--distances as-classified (ipctk's own evaluation of its collisions) and
nearest (which agrees here: at the positions the collisions were built at,
each collision's point is over its feature), and:

  * B:         |B_f - B_i| <= 1e-10 * max(|B_i|, S)
  * gradient:  max|g_f - g_i| <= 1e-10 * max|g_i|
  * Hessian:   max|H_f - H_i| <= 1e-10 * max|H_i^none| (global, and every
               contact's local Hessian against ipctk's per-collision one;
               the scale is that of the matrix before projection: when
               clamp removes eigenvalues of size |H|, what remains is only
               defined to rounding of |H|, in ipctk as in fricl)

with S the sum of the per-collision |B|. ipctk runs on one thread.
Exit status: 0 pass, 1 mismatch, 77 SKIPPED (only when `import ipctk`
fails), 2 usage or setup error.
"""
import argparse
import os
import subprocess
import sys

try:
    import numpy as np
    import ipctk
except ImportError as exc:
    print("*" * 72)
    print("SKIPPED: ipctk not installed (%s)" % exc)
    print("  the fricl barrier <-> IPC Toolkit cross-check did NOT run;")
    print("  install it with: python3 -m pip install ipctk==1.6.1")
    print("*" * 72)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ipctk_crosscheck import scene_polylines, scene_tets, scene_triangles  # noqa: E402

TOL = 1e-10
TYPES = ("vv", "ev", "ee", "fv", "pv")
CLASS_TYPE = {"VertexVertexNormalCollision": "vv",
              "EdgeVertexNormalCollision": "ev",
              "EdgeEdgeNormalCollision": "ee",
              "FaceVertexNormalCollision": "fv",
              "PlaneVertexNormalCollision": "pv"}
PSD = {"none": ipctk.PSDProjectionMethod.NONE,
       "clamp": ipctk.PSDProjectionMethod.CLAMP,
       "abs": ipctk.PSDProjectionMethod.ABS}


def parallel_edges(rng, V, F, gap, dim):
    """Append two separate nearly parallel segments (a degenerate-free
    triangle each in 3-D, a polyline edge in 2-D) `gap` apart."""
    top = V[:, dim - 1].max() + 3 * gap
    if dim == 3:
        a0 = np.r_[rng.uniform(0, 0.3, 2), top]
        d = np.r_[1.0, rng.uniform(-0.1, 0.1), 0]
        tilt = np.r_[rng.uniform(-1, 1, 2) * 1e-3, 0]
        t1 = np.array([a0, a0 + 0.5 * d, a0 + np.r_[0.2, 0.8, 0.3]])
        b0 = a0 + np.r_[0.05, 0.0, gap * rng.uniform(0.3, 0.6)]
        t2 = np.array([b0, b0 + 0.5 * (d + tilt), b0 + np.r_[0.3, -0.7, 0.4]])
        n = len(V)
        V = np.vstack([V, t1, t2])
        F = np.vstack([F, [[n, n + 1, n + 2], [n + 3, n + 4, n + 5]]])
    return V, F


def build(rng, kind, dmin_frac):
    for _ in range(50):
        if kind == "tets":
            V, F, gap = scene_tets(rng)
        elif kind == "triangles":
            V, F, gap = scene_triangles(rng)
        else:
            V, F, gap = scene_polylines(rng)
        dim = V.shape[1]
        if dim == 3:
            V, F = parallel_edges(rng, V, np.asarray(F), gap, dim)
            F = np.asarray(F, dtype=np.int32)
            E = np.asarray(ipctk.edges(F), dtype=np.int32)
        else:
            E, F = np.asarray(F, dtype=np.int32), np.zeros((0, 3), np.int32)
        V = np.asfortranarray(V)
        mesh = ipctk.CollisionMesh(V, np.asfortranarray(E),
                                   np.asfortranarray(F))
        if ipctk.has_intersections(mesh, V):
            continue
        plane = None
        if dim == 3 and rng.uniform() < 0.6:
            nrm = np.r_[rng.uniform(-0.2, 0.2, 2), 1.0]
            nrm /= np.linalg.norm(nrm)
            off = float((V @ nrm).min()) - gap * rng.uniform(0.5, 1.5)
            plane = ipctk.Hyperplane(nrm, nrm * off)
            mesh.planes = [plane]
        nc = ipctk.NormalCollisions()
        improved = dim == 3 and rng.uniform() < 0.3
        nc.use_area_weighting = improved or rng.uniform() < 0.5
        if improved:
            nc.collision_set_type = \
                ipctk.NormalCollisions.CollisionSetType.IMPROVED_MAX_APPROX
        dhat = gap * rng.uniform(2.0, 6.0)
        dmin = dmin_frac * gap
        nc.build(mesh, V, dhat, dmin)
        if len(nc) == 0:
            continue
        # Every contact outside dmin (B finite: ipctk cannot project inf).
        if not np.isfinite(ipctk.BarrierPotential(dhat, 1.0)(nc, mesh, V)):
            continue
        kappa = 10.0 ** rng.uniform(0, 4)
        info = dict(kind=kind, dim=dim, n=len(V), dhat=dhat, kappa=kappa,
                    dmin=dmin, area=nc.use_area_weighting, improved=improved,
                    plane=plane is not None, n_collisions=len(nc))
        return mesh, V, E, F, nc, plane, info
    raise RuntimeError("no scene with contacts")


def fricl_input(path, V, E, F, nc, plane, info):
    arrays = {"positions": np.ascontiguousarray(V),
              "rest_positions": np.ascontiguousarray(V),
              "dhat": np.float64(info["dhat"]),
              "kappa": np.float64(info["kappa"])}
    ids = {t: [] for t in TYPES}
    w = {t: [] for t in TYPES}
    dm = {t: [] for t in TYPES}
    dt = {t: [] for t in TYPES}
    order = []
    for i in range(len(nc)):
        c = nc[i]
        t = CLASS_TYPE[type(c).__name__]
        k = {"vv": 2, "ev": 3, "ee": 4, "fv": 4, "pv": 1}[t]
        ids[t].append(list(c.vertex_ids(E, F))[:k])
        w[t].append(c.weight)
        dm[t].append(c.dmin)
        # Only ipctk's EE collisions store a distance type (mollified EV or
        # VV pairs); an EV or FV collision is evaluated with the point-line
        # or point-plane distance (fricl: --distances as-classified).
        dt[t].append(int(c.dtype) if t == "ee" else -1)
        order.append((t, len(ids[t]) - 1, i))
    for t in TYPES:
        if not ids[t]:
            continue
        arrays[t] = np.array(ids[t], dtype=np.int64)
        arrays[t + "_weight"] = np.array(w[t])
        arrays[t + "_dmin"] = np.array(dm[t])
        if t == "ee":
            arrays[t + "_dtype"] = np.array(dt[t], dtype=np.int32)
        if t == "pv":
            m = len(ids[t])
            arrays["pv_plane_normal"] = np.tile(plane.normal(), (m, 1))
            arrays["pv_plane_offset"] = np.full(m, plane.offset())
    np.savez(path, **arrays)
    return ids, order


def rel_err(a, b, floor=0.0):
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    scale = max(float(np.max(np.abs(b))) if b.size else 0.0, floor)
    diff = float(np.max(np.abs(a - b))) if b.size else 0.0
    if scale == 0.0:
        return 0.0 if diff == 0.0 else np.inf
    return diff / scale


def run_fricl(exe, inp, out, psd, hessian, physical, distances):
    cmd = [exe, "barrier", inp, "-o", out, "--psd", psd, "--hessian", hessian,
           "--distances", distances]
    if physical:
        cmd.append("--physical-barrier")
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd),
                                                   r.returncode, r.stderr))
    return dict(np.load(out))


def compare_scene(exe, workdir, s, mesh, V, E, F, nc, plane, info):
    inp = os.path.join(workdir, "barrier_in_%d.npz" % s)
    out = os.path.join(workdir, "barrier_out_%d.npz" % s)
    ids, order = fricl_input(inp, V, E, F, nc, plane, info)
    fails = []
    ndof = V.size
    for physical in (False, True):
        B = ipctk.BarrierPotential(info["dhat"], info["kappa"], physical)
        b_i = B(nc, mesh, V)
        g_i = B.gradient(nc, mesh, V)
        per = [B(nc[i], nc[i].dof(V, E, F)) for i in range(len(nc))]
        S = float(np.sum(np.abs(per)))
        H_none = B.hessian(nc, mesh, V, PSD["none"]).toarray()
        Hl_none = [B.hessian(nc[i], nc[i].dof(V, E, F), PSD["none"])
                   for i in range(len(nc))]
        for psd, distances in [(p, d) for p in ("none", "clamp", "abs")
                               for d in ("as-classified", "nearest")]:
            H_i = B.hessian(nc, mesh, V, PSD[psd]).toarray()
            r = run_fricl(exe, inp, out, psd, "global", physical, distances)
            H_f = np.zeros((ndof, ndof))
            np.add.at(H_f, (r["hessian_rows"], r["hessian_cols"]),
                      r["hessian_values"])
            errs = {"B": abs(float(r["potential"]) - b_i) / max(abs(b_i), S),
                    "gradient": rel_err(r["gradient"], g_i),
                    "hessian": rel_err(H_f, H_i, np.abs(H_none).max())}
            r = run_fricl(exe, inp, out, psd, "local", physical, distances)
            le = 0.0
            for (t, j, i) in order:
                Hl = B.hessian(nc[i], nc[i].dof(V, E, F), PSD[psd])
                le = max(le, rel_err(r[t + "_hessian"][j], Hl,
                                     np.abs(Hl_none[i]).max()))
                pe = abs(r[t + "_potential"][j] - per[i]) / max(abs(per[i]), S)
                errs["contact B"] = max(errs.get("contact B", 0.0), pe)
            errs["local hessian"] = le
            for key, e in errs.items():
                if not e <= TOL:
                    fails.append("scene %d %s psd=%s physical=%d %s: %s "
                                 "error %.3g" % (s, info["kind"], psd,
                                                 physical, distances, key, e))
    return fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fricl")
    ap.add_argument("workdir")
    ap.add_argument("--scenes", type=int, default=24)
    ap.add_argument("--seed", type=int, default=20261126)
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    ipctk.set_num_threads(1)
    print("ipctk %s, numpy %s, one thread" %
          (getattr(ipctk, "__version__", "?"), np.__version__))
    rng = np.random.default_rng(args.seed)
    kinds = ("tets", "triangles", "polylines")
    fails, counts = [], {t: 0 for t in TYPES + ("mollified ee",)}
    for s in range(args.scenes):
        kind = kinds[s % 3]
        dmin_frac = 0.0 if s % 2 == 0 else 0.3
        mesh, V, E, F, nc, plane, info = build(rng, kind, dmin_frac)
        for i in range(len(nc)):
            t = CLASS_TYPE[type(nc[i]).__name__]
            counts[t] += 1
            if t == "ee" and nc[i].mollifier(nc[i].dof(V, E, F)) < 1:
                counts["mollified ee"] += 1
        f = compare_scene(args.fricl, args.workdir, s, mesh, V, E, F, nc,
                          plane, info)
        print("scene %2d %-9s dim %d n %3d contacts %3d dmin %.3g area %d "
              "improved %d plane %d: %s" %
              (s, kind, info["dim"], info["n"], info["n_collisions"],
               info["dmin"], info["area"], info["improved"], info["plane"],
               "ok" if not f else "%d mismatches" % len(f)))
        fails += f
    print("contacts by type: " +
          ", ".join("%s %d" % (t, n) for t, n in counts.items()))
    missing = [t for t, n in counts.items() if n == 0]
    if missing:
        fails.append("no contacts of type %s were exercised" % missing)
    for f in fails[:40]:
        print("MISMATCH: " + f)
    if fails:
        print("FAILED: %d mismatches" % len(fails))
        return 1
    print("PASSED: fricl barrier agrees with ipctk BarrierPotential "
          "within %g of scale" % TOL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
