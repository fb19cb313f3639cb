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
x)`` and ``D.hessian(collision, x, psd)`` work too; ``force`` and
``force_jacobian`` are ipctk's own (delegated).

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
from .build import BuildGroup, BuildResult
from .build import build as _fricl_build
from .context import Context
from .errors import InvalidArgumentError, UnsupportedError
from .tangential import ContactGroup, Contacts

from .ipctk_barrier import (BarrierPotential,  # noqa: E402
                            NormalAdhesionPotential, NormalPotential)
from .ipctk_collisions import (Candidates, CollisionMesh,  # noqa: E402
                               NormalCollisions)

__all__ = ["FrictionPotential", "TangentialPotential", "TangentialCollisions",
           "build_tangential_collisions", "read_tangential_collisions",
           "BarrierPotential", "NormalAdhesionPotential", "NormalPotential",
           "CollisionMesh", "NormalCollisions",
           "Candidates"]

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
    force, weight, ``mu_s/mu_k_effective_lagged`` and ``mu_aniso``."""
    E, F, _, dim = _mesh_arrays(mesh)
    groups = []
    by = _items(collisions)
    try:
        for t in _TYPES:
            lst = by[t]
            if not lst:
                continue
            cols = list(zip(*map(_GETTERS[t], lst)))
            nid = len(_ID_ATTRS[t])
            i = nid
            cp = None
            if _NB[t]:
                cp = np.array(cols[i], dtype).reshape(len(lst), _NB[t])
                i += 1
            P = np.array(cols[i], dtype).reshape(len(lst), dim, dim - 1)
            N, w, ms, mk = (np.array(cols[i + j], dtype) for j in range(1, 5))
            aniso = np.array(cols[i + 5], dtype).reshape(len(lst), -1)
            aniso = np.ascontiguousarray(aniso[:, :dim - 1])
            groups.append(ContactGroup(
                t, _stencil_ids(t, cols, E, F).astype(np.int32),
                closest_point=cp, tangent_basis=P, normal_force=N,
                mu_s=ms, mu_k=mk, weight=None if np.all(w == 1) else w,
                mu_aniso=None if np.all(aniso == 1) else aniso, dtype=dtype,
                dim=dim))
    finally:
        # ipctk 1.6.1: an item (tc[i]) refers into the container without
        # keeping it alive; drop every item now.
        by.clear()
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
    __slots__ = ("coll", "mesh", "fp", "contacts", "dim")


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
        Xa = self._X(mesh, X)
        c = self._contacts(collisions, mesh, Xa)
        if c is None:
            return 0.0
        return float(c.evaluate(Xa, self._eps_v,
                                mu_profile=self.mu_profile).potential)

    def gradient(self, collisions: Any, mesh: Any, X: Any = None) -> np.ndarray:
        """The gradient w.r.t. ``X`` (flat, ``X.size``, vertex-major)."""
        if X is None:
            return self._single(collisions, mesh, gradient=True).gradient
        Xa = self._X(mesh, X)
        c = self._contacts(collisions, mesh, Xa)
        if c is None:
            return np.zeros(Xa.size)
        return c.evaluate(Xa, self._eps_v, mu_profile=self.mu_profile,
                          potential=False, gradient=True).gradient.reshape(-1)

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
                        potential=False, hessian="values", psd=psd,
                        ipctk_abs=abs_).hessian
        return c.plan.to_csc(hv)

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
                              gradient=gradient)
        name, abs_ = _psd(psd)
        r = c.evaluate(xa, self._eps_v, mu_profile=self.mu_profile,
                       potential=False, local_hessian=True, psd=name,
                       ipctk_abs=abs_)
        return r.groups[0].local_hessian[0]

    def __getattr__(self, name: str) -> Any:
        # force, force_jacobian, DiffWRT ...: ipctk's own implementation.
        if name.startswith("_"):
            raise AttributeError(name)
        if self._ipctk_potential is None:
            self._ipctk_potential = _ipctk.FrictionPotential(self._eps_v)
        self._ipctk_potential.eps_v = self._eps_v
        return getattr(self._ipctk_potential, name)

    def __repr__(self) -> str:
        return "<fricl.ipctk.FrictionPotential eps_v=%g, mu_profile=%r>" % (
            self._eps_v, self.mu_profile)


#: ipctk's base-class name, for code that spells it that way.
TangentialPotential = FrictionPotential


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
    they are (ev, fv and ee evaluated as classified, as ipctk does)."""
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
    return out


class TangentialCollisions:
    """fricl's lagged build with ipctk's interface: ``build(mesh,
    vertices, collisions, normal_potential, mu_s, mu_k=None,
    blend_mu="average")`` from an ipctk ``NormalCollisions``. The result
    is what :class:`FrictionPotential` consumes (in place of ipctk's
    ``TangentialCollisions``).

    Attributes after ``build``: ``result`` (:class:`fricl.BuildResult`:
    per-contact ``status``, ``status_counts``), ``groups`` (the contact
    groups), ``dim``. Contacts that get no friction (near-parallel
    edge-edge pairs, which ipctk drops, and degenerate ones) are kept with
    N = 0 and contribute exactly 0.
    """

    def __init__(self, *, device: str = "auto",
                 context: Optional[Context] = None) -> None:
        self._device = device
        self._ctx = context
        self.result: Optional[BuildResult] = None
        self.groups: List[ContactGroup] = []
        self.dim = 0
        self._cache: Dict[Tuple[int, int], Contacts] = {}

    def build(self, mesh: Any, vertices: Any, collisions: Any,
              normal_potential: Any, mu_s: Any, mu_k: Any = None,
              blend_mu: Any = "average", *, kappa: Optional[float] = None,
              physical_barrier: Optional[bool] = None,
              normal_force_gradient: bool = False) -> None:
        """Build from an ipctk ``NormalCollisions`` at the lagged
        ``vertices`` (collision-mesh positions).

        ``mu_s``/``mu_k``: scalars or per-vertex arrays (``mu_k`` None:
        ``mu_s``, ipctk's single-mu overload). ``blend_mu``: "average",
        "min", "max", "product", "harmonic" (or the builtins min / max).
        The barrier's stiffness and physical scaling are read off
        ``normal_potential`` (an ipctk ``BarrierPotential`` with the
        clamped-log barrier) unless ``kappa`` / ``physical_barrier`` are
        given; ``dhat`` is ``normal_potential.dhat``.
        """
        if mu_k is None:
            mu_k = mu_s
        if blend_mu is min or blend_mu is max:
            blend_mu = blend_mu.__name__
        if not isinstance(blend_mu, str):
            raise UnsupportedError("blend_mu: fricl supports 'average', "
                                   "'min', 'max', 'product', 'harmonic'")
        dhat = float(normal_potential.dhat)
        if kappa is None or physical_barrier is None:
            k, phys = _barrier_parameters(normal_potential, dhat)
            kappa = k if kappa is None else kappa
            physical_barrier = phys if physical_barrier is None \
                else physical_barrier
        E, F, nv, dim = _mesh_arrays(mesh)
        X = cv.real(vertices, cv.F64, "vertices")
        if X.shape != (nv, dim):
            raise InvalidArgumentError("vertices: expected the collision "
                                       "mesh's (%d, %d) array, got %s"
                                       % (nv, dim, X.shape))
        rest = cv.real(mesh.rest_positions, cv.F64, "mesh.rest_positions")
        if isinstance(collisions, NormalCollisions):
            bgroups = _fricl_build_groups(collisions)
        else:
            bgroups = _ipctk_build_groups(collisions, E, F)
        ctx = self._ctx if self._ctx is not None and not self._ctx.closed \
            else _context(self._device)
        self.result = _fricl_build(
            ctx, X, bgroups, dhat=dhat, kappa=kappa, mu_s=mu_s, mu_k=mu_k,
            blend=blend_mu, rest_positions=rest,
            physical_barrier=physical_barrier,
            normal_force_gradient=normal_force_gradient)
        self.groups = self.result.groups
        self.dim = dim
        self._cache = {}

    def _contacts(self, ctx: Context, n: int) -> Optional[Contacts]:
        if not self.groups:
            return None
        key = (id(ctx), n)
        c = self._cache.get(key)
        if c is None or c.ctx is not ctx:
            c = self._cache[key] = Contacts(ctx, self.groups, n)
        return c

    def __len__(self) -> int:
        return sum(g.count for g in self.groups)

    def empty(self) -> bool:
        return len(self) == 0

    def clear(self) -> None:
        self.result, self.groups, self._cache = None, [], {}

    def __repr__(self) -> str:
        return "<fricl.ipctk.TangentialCollisions %d contacts %s>" % (
            len(self), dict((g.type, g.count) for g in self.groups))


def build_tangential_collisions(mesh: Any, vertices: Any, collisions: Any,
                                normal_potential: Any, mu_s: Any,
                                mu_k: Any = None, blend_mu: Any = "average",
                                **kw: Any) -> TangentialCollisions:
    """``TangentialCollisions().build(...)`` in one call (same arguments;
    ``device=`` / ``context=`` choose where the build runs)."""
    tc = TangentialCollisions(device=kw.pop("device", "auto"),
                              context=kw.pop("context", None))
    tc.build(mesh, vertices, collisions, normal_potential, mu_s, mu_k,
             blend_mu, **kw)
    return tc
