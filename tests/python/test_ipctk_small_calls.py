"""fricl.ipctk's short paths for small, repeated calls, against ipctk
1.6.1 computed in the same test:

* a BarrierPotential / NormalAdhesionPotential value or gradient on
  fricl's own NormalCollisions and CollisionMesh is one native call after
  the set's first call; it must equal ipctk's on ipctk's set of the same
  positions, after every rebuild, and fall back to the full path (same
  result, or the full path's error) for an X it cannot pass as it is;
* TangentialCollisions.build runs on the set's prepared groups into one
  packed array, its groups made on first use; its length, and the
  friction value and gradient (also a one-call path on fricl's set and
  mesh), must be ipctk's after every rebuild.
"""
import os
import sys

import numpy as np
import pytest

ipctk = pytest.importorskip("ipctk")
pytest.importorskip("scipy")
import fricl  # noqa: E402
import fricl.ipctk as fi  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "bench", "python"))
from scenes import cloth_over_box  # noqa: E402

ipctk.set_logger_level(ipctk.LoggerLevel.error)


def close(got, ref, what, rtol=1e-10):
    got, ref = np.asarray(got, float), np.asarray(ref, float)
    scale = max(float(np.abs(ref).max(initial=0.0)), 1e-300)
    err = float(np.abs(got - ref).max(initial=0.0))
    assert err <= rtol * scale, "%s: max error %g of scale %g" % (
        what, err, scale)


@pytest.fixture(scope="module")
def scene():
    V, E, F, dhat = cloth_over_box(4)
    return V, E, F, dhat, ipctk.CollisionMesh(V, E, F), fi.CollisionMesh(
        V, E, F)


def moved(V, dhat, seed):
    return V + np.random.default_rng(seed).normal(size=V.shape) * 0.05 * dhat


def normal_potentials(kind, dhat):
    """ipctk's and fricl's barrier (kind "barrier") or normal adhesion
    potential with the same parameters."""
    if kind == "barrier":
        return ipctk.BarrierPotential(dhat, 10.0), fi.BarrierPotential(
            dhat, 10.0)
    args = (0.3 * dhat, dhat, 1e3, 0.5)
    return ipctk.NormalAdhesionPotential(*args), \
        fi.NormalAdhesionPotential(*args)


@pytest.mark.parametrize("kind", ["barrier", "adhesion"])
def test_repeated_normal_calls_match_ipctk_across_rebuilds(scene, kind):
    V, E, F, dhat, mesh, fmesh = scene
    B, G = normal_potentials(kind, dhat)
    C, D = ipctk.NormalCollisions(), fi.NormalCollisions()
    for seed in range(3):
        X = moved(V, dhat, seed)
        C.build(mesh, X, dhat)
        D.build(fmesh, X, dhat)
        assert len(C) == len(D) > 0
        ref_v, ref_g = B(C, mesh, X), B.gradient(C, mesh, X)
        v1, g1 = G(D, fmesh, X), G.gradient(D, fmesh, X)  # full path
        assert D._barrier_entry.fast is not None  # the one-call path's
        v2, g2 = G(D, fmesh, X), G.gradient(D, fmesh, X)  # one call
        assert v1 == v2 and np.array_equal(g1, g2)
        assert isinstance(v2, float) and g2.shape == (X.size,)
        close(v2, ref_v, "%s value, set %d" % (kind, seed))
        close(g2, ref_g, "%s gradient, set %d" % (kind, seed))
        # other positions on the same set
        Y = moved(X, dhat, 10 + seed)
        close(G(D, fmesh, Y), B(C, mesh, Y), "%s value at Y" % kind)
        close(G.gradient(D, fmesh, Y), B.gradient(C, mesh, Y),
              "%s gradient at Y" % kind)


def test_normal_calls_fall_back_for_what_needs_converting(scene):
    V, E, F, dhat, mesh, fmesh = scene
    B, G = ipctk.BarrierPotential(dhat, 1.0), fi.BarrierPotential(dhat, 1.0)
    C, D = ipctk.NormalCollisions(), fi.NormalCollisions()
    C.build(mesh, V, dhat)
    D.build(fmesh, V, dhat)
    G(D, fmesh, V)
    ref = G(D, fmesh, V)
    close(ref, B(C, mesh, V), "value")
    for X in (np.asfortranarray(V), V.tolist(), np.hstack([V, V])[:, :3]):
        close(G(D, fmesh, X), ref, "converted X")
        close(G.gradient(D, fmesh, X), G.gradient(D, fmesh, V),
              "converted X, gradient")
    # ipctk's mesh with fricl's set: the full path, the same value
    close(G(D, mesh, V), ref, "ipctk's mesh")
    # a shape the mesh does not have: the full path's error, naming X
    with pytest.raises(fricl.InvalidArgumentError, match="'X'"):
        G(D, fmesh, V[:-1])
    with pytest.raises(fricl.InvalidArgumentError, match="'X'"):
        G.gradient(D, fmesh, V.ravel())
    # float32 positions: converted on the full path
    X32 = V.astype(np.float32)
    close(G(D, fmesh, X32), G(D, fmesh, X32.astype(np.float64)), "float32")
    # another device on the same set: its own context
    H = fi.BarrierPotential(dhat, 1.0, device="host")
    close(H(D, fmesh, V), ref, "second potential")
    close(G(D, fmesh, V), ref, "after another potential's call")


def friction_pair(scene, seed):
    V, E, F, dhat, mesh, fmesh = scene
    X = moved(V, dhat, seed)
    C, D = ipctk.NormalCollisions(), fi.NormalCollisions()
    C.build(mesh, X, dhat)
    D.build(fmesh, X, dhat)
    return X, C, D


def test_tangential_build_and_friction_match_ipctk_across_rebuilds(scene):
    V, E, F, dhat, mesh, fmesh = scene
    B, G = ipctk.BarrierPotential(dhat, 1.0), fi.BarrierPotential(dhat, 1.0)
    P, Q = ipctk.FrictionPotential(1e-3), fi.FrictionPotential(1e-3)
    T, S = ipctk.TangentialCollisions(), fi.TangentialCollisions()
    for seed in range(3):
        X, C, D = friction_pair(scene, seed)
        for mu in (0.5, 0.3):  # a rebuild on the same set
            T.build(mesh, X, C, B, mu)
            S.build(fmesh, X, D, G, mu)
            assert len(S) == len(T) > 0
            U = np.random.default_rng(seed).normal(size=V.shape) * dhat
            assert S._fast is None or S._fast[4] is not S._cache
            for _ in range(2):  # full path, then one call
                close(Q(S, fmesh, U), P(T, mesh, U),
                      "friction value, set %d, mu %g" % (seed, mu))
                close(Q.gradient(S, fmesh, U), P.gradient(T, mesh, U),
                      "friction gradient, set %d, mu %g" % (seed, mu))
                assert S._fast is not None and S._fast[4] is S._cache
    # the groups and the result, made on first use, describe the build
    res = S.result
    assert res.total == sum(res.status_counts.values())
    assert res.total - res.status_counts["ee_parallel"] == len(S)
    for g in S.groups:
        assert g.dtype == np.float64 and g.mu_s.shape == (g.count,)
        assert np.all(g.mu_s == 0.3) and g.status.shape == (g.count,)
    # clear, then the lengths and the potential of an empty set
    S.clear()
    assert len(S) == 0 and S.groups == []
    assert Q(S, fmesh, U) == 0.0


def test_tangential_build_options_through_the_packed_build(scene):
    V, E, F, dhat, mesh, fmesh = scene
    X, C, D = friction_pair(scene, 7)
    B, G = ipctk.BarrierPotential(dhat, 2.0, True), fi.BarrierPotential(
        dhat, 2.0, True)
    T, S = ipctk.TangentialCollisions(), fi.TangentialCollisions()
    mu_s = np.random.default_rng(1).uniform(0.2, 0.8, len(V))
    mu_k = 0.5 * mu_s
    T.build(mesh, X, C, B, mu_s, mu_k)
    S.build(fmesh, X, D, G, mu_s, mu_k)
    P, Q = ipctk.FrictionPotential(1e-3), fi.FrictionPotential(1e-3)
    U = np.random.default_rng(2).normal(size=V.shape) * dhat
    close(Q(S, fmesh, U), P(T, mesh, U), "per-vertex mu, physical barrier")
    # a blend callable (per-vertex arrays): ipctk's rule, min
    T.build(mesh, X, C, B, mu_s, mu_k, min)
    S.build(fmesh, X, D, G, mu_s, mu_k, min)
    close(Q.gradient(S, fmesh, U), P.gradient(T, mesh, U), "blend min")
    # normal_force_gradient: the same forces, with their gradients
    S.build(fmesh, X, D, G, 0.4)
    N = [g.normal_force.copy() for g in S.groups]
    S.build(fmesh, X, D, G, 0.4, normal_force_gradient=True)
    for g, n in zip(S.groups, N):
        assert np.array_equal(g.normal_force, n)
        k = g.vertices.shape[1]
        assert g.normal_force_gradient.shape == (g.count, k * g.dim)
    # ipctk's own collision set through the packed build
    S.build(mesh, X, C, B, 0.4)
    T.build(mesh, X, C, B, 0.4)
    assert len(S) == len(T)
    close(Q(S, mesh, U), P(T, mesh, U), "ipctk's set and mesh")


def test_repeated_hessians_are_ipctks_and_independent(scene):
    V, E, F, dhat, mesh, fmesh = scene
    clamp = ipctk.PSDProjectionMethod.CLAMP
    X, C, D = friction_pair(scene, 3)
    B, G = ipctk.BarrierPotential(dhat, 1.0), fi.BarrierPotential(dhat, 1.0)
    T, S = ipctk.TangentialCollisions(), fi.TangentialCollisions()
    T.build(mesh, X, C, B, 0.5)
    S.build(fmesh, X, D, G, 0.5)
    P, Q = ipctk.FrictionPotential(1e-3), fi.FrictionPotential(1e-3)
    U = np.random.default_rng(4).normal(size=V.shape) * dhat
    calls = [
        ("barrier", lambda: G.hessian(D, fmesh, X, clamp),
         lambda: B.hessian(C, mesh, X, clamp)),
        ("friction", lambda: Q.hessian(S, fmesh, U, clamp),
         lambda: P.hessian(T, mesh, U, clamp))]
    for what, mine, ref in calls:
        R = ref().toarray()
        first = mine()
        # a caller's in-place change to one matrix stays in that matrix
        first.data[:] = 0.0
        first.eliminate_zeros()
        assert first.nnz == 0
        for _ in range(2):
            H = mine()
            assert H.format == "csc" and H.shape == (X.size, X.size)
            assert H.has_sorted_indices and H.nnz > 0
            close(H.toarray(), R, "%s Hessian" % what)


def test_tangential_rebuild_takes_one_call_and_falls_back(scene):
    V, E, F, dhat, mesh, fmesh = scene
    X, C, D = friction_pair(scene, 11)
    B, G = ipctk.BarrierPotential(dhat, 3.0), fi.BarrierPotential(dhat, 3.0)
    P, Q = ipctk.FrictionPotential(1e-3), fi.FrictionPotential(1e-3)
    T, S = ipctk.TangentialCollisions(), fi.TangentialCollisions()
    U = np.random.default_rng(5).normal(size=V.shape) * dhat
    # the first build prepares the set; later ones are one native call
    assert not S._build_fast(fmesh, X, D, G, 0.2)
    S.build(fmesh, X, D, G, 0.2)
    Y = moved(X, dhat, 12)  # new lagged positions, same set
    assert S._build_fast(fmesh, Y, D, G, 0.2)
    T.build(mesh, Y, C, B, 0.2)
    assert len(S) == len(T)
    close(Q(S, fmesh, U), P(T, mesh, U), "one-call rebuild")
    # what the one call cannot take goes the full way, to the same set
    for Z in (np.asfortranarray(Y), Y.tolist()):
        assert not S._build_fast(fmesh, Z, D, G, 0.2)
        S.build(fmesh, Z, D, G, 0.2)
        close(Q(S, fmesh, U), P(T, mesh, U), "converted lagged positions")
    assert not S._build_fast(fmesh, Y, D, G, 1)  # ipctk's mu is a float
    with pytest.raises(fricl.InvalidArgumentError, match="vertices"):
        S.build(fmesh, Y[:-1], D, G, 0.2)


def test_rebuilt_sets_hessians_are_a_new_sets_bitwise(scene):
    """A set rebuilt on the same object (same contacts or not) keeps or
    drops its plan and CSC pattern: its Hessians are a new object's, bit
    for bit, and scipy's state of a pattern fricl made is canonical."""
    V, E, F, dhat, mesh, fmesh = scene
    clamp = ipctk.PSDProjectionMethod.CLAMP
    G, Q = fi.BarrierPotential(dhat, 1.0), fi.FrictionPotential(1e-3)
    D, S = fi.NormalCollisions(), fi.TangentialCollisions()
    for k in range(5):
        X = moved(V, dhat, 10 + k // 2) if k % 4 else V  # same, then new
        U = np.random.default_rng(20 + k).normal(size=V.shape) * dhat
        D.build(fmesh, X, dhat)
        S.build(fmesh, X, D, G, 0.5)
        D2, S2 = fi.NormalCollisions(), fi.TangentialCollisions()
        D2.build(fmesh, X, dhat)
        S2.build(fmesh, X, D2, G, 0.5)
        pairs = [(G.hessian(D, fmesh, X, clamp),
                  G.hessian(D2, fmesh, X, clamp)),
                 (Q.hessian(S, fmesh, U, clamp),
                  Q.hessian(S2, fmesh, U, clamp))]
        for H, K in pairs:
            assert H.has_sorted_indices and H.has_canonical_format
            assert H.shape == K.shape == (X.size, X.size)
            for a, b in ((H.data, K.data), (H.indices, K.indices),
                         (H.indptr, K.indptr)):
                assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
            H.sum_duplicates()  # the flags are true: nothing to merge
            assert H.nnz == K.nnz


@pytest.mark.parametrize("n", [4, 5])
def test_first_calls_on_a_new_set_read_the_packed_build(n):
    """The first value, gradient and Hessian on a new set take its contacts
    straight from the packed build (one native call, the near-parallel
    edge-edge pairs left out in C; a first gradient without a plan): they
    must be ipctk's, and bit for bit what the set's unpacked groups give
    (the path of a set whose groups were read first) and what the set
    gives once it has a plan."""
    V, E, F, dhat = cloth_over_box(n)
    mesh, fmesh = ipctk.CollisionMesh(V, E, F), fi.CollisionMesh(V, E, F)
    clamp = ipctk.PSDProjectionMethod.CLAMP
    B, G = ipctk.BarrierPotential(dhat, 1.0), fi.BarrierPotential(dhat, 1.0)
    P, Q = ipctk.FrictionPotential(1e-3), fi.FrictionPotential(1e-3)
    C, D = ipctk.NormalCollisions(), fi.NormalCollisions()
    C.build(mesh, V, dhat)
    D.build(fmesh, V, dhat)
    T = ipctk.TangentialCollisions()
    T.build(mesh, V, C, B, 0.5)
    U = np.random.default_rng(n).normal(size=V.shape) * dhat
    calls = [("value", lambda S: Q(S, fmesh, U), lambda: P(T, mesh, U)),
             ("gradient", lambda S: Q.gradient(S, fmesh, U),
              lambda: P.gradient(T, mesh, U)),
             ("hessian", lambda S: Q.hessian(S, fmesh, U, clamp).toarray(),
              lambda: P.hessian(T, mesh, U, clamp).toarray())]
    dropped = 0
    for what, mine, ref in calls:
        S = fi.TangentialCollisions()
        S.build(fmesh, V, D, G, 0.5)
        assert len(S) == len(T)
        first = mine(S)  # before anything reads the groups
        assert S._groups is None  # nothing unpacked in Python
        close(first, ref(), "first friction %s, n %d" % (what, n))
        # the same set with its groups unpacked first
        R = fi.TangentialCollisions()
        R.build(fmesh, V, D, G, 0.5)
        assert sum(g.count for g in R.groups) == len(T)
        assert np.array_equal(np.asarray(mine(R)), np.asarray(first))
        # with the plan a Hessian makes (a first gradient goes without)
        assert S._contacts(Q.context, len(V))._plan is None or \
            what == "hessian"
        Q.hessian(S, fmesh, U, clamp)
        assert np.array_equal(np.asarray(mine(S)), np.asarray(first))
        # the packed contacts' groups, made on demand, are the set's
        c = S._contacts(Q.context, len(V))
        assert [(g.type, g.count) for g in c.groups] == \
            [(g.type, g.count) for g in R.groups]
        assert c.count == len(S) == len(T)
        dropped = S.result.status_counts["ee_parallel"]
    if n == 5:
        assert dropped > 0  # the scene exercises the left-out pairs


@pytest.mark.parametrize("n", [3, 5, 12])
def test_plan_pattern_is_the_contacts_vertex_pairs_sorted(n):
    """The plan's BSR pattern (rows filled by a transpose on one thread,
    no sort) is, row by row, the sorted distinct vertices that share a
    contact with the row's vertex (a Python set per row as the oracle),
    and the CSC pattern of the first Hessian its scalar expansion."""
    V, E, F, dhat = cloth_over_box(n)
    fmesh = fi.CollisionMesh(V, E, F)
    D = fi.NormalCollisions()
    D.build(fmesh, V, dhat)
    S = fi.TangentialCollisions()
    S.build(fmesh, V, D, fi.BarrierPotential(dhat, 1.0), 0.5)
    Q = fi.FrictionPotential(1e-3)
    H = Q.hessian(S, fmesh, np.zeros_like(V))
    rows = [set() for _ in range(len(V))]
    for g in S.groups:
        for ids in g.vertices.tolist():
            for a in ids:
                rows[a].update(ids)
    plan = S._contacts(Q.context, len(V)).plan
    rp, bc = plan.row_ptr, plan.block_cols
    for v, want in enumerate(rows):
        assert bc[rp[v]:rp[v + 1]].tolist() == sorted(want), "row %d" % v
    d = V.shape[1]
    want_ptr, want_idx = [0], []
    for b in range(len(V)):  # symmetric: column b's block rows are row b's
        for j in range(d):
            want_idx += [a * d + i for a in sorted(rows[b]) for i in range(d)]
            want_ptr.append(len(want_idx))
    assert H.indptr.tolist() == want_ptr and H.indices.tolist() == want_idx


@pytest.mark.parametrize("kind", ["barrier", "adhesion"])
def test_first_normal_calls_on_a_new_set_take_one_call(scene, kind):
    """A first value or gradient on a new NormalCollisions makes what the
    full path's first call keeps and is one native call: ipctk's result,
    bit for bit the full path's (an X to convert, on another new set)."""
    V, E, F, dhat, mesh, fmesh = scene
    B, G = normal_potentials(kind, dhat)
    X = moved(V, dhat, 21)
    C = ipctk.NormalCollisions()
    C.build(mesh, X, dhat)
    for what, mine, ref in (("value", G, B), ("gradient", G.gradient,
                                                 B.gradient)):
        D, D2 = fi.NormalCollisions(), fi.NormalCollisions()
        D.build(fmesh, X, dhat)
        D2.build(fmesh, X, dhat)
        assert D._barrier_entry is None
        first = mine(D, fmesh, X)
        assert D._barrier_entry.fast is not None
        full = mine(D2, fmesh, X.tolist())  # converted: the full path
        assert np.array_equal(np.asarray(first), np.asarray(full))
        close(first, ref(C, mesh, X), "first %s %s" % (kind, what))


def test_large_sets_get_their_plan_from_the_build(monkeypatch):
    """From fi._EAGER_CONTACTS contacts on, the build makes the contacts
    and the plan (kept by a rebuild to the same contacts); the Hessian is
    ipctk's and bit for bit a lazily made set's."""
    V, E, F, dhat = cloth_over_box(30)
    mesh, fmesh = ipctk.CollisionMesh(V, E, F), fi.CollisionMesh(V, E, F)
    clamp = ipctk.PSDProjectionMethod.CLAMP
    B, G = ipctk.BarrierPotential(dhat, 1.0), fi.BarrierPotential(dhat, 1.0)
    C, D = ipctk.NormalCollisions(), fi.NormalCollisions()
    C.build(mesh, V, dhat)
    D.build(fmesh, V, dhat)
    T, S = ipctk.TangentialCollisions(), fi.TangentialCollisions()
    T.build(mesh, V, C, B, 0.5)
    S.build(fmesh, V, D, G, 0.5)
    assert S._packed.total >= fi._EAGER_CONTACTS
    (c,) = S._cache.values()
    plan = c._plan
    assert plan is not None
    S.build(fmesh, V, D, G, 0.5)  # the same contacts: the same plan
    (c2,) = S._cache.values()
    assert c2 is not c and c2._plan is plan
    P, Q = ipctk.FrictionPotential(1e-3), fi.FrictionPotential(1e-3)
    U = np.random.default_rng(30).normal(size=V.shape) * dhat
    H = Q.hessian(S, fmesh, U, clamp)
    close(H.toarray(), P.hessian(T, mesh, U, clamp).toarray(),
          "friction Hessian, eager plan")
    monkeypatch.setattr(fi, "_EAGER_CONTACTS", 1 << 60)
    R = fi.TangentialCollisions()
    R.build(fmesh, V, D, G, 0.5)
    assert not R._cache
    K = Q.hessian(R, fmesh, U, clamp)
    for a, b in ((H.data, K.data), (H.indices, K.indices),
                 (H.indptr, K.indptr)):
        assert a.tobytes() == b.tobytes()
