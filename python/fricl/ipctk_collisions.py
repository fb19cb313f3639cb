"""fricl.ipctk.CollisionMesh, NormalCollisions and Candidates: ipctk
1.6.1's collision sets, built by fricl from positions
(``fricl_collisions_build``) and kept as arrays.

``NormalCollisions().build(mesh, V, dhat, dmin)`` gives the collisions,
kinds, edge-edge distance types and weights of ipctk's build (with
``use_area_weighting`` and the improved max approximator); fricl's
``BarrierPotential`` and ``TangentialCollisions.build`` read its arrays
as they are, with no per-call conversion. ``mesh`` may be fricl's
``CollisionMesh`` or ipctk's (converted once and kept).

Edge-edge collisions follow ipctk's identity: two are the same collision
when they join the same two edges, in either order, with the same stored
distance type (which refers to the edge order of the first one made).
fricl makes the regular ones in the order (smaller edge id, larger), as
ipctk's BruteForce, HashGrid and SweepAndPrune broad phases do; its
default LBVH hands some pairs over in the other order, which changes the
stored order (and, with the improved max approximator, which corrections
merge) but not the set of collisions otherwise.
"""
from __future__ import annotations

import weakref
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import _convert as cv
from . import _native
from .context import Context
from .errors import InvalidArgumentError, UnsupportedError

__all__ = ["CollisionMesh", "NormalCollisions", "Candidates",
           "NormalCollision"]

_TYPES = ("vv", "ev", "ee", "fv", "pv")
_K = {"vv": 2, "ev": 3, "ee": 4, "fv": 4, "pv": 1}
_AREA, _IMPROVED = 0x1, 0x2


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


# a kind's arrays when a build has none of it (read-only, as the views of
# the build's bytes are): ids, vertices, reals, distance types
_EMPTY = tuple((_read_only(np.zeros((0, 2), np.int32)),
                _read_only(np.zeros((0, _K[t]), np.int32)),
                _read_only(np.zeros(0)), _read_only(np.zeros(0, np.int8)))
               for t in _TYPES)
_CONTEXTS: Dict[str, Context] = {}


def _context(device: str) -> Context:
    ctx = _CONTEXTS.get(device)
    if ctx is None or ctx.closed:
        ctx = _CONTEXTS[device] = Context(device)
    return ctx


def _count(x: Any) -> int:
    return int(x() if callable(x) else x)


class CollisionMesh:
    """``ipctk.CollisionMesh(rest_positions, edges, faces)`` kept by fricl
    (f64 rest positions, int32 edges and faces; every face edge must be in
    ``edges``). ``planes``: a list of ``(normal, offset)`` pairs (unit
    normals), ipctk's ``mesh.planes``."""

    def __init__(self, rest_positions: Any, edges: Any = None,
                 faces: Any = None, *, planes: Sequence[Any] = (),
                 device: str = "host") -> None:
        R = cv.real(rest_positions, cv.F64, "rest_positions")
        if R.ndim != 2 or R.shape[1] not in (2, 3):
            raise InvalidArgumentError(
                "argument 'rest_positions': expected an (n, 2) or (n, 3) "
                "array, got shape %s" % (R.shape,))
        dim = R.shape[1]
        E = np.ascontiguousarray(np.zeros((0, 2)) if edges is None else edges,
                                 dtype=np.int32).reshape(-1, 2)
        F = np.ascontiguousarray(np.zeros((0, 3)) if faces is None else faces,
                                 dtype=np.int32).reshape(-1, 3)
        self._R, self._E, self._F, self._dim = R, E, F, dim
        self._ctx = _context(device)
        self._native = _native.collision_mesh(self._ctx, dim,
                                              R.ravel(), E.ravel(), F.ravel())
        self.planes = list(planes)

    @classmethod
    def from_ipctk(cls, mesh: Any, device: str = "host") -> "CollisionMesh":
        """fricl's copy of an ipctk ``CollisionMesh`` (its collision-mesh
        rest positions, edges, faces and planes)."""
        planes = [(np.asarray(p.normal(), float), float(p.offset()))
                  for p in getattr(mesh, "planes", [])]
        return cls(np.asarray(mesh.rest_positions), np.asarray(mesh.edges),
                   np.asarray(mesh.faces), planes=planes, device=device)

    rest_positions = property(lambda self: self._R)
    edges = property(lambda self: self._E)
    faces = property(lambda self: self._F)
    dim = property(lambda self: self._dim)
    num_vertices = property(lambda self: self._R.shape[0])
    num_edges = property(lambda self: self._E.shape[0])
    num_faces = property(lambda self: self._F.shape[0])
    ndof = property(lambda self: self._R.size)

    def _planes(self) -> Tuple[Optional[np.ndarray], Optional[np.ndarray]]:
        if not self.planes:
            return None, None
        n = np.ascontiguousarray([np.asarray(p[0], float).ravel()[:self._dim]
                                  for p in self.planes], dtype=np.float64)
        c = np.ascontiguousarray([float(p[1]) for p in self.planes])
        return n.ravel(), c

    def __repr__(self) -> str:
        return "<fricl.ipctk.CollisionMesh %d vertices, %d edges, %d faces>" \
            % (self.num_vertices, self.num_edges, self.num_faces)


# ipctk meshes converted once each (pybind11 objects take no weak
# references, so the key is the object with the arrays it had).
_MESHES: Dict[int, Tuple[Any, Tuple[Any, ...], CollisionMesh]] = {}


def as_mesh(mesh: Any) -> CollisionMesh:
    """``mesh`` as fricl's CollisionMesh (ipctk's is converted once and
    kept while it stays the same object with the same shapes)."""
    if isinstance(mesh, CollisionMesh):
        return mesh
    key = id(mesh)
    sig = (_count(mesh.num_vertices), _count(mesh.num_edges),
           _count(mesh.num_faces), len(getattr(mesh, "planes", [])))
    hit = _MESHES.get(key)
    if hit is not None and hit[0] is mesh and hit[1] == sig:
        return hit[2]
    fm = CollisionMesh.from_ipctk(mesh)
    if len(_MESHES) > 64:
        _MESHES.clear()
    _MESHES[key] = (mesh, sig, fm)
    return fm


class NormalCollision:
    """One collision of a fricl ``NormalCollisions`` (a view of its
    arrays): ``kind`` ("vv", "ev", "ee", "fv", "pv"), ipctk's id
    attributes (``vertex0_id``/``vertex1_id``, ``edge_id``/``vertex_id``,
    ``edge0_id``/``edge1_id``/``dtype``/``eps_x``, ``face_id``/
    ``vertex_id``, ``plane``/``vertex_id``), ``weight``, ``dmin`` and
    ``vertex_ids()``."""

    __slots__ = ("kind", "_a", "_b", "weight", "dmin", "_ids", "_extra")

    def __init__(self, kind: str, a: int, b: int, weight: float, dmin: float,
                 ids: Tuple[int, ...], extra: Any = None) -> None:
        self.kind, self._a, self._b = kind, a, b
        self.weight, self.dmin, self._ids, self._extra = weight, dmin, ids, \
            extra

    def __getattr__(self, name: str) -> Any:
        names = {"vv": ("vertex0_id", "vertex1_id"),
                 "ev": ("edge_id", "vertex_id"),
                 "ee": ("edge0_id", "edge1_id"),
                 "fv": ("face_id", "vertex_id"),
                 "pv": ("plane_id", "vertex_id")}[self.kind]
        if name in names:
            return self._a if name == names[0] else self._b
        if self.kind == "ee" and name in ("dtype", "eps_x"):
            import ipctk
            dt, eps = self._extra
            return ipctk.EdgeEdgeDistanceType(dt) if name == "dtype" else eps
        if self.kind == "pv" and name == "plane":
            return self._extra
        raise AttributeError(name)

    def vertex_ids(self, edges: Any = None, faces: Any = None) -> List[int]:
        """The stencil's vertices, padded with -1 to 4 (ipctk's form)."""
        return list(self._ids) + [-1] * (4 - len(self._ids))

    def num_vertices(self) -> int:
        return len(self._ids)

    def __repr__(self) -> str:
        return "<fricl.ipctk.NormalCollision %s %s w=%g>" % (
            self.kind, self._ids, self.weight)


class NormalCollisions:
    """ipctk's ``NormalCollisions`` built by fricl and kept as arrays.

    ``use_area_weighting`` (default False, as ipctk) and
    ``collision_set_type`` (``"IPC"`` or ``"IMPROVED_MAX_APPROX"``, or
    ipctk's enum; ``use_improved_max_approximator`` is the same as a
    bool) choose the build. ``build(mesh, vertices, dhat, dmin=0,
    broad_phase=None)``; ``len``, item access, ``vv_collisions`` ...
    ``pv_collisions``, ``is_vertex_vertex(i)`` ...,
    ``compute_minimum_distance(mesh, vertices)``. The arrays of each kind
    are ``arrays(kind)``: ids, vertices, weights, distance types.

    ``device_min_candidates`` (fricl's, default 0: the library's default,
    65536) is ``fricl_collisions_options.device_min_candidates``: on a mesh
    made on an OpenCL device (``CollisionMesh(..., device="gpu")``) a build
    with at least that many candidates runs its narrow phase there (1: any
    build; ``2**64 - 1``: never); the set is the same bit for bit.
    """

    def __init__(self, *, device: str = "host") -> None:
        self.device_min_candidates = 0
        self.use_area_weighting = False
        self._improved = False
        self.enable_shape_derivatives = False
        self._device = device
        self._clear()

    def _clear(self) -> None:
        self._arrays: Dict[str, Dict[str, Any]] = {}
        self._groups: Tuple[Any, ...] = ()
        self._n = [0] * 5
        self.dhat = self.dmin = None
        self._dim = 0
        self._nv = 0
        self._version = getattr(self, "_version", 0) + 1
        # fricl.ipctk.BarrierPotential's cache, and the previous build's
        # (its plans serve a rebuild with the same topology)
        self._prev_entry = getattr(self, "_barrier_entry", None) or \
            getattr(self, "_prev_entry", None)
        self._barrier_entry = None
        self._build_groups: Optional[List[Any]] = None  # lagged build's
        self._build_prep: Optional[Dict[Any, Any]] = None  # its native form

    # -- options -------------------------------------------------------
    @property
    def collision_set_type(self) -> str:
        return "IMPROVED_MAX_APPROX" if self._improved else "IPC"

    @collision_set_type.setter
    def collision_set_type(self, value: Any) -> None:
        name = getattr(value, "name", value)
        if name not in ("IPC", "IMPROVED_MAX_APPROX"):
            raise UnsupportedError("collision_set_type: fricl builds IPC and "
                                   "IMPROVED_MAX_APPROX sets, not %r" % (value,))
        self._improved = name == "IMPROVED_MAX_APPROX"

    @property
    def use_improved_max_approximator(self) -> bool:
        return self._improved

    @use_improved_max_approximator.setter
    def use_improved_max_approximator(self, value: bool) -> None:
        self._improved = bool(value)

    # -- build ---------------------------------------------------------
    def build(self, *args: Any, **kw: Any) -> None:
        """``build(mesh, vertices, dhat, dmin=0, broad_phase=None)`` or
        ipctk's ``build(candidates, mesh, vertices, dhat, dmin=0)`` (the
        set does not depend on the candidates: fricl finds its own)."""
        if args and isinstance(args[0], (Candidates,)) or (
                args and type(args[0]).__name__ == "Candidates"):
            args = args[1:]
        names = ("mesh", "vertices", "dhat", "dmin", "broad_phase")
        vals = dict(zip(names, args))
        for k, v in kw.items():
            if k not in names:
                raise TypeError("build() got an unexpected keyword %r" % k)
            vals[k] = v
        if self.enable_shape_derivatives:
            raise UnsupportedError("enable_shape_derivatives: not in fricl")
        mesh = as_mesh(vals["mesh"])
        V = cv.real(vals["vertices"], cv.F64, "vertices")
        if V.shape != (mesh.num_vertices, mesh.dim):
            raise InvalidArgumentError(
                "argument 'vertices': expected the collision mesh's (%d, %d) "
                "array, got shape %s" % (mesh.num_vertices, mesh.dim,
                                         V.shape))
        dhat = float(vals["dhat"])
        dmin = float(vals.get("dmin", 0.0))
        flags = (_AREA if self.use_area_weighting else 0) | \
            (_IMPROVED if self._improved else 0)
        pn, pc = mesh._planes()
        res = _native.collisions_build(mesh._ctx, mesh._native,
                                       mesh.dim, V.ravel(), dhat, dmin, flags,
                                       pn, pc, self.device_min_candidates)
        self._clear()
        self._dim, self._nv = mesh.dim, mesh.num_vertices
        self.dhat, self.dmin = dhat, dmin
        self._mesh = mesh
        groups = []
        for t, (name, it) in enumerate(zip(_TYPES, res)):
            if not it[2]:  # no collision of this kind: shared empties
                self._n[t] = 0
                e = _EMPTY[t]
                self._arrays[name] = dict(
                    ids=e[0], vertices=e[1], weight=e[2],
                    distance_type=None if it[3] is None else e[3],
                    eps_x=None if it[4] is None else e[2],
                    plane_normal=None if it[5] is None else e[2],
                    plane_offset=None if it[6] is None else e[2])
                continue
            ids = np.frombuffer(it[0], np.int32).reshape(-1, 2)
            verts = np.frombuffer(it[1], np.int32)
            w = np.frombuffer(it[2], np.float64)
            dt = None if it[3] is None else np.frombuffer(it[3], np.int8)
            eps = None if it[4] is None else np.frombuffer(it[4], np.float64)
            pnn = None if it[5] is None else np.frombuffer(it[5], np.float64)
            pcc = None if it[6] is None else np.frombuffer(it[6], np.float64)
            self._n[t] = len(w)
            self._arrays[name] = dict(ids=ids, vertices=verts.reshape(
                -1, _K[name]), weight=w, distance_type=dt, eps_x=eps,
                plane_normal=pnn, plane_offset=pcc)
            if len(w):
                dm = np.empty(len(w))
                dm.fill(dmin)
                groups.append((t, verts, w, dm,
                               None if dt is None else dt.view(np.uint8),
                               pnn, pcc))
        self._groups = tuple(groups)

    # -- container -----------------------------------------------------
    def arrays(self, kind: str) -> Dict[str, Any]:
        """The arrays of one kind ("vv", ... "pv"): ``ids`` (n x 2, ipctk's
        ids), ``vertices`` (n x k), ``weight``, ``distance_type``,
        ``eps_x`` (ee), ``plane_normal``/``plane_offset`` (pv). Read-only
        views, valid until the next build."""
        return self._arrays.get(kind, {})

    def __len__(self) -> int:
        return sum(self._n)

    def empty(self) -> bool:
        return len(self) == 0

    def clear(self) -> None:
        self._clear()

    def _locate(self, i: int) -> Tuple[int, int]:
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("collision index %d out of range (%d)" % (i, n))
        for t, c in enumerate(self._n):
            if i < c:
                return t, i
            i -= c
        raise IndexError(i)  # pragma: no cover

    def _item(self, t: int, j: int) -> NormalCollision:
        name = _TYPES[t]
        a = self._arrays[name]
        extra: Any = None
        if name == "ee":
            extra = (int(a["distance_type"][j]), float(a["eps_x"][j]))
        elif name == "pv":
            d = self._dim
            extra = (a["plane_normal"][d * j:d * j + d].copy(),
                     float(a["plane_offset"][j]))
        return NormalCollision(name, int(a["ids"][j, 0]), int(a["ids"][j, 1]),
                               float(a["weight"][j]), float(self.dmin),
                               tuple(int(v) for v in a["vertices"][j]), extra)

    def __getitem__(self, i: int) -> NormalCollision:
        return self._item(*self._locate(int(i)))

    def _list(self, t: int) -> List[NormalCollision]:
        return [self._item(t, j) for j in range(self._n[t])]

    vv_collisions = property(lambda self: self._list(0))
    ev_collisions = property(lambda self: self._list(1))
    ee_collisions = property(lambda self: self._list(2))
    fv_collisions = property(lambda self: self._list(3))
    pv_collisions = property(lambda self: self._list(4))

    def _is(self, i: int, t: int) -> bool:
        return self._locate(int(i))[0] == t

    def is_vertex_vertex(self, i: int) -> bool:
        return self._is(i, 0)

    def is_edge_vertex(self, i: int) -> bool:
        return self._is(i, 1)

    def is_edge_edge(self, i: int) -> bool:
        return self._is(i, 2)

    def is_face_vertex(self, i: int) -> bool:
        return self._is(i, 3)

    def is_plane_vertex(self, i: int) -> bool:
        return self._is(i, 4)

    def to_ipctk(self) -> Any:
        """The same set as an ``ipctk.NormalCollisions`` (for ipctk's own
        potentials and builds): every collision with its weight, dmin and,
        for ee, its distance type and threshold. The set's options are
        copied too."""
        import ipctk
        out = ipctk.NormalCollisions()
        out.use_area_weighting = self.use_area_weighting
        if self._improved:
            out.collision_set_type = \
                ipctk.NormalCollisions.CollisionSetType.IMPROVED_MAX_APPROX
        dt_ee = ipctk.EdgeEdgeDistanceType

        def fill(c: Any, w: float) -> Any:
            c.weight = w
            c.dmin = float(self.dmin)
            return c

        lists = {}
        for t, name in enumerate(_TYPES):
            a = self._arrays.get(name)
            if not a or not len(a["weight"]):
                lists[name] = []
                continue
            ids, w = a["ids"].tolist(), a["weight"].tolist()
            if name == "vv":
                lists[name] = [fill(ipctk.VertexVertexNormalCollision(i, j), x)
                               for (i, j), x in zip(ids, w)]
            elif name == "ev":
                lists[name] = [fill(ipctk.EdgeVertexNormalCollision(i, j), x)
                               for (i, j), x in zip(ids, w)]
            elif name == "ee":
                dts, eps = a["distance_type"].tolist(), a["eps_x"].tolist()
                lists[name] = [fill(ipctk.EdgeEdgeNormalCollision(
                    i, j, e, dt_ee(d)), x)
                    for (i, j), x, d, e in zip(ids, w, dts, eps)]
            elif name == "fv":
                lists[name] = [fill(ipctk.FaceVertexNormalCollision(i, j), x)
                               for (i, j), x in zip(ids, w)]
            else:
                d = self._dim
                pn, pc = a["plane_normal"].reshape(-1, d), a["plane_offset"]
                lists[name] = [fill(ipctk.PlaneVertexNormalCollision(
                    _hyperplane(pn[k], pc[k]), j), x)
                    for k, ((_, j), x) in enumerate(zip(ids, w))]
        out.vv_collisions = lists["vv"]
        out.ev_collisions = lists["ev"]
        out.ee_collisions = lists["ee"]
        out.fv_collisions = lists["fv"]
        out.pv_collisions = lists["pv"]
        return out

    def compute_minimum_distance(self, mesh: Any, vertices: Any) -> float:
        """The smallest squared distance over the set, as ipctk 1.6.1
        returns it (each collision evaluated as ipctk does: ev on the
        line, fv on the plane, ee by its stored type), or inf for an empty
        set."""
        V = cv.real(vertices, cv.F64, "vertices")
        best = np.inf
        for name in _TYPES:
            a = self._arrays.get(name)
            if not a or not len(a["weight"]):
                continue
            d2 = _distances(name, a, V)
            best = min(best, float(d2.min()))
        return best

    def __repr__(self) -> str:
        return "<fricl.ipctk.NormalCollisions %d collisions %s>" % (
            len(self), dict((t, c) for t, c in zip(_TYPES, self._n) if c))


def _ipctk_mesh(mesh: Any) -> Any:
    """An ipctk CollisionMesh for ``mesh`` (fricl's is converted once and
    kept on it; ipctk's is returned as it is)."""
    if not isinstance(mesh, CollisionMesh):
        return mesh
    im = getattr(mesh, "_ipctk_mesh", None)
    if im is None:
        import ipctk
        im = ipctk.CollisionMesh(mesh.rest_positions, mesh.edges, mesh.faces)
        if mesh.planes:
            im.planes = [_hyperplane(np.asarray(n, float), c)
                         for n, c in mesh.planes]
        mesh._ipctk_mesh = im
    return im


def _hyperplane(normal: np.ndarray, offset: float) -> Any:
    """ipctk's plane {y : n.y + c = 0} (3-D; 2-D normals get z = 0), made
    from its normal and its point -c n / |n|^2."""
    import ipctk
    n = np.zeros(3)
    n[:len(normal)] = normal
    return ipctk.Hyperplane(n, -float(offset) * n / float(n @ n))


def _distances(name: str, a: Dict[str, Any], V: np.ndarray) -> np.ndarray:
    """Squared distances of the collisions of one kind, evaluated as
    ipctk evaluates them."""
    X = V[a["vertices"]]
    if name == "vv":
        return ((X[:, 0] - X[:, 1]) ** 2).sum(1)
    if name == "pv":
        d = V.shape[1]
        n = a["plane_normal"].reshape(-1, d)
        s = (n * X[:, 0]).sum(1) + a["plane_offset"]
        return s * s / (n * n).sum(1)
    if name == "ev":
        p, e0, e1 = X[:, 0], X[:, 1], X[:, 2]
        e = e1 - e0
        if V.shape[1] == 2:
            c = e[:, 0] * (p - e0)[:, 1] - e[:, 1] * (p - e0)[:, 0]
            return c * c / (e * e).sum(1)
        c = np.cross(e0 - p, e1 - p)
        return (c * c).sum(1) / (e * e).sum(1)
    if name == "fv":
        p, t0, t1, t2 = X[:, 0], X[:, 1], X[:, 2], X[:, 3]
        n = np.cross(t1 - t0, t2 - t0)
        s = ((p - t0) * n).sum(1)
        return s * s / (n * n).sum(1)
    out = np.empty(len(X))
    for i, (x, t) in enumerate(zip(X, a["distance_type"])):
        out[i] = _ee_distance(x, int(t))
    return out


def _point_line(p: Any, a: Any, b: Any) -> float:
    c = np.cross(a - p, b - p)
    return float(c @ c / ((b - a) @ (b - a)))


def _ee_distance(x: np.ndarray, t: int) -> float:
    a0, a1, b0, b1 = x
    pts = [(a0, b0), (a0, b1), (a1, b0), (a1, b1)]
    if t < 4:
        d = pts[t][0] - pts[t][1]
        return float(d @ d)
    if t < 6:
        return _point_line((b0, b1)[t - 4], a0, a1)
    if t < 8:
        return _point_line((a0, a1)[t - 6], b0, b1)
    n = np.cross(a1 - a0, b1 - b0)
    s = (b0 - a0) @ n
    return float(s * s / (n @ n))


# ipctk's AdditiveCCD default (its object does not show max_iterations).
ADDITIVE_MAX_ITERATIONS = 10_000_000


class Candidates:
    """ipctk's ``Candidates`` built by fricl: ``build(mesh, vertices_t0,
    vertices_t1=None, inflation_radius=0, broad_phase=None)`` (ipctk's
    static and motion forms), ``len``, ``vv_candidates`` ...
    ``pv_candidates`` as (n, 2) id arrays (sorted), ``empty()``,
    ``clear()``."""

    def __init__(self) -> None:
        self._pairs: List[np.ndarray] = [np.zeros((0, 2), np.int32)] * 5
        self._mesh: Optional[CollisionMesh] = None
        self._ipctk: Any = None
        self._set: Any = None  # the native candidate set of the last build

    def build(self, mesh: Any, vertices_t0: Any, *args: Any,
              **kw: Any) -> None:
        fm = as_mesh(mesh)
        V0 = cv.real(vertices_t0, cv.F64, "vertices_t0")
        rest = list(args)
        V1 = None
        if rest and not np.isscalar(rest[0]):
            V1 = cv.real(rest.pop(0), cv.F64, "vertices_t1")
        V1 = kw.pop("vertices_t1", V1)
        r = float(rest.pop(0) if rest else kw.pop("inflation_radius", 0.0))
        pn, pc = fm._planes()
        res = _native.candidates_build(
            fm._ctx, fm._native, fm.dim, V0.ravel(),
            None if V1 is None else np.ascontiguousarray(V1).ravel(), r,
            pn, pc)
        self._pairs = [np.frombuffer(b, np.int32).reshape(-1, 2)
                       for b in res[0]]
        self._mesh, self._ipctk, self._set = fm, None, res[1]

    def to_ipctk(self) -> Any:
        """The same candidates as an ``ipctk.Candidates`` (made once per
        build), for ipctk's CCD and its other methods."""
        if self._ipctk is None:
            import ipctk
            out = ipctk.Candidates()
            vv, ev, ee, fv, pv = (p.tolist() for p in self._pairs)
            out.vv_candidates = [ipctk.VertexVertexCandidate(a, b)
                                 for a, b in vv]
            out.ev_candidates = [ipctk.EdgeVertexCandidate(a, b)
                                 for a, b in ev]
            out.ee_candidates = [ipctk.EdgeEdgeCandidate(a, b) for a, b in ee]
            out.fv_candidates = [ipctk.FaceVertexCandidate(a, b)
                                 for a, b in fv]
            if pv:
                planes = self._mesh.planes if self._mesh else []
                out.pv_candidates = [ipctk.PlaneVertexCandidate(
                    _hyperplane(np.asarray(planes[p][0], float),
                                planes[p][1]), v) for p, v in pv]
            self._ipctk = out
        return self._ipctk

    def _native_ccd(self, mesh: Any, vertices_t0: Any, vertices_t1: Any,
                    args: Sequence[Any], kw: Dict[str, Any],
                    with_tois: bool) -> Any:
        """fricl's CCD (fricl_ccd_stepsize) when the narrow phase is
        ipctk's ``AdditiveCCD``, which it implements; None otherwise (ipctk's
        default, Tight Inclusion, and any other stay with ipctk)."""
        rest = list(args)
        dmin = float(rest.pop(0) if rest else kw.pop("min_distance", 0.0))
        ccd = rest.pop(0) if rest else kw.pop("narrow_phase_ccd", None)
        if rest or kw or self._set is None or ccd is None:
            return None
        import ipctk
        if not isinstance(ccd, ipctk.AdditiveCCD):
            return None
        fm = as_mesh(mesh)
        V0 = cv.real(vertices_t0, cv.F64, "vertices_t0")
        V1 = cv.real(vertices_t1, cv.F64, "vertices_t1")
        pn, pc = fm._planes()
        return _native.ccd_stepsize(
            fm._ctx, fm._native, self._set, fm.dim,
            np.ascontiguousarray(V0).ravel(), np.ascontiguousarray(V1).ravel(),
            pn, pc, dmin, float(ccd.conservative_rescaling),
            int(getattr(ccd, "max_iterations", ADDITIVE_MAX_ITERATIONS)),
            with_tois)

    def compute_collision_free_stepsize(self, mesh: Any, vertices_t0: Any,
                                        vertices_t1: Any, *args: Any,
                                        **kw: Any) -> float:
        """The largest collision-free step in [0, 1] (``min_distance``,
        ``narrow_phase_ccd`` as ipctk's). With ipctk's ``AdditiveCCD``,
        fricl computes it (fricl_ccd_stepsize); with any other narrow phase
        (ipctk's default is Tight Inclusion) ipctk does. ``mesh`` may be
        fricl's or ipctk's."""
        step = self._native_ccd(mesh, vertices_t0, vertices_t1, args,
                                dict(kw), False)
        if step is not None:
            return float(step)
        return self.to_ipctk().compute_collision_free_stepsize(
            _ipctk_mesh(mesh), vertices_t0, vertices_t1, *args, **kw)

    def compute_tois(self, mesh: Any, vertices_t0: Any, vertices_t1: Any,
                     min_distance: float = 0.0,
                     narrow_phase_ccd: Any = None) -> np.ndarray:
        """fricl's addition: every candidate's time of impact (in the order
        vv, ev, ee, fv, pv; inf where none before 1) with ipctk's
        ``AdditiveCCD`` (the default here)."""
        if narrow_phase_ccd is None:
            import ipctk
            narrow_phase_ccd = ipctk.AdditiveCCD()
        res = self._native_ccd(mesh, vertices_t0, vertices_t1,
                               (min_distance, narrow_phase_ccd), {}, True)
        if res is None:
            raise UnsupportedError(
                "compute_tois: needs candidates built by fricl and ipctk's "
                "AdditiveCCD")
        return np.frombuffer(res[1], np.float64)

    def is_step_collision_free(self, mesh: Any, vertices_t0: Any,
                               vertices_t1: Any, *args: Any,
                               **kw: Any) -> bool:
        """ipctk's test: no candidate has an impact in [0, 1]. With ipctk's
        ``AdditiveCCD``, fricl computes it; otherwise ipctk does."""
        res = self._native_ccd(mesh, vertices_t0, vertices_t1, args,
                               dict(kw), True)
        if res is not None:
            return not bool(np.isfinite(np.frombuffer(res[1])).any())
        return self.to_ipctk().is_step_collision_free(
            _ipctk_mesh(mesh), vertices_t0, vertices_t1, *args, **kw)

    vv_candidates = property(lambda self: self._pairs[0])
    ev_candidates = property(lambda self: self._pairs[1])
    ee_candidates = property(lambda self: self._pairs[2])
    fv_candidates = property(lambda self: self._pairs[3])
    pv_candidates = property(lambda self: self._pairs[4])

    def __len__(self) -> int:
        return sum(len(p) for p in self._pairs)

    def empty(self) -> bool:
        return len(self) == 0

    def clear(self) -> None:
        self._pairs = [np.zeros((0, 2), np.int32)] * 5
        self._ipctk = self._set = None
