"""A drop-in for ipctk 1.6.1's friction potential, computed by fricl.

Replace::

    import ipctk
    D = ipctk.FrictionPotential(eps_v)

by::

    import fricl.ipctk
    D = fricl.ipctk.FrictionPotential(eps_v)     # mu_profile="ipctk"

and keep the rest: ``D(collisions, mesh, X) -> float``,
``D.gradient(collisions, mesh, X) -> ndarray`` (size ``X.size``) and
``D.hessian(collisions, mesh, X, project_hessian_to_psd=...) ->
scipy.sparse.csc_matrix`` (``X.size`` x ``X.size``) take ipctk's own
``TangentialCollisions``, ``CollisionMesh`` and velocity (or
displacement) arrays, and return what ipctk returns, to rounding. As in
ipctk, ``X`` holds the *collision mesh's* vertices (``mesh.num_vertices``
rows; map full-mesh arrays with ``mesh.map_displacements`` /
``mesh.vertices``, and gradients back with ``mesh.to_full_dof``). The
single-collision overloads ``D(collision, x)``, ``D.gradient(collision,
x)`` and ``D.hessian(collision, x, psd)`` work too. ``force`` and
``force_jacobian`` (ipctk's ``TangentialPotential.force`` /
``force_jacobian`` on a collision set) are computed by fricl
(``fricl_force_eval``), on ipctk's collisions or fricl's, with ipctk's or
fricl's ``BarrierPotential`` as the normal potential; their
single-collision overloads are ipctk's own (delegated).

PSD projection: ``ipctk.PSDProjectionMethod.NONE``, ``CLAMP`` and ``ABS``
(``ABS`` reproduces ipctk's behaviour for w N <= 0, which differs from
fricl's default, see ``ipctk_abs`` in :meth:`fricl.Contacts.evaluate`).

**The cache.** Reading the lagged data out of an ipctk
``TangentialCollisions`` costs about 30 us per collision in Python (every
attribute goes through pybind11), so each potential keeps what it read,
with its plan, per (collisions, mesh, number of vertices), and a Newton
loop pays it once. An entry is dropped when the collisions or the mesh
object is garbage-collected, and re-read when the collisions changed: on
every call the number of collisions and, for three sampled collisions
(first, middle, last), their type, normal force, weight and lagged
mu_s / mu_k are compared with what was read (about 40 us). This catches
``collisions.build(...)`` again on the same object. It does not catch an
in-place edit of a single unsampled collision (``c.weight = ...``,
``c.mu_aniso = ...``): after such edits call
``potential.clear_cache()`` (or ``potential.clear_cache(collisions)``).

**fricl's own lagged build.** :class:`TangentialCollisions` here has
ipctk's ``build(mesh, vertices, collisions, normal_potential, mu_s,
mu_k)`` signature, runs :func:`fricl.build.build` on an ipctk
``NormalCollisions``, and is accepted by :class:`FrictionPotential` in
place of ipctk's (it needs no cache check: it changes only through its
own ``build``).
"""
from __future__ import annotations

import operator
import weakref
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

try:
    import ipctk as _ipctk
except ImportError as _e:  # pragma: no cover - environment dependent
    raise ImportError("fricl.ipctk needs the ipctk package (python3 -m pip "
                      "install ipctk): %s" % _e) from None

from . import _convert as cv
from . import _ipctk_args as _ia
from . import _ipctk_layout as _layout
from ._tables import BUILD_STATUSES
from ._tables import BLENDS, lookup
from ._tables import STENCILS as _STENCILS
from .build import FLAG_PHYSICAL_BARRIER as _PHYSICAL
from .build import BuildGroup, BuildResult, PackedBuild
from .build import build as _fricl_build
from .build import prepare as _prepare
from .context import Context
from .errors import InvalidArgumentError, UnsupportedError
from .tangential import ContactGroup, Contacts
from ._tables import MOLLIFIERS as _MOLLIFIERS
from ._tables import MU_PROFILES as _MU_PROFILES
from . import _native

_PROFILES = dict((p, i) for i, p in enumerate(_MU_PROFILES))
_MOLLIFIER_INDEX = dict((m, i) for i, m in enumerate(_MOLLIFIERS))

from .ipctk_barrier import (BarrierPotential,  # noqa: E402
                            NormalAdhesionPotential, NormalPotential)
from .ipctk_barrier import csc_matrix as _csc_matrix  # noqa: E402
from .ipctk_collisions import (Candidates, CollisionMesh,  # noqa: E402
                               NormalCollisions)

__all__ = ["FrictionPotential", "TangentialPotential", "TangentialCollision",
           "TangentialAdhesionPotential", "TangentialCollisions",
           "build_tangential_collisions", "read_tangential_collisions",
           "normal_adhesion_force_magnitude",
           "BarrierPotential", "NormalAdhesionPotential", "NormalPotential",
           "CollisionMesh", "NormalCollisions",
           "Candidates", "AdditiveCCD"]


class AdditiveCCD(_ipctk.AdditiveCCD):
    """ipctk's ``AdditiveCCD`` that remembers ``max_iterations`` (ipctk's
    own object does not show it), so that fricl's CCD
    (``Candidates.compute_collision_free_stepsize``) uses it; a plain
    ``ipctk.AdditiveCCD`` is taken to have ipctk's default, 10**7.
    Negative: no limit."""

    def __init__(self, max_iterations: int = 10_000_000,
                 conservative_rescaling: float = 0.9) -> None:
        super().__init__(max_iterations, conservative_rescaling)
        self.max_iterations = int(max_iterations)

_TYPES = ("vv", "ev", "ee", "fv", "pv")
_LISTS = {"vv": "vv_collisions", "ev": "ev_collisions",
          "ee": "ee_collisions", "fv": "fv_collisions"}
_ID_ATTRS = {"vv": ("vertex0_id", "vertex1_id"),
             "ev": ("vertex_id", "edge_id"),
             "ee": ("edge0_id", "edge1_id"),
             "fv": ("vertex_id", "face_id"),
             "pv": ("vertex_id",)}
_NB = {"vv": 0, "ev": 1, "ee": 2, "fv": 2, "pv": 0}
_K = {"vv": 2, "ev": 3, "ee": 4, "fv": 4, "pv": 1}
_DATA_ATTRS = ("tangent_basis", "normal_force_magnitude", "weight",
               "mu_s_effective_lagged", "mu_k_effective_lagged", "mu_aniso")
_GETTERS = dict(
    (t, operator.attrgetter(*(_ID_ATTRS[t] + (("closest_point",)
                                              if _NB[t] else ()) +
                              _DATA_ATTRS)))
    for t in _TYPES)
_CONTEXTS: Dict[str, Context] = {}
# hessian(collision, x, psd) puts psd where X goes: a default of None
# would take hessian(collision, x, None), which ipctk refuses, for
# hessian(collision, x).
class _NotGiven:
    def __repr__(self) -> str:
        return "<not given>"


_NOT_GIVEN = _NotGiven()


def _context(device: str) -> Context:
    """One shared fricl.Context per device spec (made on first use)."""
    ctx = _CONTEXTS.get(device)
    if ctx is None or ctx.closed:
        ctx = _CONTEXTS[device] = Context(device)
    return ctx


_count = _ia.count


def _mesh_arrays(mesh: Any) -> Tuple[np.ndarray, np.ndarray, int, int]:
    E = np.asarray(mesh.edges, dtype=np.int64)
    F = np.asarray(mesh.faces, dtype=np.int64)
    return E, F, _count(mesh.num_vertices), _count(mesh.dim)


def _stencil_ids(t: str, cols: List[Any], E: np.ndarray,
                 F: np.ndarray) -> np.ndarray:
    a = np.asarray(cols[0], np.int64)
    if t == "vv":
        return np.stack([a, np.asarray(cols[1], np.int64)], 1)
    if t == "pv":
        return a.reshape(-1, 1)
    b = np.asarray(cols[1], np.int64)
    if t == "ev":
        return np.column_stack([a, E[b]])
    if t == "ee":
        return np.column_stack([E[a], E[b]])
    return np.column_stack([a, F[b]])  # fv: vertex, face


def _items(tc: Any) -> Dict[str, List[Any]]:
    """The collisions of each type. The container's vv/ev/ee/fv lists have
    no plane-vertex collisions; those are the items after them (ipctk
    indexes vv, ev, ee, fv, pv in that order)."""
    by = dict((t, list(getattr(tc, _LISTS[t]))) for t in _LISTS)
    n4 = sum(len(v) for v in by.values())
    by["pv"] = [tc[i] for i in range(n4, len(tc))]
    for c in by["pv"][:1]:
        if type(c).__name__ != "PlaneVertexTangentialCollision":
            raise UnsupportedError("unexpected ipctk collision order (%s "
                                   "after the vv/ev/ee/fv lists)"
                                   % type(c).__name__)
    return by


def read_tangential_collisions(collisions: Any, mesh: Any,
                               dtype: Any = np.float64) -> List[ContactGroup]:
    """The lagged data of an ipctk ``TangentialCollisions`` as fricl
    contact groups (one per stencil type present): vertex ids (through
    ``mesh.edges`` / ``mesh.faces``), closest point, tangent basis, normal
    force, weight, ``mu_s/mu_k_effective_lagged`` and ``mu_aniso``. Read
    in one pass where the collisions' storage can be (_ipctk_layout),
    else collision by collision through ipctk's properties."""
    E, F, _, dim = _mesh_arrays(mesh)
    fast = _layout.read_all("tangential", collisions, dim)
    if fast is not None:
        rng, cols = fast
        groups = []
        for t in _TYPES[:4]:
            f = cols.get(t)
            if f is None:
                continue
            m = len(f["weight"])
            groups.append(_tangential_group(
                t, _layout.stencil_ids(t, f, E, F),
                f["closest_point"][:, :_NB[t]] if _NB[t] else None,
                f["tangent_basis"], f["normal_force_magnitude"], f["weight"],
                f["mu_s_effective_lagged"], f["mu_k_effective_lagged"],
                f["mu_aniso"], m, dim, dtype))
        s, e = rng["pv"]
        if e > s:  # plane-vertex collisions: field by field
            items = [collisions[i] for i in range(s, e)]
            try:
                groups += _read_groups({"pv": items}, E, F, dim, dtype)
            finally:
                items.clear()
        return groups
    by = _items(collisions)
    try:
        return _read_groups(by, E, F, dim, dtype)
    finally:
        # ipctk 1.6.1: an item (tc[i]) refers into the container without
        # keeping it alive; drop every item now.
        by.clear()


def _tangential_group(t: str, vertices: np.ndarray, cp: Any, P: Any, N: Any,
                      w: Any, ms: Any, mk: Any, aniso: Any, m: int,
                      dim: int, dtype: Any) -> ContactGroup:
    """A contact group of m ipctk tangential collisions of type t."""
    if cp is not None:
        cp = np.array(cp, dtype).reshape(m, _NB[t])
    P = np.array(P, dtype).reshape(m, dim, dim - 1)
    N, w, ms, mk = (np.array(a, dtype) for a in (N, w, ms, mk))
    aniso = np.array(aniso, dtype).reshape(m, -1)
    aniso = np.ascontiguousarray(aniso[:, :dim - 1])
    return ContactGroup(
        t, vertices.astype(np.int32), closest_point=cp, tangent_basis=P,
        normal_force=N, mu_s=ms, mu_k=mk,
        weight=None if np.all(w == 1) else w,
        mu_aniso=None if np.all(aniso == 1) else aniso, dtype=dtype,
        dim=dim)


def _read_groups(by: Dict[str, List[Any]], E: np.ndarray, F: np.ndarray,
                 dim: int, dtype: Any) -> List[ContactGroup]:
    """Contact groups of ipctk tangential collision items, by type."""
    groups = []
    for t in _TYPES:
        lst = by.get(t)
        if not lst:
            continue
        cols = list(zip(*map(_GETTERS[t], lst)))
        i = len(_ID_ATTRS[t])
        cp = None
        if _NB[t]:
            cp = cols[i]
            i += 1
        groups.append(_tangential_group(
            t, _stencil_ids(t, cols, E, F), cp, cols[i], cols[i + 1],
            cols[i + 2], cols[i + 3], cols[i + 4], cols[i + 5], len(lst),
            dim, dtype))
    return groups


_FP_GET = operator.attrgetter("normal_force_magnitude", "weight",
                              "mu_s_effective_lagged",
                              "mu_k_effective_lagged")


def _fingerprint(tc: Any) -> tuple:
    """Length and (type, N, w, mu_s, mu_k) of three sampled collisions."""
    n = len(tc)
    if n == 0:
        return (0,)
    fp: List[Any] = [n]
    for i in sorted(set((0, n // 2, n - 1))):
        c = tc[i]
        fp.append(type(c))
        fp.extend(_FP_GET(c))
        del c
    return tuple(fp)


class _Entry:
    __slots__ = ("coll", "mesh", "fp", "contacts", "dim", "fgroups",
                 "wgrad")


def _plane_arrays(items: List[Any], dim: int) -> Tuple[np.ndarray,
                                                      np.ndarray]:
    """The planes (normal, offset) of ipctk plane-vertex collisions."""
    planes = [c.plane for c in items]
    pn = np.array([np.asarray(p.normal(), np.float64).reshape(-1)[:dim]
                   for p in planes], np.float64).reshape(len(items), dim)
    po = np.array([float(p.offset()) for p in planes], np.float64)
    return pn, po


def _force_groups(groups: List[ContactGroup],
                  planes: Dict[str, Tuple[np.ndarray, np.ndarray]]) -> tuple:
    """fricl._native.force_eval's group tuples (type, vertices, weight,
    mu_s, mu_k, mu_aniso, plane_normal, plane_offset)."""
    out = []
    for g in groups:
        pn = po = None
        if g.type == "pv":
            pn, po = planes["pv"]
        out.append((g.stencil, g.vertices) + tuple(
            None if a is None else np.ascontiguousarray(a, np.float64)
            for a in (g.weight, g.mu_s, g.mu_k, g.mu_aniso, pn, po)))
    return tuple(out)


def _columns(mesh: Any, *arrays: Any) -> Optional[Tuple[Any, ...]]:
    """The vertex arrays as they are when every one is a Fortran-ordered
    float64 numpy array of the collision mesh's (num_vertices, dim) shape
    (how ipctk's callers hold them): the native call then reads their
    transposes without the row-major copies. None otherwise (the arrays
    then go through mesh_positions' checks and conversion)."""
    shape = None
    for a in arrays:
        if (type(a) is not np.ndarray or a.dtype != cv.F64 or a.ndim != 2
                or a.flags.c_contiguous or not a.flags.f_contiguous):
            return None
        if shape is None:
            shape = (_count(mesh.num_vertices), _count(mesh.dim))
        if a.shape != shape:
            return None
    return arrays


_WRT = {"REST_POSITIONS": 1, "LAGGED_DISPLACEMENTS": 2, "VELOCITIES": 3}


def _wrt(wrt: Any) -> int:
    name = getattr(wrt, "name", wrt)
    if isinstance(name, str):
        v = _WRT.get(name.upper())
        if v is not None:
            return v
    raise InvalidArgumentError("argument 'wrt': expected ipctk's DiffWRT "
                               "(REST_POSITIONS, LAGGED_DISPLACEMENTS or "
                               "VELOCITIES), got %r" % (wrt,))


def _psd(project: Any) -> Tuple[str, bool]:
    """fricl's psd name and the IPCTK_ABS flag for an ipctk projection."""
    psd = _ia.psd(project)
    return psd, psd == "abs"


class FrictionPotential:
    """ipctk's ``FrictionPotential(eps_v)``, evaluated by fricl.

    Parameters
    ----------
    eps_v : float
        The static/kinetic transition speed eps_v (> 0), in the units of
        ``X`` (velocities; or displacements with eps_v * h, as in ipctk).
    mu_profile : {"ipctk", "cubic"}
        The smooth static-to-kinetic mu: ``ipctk`` (ipctk >= 1.4's
        piecewise quadratic, what ipctk computes) or ``cubic``.
    device : str
        fricl device spec (``"auto"``; see :class:`fricl.Context`). One
        context per spec is shared by every potential.
    context : fricl.Context, optional
        Use this context instead.
    """

    _mollifier = "friction"

    def __init__(self, eps_v: float, mu_profile: str = "ipctk", *,
                 device: str = "auto",
                 context: Optional[Context] = None) -> None:
        self.eps_v = eps_v
        self.mu_profile = mu_profile
        self._device = device
        self._ctx = context
        self._cache: Dict[tuple, _Entry] = {}
        self._ipctk_potential = None

    @property
    def eps_v(self) -> float:
        """The smooth friction mollifier parameter eps_v."""
        return self._eps_v

    @eps_v.setter
    def eps_v(self, value: float) -> None:
        value = float(value)
        if not value > 0 or value == float("inf"):
            raise InvalidArgumentError("eps_v must be finite and > 0, got %r"
                                       % value)
        self._eps_v = value

    @property
    def context(self) -> Context:
        """The fricl.Context that evaluates."""
        if self._ctx is None or self._ctx.closed:
            self._ctx = _context(self._device)
        return self._ctx

    # ------------------------------------------------------------ cache
    def clear_cache(self, collisions: Any = None) -> None:
        """Forget what was read from ``collisions`` (all when None)."""
        if collisions is None:
            self._cache.clear()
            return
        for key in [k for k in self._cache if k[0] == id(collisions)]:
            del self._cache[key]

    def _contacts(self, collisions: Any, mesh: Any,
                  X: np.ndarray) -> Optional[Contacts]:
        n = X.shape[0]
        if isinstance(collisions, TangentialCollisions):
            return collisions._contacts(self.context, n)
        key = (id(collisions), id(mesh), n)
        e = self._cache.get(key)
        if e is not None and e.coll() is collisions and e.mesh() is mesh:
            if _fingerprint(collisions) == e.fp:
                return e.contacts
        e = _Entry()
        fp = _fingerprint(collisions)
        groups = read_tangential_collisions(collisions, mesh)
        e.contacts = Contacts(self.context, groups, n) if groups else None
        e.fp = fp
        e.fgroups = None
        e.wgrad = None
        cache = self._cache

        def drop(_ref: Any, key: tuple = key) -> None:
            cache.pop(key, None)

        e.coll = _ref(collisions, drop)
        e.mesh = _ref(mesh, drop)
        if len(cache) >= 8:
            cache.pop(next(iter(cache)))
        cache[key] = e
        return e.contacts

    def _X(self, mesh: Any, X: Any) -> np.ndarray:
        return _ia.mesh_positions(mesh, X)

    # -------------------------------------------------- ipctk's interface
    def __call__(self, collisions: Any, mesh: Any, X: Any = None) -> float:
        """The potential summed over ``collisions`` (or, called as
        ``(collision, x)``, of one collision on its stencil's DOFs)."""
        if X is None:
            return float(self._single(collisions, mesh).potential)
        v = self._fast(collisions, mesh, X, False)
        if v is not None:
            return v
        Xa = self._X(mesh, X)
        c = self._contacts(collisions, mesh, Xa)
        if c is None:
            return 0.0
        out = float(c.evaluate(Xa, self._eps_v, mu_profile=self.mu_profile,
                               mollifier=self._mollifier).potential)
        self._fast_keep(collisions, mesh, Xa, c)
        return out

    def gradient(self, collisions: Any, mesh: Any, X: Any = None) -> np.ndarray:
        """The gradient w.r.t. ``X`` (flat, ``X.size``, vertex-major)."""
        if X is None:
            return self._single(collisions, mesh, gradient=True).gradient
        g = self._fast(collisions, mesh, X, True)
        if g is not None:
            return g
        Xa = self._X(mesh, X)
        c = self._contacts(collisions, mesh, Xa)
        if c is None:
            return np.zeros(Xa.size)
        if not isinstance(collisions, TangentialCollisions) and \
                Xa.dtype == cv.F64:
            # ipctk's set: no plan made for a gradient (its Hessian makes
            # one when asked)
            g = self._eval_native(c, Xa, True)
            if g is not None:
                return g
        out = c.evaluate(Xa, self._eps_v, mu_profile=self.mu_profile,
                         mollifier=self._mollifier,
                         potential=False, gradient=True).gradient.reshape(-1)
        self._fast_keep(collisions, mesh, Xa, c)
        return out

    @staticmethod
    def _fast_keep(collisions: Any, mesh: Any, X: np.ndarray,
                   c: Contacts) -> None:
        """After a full call on fricl's collisions and mesh: what the next
        value or gradient call passes as it is (``_fast``)."""
        if type(collisions) is TangentialCollisions and \
                type(mesh) is CollisionMesh:
            collisions._fast = (mesh, X.shape, c.ctx, c, collisions._cache)

    def _fast(self, collisions: Any, mesh: Any, X: Any,
              gradient: bool) -> Any:
        """The value (or gradient) of fricl's own TangentialCollisions on
        fricl's mesh at an X that needs no conversion: one native call
        with the contacts and plan the last full call used. None when the
        full path must run (another mesh, context or shape, a rebuilt
        set, an X to convert, any error: the full path then raises it)."""
        if type(collisions) is not TangentialCollisions or \
                type(X) is not np.ndarray:
            return None
        f = collisions._fast
        if f is None or f[0] is not mesh or f[1] != X.shape or \
                f[2] is not self._ctx or f[4] is not collisions._cache:
            # a first call on this set (or mesh, context, shape): its
            # contacts straight from the build (the native call below
            # checks X's dtype and layout)
            if type(mesh) is not CollisionMesh or X.shape != mesh._R.shape:
                return None
            c = collisions._contacts(self.context, X.shape[0])
            if c is None:
                return None
            collisions._fast = f = (mesh, X.shape, c.ctx, c,
                                    collisions._cache)
        return self._eval_native(f[3], X, gradient)

    def _eval_native(self, c: Contacts, X: np.ndarray,
                     gradient: bool) -> Any:
        """The value (or gradient) of contacts c at X in one native call
        with the plan c has (none yet: see below); None on any error (the
        full path then raises it)."""
        prof = _PROFILES.get(self.mu_profile)
        moll = _MOLLIFIER_INDEX.get(self._mollifier)
        if prof is None or moll is None:
            return None
        pot = None if gradient else np.empty(1)
        grad = np.empty(X.shape) if gradient else None
        # without a plan (none made yet: a first gradient), fricl gathers
        # through the context's cached vertex lists of this topology
        # (fricl_tangential_batch.plan), the same sums as a plan's, at a
        # fraction of a plan's cost (no Hessian pattern)
        plan = c._plan
        try:
            _native.tangential_eval(c.ctx, c._native, plan, prof, 0, 0,
                                    c.n_vertices, X, self._eps_v, None, pot,
                                    grad, None, None, None, None, moll)
        except Exception:  # noqa: BLE001 - the full path says what
            return None
        return grad.reshape(-1) if gradient else float(pot[0])

    def hessian(self, collisions: Any, mesh: Any, X: Any = _NOT_GIVEN,
                project_hessian_to_psd: Any = _ia.PSD_DEFAULT) -> Any:
        """The Hessian w.r.t. ``X`` as a ``scipy.sparse.csc_matrix``
        (``X.size`` square), each collision's block projected as asked
        (``ipctk.PSDProjectionMethod``; default NONE). Called as
        ``(collision, x[, psd])``: the dense local Hessian."""
        if X is _NOT_GIVEN or not hasattr(mesh, "num_vertices"):
            if X is not _NOT_GIVEN:  # hessian(collision, x, psd)
                project_hessian_to_psd = X
            return self._single(collisions, mesh, hessian=True,
                                psd=project_hessian_to_psd)
        psd, abs_ = _psd(project_hessian_to_psd)
        Xa = self._X(mesh, X)
        c = self._contacts(collisions, mesh, Xa)
        if c is None:
            import scipy.sparse as sp
            return sp.csc_matrix((Xa.size, Xa.size))
        hv = c.evaluate(Xa, self._eps_v, mu_profile=self.mu_profile,
                        mollifier=self._mollifier,
                        potential=False, hessian="values", psd=psd,
                        ipctk_abs=abs_).hessian
        return _csc_of(c, hv)

    def _single(self, collision: Any, x: Any, gradient: bool = False,
                hessian: bool = False, psd: Any = None) -> Any:
        """One ipctk collision on its own DOFs x (k dim values)."""
        t = None
        for name, cls in (("vv", "VertexVertex"), ("ev", "EdgeVertex"),
                          ("ee", "EdgeEdge"), ("fv", "FaceVertex"),
                          ("pv", "PlaneVertex")):
            if type(collision).__name__ == cls + "TangentialCollision":
                t = name
        if t is None:
            raise InvalidArgumentError(
                "expected an ipctk TangentialCollisions (with mesh and X) "
                "or one tangential collision, got %s"
                % type(collision).__name__)
        xa = cv.real(x, cv.F64, "x").reshape(-1)
        dim = _count(collision.dim)
        k = _K[t]
        if xa.size != k * dim:
            raise InvalidArgumentError(
                "argument 'x': expected the %d values of the collision's "
                "stencil (%d vertices x %d), got shape %s"
                % (k * dim, k, dim, np.shape(x)))
        vals = _GETTERS[t](collision)[len(_ID_ATTRS[t]):]
        i = 0
        cp = None
        if _NB[t]:
            cp = np.asarray(vals[0], np.float64).reshape(1, _NB[t])
            i = 1
        P, N, w, ms, mk, a = vals[i:i + 6]
        g = ContactGroup(
            t, np.arange(k, dtype=np.int32).reshape(1, k), closest_point=cp,
            tangent_basis=np.asarray(P, np.float64).reshape(1, dim, dim - 1),
            normal_force=[N], mu_s=[ms], mu_k=[mk], weight=[w],
            mu_aniso=np.asarray(a, np.float64).reshape(1, -1)[:, :dim - 1],
            dim=dim)
        c = Contacts(self.context, [g], k)
        if not hessian:
            return c.evaluate(xa, self._eps_v, mu_profile=self.mu_profile,
                              mollifier=self._mollifier, gradient=gradient)
        name, abs_ = _psd(psd)
        r = c.evaluate(xa, self._eps_v, mu_profile=self.mu_profile,
                       mollifier=self._mollifier,
                       potential=False, local_hessian=True, psd=name,
                       ipctk_abs=abs_)
        return r.groups[0].local_hessian[0]

    # ------------------------------------------------------------ force
    #: ipctk's enum, for ``force_jacobian(..., wrt=D.DiffWRT.VELOCITIES)``.
    DiffWRT = _ipctk.FrictionPotential.DiffWRT
    REST_POSITIONS = _ipctk.FrictionPotential.DiffWRT.REST_POSITIONS
    LAGGED_DISPLACEMENTS = \
        _ipctk.FrictionPotential.DiffWRT.LAGGED_DISPLACEMENTS
    VELOCITIES = _ipctk.FrictionPotential.DiffWRT.VELOCITIES

    def _entry(self, collisions: Any, mesh: Any, n: int) -> Any:
        """(contacts, force group tuples, cache entry or None)."""
        if isinstance(collisions, TangentialCollisions):
            c = collisions._contacts(self.context, n)
            return c, collisions._force_groups(), None
        c = self._contacts(collisions, mesh, np.empty((n, 0)))
        e = self._cache.get((id(collisions), id(mesh), n))
        if c is None:
            return None, (), e
        if e.fgroups is None:
            planes = {}
            if any(g.type == "pv" for g in c.groups):
                lo, hi = _layout.ranges(collisions)["pv"]
                items = [collisions[i] for i in range(lo, hi)]
                try:
                    planes["pv"] = _plane_arrays(items, c.dim)
                finally:
                    items.clear()
            e.fgroups = _force_groups(c.groups, planes)
        return c, e.fgroups, e

    def _force_call(self, collisions: Any, mesh: Any, rest_positions: Any,
                    lagged_displacements: Any, velocities: Any,
                    normal_potential: Any, dmin: float, no_mu: bool,
                    wrt: int, local: bool = False) -> Any:
        cols = _columns(mesh, rest_positions, lagged_displacements,
                        velocities)
        if cols is None:
            V = _ia.mesh_positions(mesh, velocities, "velocities")
            U = _ia.mesh_positions(mesh, lagged_displacements,
                                   "lagged_displacements")
            R = _ia.mesh_positions(mesh, rest_positions, "rest_positions")
        else:  # read in place by the native call (column_major)
            R, U, V = cols
        c, fgroups, e = self._entry(collisions, mesh, V.shape[0])
        if c is None:
            return V, None, None, (None, None, None), e
        dhat = float(normal_potential.dhat)
        kappa, phys = _barrier_parameters(normal_potential, dhat)
        # the Jacobian straight into SciPy's CSC order (flag 4)
        flags = (1 if no_mu else 0) | (2 if phys else 0) | (4 if wrt else 0)
        force = np.empty(V.shape) if not wrt else None
        jv = None
        if wrt:
            plan = c.plan
            jv = np.empty(plan.nnz_blocks * c.dim * c.dim)
        else:  # the force alone: the plan's vertex lists, when it has one
            plan = c._plan
            if plan is not None and plan.closed:
                plan = None
        outs = None
        if local:
            outs = tuple((np.empty((g.count, g.vertices.shape[1] * c.dim)),
                          None, None) for g in c.groups)
        from . import _native
        prof = _PROFILES.get(self.mu_profile)
        if prof is None:
            raise InvalidArgumentError("mu_profile must be one of %s, got %r"
                                       % (", ".join(_PROFILES),
                                          self.mu_profile))
        if cols is None:
            _native.force_eval(self.context, 0, prof,
                               c.dim, flags, wrt, R, U, V, self._eps_v,
                               float(kappa), dhat, float(dmin), fgroups,
                               force, plan, jv, outs)
        else:
            _native.force_eval(self.context, 0, prof,
                               c.dim, flags, wrt, R.T, U.T, V.T,
                               self._eps_v, float(kappa), dhat, float(dmin),
                               fgroups, force, plan, jv, outs, 1)
        return V, c, force, (jv, plan, outs), e

    def force(self, *args: Any, **kw: Any) -> np.ndarray:
        """ipctk's ``force(collisions, mesh, rest_positions,
        lagged_displacements, velocities, normal_potential, dmin=0,
        no_mu=False)``: the friction force -grad D with N, P and beta
        recomputed at rest + lagged displacements (flat, vertex-major).
        ``normal_potential``: ipctk's or fricl's ``BarrierPotential``
        (clamped-log barrier). Called as ``(collision, x, u, v, ...)``:
        ipctk's single-collision overload."""
        if len(args) > 1 and not hasattr(args[1], "num_vertices"):
            return self._ipctk().force(*args, **kw)
        return self._force(*args, **kw)

    def _force(self, collisions: Any, mesh: Any, rest_positions: Any,
               lagged_displacements: Any, velocities: Any,
               normal_potential: Any, dmin: float = 0.0,
               no_mu: bool = False) -> np.ndarray:
        V, c, force, _, _ = self._force_call(
            collisions, mesh, rest_positions, lagged_displacements,
            velocities, normal_potential, dmin, no_mu, 0)
        if c is None:
            return np.zeros(V.size)
        return force.reshape(-1)

    def force_jacobian(self, *args: Any, **kw: Any) -> Any:
        """ipctk's ``force_jacobian(collisions, mesh, rest_positions,
        lagged_displacements, velocities, normal_potential, wrt, dmin=0)``
        as a ``scipy.sparse.csc_matrix`` (``velocities.size`` square).

        ``wrt=REST_POSITIONS`` on ipctk's collisions adds, as ipctk does,
        the weight-gradient term (F / w) grad(w)^T from the collisions'
        ``weight_gradient`` (built with ``enable_shape_derivatives``; like
        ipctk, raises RuntimeError when it is missing). fricl's
        :class:`TangentialCollisions` carry no weight gradients: their
        weights are treated as constants (exact without area weighting).
        Called as ``(collision, x, u, v, ...)``: ipctk's single-collision
        overload."""
        if len(args) > 1 and not hasattr(args[1], "num_vertices"):
            return self._ipctk().force_jacobian(*args, **kw)
        return self._force_jacobian(*args, **kw)

    def _force_jacobian(self, collisions: Any, mesh: Any,
                        rest_positions: Any, lagged_displacements: Any,
                        velocities: Any, normal_potential: Any, wrt: Any,
                        dmin: float = 0.0) -> Any:
        w = _wrt(wrt)
        import scipy.sparse as sp
        V, c, _, (jv, plan, _), e = self._force_call(
            collisions, mesh, rest_positions, lagged_displacements,
            velocities, normal_potential, dmin, False, w)
        if c is None:
            return sp.csc_matrix((V.size, V.size))
        indptr, indices = plan._csc_pattern()
        # Its own index copies: a caller may change J's structure in place
        # (eliminate_zeros) without touching the next Jacobian.
        J, plan._csc_proto = _csc_matrix(jv, indices, indptr, plan.shape[0],
                                         plan._csc_proto)
        if w == 1 and e is not None:
            J = J + self._weight_term(collisions, mesh, rest_positions,
                                      lagged_displacements, velocities,
                                      normal_potential, dmin, c, e)
        return J

    def _weight_term(self, collisions: Any, mesh: Any, rest_positions: Any,
                     lagged_displacements: Any, velocities: Any,
                     normal_potential: Any, dmin: float, c: Contacts,
                     e: Any) -> Any:
        """sum over collisions of (F_c / w_c) grad(w_c)^T (ipctk's
        REST_POSITIONS term), from ipctk's weight gradients."""
        import scipy.sparse as sp
        n = c.n_vertices * c.dim
        if e.wgrad is None:
            by = _items(collisions)
            try:
                wg = []
                for t in _TYPES:
                    for item in by[t]:
                        g = item.weight_gradient
                        if g.shape[0] != n:
                            raise RuntimeError("Shape derivative is not "
                                               "computed for friction "
                                               "collision!")
                        g = sp.csc_matrix(g)
                        wg.append((g.indices.copy(), g.data.copy()))
            finally:
                by.clear()
            e.wgrad = wg
        _, _, _, (_, _, outs), _ = self._force_call(
            collisions, mesh, rest_positions, lagged_displacements,
            velocities, normal_potential, dmin, False, 0, local=True)
        rows, cols, vals = [], [], []
        i = 0
        for g, o in zip(c.groups, outs):
            F = o[0]
            w = g.weight if g.weight is not None else np.ones(g.count)
            dofs = (g.vertices[:, :, None] * c.dim +
                    np.arange(c.dim)[None, None, :]).reshape(g.count, -1)
            for k in range(g.count):
                idx, dat = e.wgrad[i]
                i += 1
                if not len(idx):
                    continue
                f = F[k] / w[k]
                rows.append(np.repeat(dofs[k], len(idx)))
                cols.append(np.tile(idx, len(f)))
                vals.append(np.outer(f, dat).reshape(-1))
        if not rows:
            return sp.csc_matrix((n, n))
        return sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows),
                                                     np.concatenate(cols))),
                             shape=(n, n))

    def _ipctk(self) -> Any:
        """ipctk's own potential of this kind, with this eps."""
        if self._ipctk_potential is None:
            self._ipctk_potential = self._ipctk_new()
        self._ipctk_sync()
        return self._ipctk_potential

    def __getattr__(self, name: str) -> Any:
        # Anything else of ipctk's: its own implementation.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._ipctk(), name)

    def _ipctk_new(self) -> Any:
        return _ipctk.FrictionPotential(self._eps_v)

    def _ipctk_sync(self) -> None:
        self._ipctk_potential.eps_v = self._eps_v

    def __repr__(self) -> str:
        return "<fricl.ipctk.FrictionPotential eps_v=%g, mu_profile=%r>" % (
            self._eps_v, self.mu_profile)


#: ipctk's base-class name, for code that spells it that way.
TangentialPotential = FrictionPotential


def _zero_weight(g: ContactGroup) -> ContactGroup:
    """g with weight 0 (a group off the band, in _band_group's set)."""
    return ContactGroup._trusted(g.stencil, g.vertices, g.tangent_basis,
                                 g.normal_force, g.mu_s, g.mu_k,
                                 g.closest_point, np.zeros(g.count), cv.F64,
                                 g.dim)


def _band_group(g: ContactGroup, tau: np.ndarray, y: np.ndarray,
                band: np.ndarray, a: Any, N: float,
                eps: float) -> ContactGroup:
    """What ipctk's force Jacobian has and its Hessian (so fricl's) has
    not for eps_a < y < 2 eps_a, where the Hessian takes the kinetic
    shortcut f2 = 0: per contact c q q^T, q = Gamma^T P u_hat (u_hat =
    tau_a / y), c = w N a^2 mu_k a1'(y) with a1'(y) = 2 (1 - y / eps_a) /
    eps_a (mu(y) = mu_k there in both profiles). As contacts fricl's
    Hessian evaluates on the same plan: the tangent basis [P u_hat, 0],
    N = mu = 1, weight -c eps_a / 2 (the Jacobian's sign), at zero
    velocity (where the adhesion Hessian is 2 mu_s / eps_a w N T T^T);
    weight 0 off the band."""
    m, dim = g.count, g.dim
    Pq = np.zeros((m, dim, dim - 1))
    u = tau[band] / y[band][:, None]
    Pq[band, :, 0] = np.einsum("cdm,cm->cd", g.tangent_basis[band], u)
    yb = y[band]
    w = np.zeros(m)
    coef = g.weight[band] * N * g.mu_k[band] * (1.0 - yb / eps)
    if a is not None:
        coef = coef * a[band, 0] ** 2
    w[band] = -coef  # the Jacobian's sign (as the contacts' -w)
    one = np.ones(m)
    return ContactGroup._trusted(g.stencil, g.vertices, Pq, one, one, one,
                                 g.closest_point, w, cv.F64, dim)


class TangentialAdhesionPotential(FrictionPotential):
    """ipctk's ``TangentialAdhesionPotential(eps_a)``, evaluated by fricl:
    the tangential potential with the adhesion mollifier (a0, a1, a2 on
    [0, 2 eps_a]; spec 4.11) on collisions whose normal force is the normal
    adhesion force (build them with a ``NormalAdhesionPotential`` and the
    tangential adhesion coefficient as ``mu``). Same interface as
    :class:`FrictionPotential` (``eps_a`` for ``eps_v``); ``force`` and
    ``force_jacobian`` (w.r.t. velocities) are native with a
    ``NormalAdhesionPotential`` (see them for what is delegated).

    At u = 0 the Hessian is the limit from u > 0 (2 mu_s / eps_a per unit
    of w N), where ipctk returns 0.
    """

    _mollifier = "adhesion"

    def __init__(self, eps_a: float, mu_profile: str = "ipctk", *,
                 device: str = "auto",
                 context: Optional[Context] = None) -> None:
        super().__init__(1.0, mu_profile, device=device, context=context)
        self.eps_a = eps_a

    @property
    def eps_a(self) -> float:
        """The tangential adhesion mollifier parameter eps_a."""
        return self._eps_v

    @eps_a.setter
    def eps_a(self, value: float) -> None:
        value = float(value)
        if not value > 0 or value == float("inf"):
            raise InvalidArgumentError("eps_a must be finite and > 0, got %r"
                                       % value)
        self._eps_v = value

    def force(self, *args: Any, **kw: Any) -> Any:
        """ipctk's ``force(collisions, mesh, rest_positions,
        lagged_displacements, velocities, normal_potential, dmin=0,
        no_mu=False)``: -w N mu a1(|tau_a|)/|tau_a| T tau_a with T (the
        tangent basis and closest point) recomputed at rest + lagged
        displacements, N the adhesion force magnitude at ``dmin`` and the
        collisions' mu (1 with ``no_mu``). Native (fricl's lagged build
        and the adhesion gradient) on fricl's and ipctk's collisions with
        a ``NormalAdhesionPotential``; ipctk's own (delegated) for another
        normal potential, a 3-D collision with mu_aniso[0] != mu_aniso[1]
        (ipctk's force is then no gradient) and the single-collision
        overload."""
        if len(args) > 1 and hasattr(args[1], "num_vertices"):
            out = self._adhesion_force(*args, **kw)
            if out is not None:
                return out
        return self._ipctk().force(*args, **kw)

    def force_jacobian(self, *args: Any, **kw: Any) -> Any:
        """ipctk's ``force_jacobian(collisions, mesh, rest_positions,
        lagged_displacements, velocities, normal_potential, wrt, dmin=0)``
        as a ``scipy.sparse.csc_matrix``. ``wrt=VELOCITIES``: native, minus
        the unprojected Hessian at the recomputed T, plus for relative
        speeds y = |tau_a| in (eps_a, 2 eps_a) the rank-one term ipctk's
        Jacobian has there beyond its Hessian's kinetic shortcut (f2 = 0);
        at y = 0 a contact adds 0, as in ipctk (a1(y)/y taken as 0 there).
        ``REST_POSITIONS``, ``LAGGED_DISPLACEMENTS`` and the cases
        :meth:`force` delegates are ipctk's own; on fricl's collisions,
        which ipctk cannot read, those raise UnsupportedError."""
        if len(args) > 1 and hasattr(args[1], "num_vertices"):
            out = self._adhesion_jacobian(*args, **kw)
            if out is not None:
                return out
            if isinstance(args[0], TangentialCollisions):
                raise UnsupportedError(
                    "TangentialAdhesionPotential.force_jacobian on fricl's "
                    "TangentialCollisions: only wrt=VELOCITIES with a "
                    "NormalAdhesionPotential is native (ipctk's own cannot "
                    "read fricl's collisions)")
        return self._ipctk().force_jacobian(*args, **kw)

    def _adhesion_force(self, collisions: Any, mesh: Any,
                        rest_positions: Any, lagged_displacements: Any,
                        velocities: Any, normal_potential: Any,
                        dmin: float = 0.0, no_mu: bool = False) -> Any:
        lag = self._lagged(collisions, mesh, rest_positions,
                           lagged_displacements, velocities,
                           normal_potential, dmin, no_mu)
        if lag is None:
            return None
        V, c, _, _ = lag
        if c is None:
            return np.zeros(V.size)
        g = self._eval_native(c, V, True)  # no plan made
        if g is None:  # the full path raises what is wrong
            g = c.evaluate(V, self._eps_v, mu_profile=self.mu_profile,
                           mollifier="adhesion", potential=False,
                           gradient=True).gradient.reshape(-1)
        return -g

    def _adhesion_jacobian(self, collisions: Any, mesh: Any,
                           rest_positions: Any, lagged_displacements: Any,
                           velocities: Any, normal_potential: Any, wrt: Any,
                           dmin: float = 0.0) -> Any:
        if _wrt(wrt) != 3:
            return None
        lag = self._lagged(collisions, mesh, rest_positions,
                           lagged_displacements, velocities,
                           normal_potential, dmin, False, jacobian=True)
        if lag is None:
            return None
        V, c, c0, extra = lag
        import scipy.sparse as sp
        if c is None:
            return sp.csc_matrix((V.size, V.size))
        # the stored set's plan and CSC pattern (same topology), made once
        if c0.ctx is c.ctx and c0._native.same(c._native):
            c._plan = c0.plan
            c._ipctk_csc = getattr(c0, "_ipctk_csc", None)
        kw = dict(mu_profile=self.mu_profile, mollifier="adhesion",
                  potential=False, hessian="values", psd="none")
        hv = c.evaluate(V, self._eps_v, **kw).hessian
        if extra:  # the band terms, on the same plan (_band_group)
            groups = [e if e is not None else _zero_weight(g)
                      for g, e in zip(c.groups, extra)]
            cb = Contacts(c.ctx, groups, c.n_vertices)
            cb._plan = c.plan
            np.add(hv, cb.evaluate(np.zeros(V.shape), self._eps_v,
                                   **kw).hessian, out=hv)
        J = _csc_of(c, hv)  # minus the Hessian: the contacts carry -w
        if c._plan is getattr(c0, "_plan", None):
            c0._ipctk_csc = c._ipctk_csc
        return J

    def _lagged(self, collisions: Any, mesh: Any, rest_positions: Any,
                lagged_displacements: Any, velocities: Any,
                normal_potential: Any, dmin: Any, no_mu: bool,
                jacobian: bool = False) -> Any:
        """(V, contacts at rest + lagged displacements, the stored set's
        contacts, the band groups of :func:`_band_group`): ipctk's force as
        the contacts' gradient (with ``jacobian``, its velocity Jacobian
        as minus their Hessian plus the band terms; the contacts then
        carry -w), or None where it is none (another normal potential; a
        3-D collision with mu_aniso[0] != mu_aniso[1]). ipctk's force is
        T tau_a with y = |a (.) tau|; the gradient's is T diag(a) tau_a:
        with a uniform (2-D always) the gradient of weight w / a is the
        force. At y = 0 ipctk's a1(y)/y is 0 (its Jacobian's contribution
        too), fricl's Hessian the limit y -> 0: weight 0 there."""
        adh = _adhesion_parameters(normal_potential)
        if adh is None or isinstance(normal_potential, BarrierPotential):
            return None
        V = _ia.mesh_positions(mesh, velocities, "velocities")
        U = _ia.mesh_positions(mesh, lagged_displacements,
                               "lagged_displacements")
        R = _ia.mesh_positions(mesh, rest_positions, "rest_positions")
        n, dim = V.shape
        c, fgroups, _ = self._entry(collisions, mesh, n)
        if c is None:
            return V, None, None, None
        c0 = c
        dmin = float(dmin)
        N = float(normal_adhesion_force_magnitude(adh[0], adh[2], adh[3],
                                                  dmin))
        bgroups, anis = [], []
        for st, verts, w, ms, mk, a, pn, po in fgroups:
            m = len(verts)
            w = np.ones(m) if w is None else np.array(w, np.float64)
            if a is not None:
                a = np.asarray(a, np.float64).reshape(m, dim - 1)
                if dim == 3 and not np.array_equal(a[:, 0], a[:, 1]):
                    return None
                a0 = a[:, 0]
                w = np.where(a0 == 0, 0.0, w / np.where(a0 == 0, 1.0, a0))
            if no_mu:
                ms = mk = np.ones(m)
            bgroups.append(BuildGroup(_STENCILS[st], verts, plane_normal=pn,
                                      plane_offset=po, weight=w, mu_s=ms,
                                      mu_k=mk))
            anis.append(a)
        Xl = R + U
        res = _fricl_build(self.context, Xl, bgroups, dhat=1.0, kappa=0.0,
                           rest_positions=R)
        eps = self._eps_v
        extra: List[Any] = []
        for g, a in zip(res.groups, anis):
            g.normal_force[:] = N
            g.mu_aniso = a
            if jacobian:
                gam = _gamma(g.type, g.closest_point, g.count)
                urel = np.einsum("ck,ckd->cd", gam, V[g.vertices])
                tau = np.einsum("cdm,cd->cm", g.tangent_basis, urel)
                if a is not None:
                    tau = tau * a
                y = np.sqrt(np.einsum("cm,cm->c", tau, tau))
                band = (y > eps) & (y < 2 * eps)
                extra.append(_band_group(g, tau, y, band, a, N, eps)
                             if band.any() else None)
                g.weight[y == 0] = 0.0
                # -w: the Hessian's values are then the Jacobian's
                np.negative(g.weight, out=g.weight)
        c = Contacts(self.context, res.groups, n)
        if not any(e is not None for e in extra):
            extra = []
        return V, c, c0, extra

    def _ipctk_new(self) -> Any:
        return _ipctk.TangentialAdhesionPotential(self._eps_v)

    def _ipctk_sync(self) -> None:
        if self._ipctk_potential.eps_a != self._eps_v:
            self._ipctk_potential = self._ipctk_new()

    def __repr__(self) -> str:
        return "<fricl.ipctk.TangentialAdhesionPotential eps_a=%g, " \
            "mu_profile=%r>" % (self._eps_v, self.mu_profile)


def _csc_pattern_of(c: Contacts) -> None:
    """The plan of c and the CSC pattern of its Hessian (what _csc_of
    makes on a first Hessian), unless c has them already."""
    plan = c.plan
    pat = getattr(c, "_ipctk_csc", None)
    if pat is not None and pat[0] is plan:
        return
    it = plan._index_dtype()
    indptr = np.empty(plan.shape[0] + 1, it)
    indices = np.empty(plan.nnz_blocks * plan.dim * plan.dim, it)
    plan.csc(0, None, indptr, indices, None, it == np.int64)
    c._ipctk_csc = [plan, indptr, indices, None]


def _csc_of(c: Contacts, hv: np.ndarray) -> Any:
    """The Hessian of BSR values ``hv`` as a scipy.sparse.csc_matrix, its
    CSC pattern made once per contact set's plan (kept on ``c``)."""
    plan = c.plan
    pat = getattr(c, "_ipctk_csc", None)
    if pat is None or pat[0] is not plan:
        n = plan.shape[0]
        nnz = plan.nnz_blocks * plan.dim * plan.dim
        it = plan._index_dtype()
        indptr, indices = np.empty(n + 1, it), np.empty(nnz, it)
        data = np.empty(nnz, hv.dtype)  # the pattern and values: one call
        plan.csc(1 if hv.dtype == cv.F32 else 0, hv, indptr, indices, data,
                 it == np.int64)
        pat = c._ipctk_csc = [plan, indptr, indices, None]
    else:
        data = np.empty(len(pat[2]), hv.dtype)
        plan.csc(1 if hv.dtype == cv.F32 else 0, hv, None, None, data,
                 pat[2].dtype == np.int64)
    h, pat[3] = _csc_matrix(data, pat[2], pat[1], plan.shape[0], pat[3])
    return h


def _ref(obj: Any, callback: Any) -> Any:
    try:
        return weakref.ref(obj, callback)
    except TypeError:  # not weak-referenceable: hold it
        return lambda: obj


def _barrier_parameters(potential: Any, dhat: float) -> Tuple[float, bool]:
    """kappa and use_physical_barrier of an ipctk BarrierPotential, which
    exposes neither: N / (-b'(x) 2 d) at two dmin values gives kappa and
    whether the physical scaling dhat / x^^2 is applied (ClampedLogBarrier
    only)."""
    if isinstance(potential, BarrierPotential):  # fricl's: known exactly
        return potential.stiffness, potential.use_physical_barrier
    barrier = getattr(potential, "barrier", None)
    if type(barrier).__name__ != "ClampedLogBarrier":
        raise UnsupportedError("fricl's lagged build has the clamped-log "
                               "barrier only (got %s)"
                               % type(barrier).__name__)

    def ratio(dmin: float) -> Tuple[float, float]:
        xh = (2 * dmin + dhat) * dhat
        x = 0.25 * xh
        d2 = dmin * dmin + x
        bp = (xh - x) * (2 * np.log(x / xh) - xh / x + 1)
        return potential.force_magnitude(d2, dmin) / (-bp * 2 * np.sqrt(d2)), \
            xh

    r0, xh0 = ratio(0.0)
    r1, xh1 = ratio(0.5 * dhat)
    if abs(r1 / r0 - 1) < 1e-9:
        return float(r0), False
    if abs(r1 / r0 - (xh0 / xh1) ** 2) < 1e-9 * (xh0 / xh1) ** 2:
        return float(r0 * xh0 * xh0 / dhat), True
    raise UnsupportedError("could not identify the barrier's stiffness; "
                           "pass kappa= and physical_barrier=")


_NORMAL_ATTRS = dict((t, operator.attrgetter(*(_ID_ATTRS[t] +
                                               ("weight", "dmin"))))
                     for t in _TYPES)


def _ipctk_build_groups(collisions: Any, E: np.ndarray,
                        F: np.ndarray) -> List[BuildGroup]:
    """The lagged build's groups of an ipctk NormalCollisions."""
    bgroups = []
    for t in _TYPES:
        lst = list(getattr(collisions, t + "_collisions"))
        if not lst:
            continue
        cols = list(zip(*map(_NORMAL_ATTRS[t], lst)))
        ids = _stencil_ids(t, cols, E, F).astype(np.int32)
        nid = len(_ID_ATTRS[t])
        w = np.array(cols[nid], np.float64)
        dm = np.array(cols[nid + 1], np.float64)
        pn = po = None
        if t == "pv":
            planes = [c.plane for c in lst]
            pn = np.array([p.normal() for p in planes], np.float64)
            po = np.array([p.offset() for p in planes], np.float64)
        bgroups.append(BuildGroup(t, ids, plane_normal=pn,
                                  plane_offset=po, dmin=dm,
                                  weight=None if np.all(w == 1) else w))
        del lst
    return bgroups


def _fricl_build_groups(collisions: NormalCollisions) -> List[BuildGroup]:
    """The lagged build's groups of fricl's NormalCollisions: its arrays as
    they are (ev, fv and ee evaluated as classified, as ipctk does); made
    once per set (a rebuild of the set clears them)."""
    if collisions._build_groups is not None:
        return collisions._build_groups
    out = []
    for t in _TYPES:
        a = collisions.arrays(t)
        if not a or not len(a["weight"]):
            continue
        w = a["weight"]
        out.append(BuildGroup(
            t, a["vertices"], plane_normal=None if a["plane_normal"] is None
            else a["plane_normal"].reshape(-1, collisions._dim),
            plane_offset=a["plane_offset"],
            dmin=np.full(len(w), collisions.dmin),
            weight=None if np.all(w == 1) else w))
    collisions._build_groups = out
    return out


def _fricl_prepared(collisions: NormalCollisions, dim: int,
                    nfg: bool) -> Tuple[List[BuildGroup], Any, List[Any]]:
    """The lagged build's groups of fricl's NormalCollisions, their
    native form (with or without dN/dx outputs) and vertex arrays, made
    once per set."""
    cache = collisions._build_prep
    if cache is None:
        cache = collisions._build_prep = {}
    hit = cache.get((dim, nfg))
    if hit is None:
        bgroups = _fricl_build_groups(collisions)
        hit = cache[(dim, nfg)] = (bgroups, _prepare(bgroups, dim, nfg),
                                   [b.vertices for b in bgroups])
    return hit


_BLEND_INDEX = dict((b, i) for i, b in enumerate(BLENDS))
_AVERAGE = _BLEND_INDEX["average"]
_SENTINEL = object()
# Blend callables whose result is one of the build's native rules.
_NATIVE_BLENDS = [(min, "min"), (max, "max"), (np.minimum, "min"),
                  (np.maximum, "max")]
try:
    _NATIVE_BLENDS.append((_ipctk.TangentialCollisions.default_blend_mu,
                           "average"))
except AttributeError:  # pragma: no cover - older ipctk
    pass


def _is_scalar(a: Any) -> bool:
    if isinstance(a, bool):
        return False
    if isinstance(a, (float, int, np.generic)):
        return True
    return isinstance(a, np.ndarray) and a.ndim == 0


def _native_blend(fn: Any) -> Optional[str]:
    """The native rule a blend callable is known to be, or None."""
    if fn is TangentialCollisions.default_blend_mu:
        return "average"
    for f, name in _NATIVE_BLENDS:
        try:
            if fn is f or fn == f:
                return name
        except Exception:  # noqa: BLE001 - an odd __eq__: not a match
            pass
    return None


def _blend_pairs(fn: Any, a: np.ndarray, b: np.ndarray, what: str
                 ) -> np.ndarray:
    """fn over the pairs (a[i], b[i]): one vectorised call when fn accepts
    arrays and agrees with its per-pair calls on sampled pairs (first,
    middle, last), else one call per pair."""
    m = a.size
    if m == 0:
        return np.empty(0)
    out = None
    try:
        with np.errstate(all="ignore"):
            r = fn(a, b)
        r = np.asarray(r, dtype=np.float64)
        if r.shape in ((m,), ()):
            out = np.broadcast_to(r, (m,)).copy()
    except Exception:  # noqa: BLE001 - not vectorisable: per pair below
        out = None
    if out is not None:
        for i in sorted(set((0, m // 2, m - 1))):
            ref = float(fn(float(a[i]), float(b[i])))
            if not (ref == out[i] or (np.isnan(ref) and np.isnan(out[i]))):
                out = None
                break
    if out is None:
        out = np.fromiter((float(fn(float(x), float(y)))
                           for x, y in zip(a, b)), np.float64, m)
    bad = np.flatnonzero(~np.isfinite(out) | (out < 0))
    if bad.size:
        raise InvalidArgumentError(
            "blend_mu returned %r for %s contact %d (mu must be finite and "
            ">= 0; first bad contact)" % (float(out[bad[0]]), what,
                                          int(bad[0])))
    return out


def _interpolants(t: str, V: np.ndarray, cp: Optional[np.ndarray],
                  mu: np.ndarray) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """The two per-contact mu values ipctk blends (pv: the vertex's own,
    no blend): vertex / edge / face values interpolated at the unclamped
    closest point, in ipctk's argument order."""
    M = mu[V]
    if t == "vv":
        return M[:, 0], M[:, 1]
    if t == "ev":  # (edge, vertex)
        return (M[:, 2] - M[:, 1]) * cp[:, 0] + M[:, 1], M[:, 0]
    if t == "ee":
        return ((M[:, 1] - M[:, 0]) * cp[:, 0] + M[:, 0],
                (M[:, 3] - M[:, 2]) * cp[:, 1] + M[:, 2])
    if t == "fv":  # (face, vertex)
        return (M[:, 1] + cp[:, 0] * (M[:, 2] - M[:, 1]) +
                cp[:, 1] * (M[:, 3] - M[:, 1]), M[:, 0])
    return M[:, 0], None


def _adhesion_parameters(potential: Any) -> Optional[Tuple[float, float,
                                                           float, float]]:
    """(dhat_p, dhat_a, Y, eps_c) of a normal adhesion potential (ipctk's
    NormalAdhesionPotential or one with its attributes), else None."""
    names = ("dhat_p", "dhat_a", "Y", "eps_c")
    if not all(hasattr(potential, n) for n in names):
        return None
    return tuple(float(getattr(potential, n)) for n in names)


def normal_adhesion_force_magnitude(dhat_p: float, Y: float, eps_c: float,
                                    dmin: Any = 0.0) -> Any:
    """ipctk 1.6.1's ``NormalAdhesionPotential.force_magnitude``: the
    largest normal adhesion force, Y eps_c / (2 (dhat_p + dmin)),
    independent of the distance (what tangential adhesion is lagged
    with)."""
    return Y * eps_c / (2.0 * (dhat_p + np.asarray(dmin, np.float64)))


_EE_PARALLEL = BUILD_STATUSES.index("ee_parallel")
# From this many contacts on, TangentialCollisions.build makes the set's
# contacts and plan (measured on the cloth-on-box scenes: a plan costs
# about a third of fricl's build there, whose build is then still ~1.5x
# faster than ipctk's from ~700 contacts on; at ~100 contacts the plan
# would be ~40 % of ipctk's whole build).
_EAGER_CONTACTS = 512


def _cut(a: Any, keep: np.ndarray) -> Any:
    """The kept rows of a per-contact array (None and scalars as they
    are)."""
    return None if a is None or np.ndim(a) == 0 else \
        np.ascontiguousarray(np.asarray(a)[keep])


class TangentialCollision:
    """One collision of a fricl ``TangentialCollisions`` (a read-only view
    of its arrays, made on access): ``kind``, ``weight``,
    ``normal_force_magnitude``, ``mu_s``, ``mu_k``, ``mu_aniso``,
    ``closest_point``, ``tangent_basis``, ``dim``, ``num_vertices``,
    ``ndof``, ``vertices`` (the stencil's vertex ids) and
    ``vertex_ids(edges, faces)`` (padded with -1 to 4, as ipctk's)."""

    __slots__ = ("kind", "weight", "normal_force_magnitude", "mu_s", "mu_k",
                 "mu_aniso", "closest_point", "tangent_basis", "vertices",
                 "dim")

    def __init__(self, g: ContactGroup, j: int) -> None:
        self.kind = g.type
        self.dim = g.dim
        self.weight = 1.0 if g.weight is None else float(g.weight[j])
        self.normal_force_magnitude = float(g.normal_force[j])
        self.mu_s, self.mu_k = float(g.mu_s[j]), float(g.mu_k[j])
        self.mu_aniso = np.ones(g.dim - 1) if g.mu_aniso is None else \
            g.mu_aniso[j].copy()
        self.closest_point = np.zeros(0) if g.closest_point is None else \
            g.closest_point[j].copy()
        self.tangent_basis = g.tangent_basis[j].copy()
        self.vertices = tuple(int(v) for v in g.vertices[j])

    @property
    def num_vertices(self) -> int:
        return len(self.vertices)

    @property
    def ndof(self) -> int:
        return len(self.vertices) * self.dim

    def vertex_ids(self, edges: Any = None, faces: Any = None) -> List[int]:
        return list(self.vertices) + [-1] * (4 - len(self.vertices))

    def __repr__(self) -> str:
        return "<fricl.ipctk.TangentialCollision %s %s N=%g>" % (
            self.kind, self.vertices, self.normal_force_magnitude)


class TangentialCollisions:
    """fricl's lagged build with ipctk's interface: ``build(mesh,
    vertices, collisions, normal_potential, ...)`` from an ipctk (or
    fricl) ``NormalCollisions``, with each of ipctk 1.6.1's overloads:

    - ``build(..., mu)``: one coefficient (static = kinetic);
    - ``build(..., mu_s, mu_k)``: two scalars;
    - ``build(..., mu_s, mu_k)`` with per-vertex arrays;
    - ``build(..., mu_s, mu_k, blend_mu)`` with per-vertex arrays and a
      callable ``blend_mu(mu0, mu1) -> float``.

    fricl's extensions: ``blend_mu`` may also be a rule's name
    ("average", "min", "max", "product", "harmonic"), with scalars too,
    ``mu_k=None`` means ``mu_s``, and ``kappa=`` / ``physical_barrier=``
    / ``normal_force_gradient=`` are keyword-only. ``normal_potential``
    is a barrier potential (clamped-log) or a normal adhesion potential
    (ipctk's ``NormalAdhesionPotential``: N is its force magnitude
    Y eps_c / (2 (dhat_p + dmin)), for :class:`TangentialAdhesionPotential`
    with ``mu`` the tangential adhesion coefficient).

    The result is what :class:`FrictionPotential` and
    :class:`TangentialAdhesionPotential` consume in place of ipctk's
    ``TangentialCollisions``. Attributes after ``build``: ``result``
    (:class:`fricl.BuildResult`: per-contact ``status``,
    ``status_counts``), ``groups`` (the contact groups), ``dim``.
    Contacts that get no friction (near-parallel edge-edge pairs, which
    ipctk drops, and degenerate ones) are kept with N = 0 and contribute
    exactly 0. Collision order: the groups' (vv, ev, ee, fv, pv).
    """

    def __init__(self, *, device: str = "auto",
                 context: Optional[Context] = None) -> None:
        self._device = device
        self._ctx = context
        self._packed: Optional[PackedBuild] = None
        self._fast: Any = None  # FrictionPotential._fast's
        self._result: Optional[BuildResult] = None
        self._groups: Optional[List[ContactGroup]] = []
        self.dim = 0
        self._cache: Dict[Tuple[int, int], Contacts] = {}
        # the last Contacts made, kept across builds (its plan, reused)
        self._last: Dict[Tuple[int, int], Contacts] = {}
        self._bgroups: List[BuildGroup] = []
        self._base: List[Tuple[np.ndarray, np.ndarray]] = []
        self._aniso: List[Tuple[np.ndarray, np.ndarray]] = []
        self._keep_masks: List[Optional[np.ndarray]] = []
        self._fgroups: Any = None

    @staticmethod
    def default_blend_mu(mu0: Any, mu1: Any) -> Any:
        """ipctk's default rule for two coefficients: their average."""
        return (mu0 + mu1) / 2

    def _resolve_mu(self, args: tuple, kw: dict) -> Tuple[Any, Any, Any]:
        """(mu_s, mu_k, blend) from ipctk's overloads (and fricl's)."""
        names = ("mu_s", "mu_k", "blend_mu")
        unknown = set(kw) - set(names) - {"mu"}
        if unknown:
            raise TypeError("build() got an unexpected keyword argument %r"
                            % sorted(unknown)[0])
        if "mu" in kw:
            if args or set(kw) != {"mu"}:
                raise TypeError("build(): mu= is ipctk's single-coefficient "
                                "overload; give mu alone, or mu_s and mu_k")
            if not _is_scalar(kw["mu"]):
                raise TypeError("build(): mu must be a float (per-vertex "
                                "coefficients: mu_s and mu_k arrays)")
            return float(kw["mu"]), float(kw["mu"]), "average"
        if len(args) > 3:
            raise TypeError("build() takes at most 3 coefficient arguments "
                            "(mu_s, mu_k, blend_mu), got %d" % len(args))
        vals = dict(zip(names, args))
        for n in kw:
            if n in vals:
                raise TypeError("build() got multiple values for %r" % n)
            vals[n] = kw[n]
        if "mu_s" not in vals:
            raise TypeError("build() missing the friction coefficient "
                            "(mu, or mu_s and mu_k)")
        mu_s = vals["mu_s"]
        mu_k = vals.get("mu_k", None)
        blend = vals.get("blend_mu", "average")
        if mu_k is None:
            mu_k = mu_s
        if _is_scalar(mu_s) != _is_scalar(mu_k):
            raise TypeError("build(): mu_s and mu_k must both be floats or "
                            "both per-vertex arrays (ipctk's overloads)")
        if blend is None:
            blend = "average"
        if not isinstance(blend, str):
            if not callable(blend):
                raise TypeError("blend_mu must be callable (mu0, mu1) -> "
                                "float or a rule's name, got %s"
                                % type(blend).__name__)
            if _is_scalar(mu_s):
                raise TypeError("build(): blend_mu applies to per-vertex "
                                "mu_s and mu_k arrays (ipctk's overloads)")
            blend = _native_blend(blend) or blend
        return mu_s, mu_k, blend

    def build(self, mesh: Any, vertices: Any, collisions: Any,
              normal_potential: Any, *args: Any,
              kappa: Optional[float] = None,
              physical_barrier: Optional[bool] = None,
              normal_force_gradient: bool = False, **kw: Any) -> None:
        """Build from a ``NormalCollisions`` at the lagged ``vertices``
        (collision-mesh positions); the coefficients as in ipctk's
        overloads (class docstring). The barrier's stiffness and physical
        scaling are read off ``normal_potential`` (an ipctk
        ``BarrierPotential`` with the clamped-log barrier, or fricl's)
        unless ``kappa`` / ``physical_barrier`` are given; ``dhat`` is
        ``normal_potential.dhat`` (``dhat_a`` for adhesion).
        """
        if not kw and len(args) == 1 and kappa is None and \
                physical_barrier is None and not normal_force_gradient and \
                self._build_fast(mesh, vertices, collisions,
                                 normal_potential, args[0]):
            return
        if not kw and len(args) == 1 and type(args[0]) is float:
            mu_s = mu_k = args[0]  # ipctk's build(..., mu)
            blend_mu: Any = "average"
        else:
            mu_s, mu_k, blend_mu = self._resolve_mu(args, kw)
        if type(normal_potential) is BarrierPotential:  # known exactly
            adhesion = None
            dhat = normal_potential.dhat
            if kappa is None:
                kappa = normal_potential.stiffness
            if physical_barrier is None:
                physical_barrier = normal_potential.use_physical_barrier
        else:
            adhesion = _adhesion_parameters(normal_potential)
        if adhesion is not None:
            dhat = adhesion[1]
            kappa, physical_barrier = 0.0, False
        elif type(normal_potential) is not BarrierPotential:
            dhat = float(normal_potential.dhat)
            if kappa is None or physical_barrier is None:
                k, phys = _barrier_parameters(normal_potential, dhat)
                kappa = k if kappa is None else kappa
                physical_barrier = phys if physical_barrier is None \
                    else physical_barrier
        if type(mesh) is CollisionMesh:  # fricl's: f64 rest positions
            rest = mesh._R
            E = F = None
            nv, dim = rest.shape
        else:
            E, F, nv, dim = _mesh_arrays(mesh)
            rest = cv.real(mesh.rest_positions, cv.F64,
                           "mesh.rest_positions")
        X = cv.real(vertices, cv.F64, "vertices")
        if X.shape != (nv, dim):
            raise InvalidArgumentError("vertices: expected the collision "
                                       "mesh's (%d, %d) array, got %s"
                                       % (nv, dim, X.shape))
        if rest.shape != X.shape:
            raise InvalidArgumentError(
                "argument 'rest_positions': expected shape %s, got %s"
                % (X.shape, rest.shape))
        nfg = bool(normal_force_gradient)
        if isinstance(collisions, NormalCollisions):
            bgroups, prep, verts = _fricl_prepared(collisions, dim, nfg)
        else:
            if E is None:
                E, F, _, _ = _mesh_arrays(mesh)
            bgroups = _ipctk_build_groups(collisions, E, F)
            prep = _prepare(bgroups, dim, nfg)
            verts = [b.vertices for b in bgroups]
        custom = not isinstance(blend_mu, str)
        if custom:  # per-vertex arrays, checked by the native build
            mu_s = cv.real_shaped(mu_s, cv.F64, "mu_s", (nv,),
                                  broadcast=True)
            mu_k = cv.real_shaped(mu_k, cv.F64, "mu_k", (nv,),
                                  broadcast=True)
            bl = _BLEND_INDEX["average"]
        else:
            bl = _BLEND_INDEX.get(blend_mu)
            if bl is None:
                bl = lookup(BLENDS, blend_mu, "blend")
            if type(mu_s) is not float:
                mu_s = cv.scalar_or_array(mu_s, cv.F64, "mu_s", (nv,))
            if type(mu_k) is not float:
                mu_k = cv.scalar_or_array(mu_k, cv.F64, "mu_k", (nv,))
        self._packed = PackedBuild(
            self._context(), prep, verts, X, rest, dhat, float(kappa), 0.0,
            mu_s, mu_k, bl, _PHYSICAL if physical_barrier else 0, dim)
        self._groups = None  # made from the packed outputs on first use
        self._result = None
        self.dim = dim
        if custom:
            self._apply_blend(blend_mu, mu_s, mu_k)
        if adhesion is not None:
            self._adhesion_forces(bgroups, adhesion)
        # the matchstick model's state, made on its first use (a build
        # should cost what ipctk's does)
        self._bgroups, self._base, self._aniso = bgroups, None, None
        self._cache = {}
        self._eager(nv)

    def _eager(self, n: int) -> None:
        """A large set's contacts and plan, made by the build (or kept
        from the last build, same contacts): a new set's first gradient or
        Hessian then costs at most about twice a repeated one. Below
        _EAGER_CONTACTS contacts they wait for the first call (the build
        must cost no more than ipctk's, whose small builds take about
        what a plan takes)."""
        p = self._packed
        if p is None or p.total < _EAGER_CONTACTS:
            return
        try:
            c = self._contacts(self._context(), n)
            if c is not None:
                _csc_pattern_of(c)
        except Exception:  # noqa: BLE001 - the first call makes (or
            pass  # raises) it as it would have without this

    def _build_fast(self, mesh: Any, vertices: Any, collisions: Any,
                    potential: Any, mu: Any) -> bool:
        """``build(mesh, vertices, collisions, potential, mu)`` on fricl's
        mesh, set (prepared by an earlier build) and barrier, at
        vertices that need no conversion: one native call. False (nothing
        changed) when the full path must run, which then converts, or
        raises what is wrong."""
        if type(mu) is not float or type(potential) is not BarrierPotential \
                or type(mesh) is not CollisionMesh or \
                type(collisions) is not NormalCollisions or \
                type(vertices) is not np.ndarray:
            return False
        rest = mesh._R
        shape = rest.shape
        cache = collisions._build_prep
        if vertices.shape != shape or cache is None:
            return False
        hit = cache.get((shape[1], False))
        if hit is None:
            return False
        try:
            packed = PackedBuild(
                self._context(), hit[1], hit[2], vertices, rest,
                potential.dhat, potential.stiffness, 0.0, mu, mu, _AVERAGE,
                _PHYSICAL if potential.use_physical_barrier else 0, shape[1])
        except Exception:  # noqa: BLE001 - the full path says what
            return False
        self._packed = packed
        self._groups = self._result = None
        self.dim = shape[1]
        self._bgroups, self._base, self._aniso = hit[0], None, None
        self._cache = {}
        self._eager(shape[0])
        return True

    # -- the build's outputs, made on first use --------------------------
    def _unpack(self) -> None:
        """The groups (with ipctk's near-parallel edge-edge pairs dropped)
        and the result, from the packed outputs of the last build."""
        res, keep = _unpacked(self._packed)
        self._result = res
        self._groups = res.groups
        self._keep = list(keep)

    @property
    def groups(self) -> List[ContactGroup]:
        """The contact groups (views of the build's outputs)."""
        if self._groups is None:
            self._unpack()
        return self._groups

    @groups.setter
    def groups(self, value: List[ContactGroup]) -> None:
        self._groups = value
        self._packed = None

    @property
    def result(self) -> Optional[BuildResult]:
        """The build's :class:`fricl.BuildResult` (None before a build)."""
        if self._result is None and self._packed is not None:
            self._unpack()
        return self._result

    @result.setter
    def result(self, value: Optional[BuildResult]) -> None:
        self._result = value

    @property
    def _keep(self) -> List[Optional[np.ndarray]]:
        if self._groups is None:
            self._unpack()
        return self._keep_masks

    @_keep.setter
    def _keep(self, value: List[Optional[np.ndarray]]) -> None:
        self._keep_masks = value

    def _context(self) -> Context:
        return self._ctx if self._ctx is not None and not self._ctx.closed \
            else _context(self._device)

    def _matchstick_state(self) -> List[BuildGroup]:
        """The built mu (for the reset), the axes (0: isotropic) and the
        build groups of the kept contacts, made on first use."""
        if self._base is None:
            self._base = [(g.mu_s.copy(), g.mu_k.copy())
                          for g in self.groups]
        if self._aniso is None:
            self._aniso = [(np.zeros((g.count, 2)), np.zeros((g.count, 2)))
                           for g in self.groups]
        out = []
        for b, keep in zip(self._bgroups, self._keep):
            if keep is not None:
                b = BuildGroup(b.type, _cut(b.vertices, keep),
                               plane_normal=_cut(b.plane_normal, keep),
                               plane_offset=_cut(b.plane_offset, keep),
                               dmin=_cut(b.dmin, keep),
                               weight=_cut(b.weight, keep),
                               mu_s=_cut(b.mu_s, keep),
                               mu_k=_cut(b.mu_k, keep))
            out.append(b)
        return out

    # -- items and lists, as ipctk's -------------------------------------
    def _locate(self, i: int) -> Tuple[int, int]:
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("collision index %d out of range (%d "
                             "collisions)" % (i, n))
        for gi, g in enumerate(self.groups):
            if i < g.count:
                return gi, i
            i -= g.count
        raise IndexError(i)  # unreachable

    def __getitem__(self, i: int) -> "TangentialCollision":
        gi, j = self._locate(int(i))
        return TangentialCollision(self.groups[gi], j)

    def _list(self, t: str) -> List["TangentialCollision"]:
        return [TangentialCollision(g, j) for g in self.groups
                if g.type == t for j in range(g.count)]

    vv_collisions = property(lambda self: self._list("vv"))
    ev_collisions = property(lambda self: self._list("ev"))
    ee_collisions = property(lambda self: self._list("ee"))
    fv_collisions = property(lambda self: self._list("fv"))
    pv_collisions = property(lambda self: self._list("pv"))

    def _apply_blend(self, fn: Any, mu_s: np.ndarray,
                     mu_k: np.ndarray) -> None:
        for g in self.groups:
            for arr, mu, name in ((g.mu_s, mu_s, "mu_s"),
                                  (g.mu_k, mu_k, "mu_k")):
                a, b = _interpolants(g.type, g.vertices, g.closest_point, mu)
                arr[:] = a if b is None else _blend_pairs(
                    fn, a, b, "%s (%s)" % (g.type, name))

    def _adhesion_forces(self, bgroups: List[BuildGroup],
                         adhesion: Tuple[float, float, float,
                                         float]) -> None:
        """N of every contact ipctk keeps: the normal adhesion force
        magnitude at its dmin (near-parallel edge-edge and degenerate
        contacts keep N = 0)."""
        from ._tables import BUILD_STATUSES
        keep = [BUILD_STATUSES.index(s) for s in ("ok", "inactive",
                                                  "inside_dmin")]
        dhat_p, _, Y, eps_c = adhesion
        for g, bg, cut in zip(self.groups, bgroups, self._keep):
            dmin = 0.0 if bg.dmin is None else \
                bg.dmin if cut is None else _cut(bg.dmin, cut)
            N = np.broadcast_to(normal_adhesion_force_magnitude(
                dhat_p, Y, eps_c, dmin), (g.count,))
            g.normal_force[:] = np.where(np.isin(g.status, keep), N, 0.0)

    # ------------------------------------------ anisotropic (matchstick) mu
    def set_anisotropic_friction_coefficients(self, mu_s_aniso: Any,
                                              mu_k_aniso: Any) -> None:
        """ipctk's per-collision ``mu_s_aniso`` / ``mu_k_aniso`` (the
        matchstick model's ellipse axes), for every collision at once:
        (len(self), 2) arrays in collision order, or (2,) for all. Read by
        :meth:`update_lagged_anisotropic_friction_coefficients`."""
        n = len(self)
        arrs = []
        for a, name in ((mu_s_aniso, "mu_s_aniso"), (mu_k_aniso,
                                                     "mu_k_aniso")):
            arrs.append(cv.real_shaped(a, cv.F64, name, (n, 2),
                                       broadcast=True))
        self._matchstick_state()
        o = 0
        self._aniso = []
        for g in self.groups:
            self._aniso.append((arrs[0][o:o + g.count].copy(),
                                arrs[1][o:o + g.count].copy()))
            o += g.count

    def reset_lagged_anisotropic_friction_coefficients(self) -> None:
        """The effective (evaluated) mu_s / mu_k back to the built scalar
        ones (done by ``build``)."""
        if self._base is None:
            return  # never updated: the built mu are in place
        for g, (ms, mk) in zip(self.groups, self._base):
            g.mu_s[:] = ms
            g.mu_k[:] = mk
        self._cache = {}

    def update_lagged_anisotropic_friction_coefficients(
            self, mesh: Any, rest_positions: Any, lagged_displacements: Any,
            velocities: Any) -> None:
        """ipctk's matchstick update: for each 3-D collision with a nonzero
        ``mu_s_aniso``, the effective mu_s (and mu_k, where ``mu_k_aniso``
        is nonzero) = |mu_aniso_axes (.) t|, t the unit direction of
        ``mu_aniso (.) P^T Gamma v`` ((1, 0) below 1e-10), with P and the
        closest point of the lagged positions ``rest + lagged``; the
        others get their scalar mu back."""
        if not self.groups:
            return
        E, F, nv, dim = _mesh_arrays(mesh)
        arrs = []
        for a, name in ((rest_positions, "rest_positions"),
                        (lagged_displacements, "lagged_displacements"),
                        (velocities, "velocities")):
            x = cv.real(a, cv.F64, name)
            if x.shape != (nv, dim):
                raise InvalidArgumentError(
                    "%s: expected the collision mesh's (%d, %d) array, "
                    "got %s" % (name, nv, dim, x.shape))
            arrs.append(x)
        Xl = arrs[0] + arrs[1]
        v = arrs[2]
        bgroups = self._matchstick_state()
        lag = _fricl_build(self._context(), Xl, bgroups, dhat=1.0,
                           kappa=0.0, mu_s=0.0, mu_k=0.0,
                           rest_positions=arrs[0])
        for g, lg, (ms0, mk0), (sa, ka) in zip(self.groups, lag.groups,
                                               self._base, self._aniso):
            ms, mk = ms0.copy(), mk0.copy()
            use_s = np.einsum("ij,ij->i", sa, sa) > 0
            if dim == 3 and use_s.any():
                gam = _gamma(g.type, lg.closest_point, g.count)
                urel = np.einsum("ck,ckd->cd", gam, v[g.vertices])
                tau = np.einsum("cdm,cd->cm", lg.tangent_basis, urel)
                a = g.mu_aniso if g.mu_aniso is not None else 1.0
                ta = np.broadcast_to(a, tau.shape) * tau
                nrm = np.sqrt(np.einsum("cm,cm->c", ta, ta))
                small = nrm < 1e-10
                t = np.where(small[:, None], np.array([1.0, 0.0]),
                             ta / np.where(small, 1.0, nrm)[:, None])
                use_k = np.einsum("ij,ij->i", ka, ka) > 0
                es = np.sqrt(np.einsum("cm,cm->c", sa * t, sa * t))
                ek = np.sqrt(np.einsum("cm,cm->c", ka * t, ka * t))
                ms = np.where(use_s, es, ms)
                mk = np.where(use_s & use_k, ek, mk)
            g.mu_s[:] = ms
            g.mu_k[:] = mk
        self._cache = {}

    def _force_groups(self) -> tuple:
        """The groups for the force: as built, except that the contacts
        ipctk's build leaves out (near-parallel edge-edge pairs) or that
        have no geometry (degenerate, non-finite) get weight 0. Contacts
        inactive at the lagged positions stay: the force recomputes N at
        rest + lagged displacement, as ipctk's does."""
        # made again after anything that renews _cache (build, the
        # matchstick update and reset)
        if self._fgroups is None or self._fgroups[0] is not self._cache:
            from ._tables import BUILD_STATUSES
            drop = [BUILD_STATUSES.index(s) for s in BUILD_STATUSES
                    if s == "ee_parallel" or s == "nonfinite" or
                    s.startswith("degenerate")]
            groups = []
            for g in self.groups:
                mask = np.isin(g.status, drop) if g.status is not None \
                    else np.zeros(g.count, bool)
                if mask.any():
                    w = np.ones(g.count) if g.weight is None \
                        else np.array(g.weight, np.float64)
                    w[mask] = 0.0
                    g = _Weighted(g, w)
                groups.append(g)
            planes = dict(("pv", (bg.plane_normal, bg.plane_offset))
                          for bg in self._bgroups if bg.type == "pv")
            self._fgroups = (self._cache, _force_groups(groups, planes))
        return self._fgroups[1]

    def _contacts(self, ctx: Context, n: int) -> Optional[Contacts]:
        p = self._packed
        if self._groups is None:  # nothing unpacked: read the build's
            if not p.vertices:
                return None
        elif not self._groups:
            return None
        key = (id(ctx), n)
        c = self._cache.get(key)
        if c is None or c.ctx is not ctx:
            if self._groups is None:
                c = _PackedContacts(ctx, self, p, n)
            else:
                c = Contacts(ctx, self._groups, n)
            self._cache[key] = c
            # a rebuild to the same contacts (types and vertices, in the
            # same order) keeps the last set's plan and CSC pattern: a plan
            # reads only the topology (fricl_tangential_plan_create)
            last = self._last.get(key)
            if last is not None and last.ctx is ctx and \
                    last._plan is not None and not last._plan.closed and \
                    last.dtype == c.dtype and last._native.same(c._native):
                c._plan = last._plan
                pat = getattr(last, "_ipctk_csc", None)
                if pat is not None:
                    c._ipctk_csc = pat
            self._last = {key: c}
        return c

    def __len__(self) -> int:
        if self._groups is None:  # ipctk's count: the near-parallel out
            p = self._packed
            return p.total - p.count(_EE_PARALLEL) if p is not None else 0
        return sum(g.count for g in self._groups)

    def empty(self) -> bool:
        return len(self) == 0

    def clear(self) -> None:
        self.result, self.groups, self._cache = None, [], {}
        self._last = {}
        self._bgroups, self._base, self._aniso = [], [], []
        self._keep = []

    def __repr__(self) -> str:
        return "<fricl.ipctk.TangentialCollisions %d contacts %s>" % (
            len(self), dict((g.type, g.count) for g in self.groups))


def _unpacked(packed: PackedBuild) -> Tuple[BuildResult,
                                            List[Optional[np.ndarray]]]:
    """The result of a packed build, its groups without the contacts
    ipctk's build makes no tangential collision of (nearly parallel
    edge-edge pairs, the mollified ones: no tangent basis; fricl's build
    gives them N = 0 and status ``ee_parallel``), so that ``len``, the
    lists and the items are ipctk's (the potential is the same either
    way), and each group's keep mask (None: all kept). The groups are
    cut in place in the result's list (read once per build: by the set,
    or by its contacts once the set has moved on). ``result`` still
    counts the dropped ones."""
    res = packed.result()
    groups = res.groups
    keep = [None] * len(groups)
    if res.status_counts.get("ee_parallel", 1) != 0:
        for i, g in enumerate(groups):
            if g.type != "ee" or g.status is None:
                continue
            k = g.status != _EE_PARALLEL
            if k.all():
                continue
            keep[i] = k
            h = ContactGroup._trusted(
                g.stencil, _cut(g.vertices, k), _cut(g.tangent_basis, k),
                _cut(g.normal_force, k), _cut(g.mu_s, k), _cut(g.mu_k, k),
                _cut(g.closest_point, k), _cut(g.weight, k), g.dtype, g.dim)
            h.status = _cut(g.status, k)
            h.normal_force_gradient = _cut(g.normal_force_gradient, k)
            groups[i] = h
    return res, keep


class _PackedContacts(Contacts):
    """The :class:`fricl.Contacts` of a packed lagged build, made in one
    native call with no Python object per group (the first call on a new
    set would otherwise spend most of its time making them): the same
    contacts as ``Contacts(ctx, set.groups, n)`` (the near-parallel
    edge-edge pairs left out), the groups' Python views made only when
    something asks for ``groups``."""

    def __init__(self, ctx: Context, owner: "TangentialCollisions",
                 packed: PackedBuild, n_vertices: int) -> None:
        self.ctx = ctx
        self._owner = weakref.ref(owner)
        self._packed = packed
        self._native = nat = _native.packed_groups(packed.prep, packed.out,
                                                   _EE_PARALLEL)
        self.dim = d = nat.dim
        self.dtype = cv.F64
        self.n_vertices = n_vertices
        self._prec = 0
        self._plan = None
        self._vshape = (n_vertices, d)
        self._vsize = n_vertices * d

    @property
    def groups(self) -> List[ContactGroup]:  # type: ignore[override]
        tc = self._owner()
        if tc is not None and tc._packed is self._packed:
            return tc.groups  # the set's (it keeps the keep masks)
        return _unpacked(self._packed)[0].groups

    @property
    def count(self) -> int:  # type: ignore[override]
        return self._native.count


class _Weighted:
    """A contact group seen with other weights (for _force_groups)."""

    def __init__(self, g: ContactGroup, weight: np.ndarray) -> None:
        self._g = g
        self.weight = weight

    def __getattr__(self, name: str) -> Any:
        return getattr(self._g, name)


def _gamma(t: str, cp: Optional[np.ndarray], m: int) -> np.ndarray:
    """Gamma (m, k) of the stencil from its closest points (spec 4.2)."""
    one = np.ones(m)
    if t == "vv":
        return np.stack([one, -one], 1)
    if t == "pv":
        return one.reshape(-1, 1)
    if t == "ev":
        b = cp[:, 0]
        return np.stack([one, b - 1, -b], 1)
    b0, b1 = cp[:, 0], cp[:, 1]
    if t == "ee":
        return np.stack([1 - b0, b0, b1 - 1, -b1], 1)
    return np.stack([one, b0 + b1 - 1, -b0, -b1], 1)


def build_tangential_collisions(mesh: Any, vertices: Any, collisions: Any,
                                normal_potential: Any, *args: Any,
                                **kw: Any) -> TangentialCollisions:
    """``TangentialCollisions().build(...)`` in one call (same arguments;
    ``device=`` / ``context=`` choose where the build runs)."""
    tc = TangentialCollisions(device=kw.pop("device", "auto"),
                              context=kw.pop("context", None))
    tc.build(mesh, vertices, collisions, normal_potential, *args, **kw)
    return tc
