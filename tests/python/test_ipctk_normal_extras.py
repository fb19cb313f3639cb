"""fricl.ipctk's normal-potential additions (issue 22) against ipctk 1.6.1
on random scenes built by ipctk (tests/ipctk/barrier_crosscheck.py):
BarrierPotential's force magnitudes and their gradients, the Gauss-Newton
diagonal and quadratic form, the single-collision overloads, the shape
derivative (with and without area weighting), the (barrier, dhat, ...)
constructor and the barrier property; NormalAdhesionPotential's value,
gradient and Hessian with every PSD projection, force magnitude and the
same extras; all within 1e-10 of scale."""
import os
import sys

import numpy as np
import pytest

ipctk = pytest.importorskip("ipctk")
pytest.importorskip("scipy")
import fricl  # noqa: E402
import fricl.ipctk as fi  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "ipctk"))
import barrier_crosscheck as bc  # noqa: E402

TOL = 1e-10


def _scene(seed, dmin_frac=0.0):
    rng = np.random.default_rng(700 + seed)
    kind = ("tets", "triangles", "polylines")[seed % 3]
    return bc.build(rng, kind, dmin_frac) + (rng,)


def _potentials(info, physical):
    return (ipctk.BarrierPotential(info["dhat"], info["kappa"], physical),
            fi.BarrierPotential(info["dhat"], info["kappa"], physical))


def _adhesion(info):
    dh = info["dhat"]
    args = (0.35 * dh, dh, 1e3 * info["kappa"], 0.7)
    return ipctk.NormalAdhesionPotential(*args), \
        fi.NormalAdhesionPotential(*args)


def _dof(c, X, E, F):
    ids = [i for i in c.vertex_ids(E, F) if i >= 0]
    return X[ids].ravel()


def test_types_constructor_and_barrier_property():
    b = fi.BarrierPotential(ipctk.ClampedLogBarrier(), 0.1, 10.0, True)
    assert isinstance(b, fi.NormalPotential)
    assert isinstance(fi.NormalAdhesionPotential(0.1, 0.2, 1, 1),
                      fi.NormalPotential)
    assert (b.dhat, b.stiffness, b.use_physical_barrier) == (0.1, 10.0, True)
    assert type(b.barrier).__name__ == "ClampedLogBarrier"
    b2 = fi.BarrierPotential(0.1, 10.0)
    assert type(b2.barrier).__name__ == "ClampedLogBarrier"
    with pytest.raises(TypeError):
        fi.BarrierPotential(0.1)


@pytest.mark.parametrize("physical", (False, True))
def test_scalar_force_magnitude(physical):
    rng = np.random.default_rng(5)
    bi = ipctk.BarrierPotential(0.2, 37.0, physical)
    bf = fi.BarrierPotential(0.2, 37.0, physical)
    for _ in range(200):
        dmin = rng.choice([0.0, rng.uniform(0, 0.1)])
        d2 = (dmin + rng.uniform(0.01, 0.25)) ** 2
        g = rng.uniform(-1, 1, 9)
        want = bi.force_magnitude(d2, dmin)
        got = bf.force_magnitude(d2, dmin)
        assert abs(got - want) <= TOL * max(abs(want), 1e-300)
        wg = bi.force_magnitude_gradient(d2, g, dmin)
        gg = bf.force_magnitude_gradient(d2, g, dmin)
        assert bc.rel_err(gg, wg) <= 1e-9
    ai, af = ipctk.NormalAdhesionPotential(0.1, 0.3, 5.0, 0.5), \
        fi.NormalAdhesionPotential(0.1, 0.3, 5.0, 0.5)
    for dmin in (0.0, 0.05):
        want = ai.force_magnitude(0.01, dmin)
        assert abs(af.force_magnitude(0.01, dmin) - want) <= TOL * abs(want)
        assert not af.force_magnitude_gradient(0.01, np.ones(6), dmin).any()


@pytest.mark.parametrize("seed", range(6))
def test_barrier_extras_match_ipctk(seed):
    ipctk.set_num_threads(1)
    mesh, V, E, F, nc, plane, info, rng = _scene(seed, 0.25 * (seed % 2))
    X = np.asfortranarray(V + rng.uniform(-1, 1, V.shape) * 0.02 *
                          info["dhat"])
    for physical in (False, True):
        bi, bf = _potentials(info, physical)
        # per-collision force magnitudes and gradients
        N, gN = bf.force_magnitudes(nc, mesh, X)
        assert len(N) == len(nc)
        for i in range(len(nc)):
            c = nc[i]
            x = _dof(c, X, E, F)
            d2 = c.compute_distance(x)
            want = bi.force_magnitude(d2, c.dmin)
            scale = max(abs(want), np.abs(N).max(), 1e-300)
            assert abs(N[i] - want) <= TOL * scale
            wg = bi.force_magnitude_gradient(
                d2, c.compute_distance_gradient(x), c.dmin)
            assert bc.rel_err(gN[i], wg, np.abs(wg).max()) <= 1e-9
            assert abs(bf.force_magnitude_of(c, x) - N[i]) <= TOL * scale
        # Gauss-Newton terms: ipctk 1.6.1 takes a plane-vertex collision's
        # distance vector to be the point itself, fricl the offset from
        # the plane: compared without planes
        if plane is None:
            p = rng.uniform(-1, 1, X.size)
            wd = bi.gauss_newton_hessian_diagonal(nc, mesh, X)
            assert bc.rel_err(bf.gauss_newton_hessian_diagonal(nc, mesh, X),
                              wd, np.abs(wd).max()) <= TOL
            wq = bi.gauss_newton_hessian_quadratic_form(nc, mesh, X, p)
            got = bf.gauss_newton_hessian_quadratic_form(nc, mesh, X, p)
            assert abs(got - wq) <= TOL * max(abs(wq), np.abs(wd).max())


@pytest.mark.parametrize("seed", range(3))
def test_single_collision_overloads(seed):
    mesh, V, E, F, nc, plane, info, rng = _scene(seed)
    bi, bf = _potentials(info, seed % 2 == 1)
    ai, af = _adhesion(info)
    NONE = ipctk.PSDProjectionMethod.NONE
    for i in range(len(nc)):
        c = nc[i]
        x = _dof(c, V, E, F)
        for pi, pf in ((bi, bf), (ai, af)):
            want = pi(c, x)
            assert abs(pf(c, x) - want) <= TOL * max(abs(want), 1e-300)
            wg = pi.gradient(c, x)
            assert bc.rel_err(pf.gradient(c, x), wg) <= TOL
            for psd in ("NONE", "CLAMP", "ABS"):
                m = getattr(ipctk.PSDProjectionMethod, psd)
                wh = pi.hessian(c, x, m)
                scale = np.abs(pi.hessian(c, x, NONE)).max()
                assert bc.rel_err(pf.hessian(c, x, m), wh, scale) <= TOL
            if type(c).__name__ != "PlaneVertexNormalCollision":
                p = rng.uniform(-1, 1, x.size)
                wd = pi.gauss_newton_hessian_diagonal(c, x)
                assert bc.rel_err(pf.gauss_newton_hessian_diagonal(c, x),
                                  wd, np.abs(wd).max()) <= TOL
                wq = pi.gauss_newton_hessian_quadratic_form(c, x, p)
                gq = pf.gauss_newton_hessian_quadratic_form(c, x, p)
                assert abs(gq - wq) <= TOL * max(abs(wq), np.abs(wd).max())
        # ipctk 1.6.1 crashes at exit while a plane-vertex collision
        # taken out of a set is alive: none outlives its iteration
        del c


def test_plane_vertex_gauss_newton_is_the_exact_hessian():
    """A plane-vertex collision's d^2 is quadratic in x: its Gauss-Newton
    Hessian is its Hessian (fricl; ipctk 1.6.1 differs, see above)."""
    c = ipctk.PlaneVertexNormalCollision(
        ipctk.Hyperplane(np.array([0.0, 0.6, 0.8]),
                         np.array([0.0, 0.6, 0.8]) * -1.0), 0)
    bf = fi.BarrierPotential(0.5, 3.0)
    x = np.array([0.1, -0.5, -0.4])
    H = bf.hessian(c, x, ipctk.PSDProjectionMethod.NONE)
    assert bc.rel_err(bf.gauss_newton_hessian_diagonal(c, x), np.diag(H),
                      np.abs(H).max()) <= TOL
    p = np.array([0.3, -0.2, 0.5])
    assert abs(bf.gauss_newton_hessian_quadratic_form(c, x, p) - p @ H @ p) \
        <= TOL * np.abs(H).max()
    del c


@pytest.mark.parametrize("area", (False, True))
@pytest.mark.parametrize("seed", range(4))
def test_shape_derivative_matches_ipctk(seed, area):
    mesh, V, E, F, nc0, plane, info, rng = _scene(seed)
    if area:
        mesh.init_area_jacobians()
    nc = ipctk.NormalCollisions()
    nc.use_area_weighting = area
    nc.enable_shape_derivatives = True
    nc.build(mesh, V, info["dhat"], info["dmin"])
    if len(nc) == 0:
        pytest.skip("no collisions")
    bi, bf = _potentials(info, False)
    want = bi.shape_derivative(nc, mesh, V).toarray()
    got = bf.shape_derivative(nc, mesh, V).toarray()
    assert bc.rel_err(got, want, np.abs(want).max()) <= TOL
    ai, af = _adhesion(info)
    want = ai.shape_derivative(nc, mesh, V).toarray()
    got = af.shape_derivative(nc, mesh, V).toarray()
    assert bc.rel_err(got, want, np.abs(want).max()) <= TOL


@pytest.mark.parametrize("seed", range(6))
def test_adhesion_matches_ipctk(seed):
    ipctk.set_num_threads(1)
    mesh, V, E, F, nc, plane, info, rng = _scene(seed, 0.2 * (seed % 2))
    ai, af = _adhesion(info)
    X = np.asfortranarray(V + rng.uniform(-1, 1, V.shape) * 0.02 *
                          info["dhat"])
    for Y in (V, X):
        want = ai(nc, mesh, Y)
        assert abs(af(nc, mesh, Y) - want) <= TOL * abs(want)
        wg = ai.gradient(nc, mesh, Y)
        assert bc.rel_err(af.gradient(nc, mesh, Y), wg) <= TOL
        scale = np.abs(ai.hessian(nc, mesh, Y).toarray()).max()
        for name in ("NONE", "CLAMP", "ABS"):
            psd = getattr(ipctk.PSDProjectionMethod, name)
            assert bc.rel_err(af.hessian(nc, mesh, Y, psd).toarray(),
                              ai.hessian(nc, mesh, Y, psd).toarray(),
                              scale) <= TOL
        N, _ = af.force_magnitudes(nc, mesh, Y)
        for i in range(len(nc)):
            w = ai.force_magnitude(0.0, nc[i].dmin)
            assert abs(N[i] - w) <= TOL * abs(w)
        if plane is None:
            wd = ai.gauss_newton_hessian_diagonal(nc, mesh, Y)
            assert bc.rel_err(af.gauss_newton_hessian_diagonal(nc, mesh, Y),
                              wd, np.abs(wd).max()) <= TOL


def test_adhesion_scalar_function_matches_ipctk_free_functions():
    """fricl's adhesion on a one-vertex plane contact at d^2 against
    ipctk's free functions of d^2 (value, first and second derivative
    through the contact's gradient and Hessian along the normal)."""
    dp, da, Y, ec = 0.1, 0.3, 4.0, 0.6
    af = fi.NormalAdhesionPotential(dp, da, Y, ec)
    for dmin in (0.0, 0.04):
        xp = 2 * dmin * dp + dp * dp
        xa = 2 * dmin * da + da * da
        a2 = Y * ec / (4 * (dp + dmin) * (xp - xa))
        c = ipctk.PlaneVertexNormalCollision(
            ipctk.Hyperplane(np.array([0.0, 0.0, 1.0]), np.zeros(3)), 0)
        c.dmin = dmin
        for h in np.linspace(0.01, 0.35, 41):
            x = np.array([0.0, 0.0, h + dmin])
            d2 = x[2] ** 2
            a = ipctk.normal_adhesion_potential(d2 - dmin ** 2, xp, xa, a2)
            a1 = ipctk.normal_adhesion_potential_first_derivative(
                d2 - dmin ** 2, xp, xa, a2)
            a2d = ipctk.normal_adhesion_potential_second_derivative(
                d2 - dmin ** 2, xp, xa, a2)
            assert abs(af(c, x) - a) <= TOL * max(abs(a), 1e-12)
            # gradient = a' 2 z e_z; H_zz = a'' (2z)^2 + 2 a'
            g = af.gradient(c, x)
            assert abs(g[2] - a1 * 2 * x[2]) <= TOL * max(abs(a1), 1e-12)
            H = af.hessian(c, x, ipctk.PSDProjectionMethod.NONE)
            want = a2d * 4 * d2 + 2 * a1
            assert abs(H[2, 2] - want) <= TOL * max(abs(want), 1e-12)
        assert abs(af.force_magnitude(0.0, dmin) -
                   ipctk.max_normal_adhesion_force_magnitude(xp, xa, a2)) \
            <= TOL * abs(ipctk.max_normal_adhesion_force_magnitude(xp, xa,
                                                                    a2))


@pytest.mark.parametrize("seed", range(4))
def test_on_fricls_own_collisions(seed):
    """The same methods on fricl's NormalCollisions and its collision
    objects: the single-collision values add up to the set's, and the
    Gauss-Newton terms and force magnitudes are ipctk's on ipctk's set."""
    mesh, V, E, F, nc, plane, info, rng = _scene(seed)
    fm = fi.CollisionMesh.from_ipctk(mesh)
    C = fi.NormalCollisions()
    C.use_area_weighting = nc.use_area_weighting
    if info["improved"]:
        C.collision_set_type = "IMPROVED_MAX_APPROX"
    C.build(fm, V, info["dhat"], info["dmin"])
    assert len(C) == len(nc)
    for pf in (_potentials(info, False)[1], _adhesion(info)[1]):
        tot = pf(C, fm, V)
        parts = sum(pf(C[i], V[[j for j in C[i].vertex_ids() if j >= 0]]
                       .ravel()) for i in range(len(C)))
        assert abs(tot - parts) <= TOL * max(abs(tot), 1e-300)
        N, _ = pf.force_magnitudes(C, fm, V)
        Ni, _ = pf.force_magnitudes(nc, mesh, V)
        assert bc.rel_err(np.sort(N), np.sort(Ni)) <= TOL
        if plane is None:
            d = pf.gauss_newton_hessian_diagonal(C, fm, V)
            di = pf.gauss_newton_hessian_diagonal(nc, mesh, V)
            assert bc.rel_err(d, di, np.abs(di).max()) <= TOL
    with pytest.raises(fricl.UnsupportedError):
        _potentials(info, False)[1].shape_derivative(C, fm, V)
