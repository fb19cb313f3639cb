#!/usr/bin/env python3
"""Black-box tests of `fricl-mpi tangential` against the serial
`fricl tangential --hessian global` (the oracle), driven by numpy.

    mpi_cli_test.py SCENARIO NP FRICL FRICL_MPI TMPDIR MPIEXEC [ARGS...]

runs `MPIEXEC ARGS... NP FRICL_MPI ...` (ARGS end with the flag that takes
the number of ranks, e.g. `--oversubscribe -n`). One CTest case per
scenario and rank count. Exit status: 0 pass, 1 failure, 77 SKIPPED (numpy
not importable). Every run has a time limit: a hang fails.

Tolerances: the distributed sums differ from the serial ones only in the
order of additions (a rank's partial sums, then the owner adds the other
ranks' in rank order; the potential is an MPI_Allreduce of per-rank sums),
so every real output must agree within 1e-13 of its scale (the largest
magnitude of the serial array); the COO index arrays must be identical.
The Newton step is checked against numpy.linalg.solve on the serial
gradient and Hessian within 1e-10 of its scale.

Scenarios
  crossing     3-D (every stencil) and 2-D scenes whose contacts join
               vertices of different ranks; PSD none, clamp, abs; weights,
               anisotropy, per-contact potentials; two runs give identical
               files (the order of additions is fixed)
  newton       --newton-step with a mass array and with the default mass 1
  empty        ranks without contacts (first vertices in the first half),
               no contacts at all, fewer vertices than ranks
  errors       bad data on one rank's contact (N < 0, the last rank's):
               every rank exits 2, one line naming the rank and the
               contact's index in the input; schema errors, a bad mass, a
               missing input, usage errors: exit 2, the same message as
               `fricl tangential`; the existing output is untouched and no
               temporary file is left
  ranks        ranks that read different contact sets (an MPMD launch):
               every rank exits 2, one line naming the rank; no temporary
               file left
  same_file    the output is the input (path, spelling, symbolic and hard
               link): refused, exit 2, the input unchanged
  device       the default device (auto: PoCL's CPU device here) agrees
               with the serial result too
"""
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError as exc:
    print("*" * 72)
    print("SKIPPED: numpy not installed (%s); the fricl-mpi tests did NOT "
          "run" % exc)
    print("*" * 72)
    sys.exit(77)

K = {"vv": 2, "ev": 3, "ee": 4, "fv": 4, "pv": 1}
NB = {"vv": 0, "ev": 1, "ee": 2, "fv": 2, "pv": 0}
TYPES = ("vv", "ev", "ee", "fv", "pv")
TIMEOUT = 240

NP = FRICL = FRICL_MPI = TMP = None
MPIEXEC = []


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


def path(name):
    return os.path.join(TMP, name)


def run(cmd, expect, env=None):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env,
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise Failure("%s: no answer after %d s (hang)" %
                      (" ".join(cmd), TIMEOUT))
    if r.returncode != expect:
        raise Failure("%s: exit %d, expected %d\nstdout: %s\nstderr: %s" %
                      (" ".join(cmd), r.returncode, expect, r.stdout,
                       r.stderr))
    return r


def serial(inp, out, psd):
    run([FRICL, "tangential", inp, "-o", out, "--hessian", "global", "--psd",
         psd], 0)
    return np.load(out)


def mpi(args, expect=0, np_=None, env=None):
    return run(MPIEXEC + [str(np_ or NP), FRICL_MPI] + args, expect, env)


def scene(rng, dim, n, m, first_frac=1.0, weights=True, aniso=True):
    """Random lagged data; vertex ids anywhere in [0, n), so contacts join
    vertices of different ranks; the first vertex in [0, first_frac n)."""
    types = TYPES if dim == 3 else ("vv", "ev", "pv")
    d = dict(velocities=rng.normal(size=(n, dim)) *
             rng.choice([1e-4, 1e-2, 1.0], size=(n, 1)),
             eps_v=np.float64(1e-2))
    for t in types:
        k = K[t]
        ids = np.array([rng.choice(n, k, replace=False) for _ in range(m)],
                       dtype=np.int64).reshape(m, k)
        lim = max(1, int(first_frac * n))
        for i in range(m):
            if ids[i, 0] >= lim:
                j = int(rng.integers(0, lim))
                ids[i, 0] = j
                while len(set(ids[i])) < k:  # keep the stencil's ids distinct
                    ids[i, 1:] = rng.choice(n, k - 1, replace=False)
        d[t] = ids
        if NB[t]:
            d[t + "_closest_point"] = rng.uniform(-0.2, 1.2, (m, NB[t]))
        P = np.zeros((m, dim, dim - 1))
        for i in range(m):
            q, _ = np.linalg.qr(rng.normal(size=(dim, dim)))
            P[i] = q[:, :dim - 1]
        d[t + "_tangent_basis"] = P
        d[t + "_normal_force"] = rng.uniform(0, 50, m)
        d[t + "_mu_s"] = rng.uniform(0.2, 1, m)
        d[t + "_mu_k"] = rng.uniform(0, 0.5, m)
        if weights:
            d[t + "_weight"] = rng.uniform(0.1, 2, m)
        if aniso:
            d[t + "_mu_aniso"] = rng.uniform(0.5, 2, (m, dim - 1))
    return d


def owner(n, v):
    q, rem = divmod(n, NP)
    return v // (q + 1) if v < rem * (q + 1) else rem + (v - rem * (q + 1)) // q


def close(a, b, what, tol=1e-13):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    check(a.shape == b.shape, "%s: shape %s vs %s" % (what, a.shape, b.shape))
    scale = float(np.abs(b).max()) if b.size else 0.0
    err = float(np.abs(a - b).max()) if a.size else 0.0
    check(err <= tol * scale, "%s: differs by %.3g, scale %.3g (tolerance "
          "%g of scale)" % (what, err, scale, tol))
    return err / scale if scale else 0.0


def compare(dist, ref, types, what):
    close(dist["potential"], ref["potential"], what + " potential")
    close(dist["gradient"], ref["gradient"], what + " gradient")
    for key in ("hessian_rows", "hessian_cols", "hessian_shape"):
        check(np.array_equal(dist[key], ref[key]),
              "%s: %s differs from the serial COO" % (what, key))
        check(dist[key].dtype == np.int64, "%s: %s dtype" % (what, key))
    worst = close(dist["hessian_values"], ref["hessian_values"],
                  what + " hessian_values")
    for t in types:
        close(dist[t + "_potential"], ref[t + "_potential"],
              "%s %s_potential" % (what, t))
    return worst


def save(d, name):
    np.savez(path(name), **d)
    return path(name)


def crossing_counts(d, n):
    """How many contacts join vertices of two or more ranks."""
    c = 0
    for t in TYPES:
        if t in d:
            for row in d[t]:
                c += len(set(owner(n, int(v)) for v in row)) > 1
    return c


# ------------------------------------------------------------- scenarios


def scenario_crossing():
    rng = np.random.default_rng(20 + NP)
    for dim in (3, 2):
        n = 61
        d = scene(rng, dim, n, 40)
        types = [t for t in TYPES if t in d]
        if NP > 1:
            check(crossing_counts(d, n) > 0, "the scene must cross ranks")
        inp = save(d, "cross%d.npz" % dim)
        for psd in ("none", "clamp", "abs"):
            ref = serial(inp, path("ser%d_%s.npz" % (dim, psd)), psd)
            out = path("mpi%d_%s.npz" % (dim, psd))
            mpi(["tangential", inp, "-o", out, "--psd", psd])
            dist = np.load(out)
            check(set(dist.files) == set(ref.files),
                  "members %s vs %s" % (sorted(dist.files),
                                        sorted(ref.files)))
            worst = compare(dist, ref, types, "dim %d psd %s" % (dim, psd))
            print("dim %d psd %-5s: hessian within %.2g of scale" %
                  (dim, psd, worst))
        # Bitwise reproducible from run to run.
        again = path("again%d.npz" % dim)
        mpi(["tangential", inp, "-o", again, "--psd", "abs"])
        with open(again, "rb") as f1, open(path("mpi%d_abs.npz" % dim),
                                           "rb") as f2:
            check(f1.read() == f2.read(), "two runs differ")


def scenario_newton():
    rng = np.random.default_rng(40 + NP)
    n, dim = 57, 3
    d = scene(rng, dim, n, 30)
    for with_mass in (True, False):
        if with_mass:
            d["mass"] = rng.uniform(0.5, 2.0, n)
        else:
            d.pop("mass", None)
        inp = save(d, "newton%d.npz" % with_mass)
        ser_in = dict(d)
        ser_in.pop("mass", None)
        ref = serial(save(ser_in, "newton_ser_in.npz"), path("newton_ser.npz"),
                     "clamp")
        out = path("newton_mpi%d.npz" % with_mass)
        mpi(["tangential", inp, "-o", out, "--psd", "clamp",
             "--newton-step"])
        dist = np.load(out)
        compare(dist, ref, TYPES, "newton")
        N = n * dim
        H = np.zeros((N, N))
        np.add.at(H, (ref["hessian_rows"], ref["hessian_cols"]),
                  ref["hessian_values"])
        M = np.repeat(d["mass"] if with_mass else np.ones(n), dim)
        x = np.linalg.solve(H + np.diag(M), -ref["gradient"])
        err = close(dist["newton_step"], x, "newton_step", tol=1e-10)
        print("newton step (mass %s): within %.2g of scale" %
              ("given" if with_mass else "1", err))


def scenario_empty():
    rng = np.random.default_rng(60 + NP)
    # Ranks without contacts: every first vertex in the first half.
    n = 48
    d = scene(rng, 3, n, 20, first_frac=0.5)
    inp = save(d, "half.npz")
    ref = serial(inp, path("half_ser.npz"), "clamp")
    out = path("half_mpi.npz")
    mpi(["tangential", inp, "-o", out, "--psd", "clamp", "--newton-step"])
    compare(np.load(out), ref, TYPES, "half")
    if NP == 4:
        firsts = set(owner(n, int(v)) for t in TYPES for v in d[t][:, 0])
        check(firsts <= {0, 1}, "ranks 2 and 3 must have no contact")
    # No contacts at all (zero-length groups).
    e = dict(velocities=np.zeros((5, 3)), eps_v=np.float64(1e-3),
             vv=np.zeros((0, 2), np.int32),
             vv_tangent_basis=np.zeros((0, 3, 2)),
             vv_normal_force=np.zeros(0), vv_mu_s=np.zeros(0),
             vv_mu_k=np.zeros(0))
    inp = save(e, "none.npz")
    ref = serial(inp, path("none_ser.npz"), "none")
    out = path("none_mpi.npz")
    mpi(["tangential", inp, "-o", out, "--newton-step"])
    dist = np.load(out)
    compare(dist, ref, ["vv"], "no contacts")
    check(dist["hessian_values"].size == 0, "no contacts: empty Hessian")
    check(np.all(dist["newton_step"] == 0), "no contacts: zero step")
    # Fewer vertices than ranks: some ranks own nothing.
    f = scene(rng, 3, 4, 3)
    inp = save(f, "few.npz")
    ref = serial(inp, path("few_ser.npz"), "abs")
    out = path("few_mpi.npz")
    mpi(["tangential", inp, "-o", out, "--psd", "abs", "--newton-step"])
    compare(np.load(out), ref, TYPES, "few vertices")


def expect_error(args, needles, code=2, out=None):
    """Exit `code` on every rank, one line on stderr with every needle, the
    output untouched and no temporary file left."""
    out = out or path("err_out.npz")
    with open(out, "wb") as f:
        f.write(b"previous content")
    before = set(os.listdir(TMP))
    r = mpi(args + ["-o", out], expect=code)
    lines = [l for l in r.stderr.splitlines() if l.startswith("fricl-mpi")]
    check(len(lines) == 1, "expected one message line, got:\n%s" % r.stderr)
    for n in needles:
        check(n in lines[0], "message %r lacks %r" % (lines[0], n))
    with open(out, "rb") as f:
        check(f.read() == b"previous content", "the output was touched")
    check(set(os.listdir(TMP)) == before,
          "files left: %s" % (set(os.listdir(TMP)) - before))
    return lines[0]


def scenario_errors():
    rng = np.random.default_rng(80 + NP)
    n = 40
    d = scene(rng, 3, n, 12)
    # 1. Data that only the owning rank sees: N < 0 in an ev contact whose
    # first vertex belongs to the last rank.
    bad = dict(d)
    last = NP - 1
    idx = [i for i in range(12) if owner(n, int(d["ev"][i, 0])) == last]
    if not idx:
        bad["ev"] = d["ev"].copy()
        bad["ev"][0] = [n - 1, 0, 1]
        idx = [0]
    i = idx[-1]
    bad["ev_normal_force"] = d["ev_normal_force"].copy()
    bad["ev_normal_force"][i] = -1.0
    inp = save(bad, "bad_n.npz")
    local = sum(1 for j in range(i)
                if owner(n, int(bad["ev"][j, 0])) == last)
    line = expect_error(["tangential", inp],
                        ["rank %d: " % last, "fricl_tangential_eval",
                         "groups[1] (ev) contact %d" % local,
                         "is ev[%d] in the input" % i])
    print("bad N on rank %d: %s" % (last, line))
    # The serial tool rejects the same contact.
    r = run([FRICL, "tangential", inp, "-o", path("ser_bad.npz")], 2)
    check("normal_force" in r.stderr, "serial message: %s" % r.stderr)
    # 2. Schema errors: the message of `fricl tangential`.
    ser = run([FRICL, "tangential", save(dict(d, fv_wieght=np.ones(12)),
                                         "typo.npz"), "-o",
               path("x.npz")], 2).stderr.strip()
    line = expect_error(["tangential", path("typo.npz")],
                        ["unknown array 'fv_wieght'"])
    check(ser.startswith("fricl tangential: ") and
          line == "fricl-mpi" + ser[len("fricl"):],
          "message %r differs from the serial %r" % (line, ser))
    bad_ids = dict(d)
    bad_ids["vv"] = d["vv"].copy()
    bad_ids["vv"][3, 1] = n + 2
    expect_error(["tangential", save(bad_ids, "ids.npz")],
                 ["vv[3, 1] = %d is out of range [0, %d)" % (n + 2, n)])
    # 3. A bad mass array.
    expect_error(["tangential", save(dict(d, mass=np.ones(n - 1)),
                                     "mass1.npz")],
                 ["array 'mass': expected shape (n,) = (%d,)" % n])
    m = np.ones(n)
    m[7] = 0.0
    expect_error(["tangential", save(dict(d, mass=m), "mass2.npz")],
                 ["mass[7] = 0: it must be finite and > 0"])
    # 4. A missing input, usage errors.
    expect_error(["tangential", path("missing.npz")], ["missing.npz"])
    expect_error(["tangential", path("typo.npz"), "--psd", "maybe"],
                 ["--psd 'maybe'"])
    r = mpi(["tangential"], expect=2)
    check(r.stderr.count("IN.npz is required") == 1, r.stderr)
    r = mpi(["frobnicate"], expect=2)
    check(r.stderr.count("unknown command") == 1, r.stderr)
    r = mpi(["tangential", "--help"], expect=0)
    check("newton_step" in r.stdout and r.stdout.count("Usage:") == 1,
          r.stdout)


def mpmd(first, rest, expect):
    """Rank 0 runs `first`, ranks 1.. run `rest` (an MPMD launch: the way
    to give ranks different arguments; MPIEXEC ends with the flag that
    takes the number of ranks)."""
    cmd = (MPIEXEC + ["1", FRICL_MPI] + first + [":", MPIEXEC[-1],
                                                 str(NP - 1), FRICL_MPI] + rest)
    return run(cmd, expect)


def scenario_ranks():
    """Ranks that read different contact sets (25 contacts on one rank, 40
    on the others; the same count with other vertex ids): every rank exits
    2 with one line naming the differing rank; no crash, no hang, the
    output untouched, no temporary file left."""
    if NP < 2:
        print("one rank: nothing to compare")
        return
    rng = np.random.default_rng(120 + NP)
    n = 60
    d40 = scene(rng, 3, n, 40)
    d25 = {k: (v[:25] if k in TYPES or k.split("_")[0] in TYPES else v)
           for k, v in d40.items()}
    other = dict(d40)
    other["ee"] = d40["ee"][::-1].copy()
    a, b, c = (save(d40, "r40.npz"), save(d25, "r25.npz"),
               save(other, "rother.npz"))
    out = path("ranks_out.npz")
    cases = [
        (a, b, "rank 1: ", "25 vv contacts, rank 0's has 40"),
        (b, a, "rank 1: ", "40 vv contacts, rank 0's has 25"),
        (a, c, "rank 1: ", "ee contacts with other vertex ids"),
    ]
    for first, rest, who, what in cases:
        with open(out, "wb") as f:
            f.write(b"previous content")
        before = set(os.listdir(TMP))
        r = mpmd(["tangential", first, "-o", out],
                 ["tangential", rest, "-o", out], 2)
        lines = [l for l in r.stderr.splitlines()
                 if l.startswith("fricl-mpi")]
        check(len(lines) == 1, "expected one message line, got:\n%s" %
              r.stderr)
        for needle in (who, what, "differs from rank 0's"):
            check(needle in lines[0], "message %r lacks %r" %
                  (lines[0], needle))
        with open(out, "rb") as f:
            check(f.read() == b"previous content", "the output was touched")
        check(set(os.listdir(TMP)) == before,
              "files left: %s" % (set(os.listdir(TMP)) - before))
        print(lines[0])
    # The same archive everywhere through MPMD still works.
    mpmd(["tangential", a, "-o", out], ["tangential", a, "-o", out], 0)
    ref = serial(a, path("r40_ser.npz"), "none")
    compare(np.load(out), ref, TYPES, "MPMD, same input")


def scenario_same_file():
    """An output that is the input (the same path, another spelling of it,
    a symbolic or a hard link) is refused before anything is written:
    exit 2, one line naming both, the input unchanged."""
    rng = np.random.default_rng(140 + NP)
    inp = save(scene(rng, 3, 30, 10), "sf_in.npz")
    with open(inp, "rb") as f:
        content = f.read()
    sym, hard = path("sf_sym.npz"), path("sf_hard.npz")
    for p_ in (sym, hard):
        if os.path.lexists(p_):
            os.remove(p_)
    os.symlink(os.path.basename(inp), sym)
    os.link(inp, hard)
    spelled = os.path.join(TMP, ".", "..", os.path.basename(TMP),
                           "sf_in.npz")
    before = set(os.listdir(TMP))
    for out in (inp, spelled, sym, hard):
        r = mpi(["tangential", inp, "-o", out], expect=2)
        lines = [l for l in r.stderr.splitlines()
                 if l.startswith("fricl-mpi")]
        check(len(lines) == 1, "expected one message line, got:\n%s" %
              r.stderr)
        check("the output %s is the input %s" % (out, inp) in lines[0],
              "message %r does not name both files" % lines[0])
        with open(inp, "rb") as f:
            check(f.read() == content, "-o %s replaced the input" % out)
        check(set(os.listdir(TMP)) == before,
              "files left: %s" % (set(os.listdir(TMP)) - before))
    # The serial tool refuses it the same way.
    for out in (inp, sym, hard):
        r = run([FRICL, "tangential", inp, "-o", out], 2)
        check("the output %s is the input %s" % (out, inp) in r.stderr,
              "fricl tangential: %s" % r.stderr)
        with open(inp, "rb") as f:
            check(f.read() == content, "fricl: -o %s replaced the input" % out)


def scenario_device():
    rng = np.random.default_rng(100 + NP)
    d = scene(rng, 3, 45, 25)
    inp = save(d, "dev.npz")
    ref = serial(inp, path("dev_ser.npz"), "clamp")
    env = dict(os.environ)
    env.pop("FRICL_DEVICE", None)
    out = path("dev_mpi.npz")
    r = mpi(["tangential", inp, "-o", out, "--psd", "clamp", "-v"], env=env)
    print(r.stderr.strip())
    compare(np.load(out), ref, TYPES, "device auto")


def main():
    global NP, FRICL, FRICL_MPI, TMP, MPIEXEC
    if len(sys.argv) < 7:
        print(__doc__)
        return 2
    scenario, NP, FRICL, FRICL_MPI, TMP = sys.argv[1:6]
    NP = int(NP)
    MPIEXEC = sys.argv[6:]
    os.makedirs(TMP, exist_ok=True)
    fn = globals().get("scenario_" + scenario)
    if not fn:
        print("unknown scenario %s" % scenario)
        return 2
    try:
        fn()
    except Failure as f:
        print("FAIL (%s, %d ranks): %s" % (scenario, NP, f))
        return 1
    print("ok: %s with %d rank(s)" % (scenario, NP))
    return 0


if __name__ == "__main__":
    sys.exit(main())
