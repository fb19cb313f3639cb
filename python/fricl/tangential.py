"""The per-contact tangential (friction) potential: groups of contacts with
their lagged data, a plan (the Hessian's sparsity and the assembly order),
and the evaluation of the potential D, its gradient, its PSD-projected
Hessian (global sparse, matrix-free product, per-contact dense or
factored) over numpy arrays (``fricl_tangential_eval``).

Units: velocities v [length/time] and ``eps_v`` [length/time] (or
displacements and ``eps_v * h``, spec 4.8: D scales by h, the gradient is
invariant, the Hessian scales by 1/h); the normal force N [force]; mu
dimensionless. D is [force * length/time * time] = the normal force times
a velocity-scale (as in ipctk: D = w N mu f0(|u|) with u the tangential
relative velocity); the gradient is D / [velocity], the Hessian
D / [velocity]^2.

DOF order everywhere: vertex-major, ``[x0 y0 (z0) x1 ...]``, i.e. a
``(n_vertices, dim)`` C-order array flattened.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Union

import numpy as np

from . import _convert as cv
from . import _native
from ._tables import (MOLLIFIERS, MU_PROFILES, PSD, STENCIL_SIZES, STENCILS,
                      lookup)
from .errors import InvalidArgumentError

FLAG_IPCTK_ABS = 0x1
FLAG_CHECK_BASIS = 0x2
_PROFILE = dict((p, i) for i, p in enumerate(MU_PROFILES))
_PSD = dict((p, i) for i, p in enumerate(PSD))
_MOLLIFIER = dict((m, i) for i, m in enumerate(MOLLIFIERS))
_HESSIAN_FORMATS = ("bsr", "csr", "csc", "values")


def _scipy_sparse():
    try:
        import scipy.sparse as sp
    except ImportError:  # pragma: no cover - scipy is a test dependency
        raise ImportError("fricl: sparse Hessians need scipy "
                          "(python3 -m pip install scipy), or use "
                          "hessian='values'") from None
    return sp


class ContactGroup:
    """Contacts of one stencil type with their lagged data.

    Parameters (all keyword arguments after ``vertices``)
    ----------
    type : {"vv", "ev", "ee", "fv", "pv"}
        Stencil: vertex-vertex (2 vertices), edge-vertex (3: p, e0, e1),
        edge-edge (4, 3-D only), face-vertex (4: p, t0, t1, t2, 3-D only),
        plane-vertex (1).
    vertices : (m, k) int array
        Vertex ids in the stencil order, each in [0, n_vertices).
    tangent_basis : (m, dim, dim - 1) array
        P, orthonormal columns spanning the tangent plane (3-D) or line
        (2-D). Its shape gives ``dim``.
    normal_force : (m,) array or float
        N >= 0, finite [force].
    mu_s, mu_k : (m,) arrays or floats
        Static and kinetic friction coefficients, >= 0.
    closest_point : (m, nb) array, optional
        beta, the unclamped closest-point coordinates: nb = 1 for ev
        (``(m,)`` accepted), 2 for ee and fv; none for vv and pv.
    weight : (m,) array or float, optional
        w (default 1; may be negative, e.g. improved max approximation).
    mu_aniso : (m, dim - 1) array, optional
        Anisotropy scaling a of the tangential velocity (default 1).
    dtype : float64 or float32, optional
        Default: float32 when ``tangent_basis`` is float32, else float64.

    Arrays already C-contiguous of the right dtype are kept by reference
    (no copy; see ``fricl._convert``). Attributes: ``type``, ``count``,
    ``dim``, ``dtype`` and the converted arrays.
    """

    __slots__ = ("type", "stencil", "count", "dim", "dtype", "vertices",
                 "closest_point", "tangent_basis", "normal_force", "weight",
                 "mu_s", "mu_k", "mu_aniso", "status",
                 "normal_force_gradient")

    def __init__(self, type: str, vertices: Any, *, tangent_basis: Any,
                 normal_force: Any, mu_s: Any, mu_k: Any,
                 closest_point: Any = None, weight: Any = None,
                 mu_aniso: Any = None, dtype: Any = None,
                 dim: Optional[int] = None) -> None:
        self.stencil = lookup(STENCILS, type, "stencil type")
        self.type = STENCILS[self.stencil]
        k, nb = STENCIL_SIZES[self.stencil]
        t = self.type
        self.vertices = cv.ids(vertices, t + ".vertices", k)
        m = self.count = self.vertices.shape[0]
        dt = self.dtype = cv.working_dtype(tangent_basis, dtype)
        P = cv.real(tangent_basis, dt, t + ".tangent_basis")
        if dim is None:
            if P.ndim != 3 or P.shape[1] not in (2, 3):
                raise InvalidArgumentError(
                    "argument '%s.tangent_basis': expected shape (m, dim, "
                    "dim - 1), got %s" % (t, P.shape))
            dim = P.shape[1]
        if dim not in (2, 3):
            raise InvalidArgumentError("dim must be 2 or 3, got %r" % dim)
        self.dim = dim
        self.tangent_basis = cv.real_shaped(P, dt, t + ".tangent_basis",
                                            (m, dim, dim - 1))
        if nb == 0:
            if closest_point is not None and np.size(closest_point) != 0:
                raise InvalidArgumentError(
                    "argument '%s.closest_point': %s contacts have no "
                    "closest-point coordinates" % (t, t))
            self.closest_point = None
        else:
            if closest_point is None:
                raise InvalidArgumentError(
                    "argument '%s.closest_point' is required" % t)
            self.closest_point = cv.real_shaped(
                closest_point, dt, t + ".closest_point", (m, nb))
        self.normal_force = cv.real_shaped(normal_force, dt,
                                           t + ".normal_force", (m,))
        self.mu_s = cv.real_shaped(mu_s, dt, t + ".mu_s", (m,))
        self.mu_k = cv.real_shaped(mu_k, dt, t + ".mu_k", (m,))
        self.weight = cv.optional_real(weight, dt, t + ".weight", (m,))
        self.mu_aniso = cv.optional_real(mu_aniso, dt, t + ".mu_aniso",
                                         (m, dim - 1), broadcast=True)
        self.status = None
        self.normal_force_gradient = None

    @classmethod
    def _trusted(cls, stencil: int, vertices: np.ndarray, P: np.ndarray,
                 N: np.ndarray, mu_s: np.ndarray, mu_k: np.ndarray,
                 cp: Optional[np.ndarray], weight: Optional[np.ndarray],
                 dt: Any, dim: int) -> "ContactGroup":
        """A group of arrays fricl itself made, of the right dtype, shape
        and layout (the lagged build's outputs): no checks, no copies (a
        small build's conversions cost more than its arithmetic)."""
        g = cls.__new__(cls)
        g.stencil, g.type = stencil, STENCILS[stencil]
        g.vertices, g.count, g.dtype, g.dim = vertices, len(vertices), dt, dim
        g.tangent_basis, g.normal_force, g.closest_point = P, N, cp
        g.mu_s, g.mu_k, g.weight, g.mu_aniso = mu_s, mu_k, weight, None
        g.status = g.normal_force_gradient = None
        return g

    def _native_tuple(self) -> tuple:
        return (self.stencil, self.vertices, self.closest_point,
                self.tangent_basis, self.normal_force, self.weight,
                self.mu_s, self.mu_k, self.mu_aniso)

    def __repr__(self) -> str:
        return "<fricl.ContactGroup %s: %d contacts, dim %d, %s>" % (
            self.type, self.count, self.dim, self.dtype)


class Plan(_native.Plan):
    """The topology of a contact set (``fricl_tangential_plan``): the
    global Hessian's block sparsity (BSR, dim x dim blocks, sorted block
    columns, duplicates merged) and the assembly order. Made by
    :class:`Contacts`; valid while its context is open.

    Attributes: ``dim``, ``n_vertices``, ``nnz_blocks``, ``shape``,
    ``row_ptr`` (int64, n_vertices + 1) and ``block_cols`` (int32).
    """

    def __init__(self, *args: Any) -> None:
        self._pattern = None
        self._csc = None
        self._csc_proto = None  # scipy's checked state of that pattern

    @property
    def shape(self) -> tuple:
        n = self.n_vertices * self.dim
        return (n, n)

    def _bsr_pattern(self):
        if self._pattern is None:
            rp = np.empty(self.n_vertices + 1, np.int64)
            bc = np.empty(self.nnz_blocks, np.int32)
            self.bsr_pattern(rp, bc)
            rp.flags.writeable = False
            bc.flags.writeable = False
            self._pattern = (rp, bc)
        return self._pattern

    @property
    def row_ptr(self) -> np.ndarray:
        return self._bsr_pattern()[0]

    @property
    def block_cols(self) -> np.ndarray:
        return self._bsr_pattern()[1]

    def _csc_pattern(self):
        """The scalar CSC indptr and indices of the plan's pattern, made
        on the first call and kept (each matrix made on them gets copies,
        as the barrier's Hessians do)."""
        if self._csc is None:
            idx = self._index_dtype()
            n = self.shape[0]
            indptr = np.empty(n + 1, idx)
            indices = np.empty(self.nnz_blocks * self.dim * self.dim, idx)
            self.csc(0, None, indptr, indices, None, idx == np.int64)
            self._csc = (indptr, indices)
        return self._csc

    def _index_dtype(self):
        big = max(self.shape[0], self.nnz_blocks * self.dim * self.dim)
        return np.int64 if big > 2**31 - 1 else np.int32

    def to_bsr(self, values: np.ndarray):
        """A ``scipy.sparse.bsr_matrix`` from the BSR ``values`` of an
        evaluation (``(nnz_blocks, dim, dim)``; used without a copy)."""
        sp = _scipy_sparse()
        rp, bc = self._bsr_pattern()
        d = self.dim
        idx = self._index_dtype()
        return sp.bsr_matrix((values.reshape(-1, d, d), bc.astype(idx),
                              rp.astype(idx)), shape=self.shape, copy=False)

    def to_csr(self, values: np.ndarray):
        """A ``scipy.sparse.csr_matrix`` (rows sorted, columns sorted)
        from BSR ``values`` (``fricl_tangential_plan_csr``)."""
        sp = _scipy_sparse()
        n = self.shape[0]
        nnz = self.nnz_blocks * self.dim * self.dim
        rp = np.empty(n + 1, np.int64)
        cols = np.empty(nnz, np.int32)
        data = np.empty(nnz, values.dtype)
        self.csr(1 if values.dtype == cv.F32 else 0, values, rp, cols, data)
        idx = self._index_dtype()
        return sp.csr_matrix((data, cols.astype(idx, copy=False),
                              rp.astype(idx)), shape=self.shape, copy=False)

    def to_csc(self, values: np.ndarray):
        """A ``scipy.sparse.csc_matrix`` (the exact transpose of the CSR
        order; no symmetry is assumed) from BSR ``values``."""
        sp = _scipy_sparse()
        n = self.shape[0]
        nnz = self.nnz_blocks * self.dim * self.dim
        idx = self._index_dtype()
        indptr = np.empty(n + 1, idx)
        indices = np.empty(nnz, idx)
        data = np.empty(nnz, values.dtype)
        self.csc(1 if values.dtype == cv.F32 else 0, values, indptr, indices,
                 data, idx == np.int64)
        return sp.csc_matrix((data, indices, indptr), shape=self.shape,
                             copy=False)

    def __repr__(self) -> str:
        return "<fricl.Plan dim %d, %d vertices, %d blocks%s>" % (
            self.dim, self.n_vertices, self.nnz_blocks,
            " (closed)" if self.closed else "")


class GroupOutputs:
    """Per-contact outputs of one group (each None unless requested):
    ``potential`` (m,), ``local_hessian`` (m, k dim, k dim),
    ``factored_gamma`` (m, k), ``factored_grad`` (m, dim) and
    ``factored_hessian`` (m, dim (dim + 1) / 2): Hessian block (i, j) =
    gamma_i gamma_j S, S packed by rows of its upper triangle."""

    __slots__ = ("type", "potential", "local_hessian", "factored_gamma",
                 "factored_grad", "factored_hessian")

    def __init__(self, type: str) -> None:
        self.type = type
        self.potential = self.local_hessian = None
        self.factored_gamma = self.factored_grad = None
        self.factored_hessian = None

    def __repr__(self) -> str:
        got = [s for s in self.__slots__[1:] if getattr(self, s) is not None]
        return "<fricl.GroupOutputs %s: %s>" % (self.type, ", ".join(got))


class TangentialResult:
    """What :meth:`Contacts.evaluate` computed (None where not requested):
    ``potential`` (a numpy scalar), ``gradient`` (shaped like the
    velocities), ``hessian`` (scipy sparse matrix, or the BSR values),
    ``hessian_product`` (shaped like the velocities) and ``groups`` (a
    list of :class:`GroupOutputs`, or None)."""

    __slots__ = ("potential", "gradient", "hessian", "hessian_product",
                 "groups")

    def __init__(self) -> None:
        self.potential = self.gradient = self.hessian = None
        self.hessian_product = self.groups = None

    def __repr__(self) -> str:
        got = [s for s in self.__slots__ if getattr(self, s) is not None]
        return "<fricl.TangentialResult: %s>" % ", ".join(got)


class Contacts:
    """A contact set ready for many evaluations: the groups (checked once),
    the number of vertices, and the plan (made on first need and reused:
    the pattern of a Newton solve's Hessian never changes).

    Parameters
    ----------
    ctx : fricl.Context
    groups : sequence of ContactGroup
        Same dim and dtype; concatenated in the order given.
    n_vertices : int
        Rows of the velocity array.
    """

    def __init__(self, ctx: Any, groups: Sequence[ContactGroup],
                 n_vertices: int) -> None:
        n_vertices = cv.count(n_vertices, "n_vertices")
        groups = list(groups)
        if not groups:
            raise InvalidArgumentError("at least one contact group is needed")
        dims = set(g.dim for g in groups)
        dts = set(g.dtype for g in groups)
        if len(dims) != 1 or len(dts) != 1:
            raise InvalidArgumentError(
                "all groups must have the same dim and dtype (got dims %s, "
                "dtypes %s)" % (sorted(dims), sorted(str(d) for d in dts)))
        self.ctx = ctx
        self.groups = groups
        self.dim = groups[0].dim
        self.dtype = groups[0].dtype
        self.n_vertices = n_vertices
        self.count = sum(g.count for g in groups)
        self._prec = cv.precision(self.dtype)
        self._native = _native.Groups(
            self.dim, self._prec, tuple(g._native_tuple() for g in groups))
        self._plan: Optional[Plan] = None
        self._vshape = (self.n_vertices, self.dim)
        self._vsize = self.n_vertices * self.dim

    @property
    def plan(self) -> Plan:
        """The plan (made on first access)."""
        if self._plan is None or self._plan.closed:
            self._plan = Plan(self.ctx, self._native, self.n_vertices)
        return self._plan

    def _velocities(self, v: Any, name: str) -> np.ndarray:
        arr = cv.real(v, self.dtype, name)
        if arr.size != self._vsize or (arr.ndim != 1 and
                                       arr.shape != self._vshape):
            raise InvalidArgumentError(
                "argument '%s': expected shape (%d, %d) or (%d,), got %s"
                % (name, self.n_vertices, self.dim, self._vsize, arr.shape))
        return arr

    def evaluate(self, velocities: Any, eps_v: float, *,
                 mu_profile: str = "cubic", psd: str = "none",
                 mollifier: str = "friction",
                 ipctk_abs: bool = False, check_basis: bool = False,
                 potential: bool = True, gradient: bool = False,
                 hessian: Union[None, bool, str] = None,
                 direction: Any = None, contact_potential: bool = False,
                 local_hessian: bool = False,
                 factored: bool = False) -> TangentialResult:
        """Evaluate the requested outputs in one pass over the contacts.

        Parameters
        ----------
        velocities : (n_vertices, dim) or (n_vertices * dim,) array
            Vertex velocities v (or displacements with ``eps_v * h``).
        eps_v : float
            The static/kinetic transition speed (> 0), velocity units.
        mu_profile : {"cubic", "ipctk"}
        psd : {"none", "clamp", "abs"}
            PSD projection of each contact's Hessian (closed form).
        mollifier : {"friction", "adhesion"}
            The mollifier family: ipctk's friction (f0, f1, f2) or its
            tangential adhesion (a0, a1, a2, with ``eps_v`` = eps_a).
        ipctk_abs : bool
            Reproduce ipctk's ABS projection for w N <= 0 (its kinetic and
            y = 0 branches return 0); default: |.| applied uniformly.
        check_basis : bool
            Reject non-orthonormal tangent bases (reads them once more).
        potential, gradient : bool
            The total D (numpy scalar) and its gradient (shaped like
            ``velocities``).
        hessian : None, True, "bsr", "csr", "csc" or "values"
            The global Hessian as a scipy sparse matrix (True: "bsr"), or
            its BSR values, ``(plan.nnz_blocks, dim, dim)``.
        direction : array, optional
            p, for the matrix-free product H p (``hessian_product``).
        contact_potential, local_hessian, factored : bool
            Per-contact outputs (``result.groups``).
        """
        dt = self.dtype
        r = TangentialResult()
        v = self._velocities(velocities, "velocities")
        pot = np.empty(1, dt) if potential else None
        grad = np.empty(v.shape, dt) if gradient else None
        hv = prod = p = None
        plan = self._plan
        if hessian is not None and hessian is not False:
            fmt = "bsr" if hessian is True else hessian
            if fmt not in _HESSIAN_FORMATS:
                raise InvalidArgumentError(
                    "hessian must be one of %s, got %r"
                    % (", ".join(_HESSIAN_FORMATS), hessian))
            plan = self.plan
            hv = np.empty((plan.nnz_blocks, self.dim, self.dim), dt)
        if direction is not None:
            p = self._velocities(direction, "direction")
            prod = np.empty(v.shape, dt)
        if (gradient or prod is not None) and plan is None:
            plan = self.plan
        per_group = None
        if contact_potential or local_hessian or factored:
            per_group, r.groups = self._group_outputs(
                contact_potential, local_hessian, factored)
        flags = (FLAG_IPCTK_ABS if ipctk_abs else 0) | \
            (FLAG_CHECK_BASIS if check_basis else 0)
        prof = _PROFILE.get(mu_profile)
        if prof is None:
            prof = lookup(MU_PROFILES, mu_profile, "mu profile")
        ps = _PSD.get(psd)
        if ps is None:
            ps = lookup(PSD, psd, "psd")
        moll = _MOLLIFIER.get(mollifier)
        if moll is None:
            moll = lookup(MOLLIFIERS, mollifier, "mollifier")
        _native.tangential_eval(self.ctx, self._native, plan, prof, ps, flags,
                                self.n_vertices, v, eps_v, p, pot, grad, hv,
                                prod, per_group, None, moll)
        if pot is not None:
            r.potential = pot[0]
        r.gradient = grad
        r.hessian_product = prod
        if hv is not None:
            if fmt == "values":
                r.hessian = hv
            elif fmt == "bsr":
                r.hessian = plan.to_bsr(hv)
            elif fmt == "csr":
                r.hessian = plan.to_csr(hv)
            else:
                r.hessian = plan.to_csc(hv)
        return r

    def _group_outputs(self, pot: bool, local: bool, factored: bool):
        dt, d = self.dtype, self.dim
        native, outs = [], []
        for g in self.groups:
            k = STENCIL_SIZES[g.stencil][0]
            m = g.count
            o = GroupOutputs(g.type)
            if pot:
                o.potential = np.empty(m, dt)
            if local:
                o.local_hessian = np.empty((m, k * d, k * d), dt)
            if factored:
                o.factored_gamma = np.empty((m, k), dt)
                o.factored_grad = np.empty((m, d), dt)
                o.factored_hessian = np.empty((m, d * (d + 1) // 2), dt)
            native.append((o.potential, o.local_hessian, o.factored_gamma,
                           o.factored_grad, o.factored_hessian))
            outs.append(o)
        return tuple(native), outs

    # ---- one output each, for solver loops
    def potential(self, velocities: Any, eps_v: float, **kw: Any):
        """The total potential D (numpy scalar). Options as
        :meth:`evaluate`."""
        return self.evaluate(velocities, eps_v, **kw).potential

    def gradient(self, velocities: Any, eps_v: float,
                 **kw: Any) -> np.ndarray:
        """The gradient of D (shaped like ``velocities``)."""
        return self.evaluate(velocities, eps_v, potential=False,
                             gradient=True, **kw).gradient

    def hessian(self, velocities: Any, eps_v: float, *,
                format: str = "bsr", **kw: Any):
        """The projected global Hessian (``format``: bsr, csr, csc or
        values; ``psd=`` as :meth:`evaluate`)."""
        return self.evaluate(velocities, eps_v, potential=False,
                             hessian=format, **kw).hessian

    def hessian_product(self, velocities: Any, direction: Any,
                        eps_v: float, **kw: Any) -> np.ndarray:
        """H p without forming H (shaped like ``velocities``)."""
        return self.evaluate(velocities, eps_v, potential=False,
                             direction=direction, **kw).hessian_product

    def _timed(self, velocities: np.ndarray, eps_v: float, repeat: int,
               potential: bool = True, gradient: bool = False,
               hessian: bool = False, psd: str = "none",
               mu_profile: str = "cubic", mollifier: str = "friction"):
        """Benchmark hook: the C call alone, ``repeat`` times, with the
        same arrays as :meth:`evaluate` (durations in s)."""
        dt = self.dtype
        plan = self.plan
        pot = np.empty(1, dt) if potential else None
        grad = np.empty(velocities.shape, dt) if gradient else None
        hv = np.empty(plan.nnz_blocks * self.dim ** 2, dt) if hessian \
            else None
        return _native.tangential_eval(
            self.ctx, self._native, plan, _PROFILE[mu_profile], _PSD[psd], 0,
            self.n_vertices, velocities, eps_v, None, pot, grad, hv, None,
            None, repeat, _MOLLIFIER[mollifier])

    def __repr__(self) -> str:
        return "<fricl.Contacts %d contacts in %d groups, %d vertices, " \
               "dim %d, %s>" % (self.count, len(self.groups),
                                self.n_vertices, self.dim, self.dtype)
