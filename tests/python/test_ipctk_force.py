"""fricl.ipctk.FrictionPotential.force / force_jacobian (fricl_force_eval)
against ipctk 1.6.1's own, computed here on scenes regenerated at test
time: a grid over the scene kinds (3-D tetrahedra and triangles with
vertex-vertex, edge-vertex, edge-edge, face-vertex and plane-vertex
collisions; 2-D polylines with vertex-vertex and edge-vertex), relative
speeds from well below to well above eps_v (both sides of ipctk's mu
profile's eps_v / 2 knot), mu_s == mu_k, mu_s > mu_k and mu_s < mu_k,
anisotropy, negative weights, no_mu, the physical barrier and dmin: the
force and its Jacobians with respect to lagged displacements and
velocities within 1e-10 of scale; with respect to rest positions with
ipctk's shape derivatives (area weighting, enable_shape_derivatives);
fricl's own TangentialCollisions and BarrierPotential in ipctk's place;
the DiffWRT spellings, the single-collision overloads (ipctk's own) and
the errors."""
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
# relative speed / eps_v: ipctk's mu profile has its knot at 1/2 and its
# end at 1 (the static -> kinetic transition)
SPEEDS = [0.0, 0.05, 0.3, 0.7, 0.98, 1.5, 20.0]
MUS = [(0.5, 0.5), (0.8, 0.3), (0.3, 0.7)]
TYPES = {"VertexVertex": "vv", "EdgeVertex": "ev", "EdgeEdge": "ee",
         "FaceVertex": "fv", "PlaneVertex": "pv"}


def close(got, ref, floor, what):
    got, ref = np.asarray(got, float), np.asarray(ref, float)
    assert got.shape == ref.shape, (what, got.shape, ref.shape)
    scale = max(np.abs(ref).max() if ref.size else 0.0, floor)
    err = np.abs(got - ref).max() if ref.size else 0.0
    assert err <= TOL * scale, "%s: %.3e > %.0e of %.3e" % (what, err, TOL,
                                                            scale)
    return err / scale if scale else 0.0


def natural(tc, eps_v, dhat):
    """Natural scales of the force and of its Jacobians with respect to
    velocities and positions (sum of |w N| max(mu_s, mu_k); over eps_v;
    over dhat), times 1e-3: the floor of "scale" where ipctk's own values
    are exactly zero up to rounding (e.g. the 2-D kinetic velocity
    Jacobian)."""
    s = 0.0
    for i in range(len(tc)):
        c = tc[i]
        s += abs(c.weight * c.normal_force_magnitude) * max(
            c.mu_s_effective_lagged, c.mu_k_effective_lagged, 1.0)
        del c
    return 1e-3 * s, 1e-3 * s / eps_v, 1e-3 * s / dhat


def dense(J):
    assert isinstance(J, sp.csc_matrix), type(J)
    return J.toarray()


def velocities(rng, n, dim, speed):
    """Per-vertex velocities of the given size in random directions: the
    relative (tangential) speeds of the contacts are then of that size."""
    v = rng.standard_normal((n, dim))
    v /= np.linalg.norm(v, axis=1)[:, None]
    return np.asfortranarray(speed * v * rng.uniform(0.5, 1.5, (n, 1)))


def stencils(tc):
    return set(TYPES[type(tc[i]).__name__.replace("TangentialCollision", "")]
               for i in range(len(tc)))


def grid_case(seed, kind):
    rng = np.random.default_rng(seed)
    mesh, V, E, F, tc, info = xc.build(rng, kind)
    return rng, mesh, V, tc, info


SEEDS = range(4)


@pytest.mark.parametrize("kind", KINDS)
def test_grid_against_ipctk(kind):
    """Per kind: 4 scenes x 7 speeds x 3 mu pairs x (force, no_mu force,
    Jacobian wrt lagged displacements, wrt velocities)."""
    seen = set()
    cases = 0
    for seed in SEEDS:
        rng, mesh, V, tc, info = grid_case(7000 + 10 * seed + KINDS.index(
            kind), kind)
        seen |= stencils(tc)
        eps_v = 10.0 ** rng.uniform(-4, -2)
        dmin = 0.05 * info["dhat"] if seed == 3 else 0.0
        U = np.asfortranarray(0.02 * info["dhat"] *
                              rng.standard_normal(V.shape))
        R = np.asfortranarray(V - U)
        B = ipctk.BarrierPotential(info["dhat"], info["kappa"], seed == 2)
        ip = ipctk.FrictionPotential(eps_v)
        fp = fi.FrictionPotential(eps_v)
        SF, SV, SX = natural(tc, eps_v, info["dhat"])
        if seed == 2:  # the physical barrier's N is dhat / x^^2 smaller
            SF, SV, SX = (s * 1e-12 for s in (SF, SV, SX))
        for ms, mk in MUS:
            for i in range(len(tc)):
                c = tc[i]
                c.mu_s_effective_lagged = ms * rng.uniform(0.8, 1.2)
                c.mu_k_effective_lagged = mk * rng.uniform(0.8, 1.2)
                del c
            fp.clear_cache(tc)
            for speed in SPEEDS:
                Vel = velocities(rng, len(V), V.shape[1], speed * eps_v)
                for no_mu in (False, True):
                    a = ip.force(tc, mesh, R, U, Vel, B, dmin, no_mu)
                    b = fp.force(tc, mesh, R, U, Vel, B, dmin, no_mu)
                    close(b, a, SF, "force %s seed %d speed %g no_mu %d"
                          % (kind, seed, speed, no_mu))
                for wrt in (W.LAGGED_DISPLACEMENTS, W.VELOCITIES):
                    a = dense(ip.force_jacobian(tc, mesh, R, U, Vel, B, wrt,
                                                dmin))
                    b = dense(fp.force_jacobian(tc, mesh, R, U, Vel, B, wrt,
                                                dmin))
                    close(b, a, SV if wrt == W.VELOCITIES else SX,
                          "jacobian %s %s seed %d speed %g"
                          % (wrt.name, kind, seed, speed))
                cases += 1
    want = {"tets": {"vv", "ev", "ee", "fv"}, "triangles": {"fv", "ee"},
            "polylines": {"vv", "ev"}}[kind]
    assert want <= seen, (kind, seen)
    assert cases == len(SEEDS) * len(MUS) * len(SPEEDS)


def test_plane_vertex_collisions_are_covered():
    seen = set()
    for seed in range(40):
        rng, mesh, V, tc, info = grid_case(8000 + seed, "tets")
        s = stencils(tc)
        if "pv" not in s:
            continue
        seen |= s
        eps_v = 1e-3
        Vel = velocities(rng, len(V), 3, eps_v)
        U = np.asfortranarray(np.zeros(V.shape))
        B = ipctk.BarrierPotential(info["dhat"], info["kappa"])
        ip, fp = ipctk.FrictionPotential(eps_v), fi.FrictionPotential(eps_v)
        close(fp.force(tc, mesh, V, U, Vel, B),
              ip.force(tc, mesh, V, U, Vel, B), 1e-300, "pv force")
        for wrt in (W.LAGGED_DISPLACEMENTS, W.VELOCITIES):
            close(dense(fp.force_jacobian(tc, mesh, V, U, Vel, B, wrt)),
                  dense(ip.force_jacobian(tc, mesh, V, U, Vel, B, wrt)),
                  1e-300, "pv %s" % wrt.name)
        if len(seen) == 5:
            break
    assert "pv" in seen


def shape_derivative_scene(seed, kind):
    rng = np.random.default_rng(seed)
    mesh, V, E, F, tc0, info = xc.build(rng, kind)
    del tc0
    mesh.init_area_jacobians()
    nc = ipctk.NormalCollisions()
    nc.use_area_weighting = True
    nc.enable_shape_derivatives = True
    nc.build(mesh, V, info["dhat"])
    B = ipctk.BarrierPotential(info["dhat"], info["kappa"])
    return rng, mesh, V, nc, B, info


@pytest.mark.parametrize("seed", range(6))
def test_rest_positions_with_shape_derivatives(seed):
    """wrt REST_POSITIONS adds ipctk's (F / w) grad(w)^T from the
    collisions' weight gradients; without them it raises as ipctk."""
    kind = KINDS[seed % 3]
    rng, mesh, V, nc, B, info = shape_derivative_scene(9000 + seed, kind)
    tc = ipctk.TangentialCollisions()
    tc.build(mesh, V, nc, B, 0.7, 0.4)
    if len(tc) == 0:
        pytest.skip("no collisions")
    eps_v = 1e-3
    U = np.asfortranarray(0.02 * info["dhat"] * rng.standard_normal(V.shape))
    R = np.asfortranarray(V - U)
    Vel = velocities(rng, len(V), V.shape[1], 0.8 * eps_v)
    ip, fp = ipctk.FrictionPotential(eps_v), fi.FrictionPotential(eps_v)
    a = dense(ip.force_jacobian(tc, mesh, R, U, Vel, B, W.REST_POSITIONS))
    b = dense(fp.force_jacobian(tc, mesh, R, U, Vel, B, W.REST_POSITIONS))
    close(b, a, 1e-300, "rest positions")
    lag = dense(fp.force_jacobian(tc, mesh, R, U, Vel, B,
                                  W.LAGGED_DISPLACEMENTS))
    # area weights depend on the rest positions: the term is not zero
    assert np.abs(a - lag).max() > 1e-6 * np.abs(a).max()
    # without shape derivatives both refuse
    _, mesh2, V2, tc2, info2 = grid_case(9100 + seed, kind)
    args = (tc2, mesh2, V2, np.zeros_like(V2),
            velocities(rng, len(V2), V2.shape[1], eps_v),
            ipctk.BarrierPotential(info2["dhat"], info2["kappa"]),
            W.REST_POSITIONS)
    with pytest.raises(RuntimeError):
        ip.force_jacobian(*args)
    with pytest.raises(RuntimeError):
        fp.force_jacobian(*args)


@pytest.mark.parametrize("seed", range(6))
def test_fricl_collisions_and_barrier(seed):
    """fricl's TangentialCollisions (its own lagged build) and fricl's
    BarrierPotential in place of ipctk's: the force recomputes N, P and
    beta, so only weight and mu come from the collisions."""
    kind = KINDS[seed % 3]
    rng, mesh, V, nc, B, info = shape_derivative_scene(9200 + seed, kind)
    tc = ipctk.TangentialCollisions()
    mu_s = rng.uniform(0.3, 0.9, len(V))
    mu_k = rng.uniform(0.1, 0.6, len(V))
    tc.build(mesh, V, nc, B, mu_s, mu_k)
    if len(tc) == 0:
        pytest.skip("no collisions")
    ftc = fi.build_tangential_collisions(mesh, V, nc, B, mu_s, mu_k)
    fB = fi.BarrierPotential(info["dhat"], info["kappa"])
    eps_v = 1e-3
    U = np.asfortranarray(0.02 * info["dhat"] * rng.standard_normal(V.shape))
    R = np.asfortranarray(V - U)
    Vel = velocities(rng, len(V), V.shape[1], 0.6 * eps_v)
    ip, fp = ipctk.FrictionPotential(eps_v), fi.FrictionPotential(eps_v)
    for coll, bar in ((ftc, B), (ftc, fB), (tc, fB)):
        close(fp.force(coll, mesh, R, U, Vel, bar),
              ip.force(tc, mesh, R, U, Vel, B), 1e-300, "force")
        for wrt in (W.LAGGED_DISPLACEMENTS, W.VELOCITIES):
            close(dense(fp.force_jacobian(coll, mesh, R, U, Vel, bar, wrt)),
                  dense(ip.force_jacobian(tc, mesh, R, U, Vel, B, wrt)),
                  1e-300, "%s %s" % (type(coll).__module__, wrt.name))
    # fricl's collisions carry no weight gradients: weights are constants
    r = dense(fp.force_jacobian(ftc, mesh, R, U, Vel, B, W.REST_POSITIONS))
    lag = dense(fp.force_jacobian(ftc, mesh, R, U, Vel, B,
                                  W.LAGGED_DISPLACEMENTS))
    assert np.array_equal(r, lag)


def test_wrt_spellings_overloads_and_errors():
    rng, mesh, V, tc, info = grid_case(9300, "tets")
    eps_v = 1e-3
    U = np.asfortranarray(np.zeros(V.shape))
    Vel = velocities(rng, len(V), 3, eps_v)
    B = ipctk.BarrierPotential(info["dhat"], info["kappa"])
    fp, ip = fi.FrictionPotential(eps_v), ipctk.FrictionPotential(eps_v)
    ref = dense(fp.force_jacobian(tc, mesh, V, U, Vel, B, W.VELOCITIES))
    for w in (fp.VELOCITIES, fp.DiffWRT.VELOCITIES, "velocities",
              "VELOCITIES"):
        assert np.array_equal(
            dense(fp.force_jacobian(tc, mesh, V, U, Vel, B, w)), ref)
    with pytest.raises(fricl.InvalidArgumentError, match="wrt"):
        fp.force_jacobian(tc, mesh, V, U, Vel, B, "positions")
    with pytest.raises(fricl.InvalidArgumentError, match="velocities"):
        fp.force(tc, mesh, V, U, Vel[:-1], B)
    # the single-collision overloads are ipctk's
    c = tc[0]
    x = c.dof(V, mesh.edges, mesh.faces)
    u = np.zeros_like(x)
    v = c.dof(Vel, mesh.edges, mesh.faces)
    assert np.array_equal(fp.force(c, x, u, v, B), ip.force(c, x, u, v, B))
    assert np.array_equal(
        fp.force_jacobian(c, x, u, v, B, W.VELOCITIES),
        ip.force_jacobian(c, x, u, v, B, W.VELOCITIES))
    del c
    # TangentialAdhesionPotential keeps ipctk's force (adhesion mollifier)
    ta, ia = fi.TangentialAdhesionPotential(eps_v), \
        ipctk.TangentialAdhesionPotential(eps_v)
    assert np.array_equal(ta.force(tc, mesh, V, U, Vel, B),
                          ia.force(tc, mesh, V, U, Vel, B))
    assert (ta.force_jacobian(tc, mesh, V, U, Vel, B, W.VELOCITIES) !=
            ia.force_jacobian(tc, mesh, V, U, Vel, B, W.VELOCITIES)).nnz == 0
    # empty collisions: zeros of the right shape
    empty = ipctk.TangentialCollisions()
    assert np.array_equal(fp.force(empty, mesh, V, U, Vel, B),
                          np.zeros(V.size))
    J = fp.force_jacobian(empty, mesh, V, U, Vel, B, W.VELOCITIES)
    assert isinstance(J, sp.csc_matrix) and J.shape == (V.size, V.size)
    assert J.nnz == 0


@pytest.mark.parametrize("kind", KINDS)
def test_layouts_agree_bitwise(kind):
    """Fortran-ordered vertex arrays (read in place, rest + displacement
    summed once per vertex) and row-major ones (summed per contact): the
    same sums, so bitwise the same force and Jacobians; each within TOL
    of ipctk's; and a bad rest position or displacement in either layout
    is named as such."""
    rng, mesh, V, tc, info = grid_case(9400 + KINDS.index(kind), kind)
    eps_v = 1e-3
    U = np.asfortranarray(0.02 * info["dhat"] * rng.standard_normal(V.shape))
    R = np.asfortranarray(V - U)
    Vel = velocities(rng, len(V), V.shape[1], 0.7 * eps_v)
    B = ipctk.BarrierPotential(info["dhat"], info["kappa"])
    fp, ip = fi.FrictionPotential(eps_v), ipctk.FrictionPotential(eps_v)
    SF, SV, SX = natural(tc, eps_v, info["dhat"])
    Rc, Uc, Vc = (np.ascontiguousarray(a) for a in (R, U, Vel))
    assert R.flags.f_contiguous and not R.flags.c_contiguous
    f = fp.force(tc, mesh, R, U, Vel, B)
    assert np.array_equal(f, fp.force(tc, mesh, Rc, Uc, Vc, B))
    close(f, ip.force(tc, mesh, R, U, Vel, B), SF, "force")
    for w, s in ((W.VELOCITIES, SV), (W.LAGGED_DISPLACEMENTS, SX)):
        J = fp.force_jacobian(tc, mesh, R, U, Vel, B, w)
        Jc = fp.force_jacobian(tc, mesh, Rc, Uc, Vc, B, w)
        assert np.array_equal(J.indptr, Jc.indptr)
        assert np.array_equal(J.indices, Jc.indices)
        assert np.array_equal(J.data, Jc.data)
        close(dense(J), ip.force_jacobian(tc, mesh, R, U, Vel, B,
                                          w).toarray(), s, str(w))
        # A matrix changed in place leaves the next one whole (each has
        # its own copy of the pattern the set keeps).
        J.data[:] = 0.0
        J.eliminate_zeros()
        J2 = fp.force_jacobian(tc, mesh, Rc, Uc, Vc, B, w)
        assert np.array_equal(J2.indptr, Jc.indptr)
        assert np.array_equal(J2.indices, Jc.indices)
        assert np.array_equal(J2.data, Jc.data)
    for name, i in (("rest_positions", 0), ("lagged_displacements", 1)):
        for order in ("F", "C"):
            args = [np.array(a, order=order) for a in (R, U, Vel)]
            args[i][len(V) // 2, 0] = np.inf
            with pytest.raises(fricl.InvalidArgumentError, match=name):
                fp.force(tc, mesh, *args, B)


# ------------------------------------------------ an independent oracle

def _mp_force_fv(mp, x, v, w, ms, mk, e, kappa, dhat):
    """The face-vertex force of ipctk's formula in mpmath (no dmin, a = 1,
    ipctk's mu profile): N, beta and P from the lagged positions x."""
    def sub(a, b):
        return [a[i] - b[i] for i in range(3)]

    def dot(a, b):
        return sum(a[i] * b[i] for i in range(3))

    def cross(a, b):
        return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0]]

    def unit(a):
        n = mp.sqrt(dot(a, a))
        return [c / n for c in a]

    p, t0, t1, t2 = x[0:3], x[3:6], x[6:9], x[9:12]
    E0, E1, q = sub(t1, t0), sub(t2, t0), sub(p, t0)
    n = cross(E0, E1)
    nn = dot(n, n)
    a00, a01, a11 = dot(E0, E0), dot(E0, E1), dot(E1, E1)
    b0, b1 = dot(E0, q), dot(E1, q)
    be1, be2 = (a11 * b0 - a01 * b1) / nn, (a00 * b1 - a01 * b0) / nn
    P0, P1 = unit(E0), unit(cross(n, E0))
    d2 = dot(q, n) ** 2 / nn
    xh = dhat * dhat
    bp = (xh - d2) * (2 * mp.log(d2 / xh) - xh / d2 + 1) if d2 < xh else 0
    N = -kappa * bp * 2 * mp.sqrt(d2)
    gam = [1, be1 + be2 - 1, -be1, -be2]
    u = [sum(gam[i] * v[3 * i + r] for i in range(4)) for r in range(3)]
    tau = [dot(P0, u), dot(P1, u)]
    y = mp.sqrt(tau[0] ** 2 + tau[1] ** 2)
    if ms == mk or y >= e:
        mu = mk
    elif y < e / 2:
        mu = ms + 2 * (mk - ms) * (y / e) ** 2
    else:
        mu = mk - 2 * (mk - ms) * (1 - y / e) ** 2
    g = mu * (1 / y if y >= e else (2 - y / e) / e)
    Pt = [P0[r] * tau[0] + P1[r] * tau[1] for r in range(3)]
    return [-w * N * g * gam[i] * Pt[r] for i in range(4) for r in range(3)]


def test_face_vertex_jacobian_against_mpmath():
    """Where fricl and ipctk differ most (face-vertex contacts of a cloth
    on a box, up to ~1e-9 of the contact's scale), an mpmath evaluation
    at 60 digits (central differences of the force above, step 1e-25)
    decides: fricl is within 1e-12 of it; ipctk is not always."""
    mp = pytest.importorskip("mpmath")
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "..", "bench", "python"))
    from scenes import cloth_over_box
    mp.mp.dps = 60
    V, E, F, dhat = cloth_over_box(40)
    V = np.asfortranarray(V)
    mesh = ipctk.CollisionMesh(V, E, F)
    C = ipctk.NormalCollisions()
    C.build(mesh, V, dhat)
    B = ipctk.BarrierPotential(dhat, 1.0)
    T = ipctk.TangentialCollisions()
    T.build(mesh, V, C, B, 0.5, 0.3)
    rng = np.random.default_rng(3)
    eps_v = 1e-3
    U = np.asfortranarray(1e-3 * dhat * rng.standard_normal(V.shape))
    R = np.asfortranarray(V - U)
    Vel = np.asfortranarray(eps_v * rng.standard_normal(V.shape))
    ip, fp = ipctk.FrictionPotential(eps_v), fi.FrictionPotential(eps_v)
    Ef, Ff = np.asarray(mesh.edges), np.asarray(mesh.faces)
    kappa, _ = fi._barrier_parameters(B, dhat)
    from fricl import _native
    found = []
    for ci in range(len(T)):
        c = T[ci]
        if type(c).__name__ != "FaceVertexTangentialCollision":
            del c
            continue
        x, u, v = (c.dof(A, Ef, Ff) for A in (R, U, Vel))
        Ji = ip.force_jacobian(c, x, u, v, B, W.LAGGED_DISPLACEMENTS)
        Jf = np.empty((1, 12, 12))
        g = (3, np.arange(4, dtype=np.int32), np.array([c.weight]),
             np.array([c.mu_s_effective_lagged]),
             np.array([c.mu_k_effective_lagged]), None, None, None)
        _native.force_eval(fp.context, 0, 1, 3, 0, 2, x.reshape(4, 3),
                           u.reshape(4, 3), v.reshape(4, 3), eps_v, kappa,
                           dhat, 0.0, (g,), None, None, None,
                           ((None, Jf, None),))
        d = np.abs(Jf[0] - Ji).max() / np.abs(Ji).max()
        found.append((d, x + u, v, c.weight, c.mu_s_effective_lagged,
                      c.mu_k_effective_lagged, Jf[0], Ji))
        del c
    found.sort(key=lambda t: -t[0])
    assert found
    for d, xu, v, w, ms, mk, Jf, Ji in found[:3]:
        xm = [mp.mpf(float(a)) for a in xu]
        vm = [mp.mpf(float(a)) for a in v]
        args = (mp.mpf(w), mp.mpf(ms), mp.mpf(mk), mp.mpf(eps_v),
                mp.mpf(kappa), mp.mpf(dhat))
        h = mp.mpf(10) ** -25
        Jm = np.empty((12, 12))
        for j in range(12):
            xp, xn = list(xm), list(xm)
            xp[j] += h
            xn[j] -= h
            Fp = _mp_force_fv(mp, xp, vm, *args)
            Fn = _mp_force_fv(mp, xn, vm, *args)
            Jm[:, j] = [float((a - b) / (2 * h)) for a, b in zip(Fp, Fn)]
        s = np.abs(Jm).max()
        assert np.abs(Jf - Jm).max() <= 1e-12 * s, (d, np.abs(Jf - Jm).max()
                                                    / s)


def test_fricl_built_collisions_leave_out_what_ipctk_leaves_out():
    """A cloth on a box has near-parallel edge-edge pairs: ipctk's build
    drops them; fricl's build marks them ee_parallel and its
    TangentialCollisions leaves them out as well (the force would
    recompute N for them, which is not 0)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "..", "bench", "python"))
    from scenes import cloth_over_box
    V, E, F, dhat = cloth_over_box(30)
    V = np.asfortranarray(V)
    mesh = ipctk.CollisionMesh(V, E, F)
    C = ipctk.NormalCollisions()
    C.build(mesh, V, dhat)
    B = ipctk.BarrierPotential(dhat, 1.0)
    T = ipctk.TangentialCollisions()
    T.build(mesh, V, C, B, 0.5, 0.3)
    FT = fi.build_tangential_collisions(mesh, V, C, B, 0.5, 0.3)
    assert FT.result.status_counts["ee_parallel"] > 0
    assert len(FT) == len(T)
    rng = np.random.default_rng(4)
    eps_v = 1e-3
    U = np.asfortranarray(1e-3 * dhat * rng.standard_normal(V.shape))
    R = np.asfortranarray(V - U)
    Vel = np.asfortranarray(eps_v * rng.standard_normal(V.shape))
    ip, fp = ipctk.FrictionPotential(eps_v), fi.FrictionPotential(eps_v)
    close(fp.force(FT, mesh, R, U, Vel, B), ip.force(T, mesh, R, U, Vel, B),
          1e-300, "force")
    for wrt in (W.VELOCITIES, W.LAGGED_DISPLACEMENTS):
        close(dense(fp.force_jacobian(FT, mesh, R, U, Vel, B, wrt)),
              dense(ip.force_jacobian(T, mesh, R, U, Vel, B, wrt)), 1e-300,
              wrt.name)
