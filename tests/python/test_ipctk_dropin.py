"""fricl.ipctk against ipctk 1.6.1 itself, on random scenes: potential,
gradient and Hessian (every PSD mode) within 1e-12 of scale, 2-D and 3-D,
mu_s != mu_k, per-vertex and per-collision mu, negative weights,
anisotropy, plane-vertex contacts; the single-collision overloads; the
cache; fricl's lagged build from ipctk's normal collisions; the collision
mesh vs the full mesh."""
import gc
import os
import sys

import numpy as np
import pytest

ipctk = pytest.importorskip("ipctk")
sp = pytest.importorskip("scipy.sparse")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "ipctk"))
import ipctk_crosscheck as xc  # noqa: E402  (scene builders)

import fricl  # noqa: E402
import fricl.ipctk as fi  # noqa: E402

TOL = 1e-12
PSD = [ipctk.PSDProjectionMethod.NONE, ipctk.PSDProjectionMethod.CLAMP,
       ipctk.PSDProjectionMethod.ABS]
KINDS = ["tets", "triangles", "polylines"]


def scales(tc, eps_v):
    """Natural scales (as tests/ipctk/ipctk_crosscheck.py): a collision's
    D, gradient and Hessian are of size |w N| mu eps_v, |w N| mu and
    |w N| mu / eps_v."""
    s = 0.0
    for i in range(len(tc)):
        c = tc[i]
        s += abs(c.weight * c.normal_force_magnitude) * max(
            c.mu_s_effective_lagged, c.mu_k_effective_lagged)
        del c
    return s * eps_v, s, s / eps_v


def close(got, ref, floor, what):
    got, ref = np.asarray(got, float), np.asarray(ref, float)
    assert got.shape == ref.shape, (what, got.shape, ref.shape)
    scale = max(np.abs(ref).max() if ref.size else 0.0, floor)
    err = np.abs(got - ref).max() if ref.size else 0.0
    assert err <= TOL * scale, "%s: %.3e > %.0e of %.3e" % (what, err, TOL,
                                                            scale)
    return err / scale if scale else 0.0


def scene(seed, kind):
    rng = np.random.default_rng(seed)
    mesh, V, E, F, tc, info = xc.build(rng, kind)
    return rng, mesh, V, tc, info


@pytest.fixture(scope="module", params=["auto"] + [
    d["spec"] for d in fricl.devices()][:1])
def device(request):
    return request.param


@pytest.mark.parametrize("seed", range(12))
def test_matches_ipctk(seed, device):
    rng, mesh, V, tc, info = scene(1000 + seed, KINDS[seed % 3])
    eps_v = 10.0 ** rng.uniform(-4, -2)
    SD, Sg, SH = scales(tc, eps_v)
    ip = ipctk.FrictionPotential(eps_v)
    fp = fi.FrictionPotential(eps_v, device=device)
    ndof = V.size
    for regime in ("zero", "static", "around", "kinetic", "mixed"):
        X = np.asfortranarray(xc.velocities(rng, V, eps_v, regime))
        D = fp(tc, mesh, X)
        assert type(D) is float
        close(D, ip(tc, mesh, X), SD, "D")
        g = fp.gradient(tc, mesh, X)
        assert isinstance(g, np.ndarray) and g.shape == (ndof,)
        close(g, ip.gradient(tc, mesh, X), 1e-6 * Sg, "gradient")
        for psd in PSD:
            H = fp.hessian(tc, mesh, X, psd)
            Hi = ip.hessian(tc, mesh, X, psd)
            assert type(H) is type(Hi) and H.shape == (ndof, ndof)
            assert H.has_sorted_indices
            close(H.toarray(), Hi.toarray(), 1e-6 * SH, "Hessian %s" % psd)
        # the default projection is NONE, as in ipctk
        close(fp.hessian(tc, mesh, X).toarray(),
              ip.hessian(tc, mesh, X).toarray(), 1e-6 * SH, "default psd")


def test_coverage_of_the_random_scenes():
    """The scenes above exercise what the issue asks for."""
    seen = dict(dim=set(), types=set(), negative=0, aniso=0, mus_ne_muk=0,
                plane=0)
    for seed in range(12):
        rng, mesh, V, tc, info = scene(1000 + seed, KINDS[seed % 3])
        seen["dim"].add(info["dim"])
        seen["plane"] += info["plane"]
        for i in range(len(tc)):
            c = tc[i]
            seen["types"].add(type(c).__name__[:4])
            seen["negative"] += c.weight < 0
            seen["aniso"] += bool(np.any(np.asarray(c.mu_aniso) != 1))
            seen["mus_ne_muk"] += c.mu_s_effective_lagged != \
                c.mu_k_effective_lagged
            del c
    assert seen["dim"] == {2, 3}
    assert seen["types"] == {"Vert", "Edge", "Face", "Plan"}
    assert min(seen["negative"], seen["aniso"], seen["mus_ne_muk"],
               seen["plane"]) > 0, seen


def test_abs_needs_ipctk_behaviour():
    """With w N < 0, ipctk's ABS differs from fricl's uniform |.|: the
    drop-in must reproduce ipctk's (FRICL_TANGENTIAL_FLAG_IPCTK_ABS)."""
    for seed in range(40):
        rng, mesh, V, tc, info = scene(2000 + seed, "tets")
        if info["negate"]:
            break
    eps_v = 1e-3
    X = np.asfortranarray(xc.velocities(rng, V, eps_v, "kinetic"))
    fp = fi.FrictionPotential(eps_v)
    H = fp.hessian(tc, mesh, X, ipctk.PSDProjectionMethod.ABS).toarray()
    Hi = ipctk.FrictionPotential(eps_v).hessian(
        tc, mesh, X, ipctk.PSDProjectionMethod.ABS).toarray()
    close(H, Hi, 0, "ABS")
    c = fp._contacts(tc, mesh, np.ascontiguousarray(X))
    uniform = c.plan.to_csc(c.evaluate(X, eps_v, mu_profile="ipctk",
                                       potential=False, hessian="values",
                                       psd="abs").hessian).toarray()
    assert np.abs(uniform - Hi).max() > 1e-6 * np.abs(Hi).max()


def test_single_collision_overloads():
    rng, mesh, V, tc, info = scene(3001, "tets")
    eps_v = 1e-3
    ip = ipctk.FrictionPotential(eps_v)
    fp = fi.FrictionPotential(eps_v)
    X = xc.velocities(rng, V, eps_v, "around")
    E, F = mesh.edges, mesh.faces
    for i in range(len(tc)):
        c = tc[i]
        k = c.num_vertices() if callable(c.num_vertices) else c.num_vertices
        x = X[np.asarray(c.vertex_ids(E, F))[:k]].reshape(-1)
        s = abs(c.weight * c.normal_force_magnitude) * max(
            c.mu_s_effective_lagged, c.mu_k_effective_lagged)
        close(fp(c, x), ip(c, x), s * eps_v, "D")
        close(fp.gradient(c, x), ip.gradient(c, x), s, "gradient")
        for psd in PSD:
            close(fp.hessian(c, x, psd), ip.hessian(c, x, psd), s / eps_v,
                  "Hessian")
        del c


def test_cache_reuse_rebuild_and_eviction(monkeypatch):
    rng, mesh, V, tc, info = scene(4001, "tets")
    eps_v = 1e-3
    reads = []
    real_read = fi.read_tangential_collisions
    monkeypatch.setattr(fi, "read_tangential_collisions",
                        lambda *a, **k: reads.append(1) or real_read(*a, **k))
    fp = fi.FrictionPotential(eps_v)
    X = np.asfortranarray(xc.velocities(rng, V, eps_v, "mixed"))
    fp(tc, mesh, X)
    fp.gradient(tc, mesh, X)
    fp.hessian(tc, mesh, X, ipctk.PSDProjectionMethod.CLAMP)
    assert len(reads) == 1  # read once, reused (Newton loop)
    # Rebuilt in place at other positions: detected, re-read.
    nc = ipctk.NormalCollisions()
    nc.build(mesh, V, info["dhat"])
    B = ipctk.BarrierPotential(info["dhat"], 2 * info["kappa"])
    tc.build(mesh, V, nc, B, 0.4, 0.3)
    D = fp(tc, mesh, X)
    assert len(reads) == 2
    SD = scales(tc, eps_v)[0]
    close(D, ipctk.FrictionPotential(eps_v)(tc, mesh, X), SD, "rebuilt")
    # An in-place edit of one collision is not seen until clear_cache.
    c = tc[1 % len(tc)]
    c.weight = 3 * c.weight
    del c
    fp.clear_cache(tc)
    close(fp(tc, mesh, X), ipctk.FrictionPotential(eps_v)(tc, mesh, X), SD,
          "after clear_cache")
    assert len(reads) == 3
    # Entries go with their collisions.
    assert len(fp._cache) == 1
    del tc
    gc.collect()
    assert len(fp._cache) == 0


def test_fricl_lagged_build_from_normal_collisions(device):
    worst = 0.0
    for seed in range(8):
        rng, mesh, V, tc_unused, info = scene(5000 + seed, KINDS[seed % 3])
        del tc_unused
        dim = V.shape[1]
        dhat, kappa = info["dhat"], info["kappa"]
        physical = seed % 2 == 1
        dmin = 0.1 * dhat if seed % 4 == 3 else 0.0
        nc = ipctk.NormalCollisions()
        nc.use_area_weighting = info["area"]
        nc.build(mesh, V, dhat, dmin)
        B = ipctk.BarrierPotential(dhat, kappa, physical)
        mu_s = rng.uniform(0.2, 1.0, len(V))
        mu_k = rng.uniform(0.1, 0.8, len(V))
        ref = ipctk.TangentialCollisions()
        ref.build(mesh, V, nc, B, mu_s, mu_k)
        tc = fi.build_tangential_collisions(mesh, V, nc, B, mu_s, mu_k,
                                            device=device)
        assert len(tc) == len(nc)  # ipctk drops near-parallel pairs
        assert tc.result.status_counts["ok"] + \
            tc.result.status_counts["ee_parallel"] + \
            tc.result.status_counts["inactive"] + \
            tc.result.status_counts["inside_dmin"] == len(tc)
        eps_v = 1e-3
        X = np.asfortranarray(xc.velocities(rng, V, eps_v, "mixed"))
        ip = ipctk.FrictionPotential(eps_v)
        fp = fi.FrictionPotential(eps_v, device=device)
        SD, Sg, SH = scales(ref, eps_v)
        # fricl's build agrees with ipctk's to ~1e-13 (N goes through log)
        for got, want, s in ((fp(tc, mesh, X), ip(ref, mesh, X), SD),
                             (fp.gradient(tc, mesh, X),
                              ip.gradient(ref, mesh, X), Sg)):
            e = np.abs(np.asarray(got) - want).max() / max(
                np.abs(want).max(), 1e-6 * s)
            worst = max(worst, e)
        H = fp.hessian(tc, mesh, X, ipctk.PSDProjectionMethod.CLAMP)
        Hi = ip.hessian(ref, mesh, X, ipctk.PSDProjectionMethod.CLAMP)
        e = np.abs(H.toarray() - Hi.toarray()).max() / max(
            np.abs(Hi.toarray()).max(), 1e-6 * SH)
        worst = max(worst, e)
        assert dim in (2, 3)
    assert worst < 1e-10, worst


def test_barrier_parameters_are_recovered():
    for phys in (False, True):
        for kappa in (1.0, 123.456, 1e6):
            B = ipctk.BarrierPotential(2e-3, kappa, phys)
            k, p = fi._barrier_parameters(B, 2e-3)
            assert p == phys and abs(k - kappa) <= 1e-14 * kappa


def test_collision_mesh_vs_full_mesh():
    """X and the results are in collision-mesh vertices, as in ipctk: a
    full mesh with a vertex that is on no face (dropped by
    build_from_full_mesh)."""
    rng, mesh0, V0, tc0, info = scene(6001, "tets")
    del tc0
    Vf = np.vstack([V0, V0.mean(axis=0)])  # an interior vertex
    Ff = np.asarray(mesh0.faces)
    Ef = np.asarray(mesh0.edges)
    mesh = ipctk.CollisionMesh.build_from_full_mesh(Vf, Ef, Ff)
    nv = mesh.num_vertices() if callable(mesh.num_vertices) else \
        mesh.num_vertices
    assert nv == len(V0)
    V = mesh.vertices(Vf)
    nc = ipctk.NormalCollisions()
    nc.build(mesh, V, info["dhat"])
    tc = ipctk.TangentialCollisions()
    tc.build(mesh, V, nc, ipctk.BarrierPotential(info["dhat"], 10.0), 0.5,
             0.3)
    eps_v = 1e-3
    Vel_full = xc.velocities(rng, Vf, eps_v, "around")
    X = mesh.map_displacements(Vel_full)
    fp, ip = fi.FrictionPotential(eps_v), ipctk.FrictionPotential(eps_v)
    g = fp.gradient(tc, mesh, X)
    SD, Sg, SH = scales(tc, eps_v)
    close(g, ip.gradient(tc, mesh, X), Sg, "gradient")
    close(mesh.to_full_dof(g), mesh.to_full_dof(ip.gradient(tc, mesh, X)),
          Sg, "full gradient")
    with pytest.raises(fricl.InvalidArgumentError, match="collision mesh"):
        fp.gradient(tc, mesh, Vel_full)


def test_errors_and_empty():
    rng, mesh, V, tc, info = scene(7001, "triangles")
    fp = fi.FrictionPotential(1e-3)
    with pytest.raises(TypeError, match="project_hessian_to_psd"):
        fp.hessian(tc, mesh, V, "nearest")
    with pytest.raises(fricl.InvalidArgumentError, match="eps_v"):
        fi.FrictionPotential(-1.0)
    empty = ipctk.TangentialCollisions()
    assert fp(empty, mesh, V) == 0.0
    assert not fp.gradient(empty, mesh, V).any()
    H = fp.hessian(empty, mesh, V)
    assert isinstance(H, sp.csc_matrix) and H.nnz == 0
    assert fi.TangentialPotential is fi.FrictionPotential
    assert fp.eps_v == 1e-3
    # ipctk's other methods are delegated
    assert callable(fp.force)


def test_psd_argument_is_ipctks_enum_only():
    """project_hessian_to_psd takes what ipctk 1.6.1 takes, an
    ipctk.PSDProjectionMethod by position or keyword, and refuses the rest
    with ipctk's TypeError (issue 19, defect 6: True and "CLAMP" were read
    as NONE by the barrier), in the collection and the single-collision
    overloads."""
    rng, mesh, V, tc, info = scene(7002, "tets")
    X = xc.velocities(rng, V, 1e-3, "around")
    fp = fi.FrictionPotential(1e-3)
    ip = ipctk.FrictionPotential(1e-3)
    clamp = ipctk.PSDProjectionMethod.CLAMP
    want = fp.hessian(tc, mesh, X, clamp).toarray()
    assert np.array_equal(
        fp.hessian(tc, mesh, X, project_hessian_to_psd=clamp).toarray(), want)
    assert np.array_equal(
        fp.hessian(tc, mesh, X).toarray(),
        fp.hessian(tc, mesh, X, ipctk.PSDProjectionMethod.NONE).toarray())
    c = tc[0]
    k = c.num_vertices() if callable(c.num_vertices) else c.num_vertices
    x = X[np.asarray(c.vertex_ids(mesh.edges, mesh.faces))[:k]].reshape(-1)
    for bad in (True, False, 1, 0, "CLAMP", "clamp", None, 1.0):
        with pytest.raises(TypeError):  # what ipctk does
            ip.hessian(tc, mesh, X, bad)
        with pytest.raises(TypeError, match="project_hessian_to_psd"):
            fp.hessian(tc, mesh, X, bad)
        with pytest.raises(TypeError, match="project_hessian_to_psd"):
            fp.hessian(tc, mesh, X, project_hessian_to_psd=bad)
        with pytest.raises(TypeError, match="project_hessian_to_psd"):
            fp.hessian(c, x, bad)
    del c


def test_array_shapes_are_checked():
    """X must be the collision mesh's (num_vertices, dim) array and a
    single collision's x its stencil's k * dim values; errors name them
    (issue 19, defect 8)."""
    rng, mesh, V, tc, info = scene(7003, "tets")
    X = xc.velocities(rng, V, 1e-3, "around")
    fp = fi.FrictionPotential(1e-3)
    for bad in (X.ravel(), X.T, X[:, :2], X[:-1]):
        for f in (fp, fp.gradient, fp.hessian):
            with pytest.raises(fricl.InvalidArgumentError, match="'X'"):
                f(tc, mesh, bad)
    c = tc[0]
    with pytest.raises(fricl.InvalidArgumentError, match="'x'"):
        fp.gradient(c, np.zeros(2))
    del c
