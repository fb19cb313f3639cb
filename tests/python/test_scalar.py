"""The scalar family against `fricl eval` (bitwise) and its own rules."""
import numpy as np
import pytest

import fricl
from conftest import device_of


def edge_inputs(eps_v, dtype):
    rng = np.random.default_rng(3)
    e = dtype(eps_v)
    special = [0.0, -0.0, e / 2, e, np.nextafter(e, 0), np.nextafter(e, 1),
               1e-300, 5e-324, np.inf, -np.inf, np.nan, -e, 10 * e]
    return np.concatenate([np.array(special, dtype),
                           (rng.uniform(-0.5, 3, 2000) * e).astype(dtype)])


@pytest.mark.parametrize("profile", ["cubic", "ipctk"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_all_terms_bitwise_vs_cli(cli, ctx, tmp_path, profile, dtype):
    eps_v, mu_s, mu_k = 1e-3, 0.5, 0.3
    y = edge_inputs(eps_v, dtype)
    np.save(tmp_path / "y.npy", y)
    prec = "f64" if dtype == np.float64 else "f32"
    args = ["eval", "--eps-v", repr(eps_v), "--mu-s", repr(mu_s), "--mu-k",
            repr(mu_k), "--mu-profile", profile, "--precision", prec,
            "--device", device_of(ctx), "--in", tmp_path / "y.npy", "--out",
            tmp_path / "out.npy"]
    for t in fricl.TERMS:
        args += ["--term", t]
    cli(*args)
    ref = np.load(tmp_path / "out.npy")
    got = ctx.scalar("all", y, eps_v, mu_s, mu_k, mu_profile=profile)
    assert list(got) == fricl.TERMS
    for i, t in enumerate(fricl.TERMS):
        assert got[t].dtype == dtype
        # bitwise (NaN included): OpenCL equals the reference backend
        np.testing.assert_array_equal(
            got[t].view(np.uint8),
            np.ascontiguousarray(ref[:, i]).view(np.uint8), err_msg=t)


def test_single_term_shape_and_out(ctx):
    y = np.linspace(0, 3e-3, 12).reshape(3, 4)
    f1 = ctx.scalar("smooth_friction_f1", y, 1e-3)
    assert f1.shape == (3, 4) and f1.dtype == np.float64
    out = np.empty((3, 4))
    r = ctx.scalar("smooth_friction_f1", y, 1e-3, out=out)
    assert r is out
    np.testing.assert_array_equal(out, f1)
    d = {"smooth_mu": np.empty(12)}
    r = ctx.scalar(["smooth_mu", "smooth_mu_f0"], y, 1e-3, 0.5, 0.3, out=d)
    assert r["smooth_mu"] is d["smooth_mu"]
    assert r["smooth_mu_f0"].shape == (3, 4)


def test_per_element_parameters_match_scalars(ctx):
    rng = np.random.default_rng(7)
    y = rng.uniform(0, 3e-3, 500)
    eps = rng.uniform(5e-4, 2e-3, 500)
    mus = rng.uniform(0.2, 1, 500)
    muk = rng.uniform(0.1, 0.9, 500)
    got = ctx.scalar("all", y, eps, mus, muk, mu_profile="ipctk")
    for i in range(0, 500, 97):
        one = ctx.scalar("all", y[i:i + 1], float(eps[i]), float(mus[i]),
                         float(muk[i]), mu_profile="ipctk")
        for t in fricl.TERMS:
            assert got[t][i].tobytes() == one[t][0].tobytes(), t


def test_dtype_rule(ctx):
    y32 = np.linspace(0, 2e-3, 9, dtype=np.float32)
    assert ctx.scalar("smooth_mu", y32, 1e-3, 0.5, 0.3).dtype == np.float32
    y64 = ctx.scalar("smooth_mu", y32, 1e-3, 0.5, 0.3, dtype=np.float64)
    assert y64.dtype == np.float64
    # lists, ints, non-contiguous views: converted, same values
    y = np.linspace(0, 2e-3, 18)
    a = ctx.scalar("smooth_mu", y[::2], 1e-3, 0.5, 0.3)
    b = ctx.scalar("smooth_mu", list(y[::2]), 1e-3, 0.5, 0.3)
    np.testing.assert_array_equal(a, b)
    assert ctx.scalar("smooth_friction_f0", [0, 1], 1).dtype == np.float64


def test_errors_name_argument_and_index(ctx):
    y = np.zeros(10)
    eps = np.full(10, 1e-3)
    eps[7] = -1
    with pytest.raises(fricl.InvalidArgumentError) as e:
        ctx.scalar("smooth_mu", y, eps, 0.5, 0.3)
    assert e.value.status == "INVALID_ARGUMENT" and e.value.code == -1
    assert "eps_v" in e.value.message and "7" in e.value.message
    with pytest.raises(ValueError):  # InvalidArgumentError is a ValueError
        ctx.scalar("smooth_mu", y, 1e-3, -0.5, 0.3)
    with pytest.raises(fricl.InvalidArgumentError, match="unknown term"):
        ctx.scalar("smooth_nothing", y, 1e-3)
    with pytest.raises(fricl.InvalidArgumentError, match="profile"):
        ctx.scalar("smooth_mu", y, 1e-3, 0.5, 0.3, mu_profile="quartic")
    with pytest.raises(fricl.InvalidArgumentError, match="complex"):
        ctx.scalar("smooth_mu", y + 0j, 1e-3, 0.5, 0.3)
    with pytest.raises(fricl.InvalidArgumentError, match="out"):
        ctx.scalar("smooth_mu", y, 1e-3, 0.5, 0.3,
                   out=np.empty(10, np.float32))
    with pytest.raises(fricl.InvalidArgumentError, match="shape"):
        ctx.scalar("smooth_mu", y, np.ones(3), 0.5, 0.3)
