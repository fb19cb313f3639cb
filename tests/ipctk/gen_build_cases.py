#!/usr/bin/env python3
"""Cross-check data for fricl's lagged build (tests/test_build_ipctk.c).

Builds random small meshes (3-D: triangles and their edges, plus loose
edges; 2-D: segments), lets ipctk build the normal collisions and the
tangential collisions (per-vertex mu, several blend rules), and writes, per
normal collision, its stencil and vertex ids, whether ipctk kept it for
friction (near-parallel edge-edge pairs are dropped), and ipctk's lagged
data: closest point, tangent basis, normal force magnitude and its gradient,
mu_s, mu_k, weight. Text, %.17g.

usage: gen_build_cases.py OUT_FILE
Exit status 77 (CTest's skip code) when ipctk or numpy cannot be imported.
"""
import sys

try:
    import numpy as np
    import ipctk
except Exception as exc:  # pragma: no cover - environment dependent
    print("SKIPPED: ipctk not installed (%s)" % exc, file=sys.stderr)
    print("*" * 70, file=sys.stderr)
    print("*** SKIPPED: ipctk not installed: the ipctk cross-check of the", file=sys.stderr)
    print("*** lagged build did NOT run", file=sys.stderr)
    print("*" * 70, file=sys.stderr)
    sys.exit(77)

TYPES = {"vv": 0, "ev": 1, "ee": 2, "fv": 3}
BLENDS = [  # (fricl blend code, python callable or None for ipctk's default)
    (0, None),
    (1, lambda a, b: min(a, b)),
    (2, lambda a, b: max(a, b)),
    (3, lambda a, b: a * b),
    (4, lambda a, b: 0.0 if a + b == 0 else 2 * a * b / (a + b)),
]


def fmt(xs):
    return " ".join("%.17g" % float(x) for x in xs)


def mesh3(rng):
    """A wavy grid of triangles below a few floating triangles and edges."""
    n = 4
    V, F, E = [], [], []
    for i in range(n):
        for j in range(n):
            V.append([i * 0.1, j * 0.1, 0.002 * rng.standard_normal()])
    for i in range(n - 1):
        for j in range(n - 1):
            a, b, c, d = i * n + j, (i + 1) * n + j, (i + 1) * n + j + 1, i * n + j + 1
            F += [[a, b, c], [a, c, d]]
    # floating triangles close to the grid (vertex-face, edge-edge pairs)
    for _ in range(3):
        o = np.array([rng.uniform(0.05, 0.2), rng.uniform(0.05, 0.2),
                      rng.uniform(0.002, 0.012)])
        k = len(V)
        t = rng.uniform(0, 2 * np.pi)
        r = rng.uniform(0.05, 0.09)
        for s in range(3):
            ang = t + s * 2 * np.pi / 3
            V.append((o + [r * np.cos(ang), r * np.sin(ang),
                           0.004 * rng.standard_normal()]).tolist())
        F.append([k, k + 1, k + 2])
    # loose edges (codimensional)
    for _ in range(3):
        o = np.array([rng.uniform(0.05, 0.25), rng.uniform(0.05, 0.25),
                      rng.uniform(0.001, 0.01)])
        dvec = rng.standard_normal(3)
        dvec[2] *= 0.05
        dvec *= rng.uniform(0.03, 0.1) / np.linalg.norm(dvec)
        k = len(V)
        V += [(o - dvec).tolist(), (o + dvec).tolist()]
        E.append([k, k + 1])
    V = np.array(V, dtype=float)
    F = np.array(F, dtype=np.int32)
    Ef = ipctk.edges(F)
    E = np.vstack([Ef, np.array(E, dtype=np.int32)]).astype(np.int32)
    return V, E, F


def mesh2(rng):
    """A polyline floor and a few segments above it."""
    V, E = [], []
    n = 8
    for i in range(n):
        V.append([i * 0.05, 0.002 * rng.standard_normal()])
    for i in range(n - 1):
        E.append([i, i + 1])
    for _ in range(4):
        o = np.array([rng.uniform(0.02, 0.33), rng.uniform(0.001, 0.012)])
        t = rng.uniform(-0.5, 0.5)
        r = rng.uniform(0.01, 0.04)
        k = len(V)
        V += [(o - r * np.array([np.cos(t), np.sin(t)])).tolist(),
              (o + r * np.array([np.cos(t), np.sin(t)])).tolist()]
        E.append([k, k + 1])
    return np.array(V, dtype=float), np.array(E, dtype=np.int32), np.zeros((0, 3), dtype=np.int32)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    rng = np.random.default_rng(20261123)
    out = []
    ncases = 0
    counts = {}
    for case in range(24):
        dim = 3 if case % 3 else 2
        V0, E, F = mesh3(rng) if dim == 3 else mesh2(rng)
        # lagged = rest + a small deformation (the EE skip rule reads rest)
        V = V0 + 0.0005 * rng.standard_normal(V0.shape)
        V0 = np.asfortranarray(V0)
        V = np.asfortranarray(V)
        mesh = ipctk.CollisionMesh(V0, np.asfortranarray(E), np.asfortranarray(F))
        dhat = float(rng.choice([0.01, 0.015, 0.02]))
        dmin = float(rng.choice([0.0, 0.0, 0.001]))
        kappa = float(rng.choice([1.0, 100.0, 1e4]))
        physical = bool(case % 4 == 3)
        blend_code, blend_fn = BLENDS[case % len(BLENDS)]
        C = ipctk.NormalCollisions()
        C.build(mesh, V, dhat, dmin)
        if len(C) == 0:
            continue
        B = ipctk.BarrierPotential(dhat, kappa, physical)
        mus = rng.uniform(0.1, 0.9, V.shape[0])
        muk = mus * rng.uniform(0.3, 1.0, V.shape[0])
        T = ipctk.TangentialCollisions()
        if blend_fn is None:
            T.build(mesh, V, C, B, mus, muk)
        else:
            T.build(mesh, V, C, B, mus, muk, blend_fn)
        lists = [("vv", C.vv_collisions, T.vv_collisions),
                 ("ev", C.ev_collisions, T.ev_collisions),
                 ("ee", C.ee_collisions, T.ee_collisions),
                 ("fv", C.fv_collisions, T.fv_collisions)]
        rows = []
        for name, normal, tangential in lists:
            tan = list(tangential)
            ti = 0
            for c in normal:
                ids = list(c.vertex_ids(mesh.edges, mesh.faces))
                k = {"vv": 2, "ev": 3, "ee": 4, "fv": 4}[name]
                ids = ids[:k]
                t = tan[ti] if ti < len(tan) else None
                kept = t is not None and list(t.vertex_ids(mesh.edges, mesh.faces))[:k] == ids
                counts[name] = counts.get(name, 0) + 1
                if not kept:
                    rows.append("C %d %d %s 0 %s" % (TYPES[name], k, " ".join(map(str, ids)),
                                                     "%.17g" % c.dmin))
                    counts[name + "_skipped"] = counts.get(name + "_skipped", 0) + 1
                    continue
                ti += 1
                x = t.dof(V, mesh.edges, mesh.faces)
                d2 = t.compute_distance(x)
                g = B.force_magnitude_gradient(d2, t.compute_distance_gradient(x), c.dmin)
                cp = np.atleast_1d(t.closest_point)
                P = np.asarray(t.tangent_basis)  # dim x (dim-1)
                rows.append("C %d %d %s 1 %s %d %s %s %s %s %s %s %s" % (
                    TYPES[name], k, " ".join(map(str, ids)), "%.17g" % c.dmin,
                    len(cp), fmt(cp), fmt(P.reshape(-1)),  # row-major
                    "%.17g" % t.normal_force_magnitude, fmt(g),
                    "%.17g" % t.mu_s, "%.17g" % t.mu_k, "%.17g" % t.weight))
            if ti != len(tan):
                print("gen_build_cases: could not match ipctk's %s tangential "
                      "collisions" % name, file=sys.stderr)
                return 1
        out.append("case %d %d %.17g %.17g %d %d %d" % (
            dim, V.shape[0], kappa, dhat, int(physical), blend_code, len(rows)))
        out.append("X " + fmt(V.reshape(-1)))
        out.append("R " + fmt(V0.reshape(-1)))
        out.append("MUS " + fmt(mus))
        out.append("MUK " + fmt(muk))
        out += rows
        ncases += 1
    with open(sys.argv[1], "w") as f:
        f.write("fricl-build-ipctk 1 ipctk %s\n" % getattr(ipctk, "__version__", "?"))
        f.write("\n".join(out) + "\n")
    print("gen_build_cases: %d cases, collisions %s (ipctk %s)" % (
        ncases, counts, getattr(ipctk, "__version__", "?")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
