#!/usr/bin/env python3
"""Black-box tests of `fricl barrier`.

Usage: test_cli_barrier.py SCENARIO FRICL TMPDIR
Scenarios: oracle (B and its gradient on vv / pv contacts against the
clamped-log barrier evaluated independently in 50-digit mpmath, with dmin,
weights and the physical barrier; an ev contact beyond its edge's end
under --distances nearest / as-classified; global COO Hessian = the local
Hessians summed; f32 close to f64), device (3,000 EE contacts on opencl:0:0 against
the host backend), errors (bad inputs: exit 2 with one line naming the
array, the output untouched), usage (bad options: exit 2).
Exits 77 (CTest SKIP) when numpy cannot be imported, and the device
scenario when there is no opencl:0:0.
"""
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("SKIPPED: numpy is not installed; the fricl barrier CLI tests did "
          "NOT run")
    sys.exit(77)

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def run(*args, expect=0):
    p = subprocess.run([FRICL] + [str(a) for a in args],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    check(p.returncode == expect,
          "fricl %s: exit %d, expected %d; stderr: %s" %
          (" ".join(map(str, args)), p.returncode, expect, p.stderr.strip()))
    return p


def oracle_b(d2, dmin, dhat, kappa, w, physical):
    """B and dB/d(d^2) in 50-digit arithmetic (mpmath), or float64."""
    try:
        import mpmath as mp
        mp.mp.dps = 50
        f = mp.mpf
        log = mp.log
    except ImportError:
        f = float
        log = np.log
    x = f(d2) - f(dmin) ** 2
    xh = (2 * f(dmin) + f(dhat)) * f(dhat)
    if x >= xh:
        return 0.0, 0.0
    b = -(x - xh) ** 2 * log(x / xh)
    bp = (xh - x) * (2 * log(x / xh) - xh / x + 1)
    s = f(kappa) * f(w) * (f(dhat) / xh ** 2 if physical else 1)
    return float(s * b), float(s * bp)


def scenario_oracle(tmp):
    rng = np.random.default_rng(7)
    dhat, kappa, dmin = 0.2, 30.0, 0.05
    n = 40
    X = rng.uniform(0, 1, (n, 3))
    vv = []
    for i in range(0, n - 1, 2):  # pairs within the barrier's range
        X[i + 1] = X[i] + rng.normal(size=3) * 0.06 + 0.08 * np.r_[1, 0, 0]
        vv.append([i, i + 1])
    vv = np.array(vv)
    w = rng.uniform(0.5, 2, len(vv))
    pv = np.arange(5)
    nrm = np.tile([0.0, 0.0, 2.0], (5, 1))
    off = -2.0 * (X[:5, 2] - rng.uniform(0.06, 0.2, 5))
    inp = os.path.join(tmp, "in.npz")
    np.savez(inp, positions=X, dhat=dhat, kappa=kappa, dmin=dmin, vv=vv,
             vv_weight=w, pv=pv[:, None], pv_plane_normal=nrm,
             pv_plane_offset=off)
    for physical in (0, 1):
        out = os.path.join(tmp, "out.npz")
        flags = ["--physical-barrier"] if physical else []
        run("barrier", inp, "-o", out, "--hessian", "global", *flags)
        r = np.load(out)
        g = np.zeros((n, 3))
        tot = 0.0
        for c, (i, j) in enumerate(vv):
            r_ = X[i] - X[j]
            B, dB = oracle_b(r_ @ r_, dmin, dhat, kappa, w[c], physical)
            got = float(r["vv_potential"][c])
            check(abs(got - B) <= 1e-12 * max(abs(B), 1e-300),
                  "vv %d: B %r, oracle %r" % (c, got, B))
            g[i] += 2 * dB * r_
            g[j] -= 2 * dB * r_
            tot += B
        for c in range(5):
            s = nrm[c] @ X[c] + off[c]
            d2 = s * s / (nrm[c] @ nrm[c])
            B, dB = oracle_b(d2, dmin, dhat, kappa, 1.0, physical)
            got = float(r["pv_potential"][c])
            check(abs(got - B) <= 1e-12 * max(abs(B), 1e-300),
                  "pv %d: B %r, oracle %r" % (c, got, B))
            g[c] += 2 * dB * s * nrm[c] / (nrm[c] @ nrm[c])
            tot += B
        check(abs(float(r["potential"]) - tot) <= 1e-12 * abs(tot),
              "total B %r, oracle %r" % (float(r["potential"]), tot))
        err = np.abs(r["gradient"] - g.ravel()).max()
        check(err <= 1e-10 * np.abs(g).max(), "gradient error %g" % err)
        # COO global Hessian = local Hessians summed.
        H = np.zeros((3 * n, 3 * n))
        np.add.at(H, (r["hessian_rows"], r["hessian_cols"]),
                  r["hessian_values"])
        out2 = os.path.join(tmp, "out_local.npz")
        run("barrier", inp, "-o", out2, "--hessian", "local", *flags)
        L = np.load(out2)
        H2 = np.zeros_like(H)
        for c, (i, j) in enumerate(vv):
            idx = np.r_[3 * i:3 * i + 3, 3 * j:3 * j + 3]
            H2[np.ix_(idx, idx)] += L["vv_hessian"][c]
        for c in range(5):
            idx = np.r_[3 * c:3 * c + 3]
            H2[np.ix_(idx, idx)] += L["pv_hessian"][c]
        check(np.abs(H - H2).max() <= 1e-12 * np.abs(H).max(),
              "global Hessian != sum of local Hessians")
        check(tuple(r["hessian_shape"]) == (3 * n, 3 * n), "hessian_shape")
    # --distances: an ev contact whose point is beyond the edge's end. The
    # nearest feature is e0 (point-point); as classified, the line (as
    # ipctk evaluates an EdgeVertexNormalCollision); a given T_dtype (0:
    # point-point with e0) stands in both modes.
    Xe = np.array([[-0.05, 0.04, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    inp_ev = os.path.join(tmp, "in_ev.npz")
    d2_point, d2_line = 0.05 ** 2 + 0.04 ** 2, 0.04 ** 2
    out_ev = os.path.join(tmp, "out_ev.npz")
    for dtype in (None, 0):
        extra = {} if dtype is None else {"ev_dtype": np.array([dtype])}
        np.savez(inp_ev, positions=Xe, dhat=dhat, kappa=kappa,
                 ev=np.array([[0, 1, 2]]), **extra)
        for mode in (None, "nearest", "as-classified"):
            args = [] if mode is None else ["--distances", mode]
            run("barrier", inp_ev, "-o", out_ev, *args)
            d2 = d2_line if mode == "as-classified" and dtype is None \
                else d2_point
            B, _ = oracle_b(d2, 0.0, dhat, kappa, 1.0, 0)
            got = float(np.load(out_ev)["potential"])
            check(B > 0 and abs(got - B) <= 1e-12 * B,
                  "ev beyond its edge, --distances %s, dtype %s: B %r, "
                  "oracle %r" % (mode, dtype, got, B))
    out3 = os.path.join(tmp, "out_f32.npz")
    run("barrier", inp, "-o", out3, "--precision", "f32", "--psd", "clamp")
    r32 = np.load(out3)
    out4 = os.path.join(tmp, "out_f64.npz")
    run("barrier", inp, "-o", out4, "--psd", "clamp")
    r64 = np.load(out4)
    check(r32["gradient"].dtype == np.float32, "f32 dtype")
    check(abs(float(r32["potential"]) / float(r64["potential"]) - 1) < 1e-3,
          "f32 potential far from f64")


def scenario_device(tmp):
    """3,000 EE contacts on opencl:0:0 (a launch that crashed PoCL when the
    runtime chose the work-group size) against the host backend."""
    p = run("devices")
    if "opencl:0:0" not in p.stdout:
        print("SKIPPED: no OpenCL device opencl:0:0")
        sys.exit(77)
    rng = np.random.default_rng(11)
    n = 3000
    a0 = rng.uniform(0, 100, (n, 3))
    a1 = a0 + rng.normal(size=(n, 3))
    m = a0 + rng.uniform(0.2, 0.8, (n, 1)) * (a1 - a0)
    d = rng.normal(size=(n, 3))
    off = rng.normal(size=(n, 3)) * 0.03
    X = np.empty((4 * n, 3))
    X[0::4], X[1::4] = a0, a1
    X[2::4], X[3::4] = m + off - 0.5 * d, m + off + 0.5 * d
    inp = os.path.join(tmp, "in.npz")
    np.savez(inp, positions=X, dhat=0.1, kappa=1.0,
             ee=np.arange(4 * n).reshape(n, 4))
    r = {}
    for dev in ("host", "opencl:0:0"):
        out = os.path.join(tmp, "out_%s.npz" % dev.replace(":", "_"))
        if os.path.exists(out):
            os.remove(out)
        p = run("barrier", inp, "-o", out, "--hessian", "local", "--psd",
                "clamp", "--device", dev)
        if p.returncode != 0:
            return
        r[dev] = np.load(out)
    h, c = r["host"], r["opencl:0:0"]
    check(float(h["potential"]) > 0, "inactive scene")
    for k in ("potential", "gradient", "ee_potential", "ee_hessian"):
        scale = np.max(np.abs(h[k]))
        check(np.max(np.abs(c[k] - h[k])) <= 1e-10 * scale,
              "%s on opencl:0:0 differs from host" % k)


def scenario_errors(tmp):
    X = np.array([[0, 0, 0], [0.05, 0, 0], [1, 0, 0], [1, 1, 0.0]])
    base = dict(positions=X, dhat=0.1, kappa=1.0, vv=np.array([[0, 1]]))
    out = os.path.join(tmp, "out.npz")
    with open(out, "wb") as f:
        f.write(b"untouched")
    cases = [
        ("positions", dict(positions=None)),
        ("lagged_positions", dict(positions=None, lagged_positions=X)),
        ("positions", dict(positions=X[:, :1])),
        ("dhat", dict(dhat=-1.0)),
        ("kappa", dict(kappa=np.nan)),
        ("dmin", dict(dmin=-0.1)),
        ("'vv'", dict(vv=np.array([[0, 9]]))),
        ("vv_weight", dict(vv_weight=np.array([np.nan]))),
        ("'vv_dmin': expected shape (m,) = (1,) (per-contact dmin)",
         dict(vv_dmin=np.array([1.0, 2.0]))),
        ("pv_plane_normal", dict(pv=np.array([[0]]),
                                 pv_plane_normal=np.zeros((1, 3)),
                                 pv_plane_offset=np.zeros(1))),
        ("pv_plane_offset", dict(pv=np.array([[0]]),
                                 pv_plane_normal=np.ones((1, 3)))),
        ("ee_dtype", dict(ee=np.array([[0, 1, 2, 3]]),
                          ee_dtype=np.array([12], dtype=np.int32))),
        ("bogus", dict(bogus=np.zeros(1))),
        ("ee_weight", dict(ee_weight=np.ones(1))),
    ]
    for name, change in cases:
        arrays = dict(base)
        for k, v in change.items():
            if v is None:
                arrays.pop(k)
            else:
                arrays[k] = v
        inp = os.path.join(tmp, "bad.npz")
        np.savez(inp, **arrays)
        p = run("barrier", inp, "-o", out, expect=2)
        lines = p.stderr.strip().splitlines()
        check(len(lines) == 1 and name in lines[0],
              "%s: message %r does not name it in one line" % (name,
                                                                p.stderr))
        with open(out, "rb") as f:
            check(f.read() == b"untouched", "%s: output touched" % name)
    inp = os.path.join(tmp, "ok.npz")
    np.savez(inp, **base)
    run("barrier", inp, "-o", inp, expect=2)  # output is the input


def oracle_a(d2, dmin, dhat_p, dhat_a, Y, eps_c, kappa, w):
    """kappa w a(d^2 - dmin^2) and its derivative, ipctk 1.6.1's normal
    adhesion (docs/barrier.md section 13) in 50-digit arithmetic."""
    try:
        import mpmath as mp
        mp.mp.dps = 50
        f = mp.mpf
    except ImportError:
        f = float
    x = f(d2) - f(dmin) ** 2
    xp = 2 * f(dmin) * f(dhat_p) + f(dhat_p) ** 2
    xa = 2 * f(dmin) * f(dhat_a) + f(dhat_a) ** 2
    a2 = f(Y) * f(eps_c) / (4 * (f(dhat_p) + f(dmin)) * (xp - xa))
    a1 = a2 * (1 - xa / xp)
    c1 = a2 * (xa - xp) ** 2 - xp ** 2 * a1
    if x < xp:
        a, da = a1 * x * x + c1, 2 * a1 * x
    elif x < xa:
        a, da = a2 * (x - xa) ** 2, 2 * a2 * (x - xa)
    else:
        a, da = f(0), f(0)
    s = f(kappa) * f(w)
    return float(s * a), float(s * da)


def scenario_adhesion(tmp):
    """--function adhesion: each vv contact's value and the gradient
    against the adhesion's definition, on both pieces and beyond d_a;
    the parameters' absence refused."""
    rng = np.random.default_rng(11)
    dhat_a, dhat_p, Y, eps_c, kappa, dmin = 0.1, 0.04, 2e3, 0.3, 1.5, 0.01
    n = 30
    X = rng.uniform(0, 1, (n, 3))
    vv = []
    for c, i in enumerate(range(0, n - 1, 2)):
        dist = dmin + (0.02, 0.06, 0.15)[c % 3] * (1 + 0.1 * rng.random())
        u = rng.normal(size=3)
        X[i + 1] = X[i] + dist * u / np.linalg.norm(u)
        vv.append([i, i + 1])
    vv = np.array(vv)
    w = rng.uniform(0.5, 2, len(vv))
    inp = os.path.join(tmp, "in.npz")
    np.savez(inp, positions=X, dhat=dhat_a, kappa=kappa, dmin=dmin, vv=vv,
             vv_weight=w, dhat_p=dhat_p, Y=Y, eps_c=eps_c)
    out = os.path.join(tmp, "out.npz")
    run("barrier", inp, "-o", out, "--function", "adhesion")
    r = np.load(out)
    g = np.zeros((n, 3))
    pieces = set()
    for c, (i, j) in enumerate(vv):
        d = X[i] - X[j]
        A, dA = oracle_a(d @ d, dmin, dhat_p, dhat_a, Y, eps_c, kappa, w[c])
        pieces.add(np.sign(A))
        got = float(r["vv_potential"][c])
        check(abs(got - A) <= 1e-12 * max(abs(A), 1e-300) or (A == 0 and
                                                               got == 0),
              "vv %d: adhesion %r, oracle %r" % (c, got, A))
        g[i] += 2 * dA * d
        g[j] -= 2 * dA * d
    check(pieces == {-1.0, 0.0}, "the scene misses a piece: %s" % pieces)
    err = np.abs(r["gradient"] - g.ravel()).max()
    check(err <= 1e-10 * np.abs(g).max(), "adhesion gradient error %g" % err)
    # the barrier on the same input is another function
    run("barrier", inp, "-o", out)
    check(float(np.load(out)["potential"]) > 0, "barrier: B > 0")
    bad = os.path.join(tmp, "bad.npz")
    np.savez(bad, positions=X, dhat=dhat_a, kappa=kappa, vv=vv)
    p = run("barrier", bad, "-o", out, "--function", "adhesion", expect=2)
    check("dhat_p" in p.stderr, "missing dhat_p: not named (%s)" % p.stderr)
    p = run("barrier", inp, "-o", out, "--function", "glue", expect=2)
    check("--function" in p.stderr, "--function glue: not named")


def scenario_usage(tmp):
    inp = os.path.join(tmp, "in.npz")
    np.savez(inp, positions=np.zeros((2, 3)), dhat=0.1, kappa=1.0)
    run("barrier", inp, expect=2)
    run("barrier", "-o", os.path.join(tmp, "o.npz"), expect=2)
    run("barrier", inp, "-o", os.path.join(tmp, "o.npz"), "--psd", "x",
        expect=2)
    run("barrier", inp, "-o", os.path.join(tmp, "o.npz"), "--hessian",
        "factored", expect=2)
    run("barrier", inp, "-o", os.path.join(tmp, "o.npz"), "--bogus", expect=2)
    p = run("barrier", inp, "-o", os.path.join(tmp, "o.npz"), "--distances",
            "closest", expect=2)
    check("--distances" in p.stderr, "--distances closest: not named")
    p = run("barrier", "--help")
    check("positions" in p.stdout, "help lacks the schema")
    check("--distances" in p.stdout and "as-classified" in p.stdout,
          "help lacks --distances")
    run("barrier", inp, "-o", os.path.join(tmp, "o.npz"))  # no contacts: ok
    r = np.load(os.path.join(tmp, "o.npz"))
    check(float(r["potential"]) == 0 and not r["gradient"].any(),
          "no contacts: zeros")


if __name__ == "__main__":
    scenario, FRICL, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(tmp, exist_ok=True)
    {"oracle": scenario_oracle, "device": scenario_device,
     "errors": scenario_errors, "adhesion": scenario_adhesion,
     "usage": scenario_usage}[scenario](tmp)
    if FAILS:
        print("%d failure(s)" % len(FAILS))
        sys.exit(1)
    print("test_cli_barrier %s: all checks passed" % scenario)
