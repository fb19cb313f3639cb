#!/usr/bin/env python3
"""`fricl COMMAND IN -o OUT` with OUT the same file as IN: refused.

    same_file_test.py COMMAND FRICL TMPDIR

For each command that reads one input file and writes one output (eval,
tangential, build, barrier; `fricl law` has its own test, devices and
bench read no file): an output named by the same path, another spelling
of it, a symbolic link and a hard link to the input must exit 2 with one
line naming both files, before anything is written (the input unchanged,
no file left). The same input with another output must succeed, so the
refusal is not just a bad input. Exit 77 (SKIPPED) without numpy.
"""
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError as exc:
    print("SKIPPED: numpy not installed (%s)" % exc)
    sys.exit(77)

X6 = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0.2, 0.3, 5e-3]])
BUILD6 = dict(lagged_positions=X6, fv=np.array([[0, 1, 2, 3]], np.int64),
              dhat=np.float64(1e-2), kappa=np.float64(1e6),
              mu_s=np.float64(0.5), mu_k=np.float64(0.3))


def inputs(tmp):
    """Per command: (input file, argv with IN and OUT placeholders)."""
    y = os.path.join(tmp, "y.npy")
    np.save(y, np.linspace(0.0, 1e-2, 16))
    b = os.path.join(tmp, "build_in.npz")
    np.savez(b, **BUILD6)
    t = os.path.join(tmp, "tangential_in.npz")
    v = np.zeros((4, 3))
    v[0] = [3e-5, 5e-5, 0]
    np.savez(t, **BUILD6, velocities=v, eps_v=np.float64(1e-3))
    r = os.path.join(tmp, "barrier_in.npz")
    np.savez(r, positions=np.array([[0, 0, 0], [0.05, 0, 0], [1, 0, 0.0]]),
             dhat=0.1, kappa=1.0, vv=np.array([[0, 1]]))
    return {
        "eval": (y, ["eval", "--term", "smooth_friction_f1", "--eps-v",
                     "1e-3", "--device", "reference", "--in", "IN", "--out",
                     "OUT"]),
        "build": (b, ["build", "IN", "-o", "OUT", "--device", "reference"]),
        "tangential": (t, ["tangential", "--build", "IN", "-o", "OUT",
                           "--device", "reference"]),
        "barrier": (r, ["barrier", "IN", "-o", "OUT", "--device",
                        "reference"]),
    }


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    cmd, fricl, tmp = sys.argv[1:]
    os.makedirs(tmp, exist_ok=True)
    inp, argv = inputs(tmp)[cmd]
    fails = []

    def call(out):
        a = [fricl] + [inp if x == "IN" else out if x == "OUT" else x
                       for x in argv]
        return subprocess.run(a, capture_output=True, text=True, timeout=120)

    ok = os.path.join(tmp, cmd + "_ok" + os.path.splitext(inp)[1])
    r = call(ok)
    if r.returncode != 0:
        print("FAIL: the input itself is rejected: %s" % r.stderr)
        return 1
    base = os.path.basename(inp)
    sym = os.path.join(tmp, cmd + "_sym" + os.path.splitext(inp)[1])
    hard = os.path.join(tmp, cmd + "_hard" + os.path.splitext(inp)[1])
    for p in (sym, hard):
        if os.path.lexists(p):
            os.remove(p)
    os.symlink(base, sym)
    os.link(inp, hard)
    spelled = os.path.join(tmp, ".", "..", os.path.basename(tmp), base)
    with open(inp, "rb") as f:
        content = f.read()
    before = set(os.listdir(tmp))
    for out in (inp, spelled, sym, hard):
        r = call(out)
        lines = r.stderr.strip().splitlines()
        want = "fricl %s: the output %s is the input %s" % (cmd, out, inp)
        if r.returncode != 2:
            fails.append("-o %s: exit %d, expected 2" % (out, r.returncode))
        if len(lines) != 1 or want not in lines[0]:
            fails.append("-o %s: expected one line with %r, got %r" %
                         (out, want, r.stderr))
        with open(inp, "rb") as f:
            if f.read() != content:
                fails.append("-o %s: the input was replaced" % out)
                with open(inp, "wb") as g:
                    g.write(content)
        left = set(os.listdir(tmp)) - before
        if left:
            fails.append("-o %s: files left: %s" % (out, left))
    for f in fails:
        print("FAIL: " + f)
    print("%s: %s" % (cmd, "FAILED" if fails else "ok"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
