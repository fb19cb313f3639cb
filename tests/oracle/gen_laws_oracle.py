#!/usr/bin/env python3
"""Reference values of the stateless friction laws (spec friction-laws.md
sections 1-4, 6 and 10) for tests/test_laws.c.

Writes tests/data/laws_oracle.txt (run from the repository root):

    python3 tests/oracle/gen_laws_oracle.py

Two sections:

1. The spec's reference tables, transcribed by hand (the double results of
   the upstream operation order where the spec shows them: mode `bits`,
   compared bitwise including the sign of zero where the spec makes it
   normative; exact decimals: mode `tol`).
2. A deterministic sweep (seed 20240612) over every branch of every
   stateless law: inputs are doubles, the value is computed in mpmath at
   200 bits from the formulas of the spec with the branch decided on the
   exact inputs, then rounded once to double (mode `tol`).

Row: law opts nparams p0 .. p{n-1} normal v value scale mode
  numbers as C99 hex floats (float.hex) or inf / -inf / nan;
  mode tol: |got - value| <= 1e-14 * scale (NaN value: got must be NaN);
  mode bits: got == value bitwise (NaN: any NaN).
"""
import math
import random

import mpmath
from mpmath import mp, mpf

mp.prec = 200
OUT = 'tests/data/laws_oracle.txt'
SEED = 20240612
NAN = math.nan
ISDF_CONT, STRIB_ODD = 1, 2


def hx(x):
    x = float(x)
    if math.isnan(x):
        return 'nan'
    if math.isinf(x):
        return 'inf' if x > 0 else '-inf'
    return float.hex(float(x))


rows = []


def row(law, params, v, value, scale, mode, normal=1.0, opts=0):
    rows.append('%s %d %d %s %s %s %s %s %s' % (
        law, opts, len(params), ' '.join(hx(float(p)) for p in params),
        hx(normal), hx(v), hx(value), hx(scale), mode))


# ------------------------------------------------------ 1. spec tables
def spec_tables():
    rows.append('# section 1: spec tables')
    ES = [0.1, 0.05, 0.0, 1e-3, 1e-3]
    for v, f in [(0.0, 0.0), (5e-4, 0.07500000000000001),
                 (-5e-4, -0.07500000000000001), (1e-3, 0.15000000000000002),
                 (-1e-3, -0.15000000000000002), (1.5e-3, 0.13032653298563168),
                 (2e-3, 0.11839397205857212), (-2e-3, -0.11839397205857212),
                 (1e-2, 0.10000617049020434), (1.0, 0.1)]:
        row('exudyn_stribeck', ES, v, f, 0.15, 'tol')
    ES2 = [1.0, 0.1, 0.5, 0.01, 0.001]
    for v, f in [(5e-4, 0.55), (1e-3, 1.1), (0.011, 1.041787944117144),
                 (-0.011, -1.041787944117144), (1.001, 1.5), (-1.001, -1.5)]:
        row('exudyn_stribeck', ES2, v, f, 1.6, 'tol')
    ES3 = [0.1, 0.05, 0.0, 1e-3, 0.0]
    for v, f in [(0.0, 0.0), (1e-3, 0.11839397205857212),
                 (-1e-3, -0.11839397205857212)]:
        row('exudyn_stribeck', ES3, v, f, 0.15, 'tol')
    row('exudyn_stribeck', ES, NAN, NAN, 0.15, 'bits')
    row('exudyn_stribeck', ES, math.inf, NAN, 0.15, 'bits')  # 0 * inf
    for x, f in [(-1, 0), (0, 0), (0.25, 0.15625), (0.5, 0.5),
                 (0.75, 0.84375), (1, 1), (2, 1), (NAN, NAN)]:
        row('exudyn_step', [0, 0, 1, 1], x, f, 1.0, 'bits')
    RF = [0.1, 0.05, 0.05, 0.1, 0.0]
    for v, f in [(0.0, 0.0), (-0.0, 0.0), (0.025, 0.10312500000000008),
                 (-0.025, -0.10312500000000002), (0.05, 0.15000000000000002),
                 (-0.05, -0.15000000000000002), (0.075, 0.12500000000000003),
                 (-0.075, -0.12500000000000003), (0.1, 0.1), (0.2, 0.1),
                 (-0.2, -0.1), (NAN, NAN)]:
        row('exudyn_regularized', RF, v, f, 0.15, 'tol' if f == 0 else 'bits')
    RF2 = [0.1, 0.05, 0.05, 0.1, 0.2]
    for v, f in [(0.2, 0.12000000000000001), (1.1, 0.30000000000000004)]:
        row('exudyn_regularized', RF2, v, f, 0.3, 'bits')
    row('exudyn_regularized', RF2, -0.2, -0.12, 0.3, 'tol')  # exact decimal
    # ISDF: f_nominal, v_nominal, v0, ForceDirection
    for v, f in [(0.0, -10), (0.05, -10), (-0.05, -10), (0.1, -10),
                 (2, -0.5), (-2, -0.5), (NAN, NAN)]:
        row('isdf', [1, 1, 0.1, 1], v, f, 10, 'tol')
    for v, f in [(0.0, -0.0), (-0.0, 0.0), (0.05, -0.5), (-0.05, 0.5),
                 (0.0999999, -0.999999), (0.1, -10), (2, -0.5), (-2, 0.5),
                 (NAN, NAN)]:
        row('isdf', [1, 1, 0.1, 0], v, f, 10, 'bits' if f == 0 else 'tol')
    for v, f in [(100, 100), (10, 1000), (1, 10000), (0.5, 50), (0, 0),
                 (-0.5, -50), (-10, -1000)]:
        row('isdf', [-100, 100, 1, 0], v, f, 10000, 'tol')
    for v, f in [(100, 100), (-100, 100), (0.5, 10000), (0, 10000)]:
        row('isdf', [-100, 100, 1, 1], v, f, 10000, 'tol')
    # continuous option, ForceDirection = 0: inner -f vn v / v0^2
    for v, f in [(0.5, 5000), (1, 10000), (-1, -10000), (0.0, 0.0)]:
        row('isdf', [-100, 100, 1, 0], v, f, 10000, 'tol', opts=ISDF_CONT)
    for v, f in [(0.3, 15), (-0.3, -15), (0.0, 0.0), (-0.0, 0.0),
                 (1e-300, 15), (NAN, NAN)]:
        row('coulomb', [0.15], v, f, 15, 'bits', normal=100)
    ST = [0.25, 0.15, 0.1, 0.0]
    for v, f in [(0.0, 25), (-0.0, -25), (1e-12, 25),
                 (0.05, 22.78800783071405), (0.1, 18.678794411714424),
                 (-0.1, -18.678794411714424), (0.2, 15.183156388887342),
                 (1.0, 15), (NAN, NAN)]:
        row('stribeck', ST, v, f, 25, 'bits' if v == 0 else 'tol',
            normal=100)
    ST2 = [0.25, 0.15, 0.1, 2.0]
    for v, f in [(0.1, 18.878794411714424), (-0.1, -18.478794411714425),
                 (1, 17), (-1, -13)]:
        row('stribeck', ST2, v, f, 27, 'tol', normal=100)
    # odd option: b_v v outside the sign
    for v, f in [(0.1, 18.878794411714424), (-0.1, -18.878794411714424),
                 (1, 17), (-1, -17)]:
        row('stribeck', ST2, v, f, 27, 'tol', normal=100, opts=STRIB_ODD)


# ---------------------------------------------------------- 2. sweep
def sgn0(x):
    return 0 if x == 0 else (1 if x > 0 else -1)


def fsign(x):
    return math.copysign(1.0, x)


def m_step(x, x0, h0, x1, h1):
    if x <= x0:
        return mpf(h0)
    if x < x1:
        d = (mpf(x) - x0) / (mpf(x1) - x0)
        return h0 + (mpf(h1) - h0) * d * d * (3 - 2 * d)
    return mpf(h1)


def law_value(law, p, v, n, opts):
    """Exact value (mpf) and natural scale (float) of a law."""
    if law == 'exudyn_stribeck':
        md, mo, mv, ve, vr = p
        if abs(v) <= vr and vr != 0:
            val = (mpf(md) + mo) * v / vr
        else:
            w = abs(mpf(v)) - vr
            val = sgn0(v) * (md + mo * mpmath.exp(-w / ve) + mv * w)
        return val, abs(md) + abs(mo) + abs(mv) * abs(abs(v) - vr)
    if law == 'exudyn_step':
        x0, h0, x1, h1 = p
        return m_step(v, x0, h0, x1, h1), max(abs(h0), abs(h1))
    if law == 'exudyn_regularized':
        md, mo, vs, vd, mv = p
        ms = mpf(md) + mo
        av = abs(v)
        if av > vd:
            val = sgn0(v) * (md + (mpf(av) - vd) * mv)
        elif vs <= av <= vd:
            val = sgn0(v) * m_step(av, vs, ms, vd, md)
        else:
            val = m_step(v, -vs, -ms, vs, ms)
        return val, abs(md) + abs(mo) + abs(mv) * abs(av - vd)
    if law == 'isdf':
        fn, vn, v0, fd = p
        av = abs(v)
        if fd:
            val = -mpf(fn) * vn / (v0 if av < v0 else av)
        elif av < v0:
            val = (-mpf(fn) * vn * v / (mpf(v0) ** 2) if opts & ISDF_CONT
                   else -mpf(fn) * v / v0)
        else:
            val = -mpf(fn) * vn / v
        return val, abs(fn) * max(vn / v0, 1.0, vn / max(av, 1e-300))
    if law == 'coulomb':
        return (mpf(p[0]) * n * fsign(v) if v != 0 else mpf(0)), abs(p[0] * n)
    if law == 'stribeck':
        ms, mc, vs, bv = p
        fc, fs = mpf(mc) * n, mpf(ms) * n
        curve = fc + (fs - fc) * mpmath.exp(-(mpf(v) / vs) ** 2)
        val = (fsign(v) * curve + bv * mpf(v) if opts & STRIB_ODD
               else fsign(v) * (curve + bv * mpf(v)))
        return val, abs(fs) + abs(fc) + abs(bv * v)
    raise ValueError(law)


def sweep():
    rows.append('# section 2: mpmath sweep')
    rnd = random.Random(SEED)
    U = rnd.uniform
    for _ in range(60):
        md, mo, mv = U(0, 1), U(0, 0.5), rnd.choice([0.0, U(0, 2)])
        ve, vr = 10 ** U(-4, -1), rnd.choice([0.0, 10 ** U(-4, -2)])
        for v in [vr, -vr, vr * 0.5, U(-0.1, 0.1), U(-1, 1), 3 * ve + vr]:
            add('exudyn_stribeck', [md, mo, mv, ve, vr], v, 1.0, 0)
        x0 = U(-1, 1)
        x1 = x0 + rnd.choice([0.0, U(0, 2)])
        h0, h1 = U(-2, 2), U(-2, 2)
        for x in [x0, x1, U(x0 - 1, x1 + 1), (x0 + x1) / 2]:
            add('exudyn_step', [x0, h0, x1, h1], x, 1.0, 0)
        vs = rnd.choice([0.0, U(0, 0.1)])
        vd = vs + rnd.choice([0.0, U(0, 0.1)])
        for v in [vs, -vs, vd, -vd, U(-0.3, 0.3), U(-vs, vs) if vs else 0.0]:
            add('exudyn_regularized', [md, mo, vs, vd, mv], v, 1.0, 0)
        fn, vn, v0 = U(-100, 100), 10 ** U(-2, 2), 10 ** U(-2, 1)
        for fd in (0, 1):
            for opt in ((0, ISDF_CONT) if fd == 0 else (0,)):
                for v in [v0, -v0, U(-3 * v0, 3 * v0), U(-v0, v0)]:
                    add('isdf', [fn, vn, v0, fd], v, 1.0, opt)
        n = U(0, 200)
        add('coulomb', [U(0, 1)], U(-1, 1), n, 0)
        ms, mc = U(0, 1), U(0, 1)
        vst = 10 ** U(-3, 0)
        for opt in (0, STRIB_ODD):
            for v in [U(-3 * vst, 3 * vst), vst, -vst]:
                add('stribeck', [ms, mc, vst, U(-5, 5)], v, n, opt)


def add(law, p, v, n, opts):
    val, scale = law_value(law, p, v, n, opts)
    val = float(val)
    normal = n if law in ('coulomb', 'stribeck') else 1.0
    row(law, p, v, val, max(scale, abs(val), 1e-300), 'tol', normal, opts)


def main():
    spec_tables()
    sweep()
    with open(OUT, 'w') as f:
        f.write('# fricl laws oracle, generated by '
                'tests/oracle/gen_laws_oracle.py (mpmath %s); do not edit.\n'
                % mpmath.__version__)
        f.write('# row: law opts nparams params... normal v value scale '
                'mode (see the generator)\n')
        f.write('# rows: %d\n' % sum(not r.startswith('#') for r in rows))
        for r in rows:
            f.write(r + '\n')


if __name__ == '__main__':
    main()
