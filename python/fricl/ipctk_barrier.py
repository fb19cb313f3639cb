"""fricl.ipctk.BarrierPotential: ipctk 1.6.1's normal-contact barrier,
computed by fricl (fricl_barrier_eval).

Replace ``ipctk.BarrierPotential(dhat, stiffness, use_physical_barrier)``
by ``fricl.ipctk.BarrierPotential(...)`` and keep the calls:
``B(collisions, mesh, X) -> float``, ``B.gradient(collisions, mesh, X) ->
ndarray`` (size ``X.size``) and ``B.hessian(collisions, mesh, X,
project_hessian_to_psd=...) -> scipy.sparse.csc_matrix``, on ipctk's own
``NormalCollisions`` and ``CollisionMesh`` (weights, dmin, the distance
types the collisions carry, the mesh's rest positions for the edge-edge
mollifier, plane-vertex planes). ipctk's collisions are read out once per set (checked against a
fingerprint on every call); fricl's own ``NormalCollisions``
(``fricl.ipctk.NormalCollisions``) are used as they are. The Hessian's
plan and its CSC pattern are made once per set and reused.

They are evaluated as ipctk evaluates them ("as classified",
FRICL_BARRIER_FLAG_AS_CLASSIFIED): an edge-vertex collision with its
point-line distance and a face-vertex collision with its point-plane
distance wherever the point lies, an edge-edge collision with the distance
type it stores. ``as_classified=False`` takes each contact's nearest
feature instead on ipctk's sets (fricl's default in C; fricl's own sets
carry the types explicitly, which stand); the two differ only where a
collision's point has left its edge or face since the collisions were
built.
"""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np

from . import _ipctk_args as _ia
from . import _native
from ._tables import PSD
from .context import Context
from .ipctk_collisions import NormalCollisions

_KIND = {"VertexVertexNormalCollision": ("vv", 0, 2),
         "EdgeVertexNormalCollision": ("ev", 1, 3),
         "EdgeEdgeNormalCollision": ("ee", 2, 4),
         "FaceVertexNormalCollision": ("fv", 3, 4),
         "PlaneVertexNormalCollision": ("pv", 4, 1)}
_CONTEXTS: Dict[str, Context] = {}
# fricl_barrier.h
_FLAG_PHYSICAL = 0x1
_FLAG_AS_CLASSIFIED = 0x2


def _context(device: str) -> Context:
    ctx = _CONTEXTS.get(device)
    if ctx is None or ctx.closed:
        ctx = _CONTEXTS[device] = Context(device)
    return ctx


def _groups(collisions: Any, mesh: Any) -> Tuple[Tuple[Any, ...], ...]:
    if isinstance(collisions, NormalCollisions):
        return collisions._groups  # fricl's own set: its arrays as they are
    return _ipctk_groups(collisions, mesh)


def _ipctk_groups(collisions: Any,
                  mesh: Any) -> Tuple[Tuple[Any, ...], ...]:
    E = np.asarray(mesh.edges)
    F = np.asarray(mesh.faces)
    cols: Dict[int, Dict[str, List[Any]]] = {}
    for i in range(len(collisions)):
        c = collisions[i]
        name, t, k = _KIND[type(c).__name__]
        g = cols.setdefault(t, {"ids": [], "w": [], "dmin": [], "dt": [],
                                "pn": [], "pc": []})
        g["ids"].append(list(c.vertex_ids(E, F))[:k])
        g["w"].append(c.weight)
        g["dmin"].append(c.dmin)
        g["dt"].append(int(c.dtype) if name == "ee" else -1)
        if name == "pv":
            g["pn"].append(np.asarray(c.plane.normal(), float))
            g["pc"].append(float(c.plane.offset()))
    out = []
    for t in sorted(cols):
        g = cols[t]
        pv = t == 4
        out.append((t, np.ascontiguousarray(g["ids"], np.int32).ravel(),
                    np.asarray(g["w"], float), np.asarray(g["dmin"], float),
                    np.asarray(g["dt"], np.int8).view(np.uint8),
                    np.ascontiguousarray(g["pn"], float).ravel()
                    if pv else None,
                    np.asarray(g["pc"], float) if pv else None))
    return tuple(out)


class _Entry:
    """A collision set as barrier groups, with its plans (one per context
    and vertex count) and their CSC patterns: made once per set."""

    __slots__ = ("groups", "_plans", "_scratch", "__weakref__")

    def __init__(self, groups: Tuple[Any, ...]) -> None:
        self.groups = groups
        self._plans: Dict[Tuple[int, int], Any] = {}
        self._scratch: Any = None  # the BSR values, reused call to call

    def bsr(self, n: int) -> np.ndarray:
        if self._scratch is None or self._scratch.size != n:
            self._scratch = np.empty(n)
        return self._scratch

    def plan(self, ctx: Context, dim: int, n: int) -> Any:
        """The set's plan on ctx for n vertices (made once)."""
        key = (id(ctx), n)
        hit = self._plans.get(key)
        if hit is None or hit[0].closed or hit[1] is not ctx:
            hit = self._plans[key] = [_native.barrier_plan(ctx, dim, n,
                                                           self.groups),
                                      ctx, None]
        return hit[0]

    def csc_pattern(self, ctx: Context, dim: int, n: int) -> Tuple[Any, Any]:
        """The plan's CSC indptr and indices (made on the first Hessian)."""
        plan = self.plan(ctx, dim, n)
        hit = self._plans[(id(ctx), n)]
        if hit[2] is None:
            nnz = plan.nnz_blocks * dim * dim
            big = nnz > 2**31 - 1 or n * dim > 2**31 - 1
            it = np.int64 if big else np.int32
            indptr = np.empty(n * dim + 1, it)
            indices = np.empty(nnz, it)
            plan.csc(0, None, indptr, indices, None, big)
            hit[2] = (indptr, indices)
        return hit[2]


# ipctk's NormalCollisions converted once each: pybind11 objects take no
# weak references, so an entry is keyed by the object and checked against
# a fingerprint (length, and the ids, weight and dmin of three sampled
# collisions) that a rebuild changes.
_IPCTK: Dict[int, Tuple[Any, tuple, _Entry]] = {}


def _fingerprint(collisions: Any, mesh: Any) -> tuple:
    n = len(collisions)
    fp: List[Any] = [n, id(mesh)]
    E, F = None, None
    for i in sorted(set((0, n // 2, n - 1))) if n else ():
        c = collisions[i]
        if E is None:
            E, F = np.asarray(mesh.edges), np.asarray(mesh.faces)
        fp.extend((type(c).__name__, tuple(c.vertex_ids(E, F)), c.weight,
                   c.dmin))
        del c
    return tuple(fp)


def _same_topology(a: Tuple[Any, ...], b: Tuple[Any, ...]) -> bool:
    """The same stencil types and vertex lists, in the same order."""
    return len(a) == len(b) and all(
        x[0] == y[0] and np.array_equal(x[1], y[1]) for x, y in zip(a, b))


def _entry(collisions: Any, mesh: Any) -> _Entry:
    if isinstance(collisions, NormalCollisions):
        e = collisions._barrier_entry
        if e is None:
            e = collisions._barrier_entry = _Entry(collisions._groups)
            prev = collisions._prev_entry
            if prev is not None and _same_topology(prev.groups, e.groups):
                e._plans = prev._plans  # a rebuild to the same contacts
            collisions._prev_entry = None
        return e
    fp = _fingerprint(collisions, mesh)
    hit = _IPCTK.get(id(collisions))
    if hit is not None and hit[0] is collisions and hit[1] == fp:
        return hit[2]
    e = _Entry(_ipctk_groups(collisions, mesh))
    if len(_IPCTK) > 32:
        _IPCTK.clear()
    _IPCTK[id(collisions)] = (collisions, fp, e)
    return e


class BarrierPotential:
    """ipctk.BarrierPotential(dhat, stiffness, use_physical_barrier) on
    fricl (f64, on ``device``: host threads by default). The collisions
    are evaluated as ipctk evaluates them; ``as_classified=False`` takes
    each edge-vertex and face-vertex contact's nearest feature instead."""

    def __init__(self, dhat: float, stiffness: float,
                 use_physical_barrier: bool = False, *,
                 device: str = "host", as_classified: bool = True) -> None:
        self.dhat = float(dhat)
        self.stiffness = float(stiffness)
        self.use_physical_barrier = bool(use_physical_barrier)
        self.device = device
        self.as_classified = bool(as_classified)

    def _eval(self, collisions: Any, mesh: Any, X: Any, psd: int,
              gradient: bool, hessian: bool) -> Tuple[Any, ...]:
        X = _ia.mesh_positions(mesh, X)
        dim = X.shape[1]
        rest = mesh.rest_positions
        if not (isinstance(rest, np.ndarray) and rest.dtype == np.float64
                and rest.flags.c_contiguous):
            rest = np.ascontiguousarray(rest, dtype=np.float64)
        if rest.shape != X.shape:
            rest = None
        ctx = _context(self.device)
        entry = _entry(collisions, mesh)
        g = np.zeros(X.size) if gradient else None
        plan = hv = None
        if hessian or gradient:
            # the set's plan serves the gradient's assembly too (a call
            # without one would derive its gather lists every time)
            plan = entry.plan(ctx, dim, X.shape[0])
        if hessian:
            indptr, indices = entry.csc_pattern(ctx, dim, X.shape[0])
            hv = entry.bsr(plan.nnz_blocks * dim * dim)
        flags = ((_FLAG_PHYSICAL if self.use_physical_barrier else 0) |
                 (_FLAG_AS_CLASSIFIED if self.as_classified else 0))
        pot, _ = _native.barrier_eval(
            ctx, 0, dim, flags, psd, X.ravel(),
            None if rest is None else rest.ravel(),
            self.dhat, self.stiffness, 0.0, entry.groups, g, hessian, plan,
            hv)
        h = None
        if hessian:
            import scipy.sparse as sp
            data = np.empty(len(indices))
            plan.csc(0, hv, None, None, data, indices.dtype == np.int64)
            n = X.size
            h = sp.csc_matrix((data, indices, indptr), shape=(n, n),
                              copy=False)
        return pot, g, h

    def __call__(self, collisions: Any, mesh: Any, X: Any) -> float:
        return float(self._eval(collisions, mesh, X, 0, False, False)[0])

    def gradient(self, collisions: Any, mesh: Any, X: Any) -> np.ndarray:
        return self._eval(collisions, mesh, X, 0, True, False)[1]

    def hessian(self, collisions: Any, mesh: Any, X: Any,
                project_hessian_to_psd: Any = _ia.PSD_DEFAULT) -> Any:
        psd = PSD.index(_ia.psd(project_hessian_to_psd))
        return self._eval(collisions, mesh, X, psd, False, True)[2]

    def __repr__(self) -> str:
        return ("fricl.ipctk.BarrierPotential(dhat=%g, stiffness=%g, "
                "use_physical_barrier=%s%s)"
                % (self.dhat, self.stiffness, self.use_physical_barrier,
                   "" if self.as_classified else ", as_classified=False"))
