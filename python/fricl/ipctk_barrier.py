"""fricl.ipctk.BarrierPotential: ipctk 1.6.1's normal-contact barrier,
computed by fricl (fricl_barrier_eval).

Replace ``ipctk.BarrierPotential(dhat, stiffness, use_physical_barrier)``
by ``fricl.ipctk.BarrierPotential(...)`` and keep the calls:
``B(collisions, mesh, X) -> float``, ``B.gradient(collisions, mesh, X) ->
ndarray`` (size ``X.size``) and ``B.hessian(collisions, mesh, X,
project_hessian_to_psd=...) -> scipy.sparse.csc_matrix``, on ipctk's own
``NormalCollisions`` and ``CollisionMesh`` (weights, dmin, the distance
types the collisions carry, the mesh's rest positions for the edge-edge
mollifier, plane-vertex planes). The collisions are read out of ipctk on
every call.
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


class BarrierPotential:
    """ipctk.BarrierPotential(dhat, stiffness, use_physical_barrier) on
    fricl (f64, on ``device``: host threads by default)."""

    def __init__(self, dhat: float, stiffness: float,
                 use_physical_barrier: bool = False, *,
                 device: str = "host") -> None:
        self.dhat = float(dhat)
        self.stiffness = float(stiffness)
        self.use_physical_barrier = bool(use_physical_barrier)
        self.device = device

    def _eval(self, collisions: Any, mesh: Any, X: Any, psd: int,
              gradient: bool, hessian: bool) -> Tuple[Any, ...]:
        X = _ia.mesh_positions(mesh, X)
        dim = X.shape[1]
        rest = np.ascontiguousarray(mesh.rest_positions, dtype=np.float64)
        if rest.shape != X.shape:
            rest = None
        g = np.zeros(X.size) if gradient else None
        pot, h = _native.barrier_eval(
            _context(self.device), 0, dim, 1 if self.use_physical_barrier
            else 0, psd, X.ravel(), None if rest is None else rest.ravel(),
            self.dhat, self.stiffness, 0.0, _groups(collisions, mesh), g,
            hessian)
        return pot, g, h

    def __call__(self, collisions: Any, mesh: Any, X: Any) -> float:
        return float(self._eval(collisions, mesh, X, 0, False, False)[0])

    def gradient(self, collisions: Any, mesh: Any, X: Any) -> np.ndarray:
        return self._eval(collisions, mesh, X, 0, True, False)[1]

    def hessian(self, collisions: Any, mesh: Any, X: Any,
                project_hessian_to_psd: Any = _ia.PSD_DEFAULT) -> Any:
        import scipy.sparse as sp
        psd = PSD.index(_ia.psd(project_hessian_to_psd))
        _, _, h = self._eval(collisions, mesh, X, psd, False, True)
        indptr, indices, data, n = h
        m = sp.csr_matrix((np.frombuffer(data, np.float64),
                           np.frombuffer(indices, np.int32),
                           np.frombuffer(indptr, np.int64)), shape=(n, n))
        return m.tocsc()

    def __repr__(self) -> str:
        return ("fricl.ipctk.BarrierPotential(dhat=%g, stiffness=%g, "
                "use_physical_barrier=%s)" % (self.dhat, self.stiffness,
                                              self.use_physical_barrier))
