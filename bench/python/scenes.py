"""Scenes for the collision-set benchmarks and tests: a cloth lying over a
box (the contact set of a cloth simulation), generated, never loaded."""
from __future__ import annotations

import numpy as np


def grid(n: int, size: float = 1.0, z: float = 0.0):
    """An n x n vertex grid of triangles in [0, size]^2 at height z."""
    xs, ys = np.meshgrid(np.linspace(0, size, n), np.linspace(0, size, n))
    V = np.c_[xs.ravel(), ys.ravel(), np.full(n * n, z)]
    i, j = np.meshgrid(np.arange(n - 1), np.arange(n - 1), indexing="ij")
    a = (i * n + j).ravel()
    F = np.r_[np.c_[a, a + 1, a + n + 1], np.c_[a, a + n + 1, a + n]]
    return V, F.astype(np.int32)


def box(lo, hi):
    """The 12 triangles of an axis-aligned box."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    V = np.array([[(hi if (k >> d) & 1 else lo)[d] for d in range(3)]
                  for k in range(8)])
    F = np.array([[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6],
                  [0, 1, 4], [1, 5, 4], [2, 6, 3], [3, 6, 7],
                  [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5]], np.int32)
    return V, F


def edges_of(F: np.ndarray) -> np.ndarray:
    """The unique edges of a triangle list, sorted."""
    E = np.sort(np.r_[F[:, [0, 1]], F[:, [1, 2]], F[:, [2, 0]]], axis=1)
    return np.unique(E, axis=0).astype(np.int32)


def cloth_over_box(n: int, dhat_per_spacing: float = 0.4, seed: int = 0):
    """A cloth of n x n vertices resting on a box, within dhat of its top:
    (V, E, F, dhat), about 0.36 n^2 collisions."""
    rng = np.random.default_rng(seed)
    h = 1.0 / (n - 1)
    dhat = dhat_per_spacing * h
    Vc, Fc = grid(n, 1.0, 0.0)
    Vc[:, 2] = 0.5 * dhat * (1 + 0.2 * rng.random(len(Vc)))
    # Off the box's grid lines: a vertex exactly above a triangle's edge is
    # a tie that rounding decides (docs/collisions.md, "Ties").
    Vc[:, :2] += 1e-3 * h * rng.standard_normal((len(Vc), 2))
    Vb, Fb = box([0.2, 0.2, -0.5], [0.8, 0.8, 0.0])
    V = np.r_[Vc, Vb]
    F = np.r_[Fc, Fb + len(Vc)]
    return V, edges_of(F), F, dhat
