"""The friction laws against `fricl law` (bitwise) and their metadata."""
import numpy as np
import pytest

import fricl
from conftest import device_of

CASES = {
    "coulomb": dict(params={"friction_coefficient": 0.4}, normal="array"),
    "stribeck": dict(params={"static_friction_coefficient": 0.6,
                             "coulomb_friction_coefficient": 0.4,
                             "stribeck_velocity": 0.01,
                             "viscous_damping": 0.2},
                     normal=12.0, options=["stribeck_odd"]),
    "exudyn_regularized": dict(params={"muDynamic": 0.3,
                                       "muStaticOffset": 0.2,
                                       "velStatic": 0.01,
                                       "velDynamic": 0.05}),
    "isdf": dict(params={"f_nominal": -3.0, "v_nominal": 0.2},
                 options=["isdf_continuous"]),
    "maxwell": dict(params={"stiffness": 1e3, "friction_coefficient": 0.5},
                    normal="array", state=2, positions=True),
    "lugre": dict(params={"static_coefficient": 0.5,
                          "coulomb_coefficient": 0.3,
                          "stribeck_velocity": 0.01, "stiffness": 1e4,
                          "damping": 100.0, "viscous_damping": 0.4,
                          "shape_parameter": 2.0},
                  normal=10.0, state=1, dstate=True),
}


def cli_law(cli, tmp_path, ctx, name, v, params, normal=None, options=(),
            state=None, x=None, integrator=None, h=None, gms=None,
            dstate=False, prec="f64"):
    np.save(tmp_path / "in.npy", v)
    args = ["law", name, "--in", tmp_path / "in.npy", "--out",
            tmp_path / "out.npy", "--device", device_of(ctx),
            "--precision", prec]
    for k, val in params.items():
        args += ["--param", "%s=%r" % (k, float(val))]
    if x is not None:
        np.save(tmp_path / "x.npy", x)
        args += ["--x", tmp_path / "x.npy"]
    if isinstance(normal, np.ndarray):
        np.save(tmp_path / "n.npy", normal)
        args += ["--normal", tmp_path / "n.npy"]
    elif normal is not None:
        args += ["--param", "normal=%r" % float(normal)]
    for o in options:
        args += ["--option", o]
    if state is not None:
        np.save(tmp_path / "s.npy", state)
        args += ["--state", tmp_path / "s.npy"]
    if integrator:
        args += ["--integrator", integrator, "--h", repr(h)]
    if gms is not None:
        for i, (k, b, nu) in enumerate(gms, 1):
            args += ["--param", "k_%d=%r" % (i, float(k)), "--param",
                     "b_%d=%r" % (i, float(b)), "--param",
                     "nu_%d=%r" % (i, float(nu))]
    if dstate:
        args += ["--dstate-out", tmp_path / "d.npy"]
    cli(*args)
    out = {"force": np.load(tmp_path / "out.npy")}
    if state is not None:
        out["state"] = np.load(tmp_path / "s.npy")
    if dstate:
        out["dstate"] = np.load(tmp_path / "d.npy")
    return out


def same(a, b, what):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.size == b.size, (what, a.shape, b.shape)
    assert a.reshape(-1).tobytes() == b.reshape(-1).tobytes(), what


@pytest.mark.parametrize("name", sorted(CASES))
def test_eval_bitwise_vs_cli(cli, ctx, tmp_path, name):
    case = CASES[name]
    rng = np.random.default_rng(abs(hash(name)) % 1000)
    n = 300
    v = rng.normal(size=n) * 0.02
    v[:5] = [0.0, -0.0, 0.01, -0.01, 1e-9]
    normal = rng.uniform(0, 20, n) if case.get("normal") == "array" else \
        case.get("normal")
    state = None
    if case.get("state"):
        state = rng.normal(size=(n, case["state"])) * 1e-4
        if case["state"] == 1:
            state = state.reshape(n)
    x = rng.normal(size=n) * 0.01 if case.get("positions") else None
    kw = dict(params=case["params"], normal=normal,
              options=case.get("options", ()), state=state)
    ref = cli_law(cli, tmp_path, ctx, name, x if name == "maxwell" else v,
                  dstate=case.get("dstate", False), **kw)
    if name == "maxwell":
        r = ctx.law(name, x=x, **kw)
    else:
        r = ctx.law(name, v, dstate=case.get("dstate", False), **kw)
    same(r.force, ref["force"], "force")
    if name == "maxwell":
        same(r.state, ref["state"], "state")
    if case.get("dstate"):
        same(r.dstate, ref["dstate"], "dstate")
        assert r.state is None  # LuGre's eval does not advance the state


@pytest.mark.parametrize("name,integrator", [("lugre", "exp"),
                                             ("lugre", "rk4"),
                                             ("gms", "rk4")])
def test_step_bitwise_vs_cli(cli, ctx, tmp_path, name, integrator):
    rng = np.random.default_rng(5)
    n, steps = 50, 20
    v = np.cumsum(rng.normal(size=(steps, n)) * 0.003, axis=0)
    params = dict(CASES["lugre"]["params"]) if name == "lugre" else {
        "static_coefficient": 0.5, "coulomb_coefficient": 0.3,
        "attraction_coefficient": 2.0, "stiffness": 1e4,
        "viscous_damping": 0.1, "stribeck_velocity": 0.01,
        "shape_parameter": 2.0}
    gms = np.array([[1e4, 10.0, 0.5], [3e3, 5.0, 0.3], [1e3, 1.0, 0.2]]) \
        if name == "gms" else None
    S = 3 if name == "gms" else 1
    state = np.zeros((n, S)) if S > 1 else np.zeros(n)
    ref = cli_law(cli, tmp_path, ctx, name, v, params, normal=10.0,
                  state=state, integrator=integrator, h=1e-4, gms=gms)
    r = ctx.law_step(name, v, params=params, normal=10.0, h=1e-4,
                     integrator=integrator, state=state, gms=gms)
    assert r.force.shape == (steps, n) and r.state.shape == (n, S)
    same(r.force, ref["force"], "force")
    same(r.state, ref["state"], "state")
    # In place, and step by step: the same bits.
    st = np.zeros((n, S))
    for s in range(steps):
        one = ctx.law_step(name, v[s:s + 1], params=params, normal=10.0,
                           h=1e-4, integrator=integrator, state=st,
                           inplace=True, gms=gms)
        assert one.state is st
        same(one.force[0], r.force[s], "step %d" % s)
    same(st, r.state, "in-place state")


def test_per_element_parameters(ctx):
    rng = np.random.default_rng(2)
    v = rng.normal(size=64) * 0.02
    mu = rng.uniform(0.1, 0.9, 64)
    r = ctx.law("coulomb", v, normal=5.0,
                params={"friction_coefficient": mu})
    for i in (0, 17, 63):
        one = ctx.law("coulomb", v[i:i + 1], normal=5.0,
                      params={"friction_coefficient": float(mu[i])})
        same(r.force[i], one.force[0], "element %d" % i)


def test_info_and_errors(ctx):
    assert set(fricl.LAWS) >= {"coulomb", "lugre", "gms", "maxwell"}
    li = fricl.law_info("lugre")
    assert li.name == "lugre" and li.state_size == 1 and li.ode_state
    assert [p.name for p in li.params][:2] == ["static_coefficient",
                                               "coulomb_coefficient"]
    assert li.params[0].unit == "1" and np.isnan(li.params[0].default)
    assert "lugre_exp_shape" in li.options
    v = np.zeros(4)
    with pytest.raises(fricl.InvalidArgumentError) as e:
        ctx.law("coulomb", v, normal=1.0)  # required parameter missing
    assert "friction_coefficient" in e.value.message
    with pytest.raises(fricl.InvalidArgumentError, match="no parameter"):
        ctx.law("coulomb", v, normal=1.0, params={"mu": 0.3})
    with pytest.raises(fricl.InvalidArgumentError) as e:
        ctx.law("coulomb", v, normal=np.array([1, 1, -np.inf, 1.0]),
                params={"friction_coefficient": 0.3})
    assert "2" in e.value.message
    with pytest.raises(fricl.InvalidArgumentError, match="unknown law"):
        ctx.law("dahl", v)
    with pytest.raises(fricl.InvalidArgumentError, match="option"):
        ctx.law("coulomb", v, normal=1.0, options=["lugre_exp_shape"],
                params={"friction_coefficient": 0.3})
