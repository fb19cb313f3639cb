"""fricl.ipctk.TangentialAdhesionPotential.force / force_jacobian against
ipctk 1.6.1's own, computed here on scenes regenerated at test time
(3-D tetrahedra and triangles over a tilted plane, 2-D polylines), with a
NormalAdhesionPotential of random parameters: relative speeds from 0
through the static part (< eps_a), the band (eps_a, 2 eps_a) where
ipctk's Hessian and force Jacobian differ, to beyond 2 eps_a; scalar and
per-vertex mu, uniform anisotropy (2-D: any), negative weights, dmin,
no_mu; on ipctk's and on fricl's own TangentialCollisions; within 1e-10
of scale. Independent oracles besides ipctk: central differences of
ipctk's potential on collisions built at rest + lagged displacements
(the force is minus its velocity gradient) and of the force (its
velocity Jacobian). What stays ipctk's own (delegated) is checked to be
ipctk's, and what fricl cannot do on its own collisions to raise."""
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

TOL = 1e-10
W = ipctk.FrictionPotential.DiffWRT
KINDS = ["tets", "triangles", "polylines"]
# relative speed / eps_a: 0, static, the band (1, 2) and beyond
SPEEDS = [0.0, 0.3, 0.9, 1.4, 1.9, 3.0]


def close(got, ref, floor, what, tol=TOL):
    got, ref = np.asarray(got, float), np.asarray(ref, float)
    assert got.shape == ref.shape, (what, got.shape, ref.shape)
    scale = max(np.abs(ref).max() if ref.size else 0.0, floor)
    err = np.abs(got - ref).max() if ref.size else 0.0
    assert err <= tol * scale, "%s: %.3e > %.0e of %.3e" % (what, err, tol,
                                                            scale)


def dense(J):
    assert isinstance(J, sp.csc_matrix), type(J)
    return J.toarray()


def scene(seed, kind):
    """ipctk's normal collisions of a random scene, an adhesion potential,
    lagged displacements and rest positions."""
    rng = np.random.default_rng(seed)
    for _ in range(20):
        mesh, V, E, F, tc, info = xc.build(rng, kind)
        nc = ipctk.NormalCollisions()
        nc.build(mesh, V, info["dhat"])
        if len(nc) >= 3:
            break
    dhat = info["dhat"]
    A = ipctk.NormalAdhesionPotential(rng.uniform(0.2, 0.6) * dhat, dhat,
                                      10.0 ** rng.uniform(1, 4),
                                      rng.uniform(0.1, 1))
    U = np.asfortranarray(0.02 * dhat * rng.standard_normal(V.shape))
    R = np.asfortranarray(V - U)
    return rng, mesh, V, nc, A, R, U, info


def velocities(rng, n, dim, speed):
    v = rng.standard_normal((n, dim))
    v /= np.linalg.norm(v, axis=1)[:, None]
    return np.asfortranarray(speed * v * rng.uniform(0.5, 1.5, (n, 1)))


def natural(tc, eps):
    s = 0.0
    for i in range(len(tc)):
        c = tc[i]
        s += abs(c.weight * c.normal_force_magnitude) * max(
            c.mu_s_effective_lagged, c.mu_k_effective_lagged, 1.0)
        del c
    return 1e-3 * s, 1e-3 * s / eps


def modify(rng, tc, dim):
    """Uniform anisotropy (2-D: the unused second entry arbitrary), some
    negative weights, per-collision mu (ipctk's lagged effective mu)."""
    for i in range(len(tc)):
        c = tc[i]
        a = rng.uniform(0.5, 2.0)
        c.mu_aniso = [a, a] if dim == 3 else [a, rng.uniform(0.1, 3)]
        if rng.uniform() < 0.3:
            c.weight = -abs(c.weight)
        c.mu_s_effective_lagged = rng.uniform(0.2, 1.0)
        c.mu_k_effective_lagged = rng.uniform(0.1, 0.9)
        del c


@pytest.mark.parametrize("seed", range(9))
def test_against_ipctk(seed):
    kind = KINDS[seed % 3]
    rng, mesh, V, nc, A, R, U, info = scene(4000 + seed, kind)
    dim = info["dim"]
    eps = 10.0 ** rng.uniform(-4, -2)
    ip = ipctk.TangentialAdhesionPotential(eps)
    fp = fi.TangentialAdhesionPotential(eps)
    if seed % 2:
        mu = (rng.uniform(0.2, 1.0, len(V)), rng.uniform(0.1, 0.8, len(V)))
    else:
        mu = (0.6, 0.4)
    it, ft = ipctk.TangentialCollisions(), fi.TangentialCollisions()
    it.build(mesh, V, nc, A, *mu)
    ft.build(mesh, V, nc, A, *mu)
    assert len(it) == len(ft) > 0
    dmin = 0.1 * info["dhat"] if seed % 3 == 1 else 0.0
    for modified in (False, True):
        if modified:
            modify(rng, it, dim)
            fp.clear_cache(it)
        SF, SJ = natural(it, eps)
        for speed in SPEEDS:
            X = velocities(rng, len(V), dim, speed * eps)
            for no_mu in (False, True):
                ref = ip.force(it, mesh, R, U, X, A, dmin, no_mu)
                got = fp.force(it, mesh, R, U, X, A, dmin, no_mu)
                assert got.shape == (V.size,)
                close(got, ref, SF, "force %s %g %s" % (kind, speed, no_mu))
                if not modified:
                    close(fp.force(ft, mesh, R, U, X, A, dmin, no_mu), ref,
                          SF, "force, fricl's set")
            ref = dense(ip.force_jacobian(it, mesh, R, U, X, A,
                                          W.VELOCITIES, dmin))
            close(dense(fp.force_jacobian(it, mesh, R, U, X, A,
                                          W.VELOCITIES, dmin)), ref, SJ,
                  "velocity Jacobian %s %g" % (kind, speed))
            if not modified:
                close(dense(fp.force_jacobian(ft, mesh, R, U, X, A,
                                              fi.FrictionPotential.VELOCITIES,
                                              dmin)), ref, SJ,
                      "velocity Jacobian, fricl's set")


@pytest.mark.parametrize("kind", KINDS)
def test_force_is_minus_potential_gradient(kind):
    """ipctk's potential on collisions built at rest + lagged displacements
    (same mu): central differences in the velocities give the force; and
    central differences of the force give its velocity Jacobian."""
    rng, mesh, V, nc, A, R, U, info = scene(4100 + KINDS.index(kind), kind)
    eps = 1e-3
    Xl = np.asfortranarray(R + U)
    nl = ipctk.NormalCollisions()  # the same collisions, at x + u
    nl.build(mesh, V, info["dhat"])
    tl = ipctk.TangentialCollisions()
    tl.build(mesh, Xl, nl, A, 0.7, 0.5)
    ip = ipctk.TangentialAdhesionPotential(eps)
    fp = fi.TangentialAdhesionPotential(eps)
    it = ipctk.TangentialCollisions()
    it.build(mesh, V, nl, A, 0.7, 0.5)
    for speed in (0.4, 1.5):
        X = velocities(rng, len(V), info["dim"], speed * eps)
        f = fp.force(it, mesh, R, U, X, A)
        J = dense(fp.force_jacobian(it, mesh, R, U, X, A, W.VELOCITIES))
        flat = X.reshape(-1, order="C")
        h = 1e-6 * eps
        for i in rng.choice(flat.size, 10, replace=False):
            e = np.zeros(flat.size)
            e[i] = h
            Xp = np.asfortranarray((flat + e).reshape(X.shape))
            Xm = np.asfortranarray((flat - e).reshape(X.shape))
            fd = -(ip(tl, mesh, Xp) - ip(tl, mesh, Xm)) / (2 * h)
            close(f[i], fd, np.abs(f).max(), "FD force", 1e-6)
            fdJ = (fp.force(it, mesh, R, U, Xp, A) -
                   fp.force(it, mesh, R, U, Xm, A)) / (2 * h)
            close(J[:, i], fdJ, np.abs(J).max(), "FD Jacobian", 1e-6)


def test_delegated_and_refused():
    rng, mesh, V, nc, A, R, U, info = scene(4200, "tets")
    eps = 1e-3
    ip = ipctk.TangentialAdhesionPotential(eps)
    fp = fi.TangentialAdhesionPotential(eps)
    it, ft = ipctk.TangentialCollisions(), fi.TangentialCollisions()
    it.build(mesh, V, nc, A, 0.6)
    ft.build(mesh, V, nc, A, 0.6)
    X = velocities(rng, len(V), 3, 0.7 * eps)
    S = natural(it, eps)
    # fricl's NormalAdhesionPotential in ipctk's place
    FA = fi.NormalAdhesionPotential(A.dhat_p, A.dhat_a, A.Y, A.eps_c)
    close(fp.force(ft, mesh, R, U, X, FA), ip.force(it, mesh, R, U, X, A),
          S[0], "fricl's normal potential")
    for w in (W.LAGGED_DISPLACEMENTS, W.REST_POSITIONS):
        if w == W.REST_POSITIONS:
            continue  # ipctk needs shape derivatives for it
        close(dense(fp.force_jacobian(it, mesh, R, U, X, A, w)),
              dense(ip.force_jacobian(it, mesh, R, U, X, A, w)), S[1],
              "delegated " + w.name)
        with pytest.raises(fricl.UnsupportedError):
            fp.force_jacobian(ft, mesh, R, U, X, A, w)
    # non-uniform anisotropy in 3-D: ipctk's force is no gradient
    for i in range(len(it)):
        c = it[i]
        c.mu_aniso = rng.uniform(0.5, 2.0, 2)
        del c
    fp.clear_cache(it)
    close(fp.force(it, mesh, R, U, X, A), ip.force(it, mesh, R, U, X, A),
          S[0], "delegated anisotropic force")
    # an empty set
    empty = fi.TangentialCollisions()
    empty.build(mesh, V, fi.NormalCollisions(), A, 0.5)
    assert not fp.force(empty, mesh, R, U, X, A).any()
    assert fp.force_jacobian(empty, mesh, R, U, X, A,
                             W.VELOCITIES).nnz == 0
