#!/usr/bin/env python3
"""Regenerate the numpy-written .npz fixtures of tests/cli/test_npz.c.

    python3 make_npz_fixtures.py [OUTDIR]

The fixtures are committed; test_npz reads them without Python. Their
contents are pinned in test_npz.c (check_numpy_fixture)."""
import os
import sys

import numpy as np

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
arrays = dict(
    velocities=np.array([[1.5, -2.0, 0.25], [3.0, 4.0, -0.5]]),
    fv=np.array([[0, 1, 2, 3]], dtype=np.int32),
    ids64=np.array([7, -1], dtype=np.int64),
    eps_v=np.float64(1e-3),
    empty=np.zeros((0, 3)),
    f32=np.array([1.0, 2.5], dtype=np.float32),
)
np.savez(os.path.join(out, "numpy_savez.npz"), **arrays)
np.savez_compressed(os.path.join(out, "numpy_savez_compressed.npz"), **arrays)
