"""fricl.ipctk's collision sets (CollisionMesh, NormalCollisions,
Candidates) against ipctk 1.6.1 built with ipctk.BruteForce(), on small
random scenes in 2-D and 3-D: a cloth over a box, stacked cloth layers,
stacked boxes (jittered, and exactly axis-aligned), nearly parallel edges,
codimensional points and edges, planes, polylines; dmin 0 and > 0; area
weighting off and on; the IPC and IMPROVED_MAX_APPROX set types.

Sets are compared as maps (kind, ids, ee distance type) -> weight, exactly
key by key in both set types. The ee keys are raw: (edge0, edge1, stored
type) in the order the collision was made in. ipctk's identity (two ee
collisions are one when they join the same two edges, in either order,
with the same stored type; the first one made keeps its order) is checked
on both sides (no (b, a, t) next to an (a, b, t)); BruteForce hands the
regular ee candidates over as (smaller edge id, larger), so every ee of an
IPC set has edge0 < edge1 on both sides, and with the improved max
approximator the regular collisions keep that order (the approximator's
negative ones, made after them in its own order, merge into them).
Weights to 1e-12 relative, or 1e-12 of the largest weight for sums that
cancel (the order of the sums differs); a key on one side only must weigh
at most 1e-12 of the largest weight.

The potentials: fricl.ipctk.BarrierPotential on fricl's set equals
ipctk.BarrierPotential on the same set handed to ipctk collision by
collision, and on ipctk's own set (both set types): value, gradient,
Hessian to 1e-10 of scale. compute_minimum_distance is ipctk's: the
smallest squared distance over the set.
"""
import os
import sys

import numpy as np
import pytest

ipctk = pytest.importorskip("ipctk")
pytest.importorskip("scipy")
import fricl.ipctk as fi  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "bench", "python"))
from scenes import box, cloth_over_box, edges_of, grid  # noqa: E402

ipctk.set_logger_level(ipctk.LoggerLevel.error)
ipctk.set_num_threads(1)

SWAP = [0, 2, 1, 3, 6, 7, 4, 5, 8]  # EdgeEdgeDistanceType, edges swapped
SetType = ipctk.NormalCollisions.CollisionSetType


# ---------------------------------------------------------------- scenes

def _planes_3d(V, dhat, rng, cut=False):
    """A tilted plane under the scene within reach of its lowest vertex
    and, with cut, a plane through it (vertices on its negative side)."""
    n = rng.normal(size=3)
    n[2] = abs(n[2]) + 4
    n /= np.linalg.norm(n)
    planes = [(n, -(V @ n).min() + 0.3 * dhat)]
    if cut:
        m = np.array([1.0, 0.0, 0.0])
        planes.append((m, 0.0123 - np.median(V[:, 0])))
    return planes


def scene_cloth_over_box(rng, seed):
    V, E, F, dhat = cloth_over_box(7, seed=seed)
    return V, E, F, dhat, _planes_3d(V, dhat, rng, cut=True)


def scene_cloth_upright(rng, seed):
    """The cloth over a box with y up (the cloth in the x-z plane: the
    broad phase's grid then indexes every cell, see docs/collisions.md),
    and a second cloth layer above it, shifted, at 0.7 to 1.1 dhat: pairs
    of side-by-side edges and faces, some just inside and some just
    outside the activation distance (the narrow phase's separating-axis
    skip must keep exactly the active ones)."""
    V, E, F, dhat = cloth_over_box(12, seed=seed)
    V = V[:, [0, 2, 1]].copy()
    n = 12 * 12
    h = 1.0 / 11
    top = V[:n] + np.array([0.3 * h, 0.0, 0.3 * h])
    top[:, 1] += dhat * rng.uniform(0.7, 1.1, n)
    Fc = F[:2 * 11 * 11]
    V = np.r_[V, top]
    F = np.r_[F, Fc + len(V) - n].astype(np.int32)
    return V, edges_of(F), F, dhat, []


def scene_cloth_layers(rng, seed):
    n, layers = 6, 3
    h = 1.0 / (n - 1)
    Vs, Fs = [], []
    for k in range(layers):
        V, F = grid(n, 1.0, 0.4 * h * k)
        V = V + 0.05 * h * rng.standard_normal(V.shape)
        Fs.append(F + len(Vs) * len(V))
        Vs.append(V)
    V, F = np.vstack(Vs), np.vstack(Fs)
    return V, edges_of(F), F, 0.5 * h, _planes_3d(V, 0.5 * h, rng)


def _stacked_boxes(rng, nb, jitter, gap=0.05):
    Vs, Fs = [], []
    for i in range(nb):
        V, F = box([0, 0, i * (1 + gap)], [1, 1, i * (1 + gap) + 1])
        if jitter:
            V = V + jitter * rng.standard_normal(V.shape)
            V[:, :2] += 0.3 * rng.random(2)
        Fs.append(F + 8 * i)
        Vs.append(V)
    V, F = np.vstack(Vs), np.vstack(Fs)
    return V, edges_of(F), F, 2 * gap


def scene_boxes_jittered(rng, seed):
    V, E, F, dhat = _stacked_boxes(rng, 3, 1e-3)
    return V, E, F, dhat, []


def scene_boxes_exact(rng, seed):
    """Axis-aligned unit boxes 0.05 apart: every coordinate and difference
    is exact, region boundaries are met exactly and both sides agree."""
    V, E, F, dhat = _stacked_boxes(rng, 3, 0.0)
    return V, E, F, dhat, [(np.array([0.0, 0.0, 1.0]), 0.04)]


def scene_parallel(rng, seed):
    """Pairs of edges (no faces) within 1.7 degrees of parallel, most
    below the mollifier threshold, closest points off every region
    boundary; two pairs within 1e-8 rad."""
    P = []
    for i in range(8):
        o = np.array([2.0 * i, 0, 0])
        d = rng.normal(size=3)
        d /= np.linalg.norm(d)
        q = rng.normal(size=3)
        q -= q @ d * d
        q /= np.linalg.norm(q)
        r = np.cross(d, q)
        # the last two pairs within 1e-8 of parallel: below ipctk's
        # relative threshold, classified as parallel
        a = rng.uniform(-0.03, 0.03) if i < 6 else \
            10 ** rng.uniform(-10, -8) * rng.choice([-1, 1])
        d2 = np.cos(a) * d + np.sin(a) * r
        b0 = o + rng.uniform(-0.3, 0.5) * d + rng.uniform(0.02, 0.08) * q \
            + rng.uniform(-0.05, 0.05) * r
        P += [o, o + d, b0, b0 + rng.uniform(0.5, 1.2) * d2]
    V = np.array(P)
    E = np.arange(len(V), dtype=np.int32).reshape(-1, 2)
    return V, E, np.zeros((0, 3), np.int32), 0.1, _planes_3d(V, 0.1, rng)


def scene_codim_3d(rng, seed):
    """A cloth with codim. edges (no faces) and codim. points (no edges)
    hovering within reach, some points in near pairs."""
    V, F = grid(6, 1.0, 0.0)
    V = V + 0.01 * rng.standard_normal(V.shape)
    E = edges_of(F)
    ns, npts = 10, 15
    S0 = np.c_[rng.random((ns, 2)), 0.03 + 0.1 * rng.random(ns)]
    S1 = S0 + 0.3 * rng.standard_normal((ns, 3)) * [1, 1, 0.1]
    S = np.empty((2 * ns, 3))
    S[0::2], S[1::2] = S0, S1
    P = np.c_[rng.random((npts, 2)), 0.03 + 0.1 * rng.random(npts)]
    P[1::3] = P[0::3][:len(P[1::3])] + 0.03 * rng.standard_normal(
        (len(P[1::3]), 3)) * [1, 1, 0.2]
    SE = len(V) + np.arange(2 * ns, dtype=np.int32).reshape(-1, 2)
    V = np.vstack([V, S, P])
    return V, np.vstack([E, SE]).astype(np.int32), F, 0.12, \
        _planes_3d(V, 0.12, rng)


def scene_points_3d(rng, seed):
    V = rng.random((40, 3)) * [1, 1, 0.3]
    return V, np.zeros((0, 2), np.int32), np.zeros((0, 3), np.int32), 0.15, \
        _planes_3d(V, 0.15, rng)


def scene_polylines_2d(rng, seed):
    """Closed polygons (jittered circles) side by side within reach and
    codim. points, some in near pairs."""
    Vs, Es = [], []
    for k in range(4):
        c = np.array([0.75 * (k % 2), 0.75 * (k // 2)]) + 0.02 * rng.random(2)
        th = np.sort(rng.random(14)) * 2 * np.pi
        V = c + 0.35 * np.c_[np.cos(th), np.sin(th)]
        n = len(Vs) * 14
        Es.append(np.c_[np.arange(14), (np.arange(14) + 1) % 14] + n)
        Vs.append(V)
    P = rng.random((12, 2)) * 1.2 - 0.1
    P[1::2] = P[0::2] + 0.04 * rng.standard_normal((6, 2))
    V = np.vstack(Vs + [P])
    return V, np.vstack(Es).astype(np.int32), None, 0.08, []


def scene_squares_2d(rng, seed):
    """Axis-aligned unit squares 0.05 apart (exact arithmetic) and a row
    of points over them."""
    Vs, Es = [], []
    for i in range(3):
        y = i * 1.05
        Vs.append(np.array([[0, y], [1, y], [1, y + 1], [0, y + 1]], float))
        Es.append(np.array([[0, 1], [1, 2], [2, 3], [3, 0]]) + 4 * i)
    P = np.c_[np.linspace(-0.25, 1.25, 7), np.full(7, 3.2)]
    return np.vstack(Vs + [P]), np.vstack(Es).astype(np.int32), None, 0.1, []


def scene_scattered(rng, seed):
    """Pairs of small triangles 0.002 apart, the pairs far from each
    other (the grid's columns far outnumber the boxes: its hashed cells),
    the two triangles of a pair far apart in index order (a cell's boxes
    are not neighbours in the mesh)."""
    K = 40
    tri = np.array([[0, 0, 0], [0.01, 0, 0], [0, 0.01, 0]], float)
    VA, VB = [], []
    for k in range(K):
        o = np.array([100.0 * k, (37.0 * k * k) % 1000, 0])
        VA.append(tri + o + 1e-4 * rng.standard_normal(3))
        VB.append(tri + o + [0.002, 0.002, 0.001] +
                  1e-4 * rng.standard_normal(3))
    V = np.vstack(VA + VB)
    F = np.arange(2 * K * 3, dtype=np.int32).reshape(-1, 3)
    return V, edges_of(F), F, 0.003, []


SCENES = {
    "cloth_over_box": scene_cloth_over_box,
    "cloth_layers": scene_cloth_layers,
    "cloth_upright": scene_cloth_upright,
    "boxes_jittered": scene_boxes_jittered,
    "boxes_exact": scene_boxes_exact,
    "parallel": scene_parallel,
    "codim_3d": scene_codim_3d,
    "points_3d": scene_points_3d,
    "polylines_2d": scene_polylines_2d,
    "squares_2d": scene_squares_2d,
    "scattered": scene_scattered,
}


def make(name, seed):
    rng = np.random.default_rng([seed, sorted(SCENES).index(name)])
    V, E, F, dhat, planes = SCENES[name](rng, seed)
    return np.ascontiguousarray(V, float), E, F, dhat, planes


def ipctk_mesh(V, E, F, planes):
    if F is None or V.shape[1] == 2:
        mesh = ipctk.CollisionMesh(V, E)
    else:
        mesh = ipctk.CollisionMesh(V, E, F)
    if planes:
        mesh.planes = [ipctk.Hyperplane(np.asarray(n, float),
                                        -c * np.asarray(n, float))
                       for n, c in planes]
    return mesh


def meshes(V, E, F, planes):
    return ipctk_mesh(V, E, F, planes), fi.CollisionMesh(V, E, F,
                                                         planes=planes)


def plane_index(plane, planes):
    for i, (n, c) in enumerate(planes):
        if np.array_equal(np.asarray(plane.normal()).ravel(), n) and \
                abs(plane.offset() - c) <= 1e-15 * max(1.0, abs(c)):
            return i
    raise KeyError("plane %s %s not in the mesh's planes"
                   % (plane.normal(), plane.offset()))


def build_both(V, E, F, dhat, dmin, area, improved, planes):
    mesh, fmesh = meshes(V, E, F, planes)
    C = ipctk.NormalCollisions()
    C.use_area_weighting = area
    C.collision_set_type = SetType.IMPROVED_MAX_APPROX if improved \
        else SetType.IPC
    C.build(mesh, V, dhat, dmin, ipctk.BruteForce())
    D = fi.NormalCollisions()
    D.use_area_weighting = area
    D.collision_set_type = "IMPROVED_MAX_APPROX" if improved else "IPC"
    D.build(fmesh, V, dhat, dmin)
    return mesh, fmesh, C, D


def check_ee_identity(m, who):
    """No two ee keys of the map are one collision by ipctk's identity:
    the same edges in either order with the same stored type."""
    for k in m:
        if k[0] == "ee":
            assert k[1] != k[2], (who, k)
            assert ("ee", k[2], k[1], k[3]) not in m, \
                "%s holds %s and its reversal" % (who, k)


def ipctk_map(C, planes):
    out = {}

    def add(key, w):
        assert key not in out, "ipctk holds %s twice" % (key,)
        out[key] = w
    for c in C.vv_collisions:
        a, b = sorted((c.vertex0_id, c.vertex1_id))
        add(("vv", a, b, -1), c.weight)
    for c in C.ev_collisions:
        add(("ev", c.edge_id, c.vertex_id, -1), c.weight)
    for c in C.ee_collisions:
        add(("ee", c.edge0_id, c.edge1_id, int(c.dtype)), c.weight)
    for c in C.fv_collisions:
        add(("fv", c.face_id, c.vertex_id, -1), c.weight)
    for c in C.pv_collisions:
        add(("pv", plane_index(c.plane, planes), c.vertex_id, -1), c.weight)
    check_ee_identity(out, "ipctk")
    return out


def fricl_map(D):
    out = {}
    for kind in ("vv", "ev", "ee", "fv", "pv"):
        a = D.arrays(kind)
        for j in range(len(a.get("weight", ()))):
            t = int(a["distance_type"][j]) if kind == "ee" else -1
            key = (kind, int(a["ids"][j, 0]), int(a["ids"][j, 1]), t)
            assert key not in out, "fricl holds %s twice" % (key,)
            if kind == "vv":
                assert key[1] < key[2]
            out[key] = float(a["weight"][j])
    check_ee_identity(out, "fricl")
    return out


def differences(a, b, big):
    """Keys whose weights differ by more than 1e-12 relative plus 1e-12 of
    the largest weight (or, missing on one side, weigh more than 1e-12 of
    the largest)."""
    bad = []
    for k in sorted(set(a) | set(b)):
        wa, wb = a.get(k), b.get(k)
        if wa is None or wb is None:
            if abs(wa if wb is None else wb) > 1e-12 * big:
                bad.append((k, wa, wb))
        elif abs(wa - wb) > 1e-12 * max(abs(wa), abs(wb)) + 1e-12 * big:
            bad.append((k, wa, wb))
    return bad


def compare(C, D, planes, improved, regular=()):
    """Assert the sets agree key by key (ee by raw key). IPC: every ee
    has edge0 < edge1. Improved: `regular`, the ee keys of the IPC set of
    the same scene (the regular collisions, made first), are in neither
    set reversed. Return ipctk's map."""
    a, b = ipctk_map(C, planes), fricl_map(D)
    big = max([abs(w) for w in a.values()] + [1e-300])
    bad = differences(a, b, big)
    assert not bad, (len(bad), bad[:8])
    if not improved:
        # IPC: every ee as BruteForce hands it over, smaller edge id first
        for m, who in ((a, "ipctk"), (b, "fricl")):
            up = [k for k in m if k[0] == "ee" and not k[1] < k[2]]
            assert not up, (who, up[:8])
    else:
        for m, who in ((a, "ipctk"), (b, "fricl")):
            rev = [k for k in regular if ("ee", k[2], k[1], k[3]) in m]
            assert not rev, (who, rev[:8])
    return a


# ------------------------------------------------------- collision sets

PARAMS = [(name, seed) for name in SCENES for seed in range(3)]


@pytest.mark.parametrize("name,seed", PARAMS)
@pytest.mark.parametrize("dmin_frac", [0.0, 0.2])
def test_normal_collisions_match_ipctk(name, seed, dmin_frac):
    V, E, F, dhat, planes = make(name, seed)
    dmin = dmin_frac * dhat
    counts = {}
    for area in (False, True):
        regular = ()
        for improved in (False, True):
            _, _, C, D = build_both(V, E, F, dhat, dmin, area, improved,
                                    planes)
            m = compare(C, D, planes, improved, regular)
            if not improved:
                regular = [k for k in m if k[0] == "ee"]
            counts[area, improved] = len(D)
            assert len(D) == sum(len(D.arrays(k)["weight"]) for k in
                                 ("vv", "ev", "ee", "fv", "pv"))
    assert counts[False, False] > 0, "the scene has no collisions"


def test_scenes_cover_every_kind():
    """The scenes above hold every kind, mollified ee pairs, negative
    weights (improved) and plane collisions on both sides."""
    seen, mollified, negative = set(), 0, 0
    for name, seed in PARAMS:
        V, E, F, dhat, planes = make(name, seed)
        _, _, C, D = build_both(V, E, F, dhat, 0.0, True, True, planes)
        for kind in ("vv", "ev", "ee", "fv", "pv"):
            a = D.arrays(kind)
            if len(a.get("weight", ())):
                seen.add((kind, V.shape[1]))
                negative += int((a["weight"] < 0).sum())
        if len(D.arrays("ee").get("weight", ())):
            a = D.arrays("ee")
            X = V[a["vertices"]]
            c = np.cross(X[:, 1] - X[:, 0], X[:, 3] - X[:, 2])
            mollified += int(((c * c).sum(1) < a["eps_x"]).sum())
    assert seen >= {("vv", 2), ("ev", 2), ("vv", 3), ("ev", 3), ("ee", 3),
                    ("fv", 3), ("pv", 3)}, seen
    assert mollified > 0 and negative > 0


def canonical(m):
    """The map with every ee key as (smaller edge, larger, type in that
    order), weights of equal keys summed."""
    out = {}
    for k, w in m.items():
        if k[0] == "ee" and k[1] > k[2]:
            k = ("ee", k[2], k[1], SWAP[k[3]])
        out[k] = out.get(k, 0.0) + w
    return out


@pytest.mark.parametrize("name,seed,moved", [("boxes_exact", 0, False),
                                             ("parallel", 0, False),
                                             ("cloth_layers", 0, True)])
def test_improved_ee_merge_follows_edge_order(name, seed, moved):
    """ipctk's ee identity ignores the edge order, so with the improved max
    approximator a negative collision made as (b, a, t) merges into a
    regular (a, b, t) - two different collisions when t is not symmetric -
    and the set depends on the edge numbering. Numbering the edges in
    reverse changes ipctk's set (canonical sums, and with `moved` the
    potential); fricl's set follows ipctk's exactly in both numberings,
    and so does its potential."""
    V, E, F, dhat, planes = make(name, seed)
    ne = len(E)
    sets, pots = [], []
    for rev in (False, True):
        Er = np.ascontiguousarray(E[::-1]) if rev else E
        _, _, C, D = build_both(V, Er, F, dhat, 0.0, True, False, planes)
        regular = [k for k in compare(C, D, planes, False) if k[0] == "ee"]
        mesh, fmesh, C, D = build_both(V, Er, F, dhat, 0.0, True, True,
                                       planes)
        m = compare(C, D, planes, True, regular)
        if rev:  # back to the first numbering
            m = {(k[0], ne - 1 - k[1], ne - 1 - k[2], k[3])
                 if k[0] == "ee" else
                 (k[0], ne - 1 - k[1], k[2], k[3]) if k[0] == "ev" else k: w
                 for k, w in m.items()}
        assert any(k[0] == "ee" and k[1] > k[2] for k in m), \
            "no ee collision stored with edge0 > edge1"
        sets.append(canonical(m))
        B = ipctk.BarrierPotential(dhat, 1.0)
        P = fi.BarrierPotential(dhat, 1.0)
        want = B(C, mesh, V)
        assert abs(P(D, fmesh, V) - want) <= 1e-10 * abs(want)
        assert abs(B(to_ipctk(D, planes), mesh, V) - want) <= \
            1e-10 * abs(want)
        pots.append(want)
    big = max(abs(w) for w in sets[0].values())
    assert differences(sets[0], sets[1], big), \
        "expected the numbering to change ipctk's improved set"
    if moved:
        assert abs(pots[0] - pots[1]) > 1e-8 * abs(pots[0]), pots


# --------------------------------------------------------------- potentials

def to_ipctk(D, planes):
    """fricl's set as an ipctk NormalCollisions, collision by collision."""
    C = ipctk.NormalCollisions()
    lists = {}
    for kind in ("vv", "ev", "ee", "fv", "pv"):
        a, out = D.arrays(kind), []
        for j in range(len(a.get("weight", ()))):
            i0, i1 = int(a["ids"][j, 0]), int(a["ids"][j, 1])
            if kind == "vv":
                c = ipctk.VertexVertexNormalCollision(i0, i1)
            elif kind == "ev":
                c = ipctk.EdgeVertexNormalCollision(i0, i1)
            elif kind == "ee":
                c = ipctk.EdgeEdgeNormalCollision(
                    i0, i1, float(a["eps_x"][j]),
                    ipctk.EdgeEdgeDistanceType(int(a["distance_type"][j])))
            elif kind == "fv":
                c = ipctk.FaceVertexNormalCollision(i0, i1)
            else:
                n, off = planes[i0]
                c = ipctk.PlaneVertexNormalCollision(
                    ipctk.Hyperplane(np.asarray(n, float),
                                     -off * np.asarray(n, float)), i1)
            c.weight = float(a["weight"][j])
            c.dmin = float(D.dmin)
            out.append(c)
        lists[kind] = out
    C.vv_collisions, C.ev_collisions = lists["vv"], lists["ev"]
    C.ee_collisions, C.fv_collisions = lists["ee"], lists["fv"]
    C.pv_collisions = lists["pv"]
    return C


def rel(a, b, scale=None):
    a, b = np.asarray(a, float), np.asarray(b, float)
    s = scale if scale is not None else max(float(np.abs(b).max()), 1e-300)
    return float(np.abs(a - b).max()) / s


def assert_same_potential(P, Dset, fmesh, B, Cset, mesh, V):
    want = B(Cset, mesh, V)
    got = P(Dset, fmesh, V)
    assert np.isfinite(want) and abs(got - want) <= 1e-10 * abs(want), \
        (got, want)
    assert rel(P.gradient(Dset, fmesh, V), B.gradient(Cset, mesh, V)) \
        <= 1e-10
    Hi = B.hessian(Cset, mesh, V).toarray()
    Hf = P.hessian(Dset, fmesh, V).toarray()
    assert Hf.shape == Hi.shape
    assert rel(Hf, Hi, max(float(np.abs(Hi).max()), 1e-300)) <= 1e-10


# scenes without penetration (every potential finite)
BARRIER = [("cloth_over_box", 0), ("cloth_layers", 0), ("cloth_layers", 1),
           ("boxes_jittered", 0), ("parallel", 0), ("codim_3d", 0),
           ("squares_2d", 0)]


@pytest.mark.parametrize("name,seed", BARRIER)
def test_barrier_potential_on_the_sets(name, seed):
    V, E, F, dhat, planes = make(name, seed)
    planes = [p for p in planes if (V @ p[0] + p[1]).min() > 0]
    mesh, fmesh = meshes(V, E, F, planes)
    # dmin below half the smallest distance of the set
    C0 = ipctk.NormalCollisions()
    C0.build(mesh, V, dhat, 0.0, ipctk.BruteForce())
    dmin = min(0.2 * dhat, 0.5 * np.sqrt(C0.compute_minimum_distance(mesh,
                                                                     V)))
    assert dmin > 0
    regular = ()
    for improved in (False, True):
        mesh, fmesh, C, D = build_both(V, E, F, dhat, dmin, True, improved,
                                       planes)
        m = compare(C, D, planes, improved, regular)
        regular = [k for k in m if k[0] == "ee"]
        B = ipctk.BarrierPotential(dhat, 10.0)
        P = fi.BarrierPotential(dhat, 10.0)
        assert_same_potential(P, D, fmesh, B, to_ipctk(D, planes), mesh, V)
        # fricl's own conversion gives ipctk the same set
        assert_same_potential(P, D, fmesh, B, D.to_ipctk(), mesh, V)
        # and ipctk's own set
        assert_same_potential(P, D, fmesh, B, C, mesh, V)


@pytest.mark.parametrize("name", ["cloth_over_box", "squares_2d"])
@pytest.mark.parametrize("improved", [False, True])
def test_minimum_distance_matches_ipctk(name, improved):
    """The smallest squared distance over the set, as ipctk 1.6.1 returns
    it."""
    V, E, F, dhat, planes = make(name, 0)
    planes = [p for p in planes if (V @ p[0] + p[1]).min() > 0]
    mesh, fmesh, C, D = build_both(V, E, F, dhat, 0.0, False, improved,
                                   planes)
    want = C.compute_minimum_distance(mesh, V)
    assert 0 < want < dhat * dhat
    assert abs(D.compute_minimum_distance(fmesh, V) - want) <= 1e-12 * want


@pytest.mark.parametrize("name,seed", BARRIER)
def test_minimum_distance_is_ipctks_over_the_set(name, seed):
    """The smallest squared distance over fricl's set as ipctk evaluates
    that set (ev on the line, fv on the plane, ee by its stored type), and
    over ipctk's own set; an empty set gives inf."""
    V, E, F, dhat, planes = make(name, seed)
    planes = [p for p in planes if (V @ p[0] + p[1]).min() > 0]
    for improved in (False, True):
        mesh, fmesh, C, D = build_both(V, E, F, dhat, 0.0, True, improved,
                                       planes)
        want = to_ipctk(D, planes).compute_minimum_distance(mesh, V)
        got = D.compute_minimum_distance(fmesh, V)
        assert 0 < want < dhat * dhat
        assert abs(got - want) <= 1e-12 * want, (got, want)
        assert want == pytest.approx(
            C.compute_minimum_distance(mesh, V), rel=1e-13)
    E0 = fi.NormalCollisions()
    E0.build(fmesh, V, 1e-9 * dhat)
    assert len(E0) == 0 and E0.compute_minimum_distance(fmesh, V) == np.inf


# --------------------------------------------------------------- candidates

def ipctk_candidates(A, planes):
    def srt(a, b):
        return (min(a, b), max(a, b))
    return {
        "vv": sorted(srt(c.vertex0_id, c.vertex1_id) for c in A.vv_candidates),
        "ev": sorted((c.edge_id, c.vertex_id) for c in A.ev_candidates),
        "ee": sorted(srt(c.edge0_id, c.edge1_id) for c in A.ee_candidates),
        "fv": sorted((c.face_id, c.vertex_id) for c in A.fv_candidates),
        "pv": sorted((plane_index(c.plane, planes), c.vertex_id)
                     for c in A.pv_candidates)}


@pytest.mark.parametrize("name,seed", PARAMS)
def test_candidates_match_ipctk(name, seed):
    V, E, F, dhat, planes = make(name, seed)
    mesh, fmesh = meshes(V, E, F, planes)
    rng = np.random.default_rng(seed)
    V1 = V + 0.5 * dhat * rng.standard_normal(V.shape)
    total = 0
    for r in (0.0, 0.5 * dhat):
        for motion in (False, True):
            A, B = ipctk.Candidates(), fi.Candidates()
            if motion:
                A.build(mesh, V, V1, r, ipctk.BruteForce())
                B.build(fmesh, V, V1, r)
            else:
                A.build(mesh, V, r, ipctk.BruteForce())
                B.build(fmesh, V, r)
            want = ipctk_candidates(A, planes)
            for kind, pairs in want.items():
                got = [tuple(map(int, p)) for p in
                       getattr(B, kind + "_candidates")]
                assert got == pairs, (kind, r, motion, len(got), len(pairs))
                total += len(got)
            assert len(B) == sum(len(p) for p in want.values())
    assert total > 0


@pytest.mark.parametrize("name", ["cloth_over_box", "codim_3d"])
def test_candidates_feed_ipctk_ccd(name):
    """fricl's candidates handed to ipctk's CCD (to_ipctk, and the
    stepsize methods with fricl's mesh) give ipctk's own step size."""
    V, E, F, dhat, planes = make(name, 0)
    mesh, fmesh = meshes(V, E, F, planes)
    V1 = V.copy()
    V1[:, 2] -= 4 * dhat  # push everything down, through the obstacle
    A, B = ipctk.Candidates(), fi.Candidates()
    A.build(mesh, V, V1, 0.0, ipctk.BruteForce())
    B.build(fmesh, V, V1, 0.0)
    assert len(B.to_ipctk()) == len(A)
    # Tight Inclusion's conservative time of impact depends on the order
    # the candidates come in (each search is bounded by the earliest so
    # far), so the two agree to its tolerance, not bit for bit.
    want = A.compute_collision_free_stepsize(mesh, V, V1)
    assert 0 < want < 1
    assert B.compute_collision_free_stepsize(fmesh, V, V1) == \
        pytest.approx(want, rel=1e-6)
    assert B.compute_collision_free_stepsize(mesh, V, V1) == \
        pytest.approx(want, rel=1e-6)
    assert B.is_step_collision_free(fmesh, V, V1) == \
        A.is_step_collision_free(mesh, V, V1)


def tangential_key(kind, c, E, F):
    return kind, tuple(sorted(int(v) for v in c.vertex_ids(E, F) if v >= 0))


@pytest.mark.parametrize("name,seed", BARRIER)
def test_tangential_collisions_match_ipctk(name, seed):
    """fricl's TangentialCollisions built on fricl's set: ipctk's length,
    per-type lists and items (nearly parallel edge pairs dropped, as
    ipctk drops them), each with ipctk's N, weight, mu, closest point and
    tangent plane."""
    V, E, F, dhat, planes = make(name, seed)
    mesh, fmesh, C, D = build_both(V, E, F, dhat, 0.0, True, False, [])
    B, G = ipctk.BarrierPotential(dhat, 10.0), fi.BarrierPotential(dhat, 10.0)
    T, S = ipctk.TangentialCollisions(), fi.TangentialCollisions()
    T.build(mesh, V, C, B, 0.4, 0.3)
    S.build(fmesh, V, D, G, 0.4, 0.3)
    assert len(S) == len(T)
    kinds = ("vv", "ev", "ee", "fv")
    for k in kinds:
        assert len(getattr(S, k + "_collisions")) == \
            len(getattr(T, k + "_collisions")), k
    Ei = E if E is not None else np.zeros((0, 2), np.int32)
    Fi = F if F is not None else np.zeros((0, 3), np.int32)
    # ipctk's items by key (index access: iterating ipctk's set crashes it)
    mine = {}
    for k in kinds:
        for c in getattr(S, k + "_collisions"):
            mine[tangential_key(k, c, Ei, Fi)] = c
    assert len(mine) == len(S)
    for k in kinds:
        for c in getattr(T, k + "_collisions"):
            f = mine[tangential_key(k, c, Ei, Fi)]
            N = c.normal_force_magnitude
            assert abs(f.normal_force_magnitude - N) <= 1e-10 * abs(N)
            assert abs(f.weight - c.weight) <= 1e-12 * abs(c.weight)
            assert (f.mu_s, f.mu_k) == pytest.approx((c.mu_s, c.mu_k),
                                                     rel=1e-15)
            np.testing.assert_allclose(f.closest_point,
                                       np.ravel(c.closest_point), atol=1e-10)
            P, Q = np.asarray(c.tangent_basis), f.tangent_basis
            np.testing.assert_allclose(Q @ Q.T, P @ P.T, atol=1e-10)
    if len(S):
        assert S[-1].vertices == S[len(S) - 1].vertices
    with pytest.raises(IndexError):
        S[len(S)]


# ------------------------------------------------------- the OpenCL tier

def _fp64_devices():
    import fricl
    return [d["spec"] for d in fricl.devices() if d["has_fp64"]][:1]


@pytest.mark.parametrize("name,seed", [("cloth_over_box", 0),
                                       ("boxes_exact", 1), ("parallel", 0),
                                       ("codim_3d", 2), ("polylines_2d", 0),
                                       ("scattered", 1)])
def test_opencl_tier_is_the_host_set_bit_for_bit(name, seed):
    """NormalCollisions.build on a mesh of an OpenCL fp64 device with
    device_min_candidates = 1 (every narrow phase on the device): every
    array equals the host build's bit for bit, for dmin 0 and > 0, area
    weighting and the improved max approximator on and off, the set is
    ipctk's, and the device ran it (Context.last_backend)."""
    devs = _fp64_devices()
    if not devs:
        pytest.skip("no OpenCL device with fp64")
    V, E, F, dhat, planes = make(name, seed)
    mesh = ipctk_mesh(V, E, F, planes)
    host = fi.CollisionMesh(V, E, F, planes=planes)
    dev = fi.CollisionMesh(V, E, F, planes=planes, device=devs[0])
    for dmin in (0.0, 0.2 * dhat):
        for area in (False, True):
            for improved in (False, True):
                sets = []
                for m, min_c in ((host, 1), (dev, 1)):
                    D = fi.NormalCollisions()
                    D.use_area_weighting = area
                    D.use_improved_max_approximator = improved
                    D.device_min_candidates = min_c
                    D.build(m, V, dhat, dmin)
                    sets.append(D)
                assert dev._ctx.last_backend == "opencl"
                for kind in ("vv", "ev", "ee", "fv", "pv"):
                    a, b = sets[0].arrays(kind), sets[1].arrays(kind)
                    assert sorted(a) == sorted(b)
                    for field in a:
                        x, y = a[field], b[field]
                        if x is None or y is None:
                            assert x is None and y is None, (kind, field)
                            continue
                        x, y = np.asarray(x), np.asarray(y)
                        assert x.dtype == y.dtype and x.shape == y.shape
                        assert x.tobytes() == y.tobytes(), (kind, field)
                C = ipctk.NormalCollisions()
                C.use_area_weighting = area
                C.collision_set_type = SetType.IMPROVED_MAX_APPROX \
                    if improved else SetType.IPC
                C.build(mesh, V, dhat, dmin, ipctk.BruteForce())
                a, b = ipctk_map(C, planes), fricl_map(sets[1])
                big = max([abs(w) for w in a.values()] + [1e-300])
                assert not differences(a, b, big)
