"""The smooth friction family (``fricl_scalar_eval``): the IPC Toolkit's
mollifier functions f0, f1, f2, f1/x, (f2 x - f1)/x^3 and the smooth
static-to-kinetic mu forms, elementwise over numpy arrays.

Units: ``y`` is a slip speed (or a displacement norm when ``eps_v`` is
one too), ``eps_v`` the same unit; mu values are dimensionless. The
term names are ipctk's Python names (``smooth_friction_f0``, ...,
``smooth_mu_f2_x_minus_mu_f1_over_x3``); ``fricl.TERMS`` lists them.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Union

import numpy as np

from . import _convert as cv
from . import _native
from ._tables import MU_PROFILES, TERMS, lookup

_TERM_INDEX = dict((t, i) for i, t in enumerate(TERMS))
_NO_OUTS = (None,) * len(TERMS)


def evaluate(ctx: Any, terms: Union[str, Sequence[str]], y: Any,
             eps_v: Any, mu_s: Any = 0.0, mu_k: Any = 0.0, *,
             mu_profile: str = "cubic", dtype: Any = None,
             out: Any = None) -> Union[np.ndarray, Dict[str, np.ndarray]]:
    """Evaluate smooth friction terms elementwise, all in one pass.

    Parameters
    ----------
    ctx : fricl.Context
    terms : str or sequence of str
        A term name (the result is then one array), a list of names (the
        result is a dict, in the order given), or ``"all"`` (the twelve).
    y : array_like
        The argument, any shape; outputs have the same shape.
    eps_v : float or array_like
        The mollifier width, > 0 and finite (same unit as ``y``). A
        scalar, or an array broadcastable to ``y`` (per element).
    mu_s, mu_k : float or array_like
        Static and kinetic coefficients, >= 0 (read only by the
        ``smooth_mu*`` terms). Scalars or per element.
    mu_profile : {"cubic", "ipctk"}
        The static-to-kinetic transition: ``cubic`` (the IPC Toolkit
        tutorial's smoothstep) or ``ipctk`` (the piecewise quadratic of
        ipctk >= 1.4).
    dtype : float64 or float32, optional
        Working precision (default: float32 if ``y`` is float32, else
        float64).
    out : ndarray or dict, optional
        Where to write: an array (one term) or a dict name -> array; each
        C-contiguous, writable, of the working dtype and ``y``'s size.

    Raises
    ------
    fricl.InvalidArgumentError
        A bad ``eps_v``/``mu`` (the message names it and the first bad
        index), an unknown term or profile, overlapping outputs.
    """
    dt = cv.working_dtype(y, dtype)
    yy = cv.real(y, dt, "y")
    single = isinstance(terms, str) and terms != "all"
    names = TERMS if terms == "all" else ([terms] if single else list(terms))
    if not names:
        raise cv.InvalidArgumentError("no term requested")
    shape = yy.shape
    mask = 0
    outs = list(_NO_OUTS)
    result = {}
    for name in names:
        t = _TERM_INDEX.get(name)
        if t is None:
            t = lookup(TERMS, name, "term")
        if single and out is not None:
            arr = cv.out_array(out, dt, "out", shape)
        elif out is not None and name in out:
            arr = cv.out_array(out[name], dt, "out[%s]" % name, shape)
        else:
            arr = np.empty(shape, dt)
        mask |= 1 << t
        outs[t] = arr
        result[name] = arr
    prof = 0 if mu_profile == "cubic" else lookup(MU_PROFILES, mu_profile,
                                                  "mu profile")
    _native.scalar_eval(
        ctx, cv.precision(dt), prof, mask, yy,
        cv.scalar_or_array(eps_v, dt, "eps_v", shape),
        cv.scalar_or_array(mu_s, dt, "mu_s", shape),
        cv.scalar_or_array(mu_k, dt, "mu_k", shape), tuple(outs))
    return result[names[0]] if single else result


def _timed(ctx: Any, terms: Sequence[str], y: np.ndarray, eps_v: Any,
           mu_s: Any, mu_k: Any, repeat: int, mu_profile: str = "cubic"):
    """Benchmark hook: the C call alone, ``repeat`` times, on the same
    arrays as :func:`evaluate` (returns the list of durations in s)."""
    dt = y.dtype
    outs = list(_NO_OUTS)
    mask = 0
    for name in terms:
        t = _TERM_INDEX[name]
        mask |= 1 << t
        outs[t] = np.empty(y.shape, dt)
    return _native.scalar_eval(
        ctx, cv.precision(dt), lookup(MU_PROFILES, mu_profile, "profile"),
        mask, y, cv.scalar_or_array(eps_v, dt, "eps_v", y.shape),
        cv.scalar_or_array(mu_s, dt, "mu_s", y.shape),
        cv.scalar_or_array(mu_k, dt, "mu_k", y.shape), tuple(outs), repeat)
