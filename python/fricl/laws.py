"""The other friction laws of fricl's sources (``fricl_law_eval`` and
``fricl_law_step``): Exudyn's StribeckFunction, RegularizedFrictionStep
and RegularizedFriction, Modelica's InverseSpeedDependentForce, and the
Fortran ``friction`` library's Coulomb, Stribeck, Maxwell, Modified
Stribeck, LuGre and Generalized Maxwell Slip, with per-element state.

Parameters use the upstream names; :func:`info` lists them with their
units, defaults and meaning (``fricl.law_info("lugre")``).
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence

import numpy as np

from . import _convert as cv
from . import _native
from ._tables import INTEGRATORS, LAW_OPTIONS, LAWS, lookup
from .errors import InvalidArgumentError

MAX_PARAMS = 8
_LAW_GMS = LAWS.index("gms")


class LawParam(NamedTuple):
    name: str
    unit: str
    default: float  # NaN when required
    description: str


class LawInfo(NamedTuple):
    """A law's description (``fricl_law_get_info``)."""
    name: str
    description: str
    params: List[LawParam]
    uses_velocity: bool
    uses_position: bool
    uses_normal: bool
    state_size: int  # per element (GMS: per slip element)
    ode_state: bool  # integrated by step() (LuGre, GMS)
    options: List[str]


class LawResult(NamedTuple):
    """``force`` (shaped like the input samples), ``state`` (the updated
    state, (n, S), or None when it does not advance) and ``dstate`` (dz/dt
    of LuGre / GMS when requested)."""
    force: Optional[np.ndarray]
    state: Optional[np.ndarray]
    dstate: Optional[np.ndarray]


_INFO: Dict[int, LawInfo] = {}


def info(name: Any) -> LawInfo:
    """The description of law ``name`` (see ``fricl.LAWS``)."""
    law = lookup(LAWS, name, "law")
    if law not in _INFO:
        d = _native.law_info(law)
        _INFO[law] = LawInfo(
            d["name"], d["description"],
            [LawParam(*p) for p in d["params"]], d["uses_velocity"],
            d["uses_position"], d["uses_normal"], d["state_size"],
            d["ode_state"],
            [o for i, o in enumerate(LAW_OPTIONS) if d["options"] >> i & 1])
    return _INFO[law]


def _run(ctx: Any, stepping: bool, name: Any, v: Any, x: Any, normal: Any,
         params: Optional[Mapping[str, Any]], options: Sequence[str],
         h: Optional[float], integrator: str, state: Any, inplace: bool,
         gms: Any, dstate: bool, dtype: Any) -> LawResult:
    law = lookup(LAWS, name, "law")
    li = info(law)
    main = v if v is not None else x
    if main is None:
        raise InvalidArgumentError("law '%s': give the samples (v, or x for "
                                   "the position laws)" % li.name)
    dt = cv.working_dtype(main, dtype)
    samples = cv.real(main, dt, "v" if v is not None else "x")
    if stepping:
        if samples.ndim == 1:
            samples = samples.reshape(1, -1)
        if samples.ndim != 2:
            raise InvalidArgumentError("samples must be (n,) or (n_steps, n)"
                                       ", got %s" % (samples.shape,))
        n_steps, n = samples.shape
    else:
        if samples.ndim != 1:
            raise InvalidArgumentError("samples must be (n,), got %s (use "
                                       "law_step for trajectories)"
                                       % (samples.shape,))
        n_steps, n = 1, samples.shape[0]
    shape = samples.shape
    vv = samples if v is not None else None
    xx = samples if v is None else cv.optional_real(x, dt, "x", shape)
    # Normal force: a scalar, per element (n,) or per sample.
    normal_arr, per_step, normal_force = None, False, math.nan
    if normal is not None:
        if np.ndim(normal) == 0:
            normal_force = float(normal)
        else:
            normal_arr = cv.real(normal, dt, "normal")
            if normal_arr.shape == shape and stepping and n_steps > 1:
                per_step = True
            elif normal_arr.size != n:
                raise InvalidArgumentError(
                    "argument 'normal': expected (n,) = (%d,) or the samples' "
                    "shape %s, got %s" % (n, shape, normal_arr.shape))
    # Parameters by upstream name.
    pvals = [0.0] * MAX_PARAMS
    parrs: List[Any] = [None] * MAX_PARAMS
    names = [p.name for p in li.params]
    for i, p in enumerate(li.params):
        pvals[i] = p.default
    for key, val in (params or {}).items():
        if key == "normal":
            if np.ndim(val) != 0:
                raise InvalidArgumentError("param 'normal' must be a scalar")
            normal_force = float(val)
            continue
        if key not in names:
            raise InvalidArgumentError(
                "law '%s' has no parameter %r (parameters: %s)"
                % (li.name, key, ", ".join(names)))
        i = names.index(key)
        if np.ndim(val) == 0:
            pvals[i] = float(val)
        else:
            parrs[i] = cv.real_shaped(val, dt, key, (n,))
    opts = 0
    for o in options:
        opts |= 1 << lookup(LAW_OPTIONS, o, "law option")
    # GMS slip elements: (m, 3) rows (k, b, nu), or (n, m, 3) per element.
    m, gp, gper = 0, None, False
    if law == _LAW_GMS:
        if gms is None:
            raise InvalidArgumentError("law 'gms' needs gms=(m, 3) rows "
                                       "(k_i, b_i, nu_i)")
        gp = cv.real(gms, dt, "gms")
        if gp.ndim == 2 and gp.shape[1] == 3:
            m = gp.shape[0]
        elif gp.ndim == 3 and gp.shape[0] == n and gp.shape[2] == 3:
            m, gper = gp.shape[1], True
        else:
            raise InvalidArgumentError("argument 'gms': expected (m, 3) or "
                                       "(n, m, 3), got %s" % (gp.shape,))
    elif gms is not None:
        raise InvalidArgumentError("gms= is for law 'gms' only")
    S = li.state_size * (m if law == _LAW_GMS else 1)
    st = None
    if state is not None:
        st = cv.real(state, dt, "state") if not inplace else \
            cv.out_array(state, dt, "state", (n, S))
        if st.size != n * S:
            raise InvalidArgumentError("argument 'state': expected %d x %d "
                                       "values, got shape %s"
                                       % (n, S, st.shape))
    advances = S > 0 and (stepping or not li.ode_state)
    state_out = None
    if advances:
        state_out = st if inplace and st is not None else np.empty((n, S), dt)
    elif inplace:
        raise InvalidArgumentError("law '%s': the state does not advance in "
                                   "this call (inplace=True)" % li.name)
    ds = np.empty((n, S), dt) if dstate else None
    force = np.empty(shape, dt)
    integ = lookup(INTEGRATORS, integrator, "integrator")
    _native.law(ctx, stepping, cv.precision(dt), law, opts, n, n_steps,
                float(h) if h is not None else 0.0, integ, vv, xx, normal_arr,
                per_step, normal_force, tuple(pvals), tuple(parrs), m, gp,
                gper, st, state_out, force, ds)
    return LawResult(force, state_out, ds)


def evaluate(ctx: Any, name: Any, v: Any = None, *, x: Any = None,
             normal: Any = None, params: Optional[Mapping[str, Any]] = None,
             options: Sequence[str] = (), state: Any = None,
             inplace: bool = False, gms: Any = None, dstate: bool = False,
             dtype: Any = None) -> LawResult:
    """One sample per element (``fricl_law_eval``).

    Parameters
    ----------
    ctx : fricl.Context
    name : str
        The law (``fricl.LAWS``).
    v : (n,) array
        Velocities [m/s] (the ``x`` of ``exudyn_step``).
    x : (n,) array
        Positions [m] (maxwell, modified_stribeck).
    normal : float or (n,) array
        Normal force [N] for the laws that use one.
    params : dict
        Upstream parameter name -> float or (n,) array; the others take
        their defaults (required ones must be given).
    options : sequence of str
        ``isdf_continuous``, ``stribeck_odd``, ``lugre_exp_shape``.
    state : (n, S) array, optional
        The state before the call (default: upstream's zero state).
    inplace : bool
        Update ``state`` in place (Maxwell, Modified Stribeck).
    gms : (m, 3) or (n, m, 3) array
        GMS slip elements (k_i, b_i, nu_i).
    dstate : bool
        LuGre / GMS: also return dz/dt at the given state.

    Stateless laws return the force; Maxwell and Modified Stribeck also
    the updated state; LuGre and GMS the force (and dz/dt) at the given
    state without advancing it.
    """
    return _run(ctx, False, name, v, x, normal, params, options, None,
                "euler", state, inplace, gms, dstate, dtype)


def step(ctx: Any, name: Any, v: Any = None, *, x: Any = None,
         normal: Any = None, params: Optional[Mapping[str, Any]] = None,
         options: Sequence[str] = (), h: Optional[float] = None,
         integrator: str = "rk4", state: Any = None, inplace: bool = False,
         gms: Any = None, dtype: Any = None) -> LawResult:
    """A trajectory (``fricl_law_step``): ``v`` (and ``x``, ``normal``) are
    ``(n_steps, n)``, step-major. Each step's force is that of the state
    before the step; then the state advances (LuGre / GMS: integrated over
    ``h`` [s] with ``integrator`` in {"euler", "rk4", "exp"}). Returns the
    forces (n_steps, n) and the final state. Other arguments as
    :func:`evaluate`."""
    return _run(ctx, True, name, v, x, normal, params, options, h,
                integrator, state, inplace, gms, False, dtype)
