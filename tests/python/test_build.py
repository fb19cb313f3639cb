"""The lagged build against `fricl build` and `fricl tangential --build`
(bitwise)."""
import numpy as np
import pytest

import fricl
from conftest import K, device_of

COUNTS = {3: {"vv": 20, "ev": 40, "ee": 40, "fv": 40, "pv": 10},
          2: {"vv": 20, "ev": 40, "pv": 10}}


def scene(dim, seed, per_contact=False):
    """Random vertices in a box of size 1 and random stencils over them,
    with dhat large enough that most contacts are active; some degenerate
    ones (repeated vertices) to exercise the status codes."""
    rng = np.random.default_rng(seed)
    n = 60
    X = rng.uniform(0, 1, (n, dim))
    rest = X + rng.normal(scale=0.01, size=X.shape)
    inp = dict(lagged_positions=X, rest_positions=rest,
               dhat=np.float64(0.6), kappa=np.float64(30.0),
               dmin=np.float64(0.01),
               mu_s=rng.uniform(0.2, 1, n), mu_k=rng.uniform(0.1, 0.8, n))
    groups = []
    for t, m in COUNTS[dim].items():
        ids = np.stack([rng.choice(n, K[t], replace=False)
                        for _ in range(m)]).astype(np.int32)
        if t in ("vv", "ev"):
            ids[0, 1] = ids[0, 0]  # coincident / zero-length edge
        inp[t] = ids
        kw = {}
        if t == "pv":
            inp["pv_plane_normal"] = kw["plane_normal"] = rng.normal(
                size=(m, dim))
            inp["pv_plane_offset"] = kw["plane_offset"] = \
                -np.einsum("ij,ij->i", kw["plane_normal"],
                           X[ids[:, 0]]) + rng.uniform(0.05, 0.3, m)
        if t in ("ev", "fv"):
            inp[t + "_dmin"] = kw["dmin"] = rng.uniform(0, 0.05, m)
            inp[t + "_weight"] = kw["weight"] = rng.uniform(-1, 2, m)
        if per_contact and t in ("ee", "vv"):
            inp[t + "_mu_s"] = kw["mu_s"] = rng.uniform(0.2, 1, m)
            inp[t + "_mu_k"] = kw["mu_k"] = rng.uniform(0.1, 0.8, m)
        groups.append(fricl.BuildGroup(t, ids, **kw))
    return inp, groups


def same(a, b, what):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.size == b.size, (what, a.dtype, b.dtype,
                                                     a.shape, b.shape)
    assert a.reshape(-1).tobytes() == b.reshape(-1).tobytes(), what


@pytest.mark.parametrize("dim,blend,physical,prec,per_contact", [
    (3, "average", False, "f64", False),
    (3, "harmonic", True, "f64", True),
    (2, "min", False, "f64", False),
    (3, "product", False, "f32", False),
])
def test_build_bitwise_vs_cli(cli, ctx, tmp_path, dim, blend, physical, prec,
                              per_contact):
    inp, groups = scene(dim, 100 + dim, per_contact)
    np.savez(tmp_path / "in.npz", **inp)
    args = ["build", tmp_path / "in.npz", "-o", tmp_path / "out.npz",
            "--blend", blend, "--precision", prec, "--device", device_of(ctx)]
    if physical:
        args.append("--physical-barrier")
    cli(*args)
    ref = dict(np.load(tmp_path / "out.npz"))
    dtype = np.float64 if prec == "f64" else np.float32
    res = ctx.build(inp["lagged_positions"], groups, dhat=0.6, kappa=30.0,
                    dmin=0.01, mu_s=inp["mu_s"], mu_k=inp["mu_k"],
                    blend=blend, rest_positions=inp["rest_positions"],
                    physical_barrier=physical, normal_force_gradient=True,
                    dtype=dtype)
    total = np.zeros(13, np.int64)
    for g in res.groups:
        t = g.type
        if g.closest_point is not None:
            same(g.closest_point, ref[t + "_closest_point"], t + " beta")
        same(g.tangent_basis, ref[t + "_tangent_basis"], t + " P")
        same(g.normal_force, ref[t + "_normal_force"], t + " N")
        same(g.weight, ref[t + "_weight"], t + " w")
        same(g.mu_s, ref[t + "_mu_s"], t + " mu_s")
        same(g.mu_k, ref[t + "_mu_k"], t + " mu_k")
        same(g.status, ref[t + "_status"], t + " status")
        assert g.normal_force_gradient.shape == (g.count, K[t] * dim)
        assert np.all(g.normal_force_gradient[g.status != 0] == 0)
        total += np.bincount(g.status, minlength=13)
    same(np.array([res.status_counts[s] for s in fricl.BUILD_STATUSES],
                  np.int64), ref["status_counts"], "status counts")
    same(total, ref["status_counts"], "per-group statuses")
    assert res.total == sum(COUNTS[dim].values())
    assert res.no_force == res.total - res.status_counts["ok"]
    assert res.status_counts["ok"] > res.total // 4
    for name, (gi, ci) in res.first.items():
        st = fricl.BUILD_STATUSES.index(name)
        assert res.groups[gi].status[ci] == st
        for g in res.groups[:gi]:
            assert st not in g.status


def test_build_then_evaluate_equals_cli_build_flag(cli, ctx, tmp_path):
    inp, groups = scene(3, 7)
    rng = np.random.default_rng(8)
    v = rng.normal(size=inp["lagged_positions"].shape) * 1e-3
    np.savez(tmp_path / "in.npz", velocities=v, eps_v=np.float64(1e-3), **inp)
    cli("tangential", tmp_path / "in.npz", "-o", tmp_path / "out.npz",
        "--build", "--psd", "clamp", "--hessian", "global", "--mu-profile",
        "ipctk", "--device", device_of(ctx))
    ref = dict(np.load(tmp_path / "out.npz"))
    res = ctx.build(inp["lagged_positions"], groups, dhat=0.6, kappa=30.0,
                    dmin=0.01, mu_s=inp["mu_s"], mu_k=inp["mu_k"],
                    rest_positions=inp["rest_positions"])
    c = ctx.contacts(res.groups, len(v))
    r = c.evaluate(v, 1e-3, psd="clamp", mu_profile="ipctk", gradient=True,
                   hessian="csr")
    same(r.potential, ref["potential"], "potential")
    same(r.gradient, ref["gradient"], "gradient")
    same(r.hessian.data, ref["hessian_values"], "hessian")


def test_build_scalar_mu_and_errors(ctx):
    inp, groups = scene(3, 9)
    X = inp["lagged_positions"]
    res = ctx.build(X, groups, dhat=0.6, kappa=30.0, mu_s=0.4, mu_k=0.2)
    fv = [g for g in res.groups if g.type == "fv"][0]
    assert np.all(fv.mu_s[fv.status == 0] == 0.4)
    with pytest.raises(fricl.InvalidArgumentError) as e:
        ctx.build(X, groups, dhat=-1.0, kappa=30.0)
    assert "dhat" in e.value.message
    bad = fricl.BuildGroup("fv", [[0, 1, 2, 999]])
    with pytest.raises(fricl.InvalidArgumentError) as e:
        ctx.build(X, [bad], dhat=0.6, kappa=30.0)
    assert "999" in e.value.message or "range" in e.value.message
    Xn = X.copy()
    Xn[5, 1] = np.nan
    with pytest.raises(fricl.InvalidArgumentError) as e:
        ctx.build(Xn, groups, dhat=0.6, kappa=30.0)
    assert "5" in e.value.message
    with pytest.raises(fricl.InvalidArgumentError, match="blend"):
        ctx.build(X, groups, dhat=0.6, kappa=30.0, blend="median")
    with pytest.raises(fricl.InvalidArgumentError, match="shape"):
        ctx.build(X[:, :1], groups, dhat=0.6, kappa=30.0)
