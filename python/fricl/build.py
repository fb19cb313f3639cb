"""The lagged build (``fricl_build``): from lagged vertex positions and the
active contacts to each contact's closest point, tangent basis, normal
force N (clamped-log barrier), weight and mu, with a status code per
contact. Its groups are :class:`fricl.ContactGroup` objects, ready for
:class:`fricl.Contacts`.

Units: positions, ``dhat`` and ``dmin`` [length]; ``kappa`` the barrier
stiffness, so that N = -kappa b'(d^2 - dmin^2) 2 d is a force when kappa
is [force / length^3] (spec 5.6); mu dimensionless.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import _convert as cv
from . import _native
from ._tables import BLENDS, BUILD_STATUSES, STENCIL_SIZES, STENCILS, lookup
from .errors import InvalidArgumentError
from .tangential import ContactGroup

FLAG_PHYSICAL_BARRIER = 0x1
_NONE = 2**64 - 1  # SIZE_MAX: "no contact has this status"


class BuildGroup:
    """Active contacts of one stencil type, input of :func:`build`.

    Parameters
    ----------
    type : {"vv", "ev", "ee", "fv", "pv"}
    vertices : (m, k) int array
        Vertex ids in stencil order (pv: the vertex).
    plane_normal : (m, dim) array
        pv only (required there): the plane normal n (any nonzero length).
    plane_offset : (m,) array
        pv only: c, the plane being {x : n.x + c = 0}.
    dmin : (m,) array, optional
        Per-contact minimum distance (default: the batch ``dmin``).
    weight : (m,) array, optional
        Per-contact weight (default 1), copied to the output.
    mu_s, mu_k : (m,) arrays, optional
        Per-contact mu, copied through (they take precedence over the
        per-vertex and scalar mu of :func:`build`).
    """

    __slots__ = ("type", "stencil", "vertices", "plane_normal",
                 "plane_offset", "dmin", "weight", "mu_s", "mu_k")

    def __init__(self, type: str, vertices: Any, *, plane_normal: Any = None,
                 plane_offset: Any = None, dmin: Any = None,
                 weight: Any = None, mu_s: Any = None,
                 mu_k: Any = None) -> None:
        self.stencil = lookup(STENCILS, type, "stencil type")
        self.type = STENCILS[self.stencil]
        k = STENCIL_SIZES[self.stencil][0]
        self.vertices = cv.ids(vertices, self.type + ".vertices", k)
        self.plane_normal, self.plane_offset = plane_normal, plane_offset
        self.dmin, self.weight, self.mu_s, self.mu_k = dmin, weight, mu_s, \
            mu_k

    @property
    def count(self) -> int:
        return self.vertices.shape[0]


class BuildResult:
    """What :func:`build` returns.

    Attributes
    ----------
    groups : list of ContactGroup
        One per input group, in order, with ``status`` ((m,) uint8 codes,
        ``fricl.BUILD_STATUSES``) and, when requested,
        ``normal_force_gradient`` ((m, k dim): dN/dx of each stencil
        vertex). Feed them to :class:`fricl.Contacts`.
    status_counts : dict
        Contacts per status name over all groups.
    first : dict
        Status name -> (group index, contact index) of its first contact,
        for the statuses that occur.
    total, no_force : int
        Contacts, and contacts with N = 0 (any status but ``ok``).
    """

    __slots__ = ("groups", "status_counts", "first", "total", "no_force")

    def __repr__(self) -> str:
        seen = dict((k, v) for k, v in self.status_counts.items() if v)
        return "<fricl.BuildResult %d contacts, %s>" % (self.total, seen)


def build(ctx: Any, lagged_positions: Any, groups: Sequence[BuildGroup], *,
          dhat: float, kappa: float, dmin: float = 0.0, mu_s: Any = 0.0,
          mu_k: Any = 0.0, blend: str = "average",
          rest_positions: Any = None, physical_barrier: bool = False,
          normal_force_gradient: bool = False,
          dtype: Any = None) -> BuildResult:
    """Run the lagged build.

    Parameters
    ----------
    ctx : fricl.Context
    lagged_positions : (n_vertices, dim) array
        Lagged vertex positions X, finite [length].
    groups : sequence of BuildGroup
    dhat : float
        Barrier activation distance (> 0, not squared) [length].
    kappa : float
        Barrier stiffness (>= 0).
    dmin : float
        Minimum distance for groups without a ``dmin`` array [length].
    mu_s, mu_k : float or (n_vertices,) array
        A scalar (given to every contact as it is) or per-vertex values
        (interpolated with the unclamped closest point and blended).
    blend : {"average", "min", "max", "product", "harmonic"}
        How two per-vertex mu values meet at a contact.
    rest_positions : (n_vertices, dim) array, optional
        Only the edge-edge near-parallel rule reads them (default: the
        lagged positions).
    physical_barrier : bool
        N *= dhat / x^^2 (ipctk's ``use_physical_barrier``).
    normal_force_gradient : bool
        Also compute dN/dx per contact.
    dtype : float64 or float32, optional
        Default: float32 when ``lagged_positions`` is float32.

    Degenerate contacts are not errors: they get N = 0 and a status code
    (``fricl.BUILD_STATUSES``); invalid input raises InvalidArgumentError
    naming the argument and the first bad index.
    """
    dt = cv.working_dtype(lagged_positions, dtype)
    X = cv.real(lagged_positions, dt, "lagged_positions")
    if X.ndim != 2 or X.shape[1] not in (2, 3):
        raise InvalidArgumentError("argument 'lagged_positions': expected "
                                   "shape (n, 2) or (n, 3), got %s"
                                   % (X.shape,))
    n, dim = X.shape
    rest = cv.optional_real(rest_positions, dt, "rest_positions", X.shape)
    vmu = []
    for name, mu in (("mu_s", mu_s), ("mu_k", mu_k)):
        vmu.append(cv.scalar_or_array(mu, dt, name, (n,)))
    bl = lookup(BLENDS, blend, "blend")
    native_groups, outs = [], []
    for g in groups:
        if not isinstance(g, BuildGroup):
            raise InvalidArgumentError("groups must be fricl.BuildGroup "
                                       "objects, got %s" % type(g).__name__)
        t, m = g.type, g.count
        k, nb = STENCIL_SIZES[g.stencil]
        pn = cv.optional_real(g.plane_normal, dt, t + ".plane_normal",
                              (m, dim), broadcast=True)
        po = cv.optional_real(g.plane_offset, dt, t + ".plane_offset", (m,))
        gd = cv.optional_real(g.dmin, dt, t + ".dmin", (m,))
        gw = cv.optional_real(g.weight, dt, t + ".weight", (m,))
        gs = cv.optional_real(g.mu_s, dt, t + ".mu_s", (m,))
        gk = cv.optional_real(g.mu_k, dt, t + ".mu_k", (m,))
        cp = np.empty((m, nb), dt) if nb else None
        P = np.empty((m, dim, dim - 1), dt)
        N = np.empty(m, dt)
        dN = np.empty((m, k * dim), dt) if normal_force_gradient else None
        w = np.empty(m, dt)
        ms = np.empty(m, dt)
        mk = np.empty(m, dt)
        st = np.empty(m, np.uint8)
        native_groups.append((g.stencil, g.vertices, pn, po, gd, gw, gs, gk,
                              cp, P, N, dN, w, ms, mk, st, None))
        outs.append((g, cp, P, N, dN, w, ms, mk, st))
    flags = FLAG_PHYSICAL_BARRIER if physical_barrier else 0
    count, first_group, first_contact, total, no_force = _native.build(
        ctx, cv.precision(dt), dim, flags, X, rest, float(kappa), float(dhat),
        float(dmin), vmu[0], vmu[1], bl, tuple(native_groups))
    res = BuildResult()
    res.groups = []
    for g, cp, P, N, dN, w, ms, mk, st in outs:
        cg = ContactGroup._trusted(g.stencil, g.vertices, P, N, ms, mk, cp,
                                   w, dt, dim)
        cg.status = st
        cg.normal_force_gradient = dN
        res.groups.append(cg)
    res.status_counts = dict(zip(BUILD_STATUSES, count))
    res.first = dict((BUILD_STATUSES[s], (first_group[s], first_contact[s]))
                     for s in range(len(count)) if first_group[s] != _NONE)
    res.total, res.no_force = total, no_force
    return res


def prepare(groups: Sequence[BuildGroup], dim: int,
            normal_force_gradient: bool = False) -> Any:
    """The groups' inputs as a ``fricl._native.BuildGroups`` (float64),
    converted and checked once (as :func:`build` checks them): a solver
    that rebuilds from the same collision set at new lagged positions
    passes them to :func:`build_packed` without converting them again."""
    dt = cv.F64
    items = []
    for g in groups:
        if not isinstance(g, BuildGroup):
            raise InvalidArgumentError("groups must be fricl.BuildGroup "
                                       "objects, got %s" % type(g).__name__)
        t, m = g.type, g.count
        items.append((
            g.stencil, g.vertices,
            cv.optional_real(g.plane_normal, dt, t + ".plane_normal",
                             (m, dim), broadcast=True),
            cv.optional_real(g.plane_offset, dt, t + ".plane_offset", (m,)),
            cv.optional_real(g.dmin, dt, t + ".dmin", (m,)),
            cv.optional_real(g.weight, dt, t + ".weight", (m,)),
            cv.optional_real(g.mu_s, dt, t + ".mu_s", (m,)),
            cv.optional_real(g.mu_k, dt, t + ".mu_k", (m,))))
    return _native.BuildGroups(dim, tuple(items), bool(normal_force_gradient))


_N_STATUS = len(BUILD_STATUSES)


class PackedBuild:
    """One lagged build of prepared groups (:func:`prepare`), its outputs
    packed into one float64 array (the reals, the report, the status
    bytes): the :class:`ContactGroup` views and the :class:`BuildResult`
    are made on first access (a small build's arrays cost more than its
    arithmetic). ``vertices``: the groups' (m, k) vertex arrays."""

    __slots__ = ("prep", "vertices", "out", "dim", "total", "no_force",
                 "_result")

    def __init__(self, ctx: Any, prep: Any, vertices: Sequence[np.ndarray],
                 lagged_positions: np.ndarray, rest_positions: Any,
                 dhat: float, kappa: float, dmin: float, mu_s: Any,
                 mu_k: Any, blend: int, flags: int, dim: int) -> None:
        self.prep, self.vertices, self.dim = prep, vertices, dim
        self.out = out = np.empty(prep.n_words)
        self._result: Optional[BuildResult] = None
        self.total, self.no_force = _native.build_packed(
            ctx, prep, flags, lagged_positions, rest_positions, kappa, dhat,
            dmin, mu_s, mu_k, blend, out)

    def report(self) -> np.ndarray:
        """The counts, first groups and first contacts per status."""
        n = self.prep.n_reals
        return self.out[n:n + 3 * _N_STATUS].view(np.uint64)

    def count(self, status: int) -> int:
        """Contacts with one status code."""
        return int(self.report()[status])

    def result(self) -> BuildResult:
        """The :class:`BuildResult` (its groups views of the packed
        arrays), made once."""
        if self._result is not None:
            return self._result
        d = self.dim
        R = self.out
        S = R[self.prep.n_reals + 3 * _N_STATUS:].view(np.uint8)
        groups = []
        for (t, m, ocp, oP, oN, odN, oW, oS, oK, oSt), V in zip(
                self.prep.layout, self.vertices):
            k, nb = STENCIL_SIZES[t]
            cp = R[ocp:ocp + m * nb].reshape(m, nb) if ocp >= 0 else None
            cg = ContactGroup._trusted(
                t, V, R[oP:oP + m * d * (d - 1)].reshape(m, d, d - 1),
                R[oN:oN + m], R[oS:oS + m], R[oK:oK + m], cp, R[oW:oW + m],
                cv.F64, d)
            cg.status = S[oSt:oSt + m]
            if odN >= 0:
                cg.normal_force_gradient = R[odN:odN + m * k * d].reshape(
                    m, k * d)
            groups.append(cg)
        rep = self.report().tolist()  # Python ints
        res = BuildResult()
        res.groups = groups
        n = _N_STATUS
        res.status_counts = dict(zip(BUILD_STATUSES, rep[:n]))
        res.first = dict((BUILD_STATUSES[s], (rep[n + s], rep[2 * n + s]))
                         for s in range(n) if rep[n + s] != _NONE)
        res.total, res.no_force = self.total, self.no_force
        self._result = res
        return res
