"""fricl's one-pass reader of ipctk 1.6.1's collision containers
(fricl/_ipctk_layout.py) against ipctk's own properties, read here item by
item: on scenes regenerated at test time (3-D tetrahedra and triangles
with vertex-vertex, edge-vertex, edge-edge, face-vertex and plane-vertex
collisions, area weighting, the improved max approximator, negative
weights and anisotropy; 2-D polylines), the tangential groups (vertex
ids, closest points, tangent bases, normal forces, weights, mu_s/mu_k
effective, mu_aniso) and the barrier groups (ids, weights, dmin, the
stored edge-edge distance types) must equal ipctk's values bit for bit,
the one-pass path must be the one taken, and a layout that fails its
checks must fall back to the field-by-field reader with the same
result."""
import os
import sys

import numpy as np
import pytest

ipctk = pytest.importorskip("ipctk")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "ipctk"))
import ipctk_crosscheck as xc  # noqa: E402  (scene builders)

import fricl.ipctk as fi  # noqa: E402
import fricl.ipctk_barrier as fb  # noqa: E402
from fricl import _ipctk_layout as lay  # noqa: E402

ORDER = ("VertexVertex", "EdgeVertex", "EdgeEdge", "FaceVertex",
         "PlaneVertex")
SHORT = dict(zip(ORDER, ("vv", "ev", "ee", "fv", "pv")))
CASES = [(k, s) for k in ("tets", "triangles", "polylines")
         for s in range(4)]


def kind_of(item):
    name = type(item).__name__
    for o in ORDER:
        if name.startswith(o):
            return SHORT[o]
    raise AssertionError(name)


def expected_tangential(tc, E, F, dim):
    """ipctk's properties of every collision, grouped by type in order."""
    out = {}
    for i in range(len(tc)):
        c = tc[i]
        t = kind_of(c)
        g = out.setdefault(t, {"ids": [], "cp": [], "P": [], "N": [],
                               "w": [], "ms": [], "mk": [], "a": []})
        g["ids"].append(np.asarray(c.vertex_ids(E, F))[:4 if t in (
            "ee", "fv") else {"vv": 2, "ev": 3, "pv": 1}[t]])
        nb = {"ev": 1, "ee": 2, "fv": 2}.get(t, 0)
        if nb:
            g["cp"].append(np.array(c.closest_point).reshape(-1)[:nb])
        g["P"].append(np.array(c.tangent_basis).reshape(dim, dim - 1))
        g["N"].append(c.normal_force_magnitude)
        g["w"].append(c.weight)
        g["ms"].append(c.mu_s_effective_lagged)
        g["mk"].append(c.mu_k_effective_lagged)
        g["a"].append(np.array(c.mu_aniso).reshape(-1)[:dim - 1])
        del c  # no item may outlive tc
    return out


def same(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def check_groups(groups, want, dim):
    assert [g.type for g in groups] == [t for t in ("vv", "ev", "ee", "fv",
                                                    "pv") if t in want]
    for g in groups:
        w = want[g.type]
        m = len(w["N"])
        assert np.array_equal(g.vertices, np.array(w["ids"]).reshape(m, -1))
        if w["cp"]:
            assert same(g.closest_point, np.array(w["cp"]).reshape(m, -1))
        assert same(g.tangent_basis, np.array(w["P"]))
        assert same(g.normal_force, w["N"])
        weight = np.array(w["w"])
        assert (g.weight is None and np.all(weight == 1)) or \
            same(g.weight, weight)
        assert same(g.mu_s, w["ms"]) and same(g.mu_k, w["mk"])
        aniso = np.array(w["a"]).reshape(m, dim - 1)
        assert (g.mu_aniso is None and np.all(aniso == 1)) or \
            same(g.mu_aniso, aniso)


@pytest.fixture
def spy(monkeypatch):
    """Counts the one-pass reads that succeeded."""
    hits = []
    real = lay.read_all

    def read_all(*a, **k):
        r = real(*a, **k)
        hits.append(r is not None)
        return r
    monkeypatch.setattr(lay, "read_all", read_all)
    return hits


@pytest.mark.parametrize("kind,seed", CASES)
def test_tangential_read_equals_ipctk(kind, seed, spy):
    rng = np.random.default_rng(100 + seed)
    mesh, V, E, F, tc, info = xc.build(rng, kind)
    dim = info["dim"]
    want = expected_tangential(tc, E, F, dim)
    groups = fi.read_tangential_collisions(tc, mesh)
    assert spy == [True]
    check_groups(groups, want, dim)
    # float32 reads convert the same values
    g32 = fi.read_tangential_collisions(tc, mesh, np.float32)
    for a, b in zip(groups, g32):
        assert np.array_equal(a.tangent_basis.astype(np.float32),
                              b.tangent_basis)


@pytest.mark.parametrize("kind,seed", CASES[::2])
def test_normal_read_equals_ipctk(kind, seed, spy):
    rng = np.random.default_rng(200 + seed)
    mesh, V, E, F, tc, info = xc.build(rng, kind)
    nc = ipctk.NormalCollisions()
    nc.use_area_weighting = info["area"]
    if info["improved"]:
        nc.collision_set_type = \
            ipctk.NormalCollisions.CollisionSetType.IMPROVED_MAX_APPROX
    nc.build(mesh, V, info["dhat"], dmin=0.1 * info["dhat"] * (seed % 2))
    if nc.ee_collisions:  # stored distance types beyond AUTO too
        ee = nc.ee_collisions
        for j, c in enumerate(ee):
            c.dtype = ipctk.EdgeEdgeDistanceType(j % 10)
        nc.ee_collisions = ee
    groups = fb._ipctk_groups(nc, mesh)
    assert spy == [True]
    want = {}
    for i in range(len(nc)):
        c = nc[i]
        t = {"vv": 0, "ev": 1, "ee": 2, "fv": 3, "pv": 4}[kind_of(c)]
        k = (2, 3, 4, 4, 1)[t]
        g = want.setdefault(t, ([], [], [], []))
        g[0].append(np.asarray(c.vertex_ids(E, F))[:k])
        g[1].append(c.weight)
        g[2].append(c.dmin)
        g[3].append(int(c.dtype) if t == 2 else 255)
        del c
    assert [g[0] for g in groups] == sorted(want)
    for g in groups:
        w = want[g[0]]
        assert np.array_equal(g[1], np.ravel(w[0]))
        assert same(g[2], w[1]) and same(g[3], w[2])
        assert np.array_equal(g[4], np.array(w[3], np.uint8))


def test_failed_check_falls_back(monkeypatch):
    """A layout whose offsets are wrong fails its check against ipctk's
    properties: the field-by-field reader gives the same groups."""
    rng = np.random.default_rng(7)
    mesh, V, E, F, tc, info = xc.build(rng, "tets")
    want = expected_tangential(tc, E, F, 3)
    good = fi.read_tangential_collisions(tc, mesh)
    for t in ("vv", "ev", "ee", "fv"):
        real = lay.layout("tangential", t)
        if real is None:
            continue
        bad = dict(real)
        bad["fields"] = [(k, (v[0] + 8, v[1]) if k == "weight" else v)
                         for k, v in real["fields"]]
        monkeypatch.setitem(lay._LAYOUTS, ("tangential", t), bad)
    assert lay.read_all("tangential", tc, 3) is None
    slow = fi.read_tangential_collisions(tc, mesh)
    check_groups(slow, want, 3)
    for a, b in zip(good, slow):
        for f in ("vertices", "tangent_basis", "normal_force", "mu_s"):
            assert np.array_equal(getattr(a, f), getattr(b, f))


def test_empty_and_force_on_read_sets():
    """An empty container reads as no groups; the force on a container
    read in one pass equals ipctk's (the reader feeds the evaluation)."""
    assert fi.read_tangential_collisions(ipctk.TangentialCollisions(),
                                         ipctk.CollisionMesh(
                                             np.zeros((3, 3)),
                                             np.zeros((0, 2), np.int32),
                                             np.zeros((0, 3), np.int32))) \
        == []
    rng = np.random.default_rng(11)
    mesh, V, E, F, tc, info = xc.build(rng, "triangles")
    U = np.asfortranarray(1e-3 * info["dhat"] * rng.standard_normal(V.shape))
    R = np.asfortranarray(V - U)
    Vel = np.asfortranarray(1e-3 * rng.standard_normal(V.shape))
    B = ipctk.BarrierPotential(info["dhat"], info["kappa"])
    ref = ipctk.FrictionPotential(1e-3).force(tc, mesh, R, U, Vel, B)
    got = fi.FrictionPotential(1e-3).force(tc, mesh, R, U, Vel, B)
    assert np.abs(got - ref).max() <= 1e-10 * max(np.abs(ref).max(), 1e-300)


@pytest.mark.parametrize("kind", ["tets", "triangles", "polylines"])
def test_gradient_on_read_set(kind):
    """The gradient on ipctk's set (one native call, no plan made) is
    ipctk's within 1e-10 of scale, and bitwise what the evaluation with a
    plan gives on the same contacts."""
    from fricl.tangential import Contacts
    rng = np.random.default_rng(31)
    mesh, V, E, F, tc, info = xc.build(rng, kind)
    U = 1e-3 * rng.standard_normal(V.shape)
    fp = fi.FrictionPotential(1e-3)
    got = fp.gradient(tc, mesh, U)
    ref = ipctk.FrictionPotential(1e-3).gradient(tc, mesh, U)
    assert np.abs(got - ref).max() <= 1e-10 * max(np.abs(ref).max(), 1e-300)
    c = Contacts(fp.context, fi.read_tangential_collisions(tc, mesh), len(V))
    planned = c.evaluate(np.ascontiguousarray(U), 1e-3, mu_profile="ipctk",
                         potential=False, gradient=True).gradient
    assert c._plan is not None
    assert np.array_equal(got, planned.reshape(-1))


def test_environment_opt_out(monkeypatch, spy):
    """FRICL_IPCTK_DIRECT_READ=0: no layout is learnt and no direct read
    succeeds; the field-by-field reader gives ipctk's values."""
    monkeypatch.setattr(lay, "_LAYOUTS", {})
    monkeypatch.setenv("FRICL_IPCTK_DIRECT_READ", "0")
    rng = np.random.default_rng(13)
    mesh, V, E, F, tc, info = xc.build(rng, "tets")
    want = expected_tangential(tc, E, F, 3)
    assert all(lay.layout("tangential", t) is None
               for t in ("vv", "ev", "ee", "fv"))
    check_groups(fi.read_tangential_collisions(tc, mesh), want, 3)
    assert not any(spy)
