#!/usr/bin/env python3
"""Black-box tests of `fricl build` and `fricl tangential --build`.

Usage: test_cli_build.py SCENARIO FRICL TMPDIR
Scenarios: example (spec section 6 end to end, two steps and --build),
errors (bad inputs: exit 2, output untouched), degenerate (status codes,
never NaN), mu (per-vertex / per-contact mu, blends, f32), device
(`tangential --build` on an OpenCL device runs device-resident and equals
`build` then `tangential` on that device bitwise; also on a device list).
Exits 77 (CTest SKIP) when numpy cannot be imported.
"""
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("SKIPPED: numpy is not installed; the fricl build CLI tests did "
          "NOT run")
    sys.exit(77)

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def close(got, want, what, rel=1e-12):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    scale = np.maximum(np.abs(want), 1e-300)
    ok = got.shape == want.shape and bool(
        np.all((np.abs(got - want) <= rel * scale) | (got == want)))
    check(ok, "%s: got %r, want %r" % (what, got.tolist(), want.tolist()))


def run(*args, expect=0):
    p = subprocess.run([FRICL] + [str(a) for a in args],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    check(p.returncode == expect,
          "fricl %s: exit %d, expected %d; stderr: %s" %
          (" ".join(map(str, args)), p.returncode, expect, p.stderr.strip()))
    return p


def path(name):
    return os.path.join(TMP, name)


def load(name):
    with np.load(path(name)) as d:
        return {k: d[k] for k in d.files}


# Spec section 6: one face-vertex contact, p moving.
X6 = np.array([[0.02, 0.02, 0.001], [0, 0, 0], [0.1, 0, 0], [0, 0.1, 0]])
BUILD6 = dict(lagged_positions=X6, fv=np.array([[0, 1, 2, 3]], np.int64),
              dhat=np.float64(1e-2), kappa=np.float64(1e6),
              mu_s=np.float64(0.5), mu_k=np.float64(0.3))
N6 = 2.1425647393651286e+01
# Case 1 (static regime): v_p = (3e-5, 5e-5, 0).
V6 = np.zeros((4, 3))
V6[0] = [3e-5, 5e-5, 0]
CASE1 = {
    "ipctk": (3.7177938256755385e-04,
              (3.3654128998501945e+00, 5.6090214997503242e+00),
              (8.4332155182634988e+04, -4.6413791353952486e+04,
               3.4824111071752334e+04)),
    "cubic": (3.6823109837268936e-04,
              (3.4180274145945628e+00, 5.6967123576576048e+00),
              (8.7854010340369731e+04, -4.3467061354637268e+04,
               4.1489144895423310e+04)),
}


def check_case1(out, profile, what):
    d_want, g_want, m_want = CASE1[profile]
    close(out["potential"], d_want, what + " D")
    g = out["gradient"].reshape(4, 3)
    gp = np.array([g_want[0], g_want[1], 0.0])
    close(g[0], gp, what + " grad p")
    close(g[1], -0.6 * gp, what + " grad t0")
    close(g[2], -0.2 * gp, what + " grad t1")
    close(g[3], -0.2 * gp, what + " grad t2")
    S = out["fv_hessian_factored"][0]  # S00 S01 S02 S11 S12 S22
    close([S[0], S[1], S[3]], m_want, what + " M00 M01 M11")
    check(S[2] == 0 and S[4] == 0 and S[5] == 0, what + " S third row 0")
    close(out["fv_gamma"][0], [1, -0.6, -0.2, -0.2], what + " gamma")


def scenario_example():
    np.savez(path("in.npz"), **BUILD6)
    run("build", path("in.npz"), "-o", path("built.npz"))
    b = load("built.npz")
    check(b["fv"].dtype == np.int32 and b["fv"].tolist() == [[0, 1, 2, 3]],
          "fv ids written as int32")
    close(b["fv_normal_force"], [N6], "N")
    close(b["fv_closest_point"], [[0.2, 0.2]], "beta")
    close(b["fv_tangent_basis"], [[[1, 0], [0, 1], [0, 0]]], "P")
    close(b["fv_mu_s"], [0.5], "mu_s")
    close(b["fv_mu_k"], [0.3], "mu_k")
    close(b["fv_weight"], [1.0], "weight")
    check(b["fv_status"].dtype == np.uint8 and b["fv_status"].tolist() == [0],
          "status ok, uint8")
    check(b["status_counts"].tolist() == [1] + [0] * 12, "status_counts")

    # The build's output plus velocities and eps_v is a tangential input.
    t_in = {k: v for k, v in b.items()
            if k not in ("fv_status", "status_counts")}
    t_in.update(velocities=V6, eps_v=np.float64(1e-4))
    np.savez(path("tin.npz"), **t_in)
    b_in = dict(BUILD6, velocities=V6, eps_v=np.float64(1e-4))
    np.savez(path("bin.npz"), **b_in)
    for profile in ("ipctk", "cubic"):
        run("tangential", path("tin.npz"), "-o", path("t2.npz"),
            "--mu-profile", profile, "--hessian", "factored")
        two = load("t2.npz")
        check_case1(two, profile, "two steps " + profile)
        run("tangential", path("bin.npz"), "-o", path("t1.npz"), "--build",
            "--mu-profile", profile, "--hessian", "factored")
        one = load("t1.npz")
        check_case1(one, profile, "--build " + profile)
        for k, v in two.items():
            check(k in one and np.array_equal(one[k], v),
                  "--build %s: %s equals the two-step result" % (profile, k))
        for k, v in b.items():
            check(k in one and np.array_equal(one[k], v),
                  "--build %s: build output %s included" % (profile, k))
    # Physical barrier: N *= dhat / x^^2, x^ = dhat^2 (dmin = 0).
    run("build", path("in.npz"), "-o", path("phys.npz"), "--physical-barrier")
    close(load("phys.npz")["fv_normal_force"], [N6 * 1e-2 / 1e-8],
          "physical barrier N", rel=1e-12)
    run("build", "--help")


def scenario_errors():
    out = path("out.npz")
    sentinel = b"untouched"

    def expect_bad(arrays, needle, *extra, cmd="build"):
        with open(out, "wb") as f:
            f.write(sentinel)
        np.savez(path("bad.npz"), **arrays)
        args = [cmd, path("bad.npz"), "-o", out] + list(extra)
        p = run(*args, expect=2)
        check(needle in p.stderr,
              "stderr names %r: %s" % (needle, p.stderr.strip()))
        check(p.stderr.count("\n") == 1, "one line: %r" % p.stderr)
        with open(out, "rb") as f:
            check(f.read() == sentinel, "%s: output untouched" % needle)

    no_dhat = {k: v for k, v in BUILD6.items() if k != "dhat"}
    expect_bad(no_dhat, "'dhat'")
    expect_bad(dict(BUILD6, fv=np.array([[0, 1, 2, 7]])), "fv[0, 3] = 7")
    expect_bad(dict(BUILD6, fv=np.array([[0, 1, 2]])), "'fv'")
    expect_bad(dict(BUILD6, lagged_positions=np.zeros((4, 4))),
               "'lagged_positions'")
    # The schema reader's shape message: the rule, its value, the meaning.
    expect_bad(dict(BUILD6, fv_weight=np.ones(2)),
               "array 'fv_weight': expected shape (m,) = (1,) (per-contact "
               "weight), got (2,)")
    expect_bad(dict(BUILD6, fv=np.array([[0, 1, 2, 3]], np.float64)), "'fv'")
    expect_bad(dict(BUILD6, dhat=np.ones(2)), "'dhat'")
    expect_bad(dict(BUILD6, mu_s=np.ones(3)), "'mu_s'")
    expect_bad(dict(BUILD6, fv_mu_aniso=np.ones((1, 2))), "'fv_mu_aniso'")
    expect_bad(dict(BUILD6, ev_weight=np.ones(1)), "'ev'")
    no_mu = {k: v for k, v in BUILD6.items() if k != "mu_k"}
    expect_bad(no_mu, "'mu_k'")
    expect_bad(dict(BUILD6, pv=np.array([[0]])), "'pv_plane_normal'")
    expect_bad(dict(BUILD6, dhat=np.float64(-1)), "dhat")  # the library's
    # tangential --build: the build input plus velocities and eps_v.
    expect_bad(dict(BUILD6, velocities=V6), "'eps_v'", "--build",
               cmd="tangential")
    expect_bad(dict(BUILD6, velocities=np.zeros((3, 3)), eps_v=1e-4),
               "'velocities'", "--build", cmd="tangential")
    no_dhat.update(velocities=V6, eps_v=1e-4)
    expect_bad(no_dhat, "'dhat'", "--build", cmd="tangential")
    run("tangential", path("bad.npz"), "-o", out, "--blend", "min", expect=2)
    run("build", path("bad.npz"), "-o", out, "--blend", "mean", expect=2)
    run("build", path("bad.npz"), expect=2)


def scenario_degenerate():
    # 3-D: vv 0 coincident, vv 1 fine; fv 0 zero-area face, fv 1 fine;
    # ee 0 parallel edges; pv 0 zero plane normal.
    X = np.array([[0, 0, 0], [0, 0, 0], [0, 0, 0.001],
                  [0, 0, 0], [1, 0, 0], [2, 0, 0],
                  [0.2, 0.2, 0.002], [0, 1, 0],
                  [0, 0, 0.003], [1, 0, 0.003]], np.float64)
    arrays = dict(
        lagged_positions=X, dhat=1e-2, kappa=1e6, mu_s=0.5, mu_k=0.3,
        vv=np.array([[0, 1], [0, 2]], np.int32),
        fv=np.array([[6, 3, 4, 5], [6, 3, 4, 7]]),
        ee=np.array([[3, 4, 8, 9]]),
        pv=np.array([[2]]), pv_plane_normal=np.zeros((1, 3)),
        pv_plane_offset=np.zeros(1))
    V = np.full((10, 3), 1e-5)
    np.savez(path("deg.npz"), **arrays)
    run("build", path("deg.npz"), "-o", path("deg_out.npz"))
    b = load("deg_out.npz")
    check(b["vv_status"].tolist() == [4, 0], "vv status %r" %
          b["vv_status"].tolist())
    check(b["fv_status"].tolist() == [6, 0], "fv status %r" %
          b["fv_status"].tolist())
    check(b["ee_status"].tolist() == [3], "ee status %r" %
          b["ee_status"].tolist())
    check(b["pv_status"].tolist() == [9], "pv status %r" %
          b["pv_status"].tolist())
    for k, v in b.items():
        if v.dtype.kind == "f":
            check(bool(np.all(np.isfinite(v))), "%s finite" % k)
    check(b["vv_normal_force"][0] == 0 and b["vv_normal_force"][1] > 0,
          "vv N: degenerate 0, the other unaffected")
    counts = b["status_counts"]
    check(counts.tolist() == [2, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 0, 0],
          "status_counts %r" % counts.tolist())
    arrays.update(velocities=V, eps_v=1e-4)
    np.savez(path("deg_b.npz"), **arrays)
    run("tangential", path("deg_b.npz"), "-o", path("deg_t.npz"), "--build",
        "--hessian", "global")
    t = load("deg_t.npz")
    check(bool(np.isfinite(t["potential"])), "potential finite")
    check(bool(np.all(np.isfinite(t["gradient"]))), "gradient finite")
    for T in ("vv", "fv", "ee", "pv"):
        pot = t[T + "_potential"]
        st = t[T + "_status"]
        check(bool(np.all(pot[st != 0] == 0)), T + ": D = 0 where status != 0")


def scenario_mu():
    X = np.array([[0, 0], [0, 0.001], [1, 0.001]], np.float64)
    base = dict(lagged_positions=X, dhat=1e-2, kappa=1.0,
                vv=np.array([[0, 1]]), mu_s=np.array([0.2, 0.6, 1.0]),
                mu_k=np.float64(0.1))
    np.savez(path("mu.npz"), **base)
    want = {"average": 0.4, "min": 0.2, "max": 0.6, "product": 0.12,
            "harmonic": 2 * 0.2 * 0.6 / 0.8}
    for blend, mu in want.items():
        run("build", path("mu.npz"), "-o", path("mu_out.npz"), "--blend",
            blend)
        b = load("mu_out.npz")
        close(b["vv_mu_s"], [mu], "blend " + blend, rel=1e-15)
        close(b["vv_mu_k"], [0.1], "scalar mu_k " + blend)
        check(b["vv_tangent_basis"].shape == (1, 2, 1), "2-D basis shape")
    # Per-contact mu wins over the vertex arrays; no global mu needed.
    pc = {k: v for k, v in base.items() if k not in ("mu_s", "mu_k")}
    pc.update(vv_mu_s=np.array([0.7]), vv_mu_k=np.array([0.5]),
              vv_weight=np.array([2.0]), vv_dmin=np.array([0.0]))
    np.savez(path("mu_pc.npz"), **pc)
    run("build", path("mu_pc.npz"), "-o", path("mu_pc_out.npz"),
        "--precision", "f32")
    b = load("mu_pc_out.npz")
    check(b["vv_normal_force"].dtype == np.float32, "f32 output")
    close(b["vv_mu_s"], [np.float32(0.7)], "per-contact mu_s")
    close(b["vv_mu_k"], [np.float32(0.5)], "per-contact mu_k")
    close(b["vv_weight"], [2.0], "weight")


def lattice_scene():
    """A 3-D scene of every stencil type on two layers of a lattice."""
    rng = np.random.default_rng(5)
    side = 24
    layer = side * side
    ij = np.arange(2 * layer)
    X = np.stack([0.01 * (ij % side), 0.01 * (ij % layer // side),
                  0.004 * (ij // layer)], 1) + rng.uniform(-1e-3, 1e-3,
                                                           (2 * layer, 3))

    def base(n):
        c = rng.integers(0, (side - 1) ** 2, n)
        return c // (side - 1) * side + c % (side - 1)

    b = base(900)
    fv = np.stack([b + layer, b, b + 1, b + side], 1)
    b = base(800)
    ee = np.stack([b, b + 1, b + layer, b + layer + side], 1)
    b = base(700)
    ev = np.stack([b + layer, b, b + 1], 1)
    pv = (base(200) + layer)[:, None]
    pn = np.stack([rng.uniform(-.2, .2, 200), rng.uniform(-.2, .2, 200),
                   np.ones(200)], 1)
    return dict(lagged_positions=X, fv=fv, ee=ee, ev=ev, pv=pv,
                pv_plane_normal=pn, pv_plane_offset=rng.uniform(-.01, .005,
                                                                200),
                dhat=np.float64(0.006), kappa=np.float64(100),
                mu_s=np.float64(0.5), mu_k=np.float64(0.3),
                vv=np.zeros((0, 2), np.int64)), rng


def scenario_device():
    devs = run("devices").stdout
    specs = [l.split()[0] for l in devs.splitlines()
             if l.startswith("opencl:")]
    if not specs:
        print("SKIPPED: no OpenCL device")
        sys.exit(77)
    build, rng = lattice_scene()
    V = rng.uniform(-1e-3, 1e-3, build["lagged_positions"].shape)
    np.savez(path("b.npz"), **build)
    np.savez(path("bt.npz"), **build, velocities=V, eps_v=np.float64(1e-3))
    lists = [specs[0]]
    if len(specs) > 1:
        lists.append(specs[0] + "," + specs[1])
    for dev in lists:
        # Two steps on the device (host tier): build, then evaluate.
        first = dev.split(",")[0]
        run("build", path("b.npz"), "-o", path("built.npz"), "--device",
            first)
        b = load("built.npz")
        t = {k: v for k, v in b.items()
             if not k.endswith("_status") and k != "status_counts"}
        t.update(velocities=V, eps_v=np.float64(1e-3))
        np.savez(path("t.npz"), **t)
        for hess in ("global", "factored"):
            run("tangential", path("t.npz"), "-o", path("two.npz"),
                "--device", first, "--hessian", hess)
            two = load("two.npz")
            p = run("tangential", path("bt.npz"), "-o", path("one.npz"),
                    "--build", "--device", dev, "--hessian", hess, "-v")
            check("device-resident" in p.stderr,
                  "%s: --build reports the device-resident path: %s" %
                  (dev, p.stderr))
            one = load("one.npz")
            for k, v in two.items():
                check(k in one and np.array_equal(one[k], v),
                      "%s --hessian %s: %s equals the two-step result" %
                      (dev, hess, k))
            for k, v in b.items():
                check(k in one and np.array_equal(one[k], v),
                      "%s: build output %s included, equal" % (dev, k))
    check(b["status_counts"][0] > 0 and b["status_counts"][1:].sum() > 0,
          "the scene has active and inactive contacts")
    # Bad input is rejected with the host path's message, nothing written.
    bad = dict(build, dhat=np.float64(-1), velocities=V,
               eps_v=np.float64(1e-3))
    np.savez(path("bad.npz"), **bad)
    p = run("tangential", path("bad.npz"), "-o", path("bad_out.npz"),
            "--build", "--device", specs[0], expect=2)
    check("dhat" in p.stderr and not os.path.exists(path("bad_out.npz")),
          "device path validates like the host path: %s" % p.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__)
        sys.exit(2)
    SCENARIO, FRICL, TMP = sys.argv[1:]
    os.makedirs(TMP, exist_ok=True)
    globals()["scenario_" + SCENARIO]()
    if FAILS:
        print("%d check(s) failed" % len(FAILS))
        sys.exit(1)
    print("ok")
