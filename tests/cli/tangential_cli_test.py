#!/usr/bin/env python3
"""Black-box tests of `fricl tangential` (and of the .npz writer as numpy
reads it), driven by numpy.

    tangential_cli_test.py SCENARIO FRICL_EXE TMPDIR [TEST_NPZ_EXE]

One CTest case per scenario (see cli_tests.cmake). Inputs are written with
numpy.savez / savez_compressed, outputs read with numpy.load. Exit status:
0 pass, 1 failure, 77 SKIPPED (numpy not importable).

Scenarios
  example       the face-vertex worked example of the spec (section 6), all
                four cases, both profiles, to 1e-12 relative
  consistency   random scenes with every stencil type (3-D and 2-D): local,
                factored and global Hessians, gradient and per-contact
                potentials agree with each other; the COO is sorted, unique
                and square; weights scale D linearly
  variants      the input variants the schema accepts give the same result:
                savez_compressed, int64 ids, Fortran-order arrays, float32
                data, eps_v of shape (1,), ev closest_point of shape (m,),
                (m, 0) closest points for vv/pv, absent optional arrays
  f32           --precision f32 writes float32 close to the f64 result
  compress      --compress output is deflated and reads back equal;
                two runs give byte-identical files
  empty         no contacts, zero-length groups, zero vertices
  errors        every malformed input exits 2 with a message naming the
                array; the existing output is untouched and no temporary
                file is left
  usage         option errors exit 2; --help; the top-level usage names
                the command
  atomic        unwritable output directory exits 1; a successful run
                leaves only the output file
  npz_numpy     archives from the npz writer (stored, deflated, forced
                ZIP64) read by numpy and zipfile.testzip (needs
                TEST_NPZ_EXE)
"""
import os
import shutil
import subprocess
import sys
import zipfile

try:
    import numpy as np
except ImportError as exc:
    print("*" * 72)
    print("SKIPPED: numpy not installed (%s); the fricl tangential CLI "
          "tests did NOT run" % exc)
    print("*" * 72)
    sys.exit(77)

FRICL = TMP = TEST_NPZ = None
K = {"vv": 2, "ev": 3, "ee": 4, "fv": 4, "pv": 1}
NB = {"vv": 0, "ev": 1, "ee": 2, "fv": 2, "pv": 0}
TYPES = ("vv", "ev", "ee", "fv", "pv")


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


def run(args, expect=0, env=None):
    r = subprocess.run([FRICL] + args, capture_output=True, text=True,
                       env=env)
    if r.returncode != expect:
        raise Failure("fricl %s: exit %d, expected %d\nstdout: %s\n"
                      "stderr: %s" % (" ".join(args), r.returncode, expect,
                                      r.stdout, r.stderr))
    return r


def path(name):
    return os.path.join(TMP, name)


def tangential(data, extra=(), expect=0, name="in", compressed=False):
    inp = path(name + ".npz")
    out = path(name + "_out.npz")
    (np.savez_compressed if compressed else np.savez)(inp, **data)
    r = run(["tangential", inp, "-o", out] + list(extra), expect=expect)
    if expect != 0:
        return r
    with np.load(out) as z:
        return {k: z[k] for k in z.files}


# ------------------------------------------------------------- scenes


def random_scene(rng, dim, n=9, counts=None, weights=True, aniso=True):
    """Random lagged data for every type valid in dim (vertices may repeat
    across contacts, as in a mesh)."""
    types = TYPES if dim == 3 else ("vv", "ev", "pv")
    counts = counts or dict((t, int(rng.integers(1, 5))) for t in types)
    d = dict(velocities=rng.normal(size=(n, dim)) * 1e-3,
             eps_v=np.float64(10.0 ** rng.uniform(-4, -2)))
    for t, m in counts.items():
        k = K[t]
        ids = np.array([rng.choice(n, k, replace=False) for _ in range(m)],
                       dtype=np.int32).reshape(m, k)
        d[t] = ids
        if NB[t]:
            d[t + "_closest_point"] = rng.uniform(-0.2, 1.2, (m, NB[t]))
        P = np.zeros((m, dim, dim - 1))
        for i in range(m):
            q, _ = np.linalg.qr(rng.normal(size=(dim, dim)))
            P[i] = q[:, :dim - 1]
        d[t + "_tangent_basis"] = P
        d[t + "_normal_force"] = rng.uniform(0, 50, m)
        d[t + "_mu_s"] = rng.uniform(0, 1, m)
        d[t + "_mu_k"] = rng.uniform(0, 1, m)
        if weights:
            d[t + "_weight"] = rng.uniform(-0.5, 2, m)
        if aniso:
            d[t + "_mu_aniso"] = rng.uniform(0.5, 2, (m, dim - 1))
    return d


def gammas(t, cp):
    if t == "vv":
        return np.array([1.0, -1.0])
    if t == "pv":
        return np.array([1.0])
    if t == "ev":
        a = float(np.reshape(cp, -1)[0])
        return np.array([1.0, a - 1, -a])
    b0, b1 = np.reshape(cp, -1)
    if t == "ee":
        return np.array([1 - b0, b0, b1 - 1, -b1])
    return np.array([1.0, b0 + b1 - 1, -b0, -b1])


def unpack_S(p, dim):
    S = np.zeros((dim, dim))
    iu = np.triu_indices(dim)
    S[iu] = p
    S.T[iu] = p
    return S


def coo_dense(out):
    n = int(out["hessian_shape"][0])
    check(tuple(out["hessian_shape"]) == (n, n), "hessian_shape not square")
    r, c, v = out["hessian_rows"], out["hessian_cols"], out["hessian_values"]
    check(r.dtype == np.int64 and c.dtype == np.int64,
          "COO indices are not int64")
    check(len(r) == len(c) == len(v), "COO arrays differ in length")
    if len(r):
        key = r * n + c
        check(np.all(np.diff(key) > 0),
              "COO not sorted by row then column, or duplicated")
        check(r.min() >= 0 and r.max() < n and c.min() >= 0 and c.max() < n,
              "COO index out of range")
    H = np.zeros((n, n))
    H[r, c] = v
    return H


def close(a, b, rel, what, floor=0.0):
    a, b = np.asarray(a, float), np.asarray(b, float)
    check(a.shape == b.shape, "%s: shape %s vs %s" % (what, a.shape, b.shape))
    scale = max(float(np.max(np.abs(b))) if b.size else 0.0, floor)
    diff = float(np.max(np.abs(a - b))) if b.size else 0.0
    check(diff <= rel * scale, "%s: max|diff| %.3e > %.1e * %.3e" %
          (what, diff, rel, scale))


# ---------------------------------------------------------- scenarios


def scenario_example():
    """Spec section 6: p moves, t0..t2 fixed; values to 17 digits."""
    N = 21.425647393651286  # the direct double evaluation (spec 6)
    base = dict(
        eps_v=np.float64(1e-4), fv=np.array([[0, 1, 2, 3]]),
        fv_closest_point=np.array([[0.2, 0.2]]),
        fv_tangent_basis=np.array([[[1.0, 0], [0, 1], [0, 0]]]),
        fv_normal_force=np.array([N]), fv_mu_s=np.array([0.5]),
        fv_mu_k=np.array([0.3]))
    cases = [
        # v_p, profile -> D, grad_p (x, y), (M00, M01, M11) NONE
        ((3e-5, 5e-5, 0), "ipctk", 3.7177938256755385e-04,
         (3.3654128998501945e+00, 5.6090214997503242e+00),
         (8.4332155182634988e+04, -4.6413791353952486e+04,
          3.4824111071752334e+04)),
        ((3e-5, 5e-5, 0), "cubic", 3.6823109837268936e-04,
         (3.4180274145945628e+00, 5.6967123576576048e+00),
         (8.7854010340369731e+04, -4.3467061354637268e+04,
          4.1489144895423310e+04)),
        ((3e-4, -2e-4, 7e-5), "ipctk", 2.3175381086346325e-03,
         (5.3481648660799212e+00, -3.5654432440532813e+00),
         (5.4852972985435105e+03, 8.2279459478152646e+03,
          1.2341918921722895e+04)),
        ((4.8e-5, 6.4e-5, 0), "ipctk", 5.1369903650779454e-04,
         (3.8998106360028325e+00, 5.1997475146704429e+00),
         (4.9899475753918094e+04, -4.1795438883743437e+04,
          2.5518803071734428e+04)),
        ((4.8e-5, 6.4e-5, 0), "cubic", 5.1291742889087414e-04,
         (3.9590482659167996e+00, 5.2787310212223990e+00),
         (4.8467899697663890e+04, -4.5349696678581462e+04,
          2.2013909968491377e+04)),
        ((0, 0, 0), "ipctk", 1.1605559004894446e-04, (0, 0),
         (2.1425647393651284e+05, 0, 2.1425647393651284e+05)),
        ((0, 0, 0), "cubic", 1.1427011943280685e-04, (0, 0),
         (2.1425647393651284e+05, 0, 2.1425647393651284e+05)),
    ]
    # Case 3 with projections (ipctk and cubic).
    proj = {("ipctk", "clamp"): (5.1997475146704429e+04,
                                 -3.8998106360028324e+04,
                                 2.9248579770021245e+04),
            ("ipctk", "abs"): (5.4095474539490764e+04,
                               -3.6200773836313211e+04,
                               3.2978356468308063e+04),
            ("cubic", "clamp"): (5.2787310212223990e+04,
                                 -3.9590482659167995e+04,
                                 2.9692861994375999e+04),
            ("cubic", "abs"): (5.7106720726784090e+04,
                               -3.3831268639754529e+04,
                               3.7371814020260620e+04)}
    gam = np.array([1, -0.6, -0.2, -0.2])
    for vp, prof, D, g, M in cases:
        v = np.zeros((4, 3))
        v[0] = vp
        for dev in ("reference", "auto"):
            for hess in ("global", "local", "factored"):
                o = tangential(dict(base, velocities=v),
                               ["--mu-profile", prof, "--hessian", hess,
                                "--device", dev])
                what = "example %s %s %s %s" % (vp, prof, hess, dev)
                close(o["potential"], D, 1e-12, what + " D")
                check(o["potential"].shape == () and
                      o["potential"].dtype == np.float64,
                      what + ": potential not a float64 scalar")
                grad = np.kron(gam, np.r_[g, 0])
                close(o["gradient"], grad, 1e-12, what + " gradient",
                      floor=1.0)
                S = np.zeros((3, 3))
                S[0, 0], S[0, 1], S[1, 0], S[1, 1] = M[0], M[1], M[1], M[2]
                H = np.kron(np.outer(gam, gam), S)
                if hess == "global":
                    close(coo_dense(o), H, 1e-12, what + " Hessian")
                elif hess == "local":
                    close(o["fv_hessian"][0], H, 1e-12, what + " Hessian")
                else:
                    close(o["fv_gamma"][0], gam, 1e-15, what + " gamma")
                    close(unpack_S(o["fv_hessian_factored"][0], 3), S,
                          1e-12, what + " S")
                    close(o["fv_grad"][0], np.r_[g, 0], 1e-12,
                          what + " q", floor=1.0)
    v = np.zeros((4, 3))
    v[0] = (4.8e-5, 6.4e-5, 0)
    for (prof, psd), M in proj.items():
        o = tangential(dict(base, velocities=v),
                       ["--mu-profile", prof, "--psd", psd, "--hessian",
                        "factored"])
        S = np.zeros((3, 3))
        S[0, 0], S[0, 1], S[1, 0], S[1, 1] = M[0], M[1], M[1], M[2]
        close(unpack_S(o["fv_hessian_factored"][0], 3), S, 1e-12,
              "example case 3 %s %s" % (prof, psd))


def scenario_consistency():
    rng = np.random.default_rng(7)
    for it in range(6):
        dim = 3 if it % 2 == 0 else 2
        d = random_scene(rng, dim)
        n = len(d["velocities"])
        for psd in ("none", "clamp", "abs"):
            for prof in ("cubic", "ipctk"):
                opts = ["--psd", psd, "--mu-profile", prof]
                # OpenCL runs cost a context each: the default device for
                # the first scene, the reference backend for the others.
                if it > 0:
                    opts += ["--device", "reference"]
                g = tangential(d, opts + ["--hessian", "global"])
                loc = tangential(d, opts + ["--hessian", "local"])
                fac = tangential(d, opts + ["--hessian", "factored"])
                non = tangential(d, opts)
                what = "scene %d dim %d %s %s" % (it, dim, psd, prof)
                check(set(non) == {"potential", "gradient"} |
                      {t + "_potential" for t in TYPES if t in d},
                      what + ": --hessian none wrote %s" % sorted(non))
                H = coo_dense(g)
                check(H.shape == (n * dim, n * dim), what + ": shape")
                HL = np.zeros_like(H)
                gradF = np.zeros(n * dim)
                total = 0.0
                for t in TYPES:
                    if t not in d:
                        continue
                    ids = d[t]
                    m, k = ids.shape
                    ndof = k * dim
                    check(loc[t + "_hessian"].shape == (m, ndof, ndof),
                          what + ": %s_hessian shape" % t)
                    total += float(np.sum(g[t + "_potential"]))
                    for c in range(m):
                        dofs = (ids[c][:, None] * dim +
                                np.arange(dim)).reshape(-1)
                        Hc = loc[t + "_hessian"][c]
                        HL[np.ix_(dofs, dofs)] += Hc
                        close(Hc, Hc.T, 1e-14, what + " symmetry")
                        gam = fac[t + "_gamma"][c]
                        cp = d.get(t + "_closest_point", np.zeros((m, 0)))[c]
                        close(gam, gammas(t, cp), 1e-15, what + " gamma")
                        S = unpack_S(fac[t + "_hessian_factored"][c], dim)
                        close(np.kron(np.outer(gam, gam), S), Hc, 1e-13,
                              what + " factored vs local", floor=1e-300)
                        gradF[dofs] += np.kron(gam, fac[t + "_grad"][c])
                        if psd != "none":
                            ev = np.linalg.eigvalsh(Hc)
                            check(ev.min() >= -1e-10 * max(abs(ev).max(),
                                                           1e-300),
                                  what + ": projected Hessian has "
                                  "eigenvalue %g" % ev.min())
                close(H, HL, 1e-13, what + " global vs local", floor=1e-300)
                close(g["gradient"], gradF, 1e-13, what + " gradient",
                      floor=1e-300)
                close(g["potential"], total, 1e-12, what + " D sum",
                      floor=1e-300)
                for o in (loc, fac, non):
                    check(np.array_equal(o["gradient"], g["gradient"]) and
                          o["potential"] == g["potential"],
                          what + ": outputs differ between --hessian modes")
        # D is linear in w (and in N): doubling every weight doubles D.
        d2 = dict(d)
        for t in TYPES:
            if t in d:
                d2[t + "_weight"] = 2 * d[t + "_weight"]
        a = tangential(d, ["--hessian", "global"])
        b = tangential(d2, ["--hessian", "global"])
        close(b["potential"], 2 * a["potential"], 1e-14, "weight scaling",
              floor=1e-300)
        close(b["hessian_values"], 2 * a["hessian_values"], 1e-14,
              "weight scaling Hessian", floor=1e-300)


def scenario_variants():
    rng = np.random.default_rng(11)
    d = random_scene(rng, 3, weights=False, aniso=False)
    ref = tangential(d, ["--hessian", "global"])
    variants = []
    variants.append(("compressed", d, True))
    v = dict(d)
    for t in TYPES:
        v[t] = d[t].astype(np.int64)
    variants.append(("int64 ids", v, False))
    v = dict(d)
    for k in list(v):
        if isinstance(v[k], np.ndarray) and v[k].ndim >= 2:
            v[k] = np.asfortranarray(v[k])
    variants.append(("Fortran order", v, False))
    v = dict(d, eps_v=np.array([d["eps_v"]]))
    variants.append(("eps_v (1,)", v, False))
    v = dict(d, ev_closest_point=d["ev_closest_point"][:, 0])
    variants.append(("ev closest point (m,)", v, False))
    v = dict(d, vv_closest_point=np.zeros((len(d["vv"]), 0)),
             pv_closest_point=np.zeros((len(d["pv"]), 0)))
    variants.append(("(m, 0) closest points", v, False))
    v = dict(d)
    for t in TYPES:
        v[t + "_weight"] = np.ones(len(d[t]))
        v[t + "_mu_aniso"] = np.ones((len(d[t]), 2))
    variants.append(("explicit default weight and anisotropy", v, False))
    for name, data, comp in variants:
        o = tangential(data, ["--hessian", "global"], compressed=comp)
        for k in ref:
            check(np.array_equal(o[k], ref[k]),
                  "variant '%s': %s differs" % (name, k))
    # float32 inputs are converted exactly to float64: same as the f64
    # input rounded to float32.
    v32 = dict((k, a.astype(np.float32) if a.dtype == np.float64 else a)
               for k, a in d.items())
    v64 = dict((k, a.astype(np.float32).astype(np.float64)
                if a.dtype == np.float64 else a) for k, a in d.items())
    o32 = tangential(v32, ["--hessian", "global"])
    o64 = tangential(v64, ["--hessian", "global"])
    for k in o64:
        check(np.array_equal(o32[k], o64[k]) and o32[k].dtype == o64[k].dtype,
              "float32 input: %s differs" % k)


def scenario_f32():
    rng = np.random.default_rng(13)
    d = random_scene(rng, 3)
    for hess in ("global", "local", "factored"):
        a = tangential(d, ["--hessian", hess])
        b = tangential(d, ["--hessian", hess, "--precision", "f32"])
        check(set(a) == set(b), "f32 wrote other arrays")
        for k in a:
            if k.startswith("hessian_") and k != "hessian_values":
                check(np.array_equal(a[k], b[k]), "f32: %s differs" % k)
                continue
            check(b[k].dtype == np.float32, "f32: %s is %s" % (k, b[k].dtype))
            close(b[k], a[k], 2e-4, "f32 " + k, floor=1e-30)


def scenario_compress():
    rng = np.random.default_rng(17)
    d = random_scene(rng, 3, n=30, counts=dict(fv=200, ee=200))
    a = tangential(d, ["--hessian", "global"], name="plain")
    b = tangential(d, ["--hessian", "global", "--compress"], name="comp")
    for k in a:
        check(np.array_equal(a[k], b[k]), "--compress: %s differs" % k)
    with zipfile.ZipFile(path("comp_out.npz")) as z:
        check(z.testzip() is None, "--compress: CRC error")
        check(all(i.compress_type == zipfile.ZIP_DEFLATED
                  for i in z.infolist()), "--compress: a member is stored")
    with zipfile.ZipFile(path("plain_out.npz")) as z:
        check(z.testzip() is None, "stored output: CRC error")
        check(all(i.compress_type == zipfile.ZIP_STORED
                  for i in z.infolist()), "default output is not stored")
    check(os.path.getsize(path("comp_out.npz")) <
          os.path.getsize(path("plain_out.npz")), "--compress did not shrink")
    first = open(path("comp_out.npz"), "rb").read()
    tangential(d, ["--hessian", "global", "--compress"], name="comp")
    check(open(path("comp_out.npz"), "rb").read() == first,
          "two runs wrote different bytes")


def scenario_empty():
    rng = np.random.default_rng(19)
    base = dict(velocities=rng.normal(size=(5, 3)), eps_v=np.float64(1e-3))
    o = tangential(base, ["--hessian", "global"])
    check(o["potential"] == 0 and o["gradient"].shape == (15,) and
          not np.any(o["gradient"]), "no contacts: nonzero output")
    check(len(o["hessian_values"]) == 0 and
          tuple(o["hessian_shape"]) == (15, 15), "no contacts: Hessian")
    d = random_scene(rng, 3, n=5, counts=dict(fv=0, ee=2))
    for hess in ("global", "local", "factored"):
        o = tangential(d, ["--hessian", hess])
        check(o["fv_potential"].shape == (0,), "m = 0: fv_potential")
        if hess == "local":
            check(o["fv_hessian"].shape == (0, 12, 12), "m = 0: fv_hessian")
        if hess == "factored":
            check(o["fv_gamma"].shape == (0, 4) and
                  o["fv_hessian_factored"].shape == (0, 6), "m = 0: factored")
    o = tangential(dict(velocities=np.zeros((0, 2)), eps_v=np.float64(1),
                        vv=np.zeros((0, 2), np.int32),
                        vv_tangent_basis=np.zeros((0, 2, 1)),
                        vv_normal_force=np.zeros(0), vv_mu_s=np.zeros(0),
                        vv_mu_k=np.zeros(0)), ["--hessian", "global"])
    check(o["potential"] == 0 and o["gradient"].shape == (0,) and
          tuple(o["hessian_shape"]) == (0, 0), "zero vertices")


def scenario_adhesion():
    """--mollifier adhesion: D = N mu f0_a(|tau|) of one fv contact (mu_s =
    mu_k) against ipctk 1.6.1's tangential_adhesion_f0, below, inside
    and beyond [eps_a, 2 eps_a]; friction stays ipctk's smooth_friction_f0
    (skipped without ipctk)."""
    try:
        import ipctk
    except ImportError:
        print("SKIPPED: no ipctk")
        sys.exit(77)
    N, mu, eps = 3.5, 0.4, 1e-4
    base = dict(
        eps_v=np.float64(eps), fv=np.array([[0, 1, 2, 3]]),
        fv_closest_point=np.array([[0.2, 0.2]]),
        fv_tangent_basis=np.array([[[1.0, 0], [0, 1], [0, 0]]]),
        fv_normal_force=np.array([N]), fv_mu_s=np.array([mu]),
        fv_mu_k=np.array([mu]))
    for speed in (0.3, 1.0, 1.6, 2.5):
        v = np.zeros((4, 3))
        v[0] = (0.6 * speed * eps, 0.8 * speed * eps, 0.0)
        y = speed * eps
        for moll, f0 in (("adhesion", ipctk.tangential_adhesion_f0),
                         ("friction", ipctk.smooth_friction_f0)):
            o = tangential(dict(base, velocities=v), ["--mollifier", moll,
                                                      "--mu-profile",
                                                      "ipctk"])
            close(o["potential"], N * mu * f0(y, eps), 1e-12,
                  "%s at |tau| = %g eps_a" % (moll, speed))
    expect_error(dict(base, velocities=np.zeros((4, 3))), "--mollifier",
                 ["--mollifier", "glue"])


def expect_error(data, want, extra=(), code=2, raw=None):
    """The run fails with `code`, stderr names `want`, the existing output
    is untouched and no temporary file is left."""
    d = path("err")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    inp, out = os.path.join(d, "in.npz"), os.path.join(d, "out.npz")
    if raw is not None:
        with open(inp, "wb") as f:
            f.write(raw)
    elif data is not None:
        np.savez(inp, **data)
    with open(out, "wb") as f:
        f.write(b"previous content")
    r = run(["tangential", inp, "-o", out] + list(extra), expect=code)
    check(want in r.stderr, "expected '%s' in the message, got: %s" %
          (want, r.stderr))
    check(r.stderr.count("\n") == 1, "error is not one line: %r" % r.stderr)
    check(open(out, "rb").read() == b"previous content",
          "output changed on error (%s)" % want)
    left = sorted(set(os.listdir(d)) - {"in.npz", "out.npz"})
    check(not left, "files left behind: %s" % left)


def scenario_errors():
    rng = np.random.default_rng(23)
    d = random_scene(rng, 3, n=6)

    def without(*keys):
        return dict((k, v) for k, v in d.items() if k not in keys)

    expect_error(without("velocities"), "'velocities'")
    expect_error(without("eps_v"), "'eps_v'")
    expect_error(without("fv_normal_force"), "'fv_normal_force'")
    expect_error(without("ev_closest_point"), "'ev_closest_point'")
    expect_error(without("ee_tangent_basis"), "'ee_tangent_basis'")
    expect_error(without("fv"), "'fv'")  # fv_* without fv
    expect_error(dict(d, fv_tangent_basis=d["fv_tangent_basis"][:, :, :1]),
                 "'fv_tangent_basis': expected shape")
    expect_error(dict(d, ee_mu_s=d["ee_mu_s"][:-1]), "'ee_mu_s'")
    expect_error(dict(d, vv_mu_aniso=np.ones((len(d["vv"]), 3))),
                 "'vv_mu_aniso'")
    expect_error(dict(d, vv_closest_point=np.zeros((len(d["vv"]), 1))),
                 "'vv_closest_point'")
    expect_error(dict(d, fv=d["fv"].astype(np.float64)), "'fv': dtype")
    expect_error(dict(d, fv=d["fv"][:, :3]), "'fv': expected shape")
    expect_error(dict(d, ev_normal_force=d["ev_normal_force"].astype(
        np.int32)), "'ev_normal_force': dtype")
    bad = d["ev"].copy()
    bad[1, 2] = 6
    expect_error(dict(d, ev=bad), "ev[1, 2] = 6 is out of range")
    bad = d["vv"].copy()
    bad[0, 0] = -1
    expect_error(dict(d, vv=bad), "vv[0, 0] = -1")
    bad = d["pv"].astype(np.int64)
    bad[0, 0] = 2 ** 40
    expect_error(dict(d, pv=bad), "pv[0, 0] = 1099511627776")
    expect_error(dict(d, fv_wieght=d["fv_normal_force"]),
                 "unknown array 'fv_wieght'")
    expect_error(dict(d, extra=np.zeros(2)), "unknown array 'extra'")
    expect_error(dict(d, velocities=np.zeros((6, 4))), "'velocities'")
    expect_error(dict(d, velocities=np.zeros(6)), "'velocities'")
    expect_error(dict(d, eps_v=np.zeros(2)), "'eps_v'")
    expect_error(dict(d, eps_v=np.float64(-1)), "'eps_v' = -1")
    expect_error(dict(d, eps_v=np.float64(np.inf)), "'eps_v' = inf")
    two = random_scene(rng, 2, n=6)
    expect_error(dict(two, ee=np.zeros((1, 4), np.int32)),
                 "'ee': ee contacts exist only in 3-D")
    # Values the library rejects: exit 2, its message names the group.
    nf = d["fv_normal_force"].copy()
    nf[1] = -1
    expect_error(dict(d, fv_normal_force=nf), "(fv) contact 1: normal_force")
    mu = d["ee_mu_k"].copy()
    mu[0] = np.nan
    expect_error(dict(d, ee_mu_k=mu), "(ee) contact 0: mu_k")
    P = d["fv_tangent_basis"].copy()
    P[0] *= 2
    expect_error(dict(d, fv_tangent_basis=P), "tangent_basis is not "
                 "orthonormal", extra=["--check-basis"])
    # Not an archive, or a damaged one; a missing file.
    np.save(path("plain.npy"), np.zeros(3))
    expect_error(None, "this is an .npy file",
                 raw=open(path("plain.npy"), "rb").read())
    np.savez(path("good.npz"), **d)
    good = open(path("good.npz"), "rb").read()
    expect_error(None, "end-of-central-directory", raw=good[:-30])
    off = good.index(b"fv_mu_s.npy") + 11 + 20 + 130
    corrupt = bytearray(good)
    corrupt[off] ^= 0xFF
    expect_error(None, "member 'fv_mu_s.npy': CRC-32 mismatch",
                 raw=bytes(corrupt))
    expect_error(None, "not an .npz (ZIP) archive", raw=b"")
    r = run(["tangential", path("does_not_exist.npz"), "-o", path("x.npz")],
            expect=2)
    check("cannot open" in r.stderr, "missing input: %s" % r.stderr)


def scenario_usage():
    np.savez(path("u.npz"), velocities=np.zeros((1, 3)), eps_v=1.0)
    u = path("u.npz")
    for args, want in [
            ([u], "-o/--out OUT.npz is required"),
            (["-o", path("o.npz")], "the input IN.npz is required"),
            ([u, u, "-o", path("o.npz")], "unexpected argument"),
            ([u, "-o", path("o.npz"), "--psd", "square"], "--psd 'square'"),
            ([u, "-o", path("o.npz"), "--hessian", "dense"],
             "--hessian 'dense'"),
            ([u, "-o", path("o.npz"), "--precision", "f16"],
             "--precision 'f16'"),
            ([u, "-o", path("o.npz"), "--mu-profile", "quad"],
             "--mu-profile 'quad'"),
            ([u, "-o", path("o.npz"), "--psd"], "--psd needs a value"),
            ([u, "-o", path("o.npz"), "--psd", "abs", "--psd=abs"],
             "given twice"),
            ([u, "-o", path("o.npz"), "--frobnicate"], "unknown option"),
            ([u, "-o", path("o.npz"), "-x"], "unknown option '-x'"),
            ([u, "-o", path("o.npz"), "--device", "opencl:x"], "")]:
        r = run(["tangential"] + args, expect=2)
        check(want in r.stderr, "usage %s: %s" % (args, r.stderr))
    r = run(["tangential", "--help"])
    for word in ("velocities", "eps_v", "T_tangent_basis", "hessian_rows",
                 "T_hessian_factored", "Exit status"):
        check(word in r.stdout, "--help lacks %s" % word)
    r = run(["--help"])
    check("tangential" in r.stdout, "fricl --help lacks tangential")
    # --psd=clamp and --out= forms.
    run(["tangential", u, "--out=" + path("o.npz"), "--psd=clamp"])
    check(os.path.exists(path("o.npz")), "--out= not written")


def scenario_atomic():
    np.savez(path("a.npz"), velocities=np.zeros((2, 3)), eps_v=1.0)
    r = run(["tangential", path("a.npz"), "-o",
             path("no_such_dir/out.npz")], expect=1)
    check("no_such_dir" in r.stderr, "unwritable output: %s" % r.stderr)
    d = path("atomic")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    run(["tangential", path("a.npz"), "-o", os.path.join(d, "o.npz")])
    check(os.listdir(d) == ["o.npz"], "left behind: %s" % os.listdir(d))
    # A directory as the output is refused, nothing created.
    r = run(["tangential", path("a.npz"), "-o", d], expect=1)


def scenario_npz_numpy():
    check(TEST_NPZ is not None, "npz_numpy needs the test_npz executable")
    d = path("emit")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    subprocess.run([TEST_NPZ, "emit", d], check=True)
    for name in ("stored", "deflated"):
        f = os.path.join(d, name + ".npz")
        with zipfile.ZipFile(f) as z:
            check(z.testzip() is None, "%s: CRC error per zipfile" % name)
            check(len(z.infolist()) == 46, "%s: member count" % name)
        with np.load(f) as z:
            check(z["velocities"].tolist() ==
                  [[1.5, -2.0, 0.25], [3.0, 4.0, -0.5]], name + " velocities")
            check(z["fv"].dtype == np.int32 and z["ids64"].dtype == np.int64
                  and z["f32"].dtype == np.float32, name + " dtypes")
            check(z["eps_v"].shape == () and z["eps_v"] == 1e-3, name)
            check(z["empty"].shape == (0, 3), name + " empty")
            check(np.array_equal(z["ramp_07"],
                                 7 + np.arange(1000) // 8), name + " ramp")


def scenario_valgrind():
    """fricl tangential under valgrind: no invalid access, no leak, on
    success (every Hessian mode) and on errors. Reference backend only:
    PoCL's LLVM leaks when it compiles a kernel inside the process."""
    vg = os.environ.get("FRICL_VALGRIND")
    if not vg:
        print("SKIPPED: FRICL_VALGRIND not set")
        sys.exit(77)
    rng = np.random.default_rng(29)
    d = random_scene(rng, 3)
    np.savez(path("vg.npz"), **d)
    bad = dict(d, fv_normal_force=-d["fv_normal_force"])
    np.savez(path("vg_bad.npz"), **bad)
    np.savez(path("vg_shape.npz"), **dict(d, fv=d["fv"][:, :2]))
    runs = [(["vg.npz", "--hessian", h, "--device", "reference"] + x, 0)
            for h, x in (("global", []), ("local", ["--compress"]),
                         ("factored", ["--precision", "f32"]),
                         ("none", ["--psd", "abs"]))]
    runs += [(["vg_bad.npz", "--device", "reference"], 2),
             (["vg_shape.npz"], 2), (["missing.npz"], 2)]
    for args, code in runs:
        cmd = [vg, "-q", "--error-exitcode=99", "--leak-check=full",
               "--errors-for-leak-kinds=definite,indirect", FRICL,
               "tangential", path(args[0]), "-o", path("vg_out.npz")] + \
            args[1:]
        r = subprocess.run(cmd, capture_output=True, text=True)
        check(r.returncode == code,
              "valgrind %s: exit %d\n%s" % (args, r.returncode, r.stderr))


SCENARIOS = dict((k[len("scenario_"):], v) for k, v in globals().items()
                 if k.startswith("scenario_"))


def main():
    global FRICL, TMP, TEST_NPZ
    if len(sys.argv) < 4 or sys.argv[1] not in SCENARIOS:
        print("usage: %s SCENARIO FRICL_EXE TMPDIR [TEST_NPZ_EXE]\n"
              "scenarios: %s" % (sys.argv[0], " ".join(SCENARIOS)))
        return 2
    FRICL, TMP = sys.argv[2], sys.argv[3]
    TEST_NPZ = sys.argv[4] if len(sys.argv) > 4 else None
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    try:
        SCENARIOS[sys.argv[1]]()
    except Failure as exc:
        print("FAILED: %s" % exc)
        return 1
    print("tangential_cli_test %s: passed" % sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
