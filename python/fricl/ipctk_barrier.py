"""fricl.ipctk.BarrierPotential and NormalAdhesionPotential: ipctk 1.6.1's
normal potentials (the clamped-log barrier, the normal adhesion potential),
computed by fricl (fricl_barrier_eval, its function choice and extras).

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

import operator
from typing import Any, Dict, List, Tuple

import numpy as np

from . import _ipctk_args as _ia
from . import _ipctk_layout as _layout
from . import _native
from ._tables import PSD
from .context import Context
from .errors import UnsupportedError
from .ipctk_collisions import CollisionMesh, NormalCollisions

_KIND = {"VertexVertexNormalCollision": ("vv", 0, 2),
         "EdgeVertexNormalCollision": ("ev", 1, 3),
         "EdgeEdgeNormalCollision": ("ee", 2, 4),
         "FaceVertexNormalCollision": ("fv", 3, 4),
         "PlaneVertexNormalCollision": ("pv", 4, 1)}
_LAYOUT_NAMES = {"vv": "VertexVertexNormalCollision",
                 "ev": "EdgeVertexNormalCollision",
                 "ee": "EdgeEdgeNormalCollision",
                 "fv": "FaceVertexNormalCollision"}
_ID_GET = {
    "VertexVertexNormalCollision": operator.attrgetter("vertex0_id",
                                                       "vertex1_id"),
    "EdgeVertexNormalCollision": operator.attrgetter("vertex_id", "edge_id"),
    "EdgeEdgeNormalCollision": operator.attrgetter("edge0_id", "edge1_id"),
    "FaceVertexNormalCollision": operator.attrgetter("vertex_id", "face_id"),
    "PlaneVertexNormalCollision": operator.attrgetter("vertex_id")}
_CONTEXTS: Dict[str, Context] = {}
# fricl_barrier.h
_FLAG_PHYSICAL = 0x1
_FLAG_AS_CLASSIFIED = 0x2
_FLAG_SHAPE = 0x4


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
    rest = range(len(collisions))
    fast = _layout.read_all("normal", collisions, int(mesh.dim))
    out = []
    if fast is not None:  # vv/ev/ee/fv in one pass (_ipctk_layout)
        rng, by = fast
        for name in ("vv", "ev", "ee", "fv"):
            f = by.get(name)
            if f is None:
                continue
            _, t, _ = _KIND[_LAYOUT_NAMES[name]]
            m = len(f["weight"])
            ids = _layout.stencil_ids(name, f, E, F)
            dt = f["dtype"] if name == "ee" else np.full(m, -1)
            out.append((t, np.ascontiguousarray(ids, np.int32).ravel(),
                        np.array(f["weight"], float),
                        np.array(f["dmin"], float),
                        dt.astype(np.int8).view(np.uint8), None, None))
        rest = range(*rng["pv"])  # plane-vertex: field by field
    for i in rest:
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
        del c
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

    __slots__ = ("groups", "_plans", "_scratch", "_weight_gradients",
                 "_native", "fast", "_shape", "__weakref__")

    def __init__(self, groups: Tuple[Any, ...]) -> None:
        self.groups = groups
        # (mesh, X's shape, device, context, native groups, rest
        # positions or None, dim): what a value or gradient call of this
        # set on that fricl mesh passes as it is (NormalPotential._fast)
        self.fast: Any = None
        self._native: Any = None  # (dim, BarrierGroups): read once
        self._plans: Dict[Tuple[int, int], Any] = {}
        self._scratch: Any = None  # the BSR values, reused call to call
        self._weight_gradients: Any = None  # shape_derivative's, once
        # shape_derivative's index arrays and pattern, per (ctx, n): once
        self._shape: Dict[Tuple[int, int], Any] = {}

    def native(self, dim: int) -> Any:
        """The groups as a native BarrierGroups (f64), read and checked
        once: a call then passes them without re-reading every array."""
        if self._native is None or self._native[0] != dim:
            self._native = (dim, _native.BarrierGroups(dim, 0, self.groups))
        return self._native[1]

    def bsr(self, n: int) -> np.ndarray:
        if self._scratch is None or self._scratch.size != n:
            self._scratch = np.empty(n)
        return self._scratch

    def plan(self, ctx: Context, dim: int, n: int) -> Any:
        """The set's plan on ctx for n vertices (made once)."""
        key = (id(ctx), n)
        hit = self._plans.get(key)
        if hit is None or hit[0].closed or hit[1] is not ctx:
            hit = self._plans[key] = [_native.barrier_plan(
                ctx, dim, n, self.native(dim)),
                                      ctx, None, None]
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
    for i in sorted(set((0, n // 2, n - 1))) if n else ():
        c = collisions[i]
        name = type(c).__name__
        # the stored ids (vertex_ids(E, F) would convert the mesh's edges
        # and faces on every call)
        fp.extend((name, _ID_GET[name](c), c.weight, c.dmin))
        del c
    return tuple(fp)


def _same_topology(a: Tuple[Any, ...], b: Tuple[Any, ...]) -> bool:
    """The same stencil types and vertex lists, in the same order."""
    return len(a) == len(b) and all(
        x[0] == y[0] and _same_ids(x[1], y[1]) for x, y in zip(a, b))


def _same_ids(x: Any, y: Any) -> bool:
    """np.array_equal of two vertex-id arrays; for numpy arrays of one
    integer dtype and shape a byte comparison (the same answer, without
    array_equal's per-call overhead, which a small set's rebuild feels)."""
    if type(x) is np.ndarray and type(y) is np.ndarray and \
            x.dtype == y.dtype and x.dtype.kind in "iu":
        return x.shape == y.shape and x.tobytes() == y.tobytes()
    return bool(np.array_equal(x, y))


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


# A canonical csc_matrix's state as scipy's constructor leaves it, made
# once: a pattern fricl made is sorted with no duplicates (canonical), so
# a new pattern's prototype is this state with its own shape and arrays,
# without scipy's scans of the index arrays (which cost more than a small
# Hessian's evaluation). None: the constructor is used (an unknown scipy
# layout).
_CSC_STATE: Any = []
_CSC_KEYS = frozenset(("_shape", "maxprint", "indices", "indptr", "data",
                       "_has_sorted_indices", "_has_canonical_format"))


def _csc_state() -> Any:
    if not _CSC_STATE:
        import scipy.sparse as sp
        state = None
        try:
            i = np.arange(2, dtype=np.int32)
            m = sp.csc_matrix((np.ones(2), i, np.arange(3, dtype=np.int32)),
                              shape=(2, 2), copy=False)
            _ = (m.has_sorted_indices, m.has_canonical_format)
            d = dict(m.__dict__)
            if set(d) == _CSC_KEYS and d["_has_sorted_indices"] is True \
                    and d["_has_canonical_format"] is True:
                state = (type(m), d)
        except Exception:  # noqa: BLE001 - the constructor then
            state = None
        _CSC_STATE.append(state)
    return _CSC_STATE[0]


def csc_matrix(data: np.ndarray, indices: np.ndarray, indptr: np.ndarray,
               n: int, proto: Any = None) -> Tuple[Any, Any]:
    """``scipy.sparse.csc_matrix((data, copies of indices and indptr),
    shape=(n, n))`` for a pattern fricl made (sorted, no duplicates), and
    the prototype to pass back with the next data of the same pattern
    arrays: the pattern's state is made once (scipy's, its sorted and
    canonical flags set without scanning the index arrays), and the
    later matrices are the prototype's state with their own data and
    index copies (a caller may change a matrix in place, e.g. with
    ``eliminate_zeros``, without touching the next one). The prototype
    keeps no values."""
    if proto is None or proto[0] is not indices or \
            proto[1] is not indptr or proto[2].shape != (n, n):
        state = _csc_state() if indices.dtype == np.int32 and \
            indptr.dtype == np.int32 and len(indptr) == n + 1 else None
        if state is not None:
            m = object.__new__(state[0])
            m.__dict__.update(state[1])
            m._shape = (n, n)
            m.indices, m.indptr = indices, indptr
        else:
            import scipy.sparse as sp
            m = sp.csc_matrix((data, indices, indptr), shape=(n, n),
                              copy=False)
            # the pattern's properties, found once and kept in the state
            _ = (m.has_sorted_indices, m.has_canonical_format)
        m.data = np.empty(0)
        proto = (indices, indptr, m)
    h = object.__new__(type(proto[2]))
    h.__dict__.update(proto[2].__dict__)
    h.indices, h.indptr, h.data = indices.copy(), indptr.copy(), data
    return h, proto


_KIND_OF = {"vv": 0, "ev": 1, "ee": 2, "fv": 3, "pv": 4}
_K_OF = (2, 3, 4, 4, 1)


def _single(collision: Any, x: Any) -> Tuple[Any, np.ndarray, Any, int]:
    """One collision (ipctk's or fricl's) as a one-contact group over its
    own stencil: (groups, positions (k x dim), rest or None, dim)."""
    name = type(collision).__name__
    if name in _KIND:
        kind = _KIND[name][0]
    else:
        kind = getattr(collision, "kind", None)
        if kind not in _KIND_OF:
            raise TypeError("expected a normal collision, got %s" % name)
    t = _KIND_OF[kind]
    k = _K_OF[t]
    x = np.ascontiguousarray(np.asarray(x, dtype=np.float64).ravel())
    if x.size % k or x.size // k not in (2, 3):
        raise ValueError("x has %d values: not %d vertices of dimension 2 "
                         "or 3" % (x.size, k))
    dim = x.size // k
    X = x.reshape(k, dim)
    ids = np.arange(k, dtype=np.int32)
    dt = -1
    pn = pc = None
    rest = None
    if kind == "ee":
        dt = int(collision.dtype)
        # a rest stencil whose mollifier threshold 1e-3 |ea|^2 |eb|^2 is
        # the collision's eps_x (two unit-direction edges of length s)
        s4 = float(collision.eps_x) * 1000.0
        sl = s4 ** 0.25
        rest = np.zeros((4, 3))
        rest[1, 0] = sl
        rest[3, 0] = sl
        rest[3, 1] = 0.0
        rest[2, 1] = 1.0
        rest[3, 1] = 1.0
        rest = np.ascontiguousarray(rest.ravel())
    if kind == "pv":
        pl = collision.plane
        if isinstance(pl, tuple):  # fricl's collision: (normal, offset)
            pn = np.array(pl[0], dtype=np.float64).ravel()
            pc = np.array([float(pl[1])])
        else:
            # copies: a view would keep ipctk's collision alive through
            # the plane (ipctk 1.6.1 crashes at exit with one alive then)
            pn = np.array(pl.normal(), dtype=np.float64).ravel()
            pc = np.array([float(pl.offset())])
        del pl
    grp = ((t, ids, np.asarray([float(collision.weight)]),
            np.asarray([float(collision.dmin)]),
            np.asarray([dt], np.int8).view(np.uint8), pn, pc),)
    return grp, X, rest, dim


def _is_single(args: Tuple[Any, ...]) -> bool:
    if not args:
        return False
    name = type(args[0]).__name__
    return name in _KIND or (name == "NormalCollision" and
                             hasattr(args[0], "kind"))


def _weight_gradients(collisions: Any, entry: Any) -> Tuple[Any, Any, Any]:
    """The weight gradients of ipctk's collisions as (collision, column,
    value) arrays, in the set's order (which is the groups' order), read
    once per set; (None, None, None) when none is nonzero."""
    wg = getattr(entry, "_weight_gradients", None)
    if wg is not None:
        return wg
    r, c, v = [], [], []
    for i in range(len(collisions)):
        g = collisions[i].weight_gradient
        if g.shape[0] * g.shape[1] == 0:
            raise RuntimeError("Shape derivative is not computed for "
                               "collisions! (build them with "
                               "enable_shape_derivatives = True)")
        if g.nnz:
            g = g.tocoo()
            j = g.row if g.shape[1] == 1 else g.col
            r.append(np.full(len(j), i))
            c.append(j)
            v.append(g.data)
    wg = (np.concatenate(r), np.concatenate(c), np.concatenate(v)) if r \
        else (None, None, None)
    entry._weight_gradients = wg
    return wg


class NormalPotential:
    """ipctk 1.6.1's NormalPotential on fricl: the methods every normal
    potential has (the value, gradient and Hessian of a set or of one
    collision, force magnitudes, the Gauss-Newton diagonal and quadratic
    form, the shape derivative). Subclasses choose the function. Not an
    ``ipctk.NormalPotential`` (a pybind11 class fricl cannot derive
    from): it has the same methods (duck typing)."""

    device = "host"
    as_classified = True

    def _function(self) -> Any:  # None: the barrier
        return None

    def _params(self) -> Tuple[float, float, int]:
        raise NotImplementedError

    def _run(self, groups: Tuple[Any, ...], X: np.ndarray, rest: Any,
             entry: Any = None, psd: int = 0, gradient: bool = False,
             hessian: bool = False, outs: Any = None, gn_diag: Any = None,
             direction: Any = None, gnq: Any = None,
             extra_flags: int = 0) -> Tuple[Any, ...]:
        dim = X.shape[1]
        ctx = _context(self.device)
        g = np.zeros(X.size) if gradient else None
        plan = hv = indptr = indices = None
        if entry is not None and (hessian or gradient):
            plan = entry.plan(ctx, dim, X.shape[0])
        if hessian:
            if entry is None:
                entry = _Entry(groups)
                plan = entry.plan(ctx, dim, X.shape[0])
            indptr, indices = entry.csc_pattern(ctx, dim, X.shape[0])
            hv = entry.bsr(plan.nnz_blocks * dim * dim)
        dhat, kappa, flags = self._params()
        flags |= _FLAG_AS_CLASSIFIED if self.as_classified else 0
        flags |= extra_flags
        if entry is not None and groups is entry.groups:
            groups = entry.native(dim)
        pot, _ = _native.barrier_eval(
            ctx, 0, dim, flags, psd, X.ravel(),
            None if rest is None else rest.ravel(), dhat, kappa, 0.0,
            groups, g, hessian, plan, hv, self._function(), outs, gn_diag,
            direction, gnq)
        h = None
        if hessian:
            data = np.empty(len(indices))
            plan.csc(0, hv, None, None, data, indices.dtype == np.int64)
            hit = entry._plans[(id(ctx), X.shape[0])]
            h, hit[3] = csc_matrix(data, indices, indptr, X.size, hit[3])
        return pot, g, h

    def _set(self, collisions: Any, mesh: Any, X: Any) -> Tuple[Any, ...]:
        X = _ia.mesh_positions(mesh, X)
        rest = mesh.rest_positions
        if not (isinstance(rest, np.ndarray) and rest.dtype == np.float64
                and rest.flags.c_contiguous):
            rest = np.ascontiguousarray(rest, dtype=np.float64)
        if rest.shape != X.shape:
            rest = None
        return X, rest, _entry(collisions, mesh)

    def _eval(self, collisions: Any, mesh: Any, X: Any, psd: int,
              gradient: bool, hessian: bool) -> Tuple[Any, ...]:
        X, rest, entry = self._set(collisions, mesh, X)
        out = self._run(entry.groups, X, rest, entry, psd, gradient,
                        hessian)
        if type(collisions) is NormalCollisions and \
                type(mesh) is CollisionMesh:
            dim = X.shape[1]
            entry.fast = (mesh, X.shape, self.device,
                          _context(self.device), entry.native(dim), rest,
                          dim)
        return out

    def _fast(self, collisions: Any, mesh: Any, X: Any,
              gradient: bool) -> Any:
        """The value (or gradient) of fricl's own set on fricl's mesh at
        an X that needs no conversion, with what the set's last call
        prepared (its entry's ``fast``): one native call. None when the
        full path must run (another mesh, device or shape, a first call,
        an X to convert, any error: the full path then raises it)."""
        if type(collisions) is not NormalCollisions or \
                type(X) is not np.ndarray:
            return None
        e = collisions._barrier_entry
        f = e.fast if e is not None else None
        if f is None or f[0] is not mesh or f[1] != X.shape or \
                f[2] != self.device:
            # a first call on this set (or mesh, device, shape): what the
            # full path's first call keeps, made here (the native call
            # below checks X's dtype and layout)
            if type(mesh) is not CollisionMesh or X.shape != mesh._R.shape:
                return None
            e = _entry(collisions, mesh)
            dim = X.shape[1]
            e.fast = f = (mesh, X.shape, self.device, _context(self.device),
                          e.native(dim), mesh._R, dim)
        if type(self) is BarrierPotential:  # _params and _function inline
            dhat, kappa, fn = self.dhat, self.stiffness, None
            flags = _FLAG_PHYSICAL if self.use_physical_barrier else 0
        else:
            dhat, kappa, flags = self._params()
            fn = self._function()
        if self.as_classified:
            flags |= _FLAG_AS_CLASSIFIED
        g = np.zeros(X.size) if gradient else None
        try:
            pot = _native.barrier_eval(
                f[3], 0, f[6], flags, 0, X, f[5], dhat, kappa, 0.0, f[4], g,
                False, None, None, fn)[0]
        except Exception:  # noqa: BLE001 - the full path says what
            return None
        return g if gradient else float(pot)

    def _local(self, collision: Any, x: Any, what: int, psd: int = 0,
               p: Any = None) -> Any:
        """One collision: 0 value, 1 gradient, 2 Hessian (dense), 3
        force magnitude and gradient, 4 GN diagonal, 5 GN quadratic
        form."""
        grp, X, rest, dim = _single(collision, x)
        nd = X.size
        bufs = [None] * 8
        if what == 0:
            bufs[4] = np.empty(1)
        elif what == 1:
            bufs[5] = np.empty(nd)
        elif what == 2:
            bufs[6] = np.empty(nd * nd)
        elif what == 3:
            bufs[0], bufs[1] = np.empty(1), np.empty(nd)
        elif what == 4:
            bufs[2] = np.empty(nd)
        else:
            bufs[3] = np.empty(1)
        d = None
        if p is not None:
            d = np.ascontiguousarray(np.asarray(p, float).ravel())
        self._run(grp, X, rest, None, psd, outs=(tuple(bufs),), direction=d)
        if what == 0:
            return float(bufs[4][0])
        if what == 1:
            return bufs[5]
        if what == 2:
            return bufs[6].reshape(nd, nd)
        if what == 3:
            return float(bufs[0][0]), bufs[1]
        if what == 4:
            return bufs[2]
        return float(bufs[3][0])

    def __call__(self, *args: Any) -> float:
        if len(args) == 3:
            v = self._fast(args[0], args[1], args[2], False)
            if v is not None:
                return v
        if _is_single(args):
            return self._local(args[0], args[1], 0)
        collisions, mesh, X = args
        return float(self._eval(collisions, mesh, X, 0, False, False)[0])

    def gradient(self, *args: Any) -> np.ndarray:
        if len(args) == 3:
            g = self._fast(args[0], args[1], args[2], True)
            if g is not None:
                return g
        if _is_single(args):
            return self._local(args[0], args[1], 1)
        collisions, mesh, X = args
        return self._eval(collisions, mesh, X, 0, True, False)[1]

    def hessian(self, *args: Any, **kw: Any) -> Any:
        """The Hessian of a set (collisions, mesh, X[, psd]: CSC) or of one
        collision (collision, x[, psd]: dense), projected by
        ``project_hessian_to_psd`` (an ipctk.PSDProjectionMethod; NONE by
        default)."""
        single = _is_single(args)
        n = 2 if single else 3
        if len(args) > n + 1 or len(args) < n:
            raise TypeError("hessian takes %d or %d arguments, got %d"
                            % (n, n + 1, len(args)))
        for key in kw:
            if key != "project_hessian_to_psd" or len(args) > n:
                raise TypeError("hessian: unexpected keyword %s" % key)
        if len(args) > n:
            project = args[n]
        else:
            project = kw.get("project_hessian_to_psd", _ia.PSD_DEFAULT)
        psd = PSD.index(_ia.psd(project))
        if single:
            return self._local(args[0], args[1], 2, psd)
        collisions, mesh, X = args[:3]
        return self._eval(collisions, mesh, X, psd, False, True)[2]

    # -- the extras ------------------------------------------------------

    def force_magnitudes(self, collisions: Any, mesh: Any,
                         X: Any) -> Tuple[np.ndarray, List[np.ndarray]]:
        """fricl's extension: each collision's force magnitude at its
        squared distance in X (ipctk's force_magnitude(d^2, dmin)) and its
        gradient (force_magnitude_gradient with d^2's gradient), in the
        set's order: (N (n,), [local gradients (ndof,) per collision])."""
        X, rest, entry = self._set(collisions, mesh, X)
        dim = X.shape[1]
        outs, fms, fmg = [], [], []
        for grp in entry.groups:
            m = len(grp[1]) // _K_OF[grp[0]]
            nd = _K_OF[grp[0]] * dim
            a, b = np.empty(m), np.empty(m * nd)
            fms.append(a)
            fmg.append(b.reshape(m, nd))
            outs.append((a, b, None, None, None, None, None, None))
        self._run(entry.groups, X, rest, entry, outs=tuple(outs))
        N = np.concatenate(fms) if fms else np.zeros(0)
        return N, [r for blk in fmg for r in blk]

    def force_magnitude_of(self, collision: Any, x: Any) -> float:
        """fricl's extension: the force magnitude of one collision at its
        stencil positions x."""
        return self._local(collision, x, 3)[0]

    def gauss_newton_hessian_diagonal(self, *args: Any) -> np.ndarray:
        """The diagonal of the Gauss-Newton Hessian of a set
        (collisions, mesh, vertices) or of one collision (collision,
        positions), as ipctk 1.6.1."""
        if _is_single(args):
            return self._local(args[0], args[1], 4)
        collisions, mesh, V = args
        X, rest, entry = self._set(collisions, mesh, V)
        out = np.empty(X.size)
        self._run(entry.groups, X, rest, entry, gn_diag=out)
        return out

    def gauss_newton_hessian_quadratic_form(self, *args: Any) -> float:
        """p^T H_GN p of a set (collisions, mesh, vertices, p) or of one
        collision (collision, positions, p), as ipctk 1.6.1."""
        if _is_single(args):
            return self._local(args[0], args[1], 5, p=args[2])
        collisions, mesh, V, p = args
        X, rest, entry = self._set(collisions, mesh, V)
        p = np.ascontiguousarray(np.asarray(p, float).ravel())
        q = np.empty(1)
        self._run(entry.groups, X, rest, entry, direction=p, gnq=q)
        return float(q[0])

    def shape_derivative(self, collisions: Any, mesh: Any,
                         vertices: Any) -> Any:
        """The derivative of the gradient with respect to the rest
        positions, as ipctk 1.6.1: per collision (grad/w) (x) grad w (the
        weight gradients of ipctk's collisions built with
        ``enable_shape_derivatives``) plus the collision's own term (from
        fricl: the unprojected local Hessian, with a mollified edge-edge
        collision's rest-position terms). A scipy.sparse.csc_matrix."""
        import scipy.sparse as sp
        if isinstance(collisions, NormalCollisions):
            raise UnsupportedError(
                "shape_derivative needs the weight gradients of ipctk's "
                "NormalCollisions built with enable_shape_derivatives = "
                "True; fricl's collision sets do not carry them")
        X, rest, entry = self._set(collisions, mesh, vertices)
        dim = X.shape[1]
        n = X.size
        if not entry.groups:
            return sp.csc_matrix((n, n))
        wrows, wcols, wvals = _weight_gradients(collisions, entry)
        # each collision's own term through the set's plan
        # (FRICL_BARRIER_FLAG_SHAPE), with the local gradients
        outs, lgs = [], []
        for grp in entry.groups:
            k = _K_OF[grp[0]]
            m = len(grp[1]) // k
            a = np.empty(m * k * dim)
            lgs.append(a.reshape(m, k * dim))
            outs.append((None, None, None, None, None, a, None, None))
        if wrows is None:
            return self._run(entry.groups, X, rest, entry, psd=0,
                             hessian=True, outs=tuple(outs),
                             extra_flags=_FLAG_SHAPE)[2]
        ctx = _context(self.device)
        nv = X.shape[0]
        plan = entry.plan(ctx, dim, nv)
        indptr, indices = entry.csc_pattern(ctx, dim, nv)
        hv = entry.bsr(plan.nnz_blocks * dim * dim)
        dhat, kappa, flags = self._params()
        flags |= _FLAG_AS_CLASSIFIED if self.as_classified else 0
        _native.barrier_eval(
            ctx, 0, dim, flags | _FLAG_SHAPE, 0, X.ravel(),
            None if rest is None else rest.ravel(), dhat, kappa, 0.0,
            entry.native(dim), None, True, plan, hv, self._function(),
            tuple(outs), None, None, None)
        hdata = np.empty(len(indices))
        plan.csc(0, hv, None, None, hdata, indices.dtype == np.int64)
        # + sum over the collisions of (grad / w) (x) grad w, assembled
        # natively: a_c = the collision's gradient / w on its stencil's
        # rows, b_c its weight gradient (columns)
        key = (id(ctx), nv)
        sh = entry._shape.get(key)
        if sh is None or sh[0] is not indices:
            a_rows, a_len = [], []
            for grp in entry.groups:
                k = _K_OF[grp[0]]
                ids = grp[1].reshape(-1, k).astype(np.int64)
                a_rows.append((ids[:, :, None] * dim +
                               np.arange(dim)[None, None, :]).ravel())
                a_len.append(np.full(ids.shape[0], k * dim, np.int64))
            a_ptr = np.zeros(sum(len(x) for x in a_len) + 1, np.int64)
            np.cumsum(np.concatenate(a_len), out=a_ptr[1:])
            order = np.lexsort((wrows, wcols))
            w_coll = np.ascontiguousarray(wrows[order], np.int64)
            w_vals = np.ascontiguousarray(wvals[order], np.float64)
            w_ptr = np.zeros(n + 1, np.int64)
            np.cumsum(np.bincount(wcols, minlength=n), out=w_ptr[1:])
            h_ptr = indptr.astype(np.int64)
            h_idx = indices.astype(np.int64)
            a_rows = np.concatenate(a_rows)
            pp, pi = _native.shape_assemble(
                n, h_ptr, h_idx, hdata, a_ptr, a_rows, np.zeros(len(a_rows)),
                w_ptr, w_coll, w_vals, None, None, None)
            pp = np.frombuffer(pp, np.int64)
            pi = np.frombuffer(pi, np.int64)
            small = len(pi) < 2**31 - 1 and n < 2**31 - 1
            sh = entry._shape[key] = [
                indices, h_ptr, h_idx, a_ptr, a_rows, w_ptr, w_coll, w_vals,
                pp, pi, pp.astype(np.int32) if small else pp,
                pi.astype(np.int32) if small else pi, None]
        a_vals = []
        for grp, lg in zip(entry.groups, lgs):
            w = grp[2] if grp[2] is not None else np.ones(lg.shape[0])
            with np.errstate(divide="ignore", invalid="ignore"):
                a_vals.append(np.where(w[:, None] != 0, lg / w[:, None],
                                       0.0).ravel())
        data = np.empty(len(sh[9]))
        _native.shape_assemble(n, sh[1], sh[2], hdata, sh[3], sh[4],
                               np.concatenate(a_vals), sh[5], sh[6], sh[7],
                               sh[8], sh[9], data)
        h, sh[12] = csc_matrix(data, sh[11], sh[10], n, sh[12])
        # no stored zeros, as scipy's sum H + G W^T left it (its own
        # index copies: the cached pattern stays)
        h.eliminate_zeros()
        return h


class BarrierPotential(NormalPotential):
    """ipctk.BarrierPotential(dhat, stiffness, use_physical_barrier), or
    (barrier, dhat, stiffness, use_physical_barrier) with ipctk's
    ClampedLogBarrier (the one barrier fricl has), on fricl (f64, on
    ``device``: host threads by default). The collisions are evaluated as
    ipctk evaluates them; ``as_classified=False`` takes each edge-vertex
    and face-vertex contact's nearest feature instead."""

    def __init__(self, *args: Any, device: str = "host",
                 as_classified: bool = True, **kw: Any) -> None:
        barrier = None
        if args and not isinstance(args[0], (int, float, np.floating,
                                             np.integer)):
            barrier, args = args[0], args[1:]
        elif "barrier" in kw:
            barrier = kw.pop("barrier")
        names = ("dhat", "stiffness", "use_physical_barrier")
        vals = dict(zip(names, args))
        for key in list(kw):
            if key not in names or key in vals:
                raise TypeError("unexpected argument %s" % key)
            vals[key] = kw.pop(key)
        if "dhat" not in vals or "stiffness" not in vals:
            raise TypeError("BarrierPotential needs dhat and stiffness")
        if barrier is not None and \
                type(barrier).__name__ != "ClampedLogBarrier":
            raise UnsupportedError(
                "fricl's barrier potential has ipctk's ClampedLogBarrier "
                "only, got %s" % type(barrier).__name__)
        self._barrier = barrier
        self.dhat = float(vals["dhat"])
        self.stiffness = float(vals["stiffness"])
        self.use_physical_barrier = bool(vals.get("use_physical_barrier",
                                                  False))
        self.device = device
        self.as_classified = bool(as_classified)

    @property
    def barrier(self) -> Any:
        """The barrier function: ipctk's ClampedLogBarrier."""
        if self._barrier is None:
            import ipctk
            self._barrier = ipctk.ClampedLogBarrier()
        return self._barrier

    def _params(self) -> Tuple[float, float, int]:
        return (self.dhat, self.stiffness,
                _FLAG_PHYSICAL if self.use_physical_barrier else 0)

    def _units(self, dmin: Any) -> Any:
        xh = (2 * dmin + self.dhat) * self.dhat
        return self.dhat / (xh * xh) if self.use_physical_barrier else 1.0

    def force_magnitude(self, distance_squared: float, dmin: float) -> float:
        """ipctk's force_magnitude(d^2, dmin): -kappa b'(d^2 - dmin^2) 2 d,
        through fricl on a one-contact plane-vertex stencil at that
        distance when d^2 is a square of a double, else this formula."""
        return float(self._scalar_force(float(distance_squared),
                                        float(dmin))[0])

    def force_magnitude_gradient(self, distance_squared: float,
                                 distance_squared_gradient: Any,
                                 dmin: float) -> np.ndarray:
        """ipctk's force_magnitude_gradient: dN/d(d^2) times the given
        gradient of d^2."""
        dN = self._scalar_force(float(distance_squared), float(dmin))[1]
        return dN * np.asarray(distance_squared_gradient, float).ravel()

    def _scalar_force(self, d2: float, dmin: float) -> Tuple[float, float]:
        """N and dN/d(d^2) of fricl_barrier_eval's extras on one vertex
        against the plane {y: y_0 = 0} at height sqrt(d^2) (d^2 is then
        the contact's up to one rounding of the square root)."""
        import math
        x = np.array([math.sqrt(max(d2, 0.0)), 0.0])
        grp = ((4, np.zeros(1, np.int32), None, np.asarray([dmin]), None,
                np.array([1.0, 0.0]), np.zeros(1)),)
        fm, fmg = np.empty(1), np.empty(2)
        self._run(grp, x.reshape(1, 2), None,
                  outs=((fm, fmg, None, None, None, None, None, None),))
        # d(d^2)/dx_0 = 2 x_0
        dN = fmg[0] / (2 * x[0]) if x[0] > 0 else 0.0
        return fm[0], dN

    def __repr__(self) -> str:
        return ("fricl.ipctk.BarrierPotential(dhat=%g, stiffness=%g, "
                "use_physical_barrier=%s%s)"
                % (self.dhat, self.stiffness, self.use_physical_barrier,
                   "" if self.as_classified else ", as_classified=False"))


class NormalAdhesionPotential(NormalPotential):
    """ipctk.NormalAdhesionPotential(dhat_p, dhat_a, Y, eps_c) on fricl:
    the normal adhesion potential of Fang, Li et al. over the barrier's
    collisions (fricl_barrier_eval with FRICL_NORMAL_ADHESION)."""

    def __init__(self, dhat_p: float, dhat_a: float, Y: float, eps_c: float,
                 *, device: str = "host", as_classified: bool = True) -> None:
        self.dhat_p = float(dhat_p)
        self.dhat_a = float(dhat_a)
        self.Y = float(Y)
        self.eps_c = float(eps_c)
        self.device = device
        self.as_classified = bool(as_classified)

    def _function(self) -> Any:
        return (1, self.dhat_p, self.dhat_a, self.Y, self.eps_c)

    def _params(self) -> Tuple[float, float, int]:
        return (1.0, 1.0, 0)

    def force_magnitude(self, distance_squared: float, dmin: float) -> float:
        """ipctk's: the largest adhesion force 2 a2 (xp - xa), constant in
        the positions (through fricl on a one-contact stencil)."""
        grp = ((4, np.zeros(1, np.int32), None, np.asarray([float(dmin)]),
                None, np.array([1.0, 0.0]), np.zeros(1)),)
        fm = np.empty(1)
        self._run(grp, np.ones((1, 2)), None,
                  outs=((fm, None, None, None, None, None, None, None),))
        return float(fm[0])

    def force_magnitude_gradient(self, distance_squared: float,
                                 distance_squared_gradient: Any,
                                 dmin: float) -> np.ndarray:
        """Zero: the force magnitude does not depend on the positions."""
        return np.zeros(np.asarray(distance_squared_gradient).size)

    def __repr__(self) -> str:
        return ("fricl.ipctk.NormalAdhesionPotential(dhat_p=%g, dhat_a=%g, "
                "Y=%g, eps_c=%g)" % (self.dhat_p, self.dhat_a, self.Y,
                                     self.eps_c))
