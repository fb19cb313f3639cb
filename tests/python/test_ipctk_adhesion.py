"""Tangential adhesion and TangentialCollisions completeness against
ipctk 1.6.1 itself and independent oracles:

- the adhesion mollifier family (through one plane-vertex contact: D, q
  and the Hessian are w N A0(y), w N A1(y)/y y and w N A2(y)) against
  ipctk's free functions (smooth_mu_a0, _a1_over_x, _a2) and mpmath
  quadrature of mu(y) a1(y) (both mu profiles);
- fricl.ipctk.TangentialAdhesionPotential against ipctk's on regenerated
  random scenes (value, gradient, Hessian in every PSD mode, within 1e-10
  of scale), finite differences of its gradient and Hessian;
- reference, host and OpenCL backends bitwise equal in f64;
- TangentialCollisions: ipctk's build overloads (mu=, scalars, arrays,
  callable blend_mu), default_blend_mu, the NormalAdhesionPotential
  normal force, the matchstick anisotropic mu update and its reset."""
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
PSD = [ipctk.PSDProjectionMethod.NONE, ipctk.PSDProjectionMethod.CLAMP,
       ipctk.PSDProjectionMethod.ABS]
KINDS = ["tets", "triangles", "polylines"]


def close(got, ref, floor, what, tol=TOL):
    got, ref = np.asarray(got, float), np.asarray(ref, float)
    assert got.shape == ref.shape, (what, got.shape, ref.shape)
    scale = max(np.abs(ref).max() if ref.size else 0.0, floor)
    err = np.abs(got - ref).max() if ref.size else 0.0
    assert err <= tol * scale, "%s: %.3e > %.0e of %.3e" % (what, err, tol,
                                                            scale)


# ------------------------------------------------------------ the family
def one_contact(y, eps, ms, mk, profile, device="reference", psd="none"):
    """D, q_x and H_xx of one 2-D plane-vertex contact (N = w = 1, P = e_x)
    at the velocity (y, 0): A0(y), A1(y) and A2(y) (for y <= eps_a)."""
    g = fricl.ContactGroup("pv", [[0]], tangent_basis=[[[1.0], [0.0]]],
                           normal_force=[1.0], mu_s=[ms], mu_k=[mk], dim=2)
    with fricl.Context(device) as ctx:
        c = fricl.Contacts(ctx, [g], 1)
        r = c.evaluate(np.array([[y, 0.0]]), eps, mu_profile=profile,
                       mollifier="adhesion", gradient=True,
                       local_hessian=True, psd=psd)
        return (float(r.potential), float(r.gradient[0, 0]),
                float(r.groups[0].local_hessian[0, 0, 0]))


def mu_ref(s, ms, mk, profile):
    """The smooth mu at s = y / eps (s in [0, 1]), written from spec 3."""
    d = mk - ms
    if profile == "cubic":
        return ms + d * s * s * (3 - 2 * s)
    return ms + 2 * d * s * s if s < 0.5 else mk - 2 * d * (1 - s) ** 2


def a0_mpmath(y, eps, ms, mk, profile):
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40

    def f(t):
        s = min(t / eps, mp.mpf(1))
        mu = mu_ref(s, ms, mk, profile) if t < eps else mk
        a1 = (t / eps) * (2 - t / eps) if t < 2 * eps else 0
        return mu * a1

    pts = [0, min(y, eps / 2), min(y, eps), min(y, 2 * eps), y]
    return float(sum(mp.quad(f, [a, b]) for a, b in zip(pts, pts[1:])
                     if b > a))


YS = [1e-9, 0.013, 0.2, 0.4999, 0.5, 0.73, 0.999, 1.0, 1.3, 1.999, 2.0, 3.5]


@pytest.mark.parametrize("ms,mk", [(0.7, 0.3), (0.4, 0.4), (0.2, 0.9)])
def test_family_vs_ipctk_free_functions(ms, mk):
    eps = 0.37
    for r in YS:
        y = r * eps
        D, q, H = one_contact(y, eps, ms, mk, "ipctk")
        close(D, ipctk.smooth_mu_a0(y, ms, mk, eps), eps, "A0(%g)" % r,
              1e-14)
        close(q, ipctk.smooth_mu_a1_over_x(y, ms, mk, eps) * y, 1,
              "A1(%g)" % r, 1e-14)
        a2 = ipctk.smooth_mu_a2(y, ms, mk, eps) if y <= eps else 0.0
        close(H, a2, 1 / eps, "A2(%g)" % r, 1e-13)
    # y = 0: value and force 0; Hessian the limit 2 ms / eps (ipctk: 0)
    D, q, H = one_contact(0.0, eps, ms, mk, "ipctk")
    assert D == 0 and q == 0
    close(H, 2 * ms / eps, 1 / eps, "A1/y(0)", 1e-14)


@pytest.mark.parametrize("profile", ["ipctk", "cubic"])
def test_family_vs_mpmath(profile):
    eps, ms, mk = 0.021, 0.8, 0.35
    for r in YS:
        y = r * eps
        D, q, _ = one_contact(y, eps, ms, mk, profile)
        close(D, a0_mpmath(y, eps, ms, mk, profile), eps * ms,
              "%s A0(%g)" % (profile, r), 1e-14)
        s = min(r, 1.0)
        mu = mu_ref(s, ms, mk, profile)
        a1 = r * (2 - r) if r < 2 else 0.0
        close(q, mu * a1, ms, "%s A1(%g)" % (profile, r), 1e-14)


@pytest.mark.parametrize("profile", ["ipctk", "cubic"])
def test_family_derivatives_by_finite_differences(profile):
    """A0' = A1 and A1' = A2 (away from the kinks at e/2, e, 2e)."""
    eps, ms, mk = 0.5, 0.9, 0.4
    for r in [0.1, 0.3, 0.7, 0.9, 1.2, 1.7]:
        y, h = r * eps, 1e-6 * eps
        Dp, qp, _ = one_contact(y + h, eps, ms, mk, profile)
        Dm, qm, _ = one_contact(y - h, eps, ms, mk, profile)
        _, q, H = one_contact(y, eps, ms, mk, profile)
        close((Dp - Dm) / (2 * h), q, 1, "A0'(%g)" % r, 1e-8)
        if r < 1:  # beyond eps ipctk (and fricl) drop the parallel term
            close((qp - qm) / (2 * h), H, 1 / eps, "A1'(%g)" % r, 1e-7)
        else:
            assert H == 0


# ------------------------------------------------------- random scenes
def scene(seed, kind):
    rng = np.random.default_rng(seed)
    mesh, V, E, F, tc, info = xc.build(rng, kind)
    return rng, mesh, V, tc, info


def scales(tc, eps):
    s = 0.0
    for i in range(len(tc)):
        c = tc[i]
        s += abs(c.weight * c.normal_force_magnitude) * max(
            c.mu_s_effective_lagged, c.mu_k_effective_lagged)
        del c
    return s * eps, s, s / eps


@pytest.mark.parametrize("seed", range(9))
def test_potential_matches_ipctk(seed):
    rng, mesh, V, tc, info = scene(3000 + seed, KINDS[seed % 3])
    eps = 10.0 ** rng.uniform(-4, -2)
    SD, Sg, SH = scales(tc, eps)
    ip = ipctk.TangentialAdhesionPotential(eps)
    fp = fi.TangentialAdhesionPotential(eps)
    assert fp.eps_a == eps
    for regime in ("static", "around", "kinetic", "mixed"):
        X = np.asfortranarray(xc.velocities(rng, V, eps, regime))
        D = fp(tc, mesh, X)
        assert type(D) is float
        close(D, ip(tc, mesh, X), SD, "D " + regime)
        close(fp.gradient(tc, mesh, X), ip.gradient(tc, mesh, X), Sg,
              "gradient " + regime)
        for psd in PSD:
            H = fp.hessian(tc, mesh, X, psd)
            assert sp.issparse(H)
            close(H.toarray(), ip.hessian(tc, mesh, X, psd).toarray(), SH,
                  "hessian %s %s" % (regime, psd))
        # the single-collision overloads
        c = tc[0]
        x = c.dof(X, mesh.edges, mesh.faces)
        close(fp(c, x), ip(c, x), SD, "D(collision)")
        close(fp.gradient(c, x), ip.gradient(c, x), Sg, "g(collision)")
        close(fp.hessian(c, x), ip.hessian(c, x), SH, "H(collision)")
        del c


def test_gradient_and_hessian_by_finite_differences():
    rng, mesh, V, tc, info = scene(3100, "triangles")
    eps = 1e-3
    fp = fi.TangentialAdhesionPotential(eps)
    X = xc.velocities(rng, V, eps, "static") * 0.5  # all below eps_a
    g = fp.gradient(tc, mesh, X)
    H = fp.hessian(tc, mesh, X).toarray()
    h = 1e-7 * eps
    flat = X.reshape(-1)
    for i in rng.choice(flat.size, 12, replace=False):
        e = np.zeros(flat.size)
        e[i] = h
        Xp, Xm = (flat + e).reshape(X.shape), (flat - e).reshape(X.shape)
        fd = (fp(tc, mesh, Xp) - fp(tc, mesh, Xm)) / (2 * h)
        close(fd, g[i], np.abs(g).max(), "FD gradient", 1e-6)
        fdH = (fp.gradient(tc, mesh, Xp) - fp.gradient(tc, mesh, Xm)) / (2 *
                                                                          h)
        close(fdH, H[:, i], np.abs(H).max(), "FD hessian", 1e-6)


def test_backends_bitwise():
    rng, mesh, V, tc, info = scene(3200, "tets")
    eps = 3e-3
    X = xc.velocities(rng, V, eps, "mixed")
    outs = []
    for dev in ["reference", "host"] + [d["spec"] for d in fricl.devices()
                                        if d["has_fp64"]][:1]:
        fp = fi.TangentialAdhesionPotential(eps, device=dev)
        outs.append((dev, fp(tc, mesh, X), fp.gradient(tc, mesh, X),
                     fp.hessian(tc, mesh, X, PSD[1]).toarray()))
    for dev, D, g, H in outs[1:]:
        assert D == outs[0][1], dev
        assert np.array_equal(g, outs[0][2]), dev
        assert np.array_equal(H, outs[0][3]), dev


def test_mollifier_argument_is_checked():
    g = fricl.ContactGroup("pv", [[0]], tangent_basis=[[[1.0], [0.0]]],
                           normal_force=[1.0], mu_s=[1.0], mu_k=[1.0], dim=2)
    with fricl.Context("reference") as ctx:
        c = fricl.Contacts(ctx, [g], 1)
        with pytest.raises(fricl.InvalidArgumentError, match="mollifier"):
            c.evaluate(np.zeros((1, 2)), 1.0, mollifier="glue")
        with pytest.raises(fricl.InvalidArgumentError, match="mollifier"):
            c.evaluate(np.zeros((1, 2)), 1.0, mollifier=7)
    with pytest.raises(fricl.InvalidArgumentError, match="eps_a"):
        fi.TangentialAdhesionPotential(0.0)


# ---------------------------------------------------- TangentialCollisions
def normal_scene(seed, kind):
    rng = np.random.default_rng(seed)
    for _ in range(20):
        mesh, V, E, F, tc, info = xc.build(rng, kind)
        nc = ipctk.NormalCollisions()
        nc.build(mesh, V, info["dhat"])
        if len(nc.ev_collisions) + len(nc.ee_collisions) + \
                len(nc.fv_collisions) >= 5:
            return rng, mesh, V, nc, info
    raise AssertionError("no scene")


def compare(fp, ip, ft, it, mesh, X, what):
    D1, D2 = fp(ft, mesh, X), ip(it, mesh, X)
    close(D1, D2, 0, what + " D")
    close(fp.gradient(ft, mesh, X), ip.gradient(it, mesh, X), 0,
          what + " gradient")
    return D2


BLENDS = [lambda a, b: a * b,                  # vectorises
          lambda a, b: a if a < b else b,      # per pair (array truth)
          lambda a, b: float(np.sqrt(a * b)),  # per pair (float of array)
          lambda a, b: 0.25 * a + 0.75 * b,    # order matters
          ipctk.TangentialCollisions.default_blend_mu,
          fi.TangentialCollisions.default_blend_mu, min, max]


@pytest.mark.parametrize("seed", range(3))
def test_build_overloads_and_blends(seed):
    rng, mesh, V, nc, info = normal_scene(3300 + seed, KINDS[1 + seed % 2])
    B = ipctk.BarrierPotential(info["dhat"], info["kappa"])
    eps = 1e-3
    X = np.asfortranarray(xc.velocities(rng, V, eps, "mixed"))
    ip, fp = ipctk.FrictionPotential(eps), fi.FrictionPotential(eps)
    ms = rng.uniform(0.2, 1, len(V))
    mk = rng.uniform(0.1, 0.8, len(V))
    values = []
    for blend in BLENDS:
        it, ft = ipctk.TangentialCollisions(), fi.TangentialCollisions()
        it.build(mesh, V, nc, B, ms, mk, blend)
        ft.build(mesh, V, nc, B, ms, mk, blend)
        values.append(compare(fp, ip, ft, it, mesh, X, "blend"))
        ft = fi.TangentialCollisions()
        ft.build(mesh, V, nc, B, mu_s=ms, mu_k=mk, blend_mu=blend)
        compare(fp, ip, ft, it, mesh, X, "blend keywords")
    assert len(set(values)) >= 4  # the blends really differ
    for call in (lambda t: t.build(mesh, V, nc, B, 0.4),
                 lambda t: t.build(mesh, V, nc, B, mu=0.4),
                 lambda t: t.build(mesh, V, nc, B, 0.5, 0.3),
                 lambda t: t.build(mesh, V, nc, B, mu_s=0.5, mu_k=0.3),
                 lambda t: t.build(mesh, V, nc, B, ms, mk)):
        it, ft = ipctk.TangentialCollisions(), fi.TangentialCollisions()
        call(it)
        call(ft)
        compare(fp, ip, ft, it, mesh, X, "overload")
    # what ipctk refuses, fricl refuses (TypeError)
    for bad in (lambda t: t.build(mesh, V, nc, B, ms, 0.3),
                lambda t: t.build(mesh, V, nc, B, 0.3, 0.2, min),
                lambda t: t.build(mesh, V, nc, B, mu=ms),
                lambda t: t.build(mesh, V, nc, B, mu=0.3, mu_k=0.2),
                lambda t: t.build(mesh, V, nc, B)):
        for t in (ipctk.TangentialCollisions(), fi.TangentialCollisions()):
            with pytest.raises(TypeError):
                bad(t)
    with pytest.raises(fricl.InvalidArgumentError, match="blend_mu"):
        fi.TangentialCollisions().build(mesh, V, nc, B, ms, mk,
                                        lambda a, b: -1.0)


def test_default_blend_mu():
    for a, b in [(0.2, 0.6), (0.1, 0.3), (1e-300, 3.0)]:
        assert fi.TangentialCollisions.default_blend_mu(a, b) == \
            ipctk.TangentialCollisions.default_blend_mu(a, b)


@pytest.mark.parametrize("seed", range(2))
def test_adhesion_build(seed):
    rng, mesh, V, nc, info = normal_scene(3400 + seed, KINDS[1 + seed % 2])
    A = ipctk.NormalAdhesionPotential(0.3 * info["dhat"], info["dhat"],
                                      10.0 ** rng.uniform(1, 4),
                                      rng.uniform(0.1, 1))
    assert fi.normal_adhesion_force_magnitude(A.dhat_p, A.Y, A.eps_c) == \
        pytest.approx(A.force_magnitude(1e-12, 0.0), rel=1e-15)
    eps = 10.0 ** rng.uniform(-4, -2)
    X = np.asfortranarray(xc.velocities(rng, V, eps, "mixed"))
    ip = ipctk.TangentialAdhesionPotential(eps)
    fp = fi.TangentialAdhesionPotential(eps)
    it, ft = ipctk.TangentialCollisions(), fi.TangentialCollisions()
    it.build(mesh, V, nc, A, 0.6)
    ft.build(mesh, V, nc, A, 0.6)
    D = compare(fp, ip, ft, it, mesh, X, "adhesion")
    assert D != 0
    close(fp.hessian(ft, mesh, X, PSD[1]).toarray(),
          ip.hessian(it, mesh, X, PSD[1]).toarray(), 0, "adhesion H")


def aniso_axes(ids):
    r = np.random.default_rng(sum(int(i) * 7919 ** k
                                  for k, i in enumerate(ids)) % 2 ** 32)
    return (r.uniform(0.1, 1.0, 2) * (r.uniform() < 0.7),
            r.uniform(0.1, 1.0, 2) * (r.uniform() < 0.5))


@pytest.mark.parametrize("seed", range(2))
def test_anisotropic_update_and_reset(seed):
    rng, mesh, V, nc, info = normal_scene(3500 + seed, "triangles")
    B = ipctk.BarrierPotential(info["dhat"], info["kappa"])
    ms = rng.uniform(0.2, 1, len(V))
    mk = rng.uniform(0.1, 0.8, len(V))
    it, ft = ipctk.TangentialCollisions(), fi.TangentialCollisions()
    it.build(mesh, V, nc, B, ms, mk)
    ft.build(mesh, V, nc, B, ms, mk)
    E, F = np.asarray(mesh.edges), np.asarray(mesh.faces)
    for i in range(len(it)):
        c = it[i]
        ids = tuple(int(x) for x in c.vertex_ids(E, F) if x >= 0)
        c.mu_s_aniso, c.mu_k_aniso = aniso_axes(ids)
        c.mu_aniso = np.r_[1.0, 2.0]
        del c
    axes = [aniso_axes(tuple(int(x) for x in row))
            for g in ft.groups for row in g.vertices]
    for g in ft.groups:
        g.mu_aniso = np.tile([1.0, 2.0], (g.count, 1))
    ft._cache = {}
    ft.set_anisotropic_friction_coefficients([a for a, _ in axes],
                                             [b for _, b in axes])
    eps = 1e-3
    X = np.asfortranarray(xc.velocities(rng, V, eps, "mixed"))
    ip, fp = ipctk.FrictionPotential(eps), fi.FrictionPotential(eps)
    D0 = compare(fp, ip, ft, it, mesh, X, "before")
    U = rng.normal(size=V.shape) * info["dhat"] * 0.05
    vel = np.asfortranarray(xc.velocities(rng, V, eps, "mixed"))
    it.update_lagged_anisotropic_friction_coefficients(
        mesh, np.asfortranarray(V - U), np.asfortranarray(U), vel)
    ft.update_lagged_anisotropic_friction_coefficients(mesh, V - U, U, vel)
    D1 = compare(fp, ip, ft, it, mesh, X, "updated")
    assert D1 != D0
    it.reset_lagged_anisotropic_friction_coefficients()
    ft.reset_lagged_anisotropic_friction_coefficients()
    assert compare(fp, ip, ft, it, mesh, X, "reset") == D0
