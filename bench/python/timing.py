"""Same-run timing of fricl against ipctk for the bench/python scripts:
calls interleaved so that both see the same load, medians, one table row
per call."""
from __future__ import annotations

import argparse
import time
from typing import Callable, List, Sequence, Tuple

import numpy as np

Row = Tuple[str, Callable[[], object], Callable[[], object]]


def arguments(doc: str, sizes: str) -> argparse.Namespace:
    """--repeat (interleaved pairs per row, at least) and --sizes (the
    cloth's vertices per side, comma-separated)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--sizes", default=sizes)
    args = ap.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",")]
    return args


def header() -> None:
    print("%-34s %10s %11s %11s %7s" % ("call", "collisions", "ipctk s",
                                        "fricl s", "ratio"))


def once(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def compare(rows: Sequence[Row], count: int, repeat: int) -> List[float]:
    """Each row's ipctk call and fricl call, warmed once (first-use costs
    are timed apart), then `repeat` interleaved pairs (more for short
    calls); prints the medians and ipctk / fricl. Returns the ratios."""
    ratios = []
    for name, fa, fb in rows:
        fa()
        fb()
        t0 = time.perf_counter()
        ta, tb = [once(fa)], [once(fb)]
        # short calls: at least ~0.2 s of pairs, for a stable median
        pair = time.perf_counter() - t0
        reps = max(repeat, min(2000, int(0.2 / max(pair, 1e-9))))
        for _ in range(reps - 1):
            ta.append(once(fa))
            tb.append(once(fb))
        a, b = float(np.median(ta)), float(np.median(tb))
        ratios.append(a / b)
        print("%-34s %10d %11.6f %11.6f %7.2f" % (name, count, a, b, a / b))
    return ratios


def first_vs_repeated(name: str, make: Callable[[], object],
                      call: Callable[[object], object], count: int,
                      samples: int) -> float:
    """The first call on a new object (``call(make())``, the making not
    timed) against a repeated call on one object: the median of
    ``samples`` first calls, each on a freshly made object, and the median
    of at least as many repeated calls (more for short calls). Prints the
    two medians' ratio, first / repeated, in the ratio column (<= 2 is
    the target); returns it."""
    cold = []
    for _ in range(samples):
        obj = make()
        cold.append(once(lambda: call(obj)))
    obj = make()
    call(obj)
    t0 = time.perf_counter()
    warm = [once(lambda: call(obj))]
    reps = max(samples, min(2000, int(0.2 / max(time.perf_counter() - t0,
                                                 1e-9))))
    warm += [once(lambda: call(obj)) for _ in range(reps - 1)]
    a, b = float(np.median(cold)), float(np.median(warm))
    print("%-34s %10d %11.6f %11.6f %7.2f" % (name + " first/rep.", count,
                                              a, b, a / b))
    return a / b


def first_on_new(name: str, make: Callable[[], object],
                 fa: Callable[[object], object],
                 fb: Callable[[object], object], count: int,
                 samples: int) -> float:
    """ipctk's call ``fa(obj)`` against fricl's FIRST call ``fb(obj)`` on
    each of ``samples`` freshly made objects (ipctk's collision sets, which
    fricl reads on its first call; the making not timed, every object kept
    alive so that none reuses another's id): the medians and ipctk / fricl
    (>= 1 is the target); returns that ratio."""
    objs, ta, tb = [], [], []
    for _ in range(samples):
        obj = make()
        objs.append(obj)
        ta.append(once(lambda: fa(obj)))
        tb.append(once(lambda: fb(obj)))
    a, b = float(np.median(ta)), float(np.median(tb))
    print("%-34s %10d %11.6f %11.6f %7.2f" % (
        (name + " 1st, ipctk set")[-34:], count, a, b, a / b))
    del objs
    return a / b
