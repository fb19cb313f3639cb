"""How fricl takes numpy arrays (the conversion rule).

* **Real arrays** are passed to the C library without a copy when they
  are already ``numpy.ndarray`` objects, C-contiguous, in native byte
  order and of the working dtype (float64 or float32). Anything else
  (another dtype, a non-contiguous view, Fortran order, a list, a
  scalar to broadcast) is converted once, with
  ``numpy.ascontiguousarray(a, dtype=working)``: a copy, made silently.
  Complex input is rejected rather than truncated.
* **The working dtype** is the ``dtype=`` argument where a function offers
  one; otherwise float32 when the main input (``y``, ``velocities``,
  ``lagged_positions``, ``v``) is float32, and float64 in every other
  case (integers, float16, lists ...).
* **Vertex ids** pass as they are when int32 and C-contiguous; other
  integer arrays are converted to int32 after checking that every value
  fits (a value beyond int32 raises InvalidArgumentError naming the array;
  it is never wrapped). Non-integer ids are rejected.
* **Outputs** are new arrays unless an ``out=`` argument is given, which
  must then be C-contiguous, writable and of the working dtype (it is
  never converted, since the result would be lost).

Arrays passed without a copy are borrowed for the call only, except by
:class:`fricl.ContactGroup` (and the objects built on it), which keeps
references to them: changing such an array in place changes later
evaluations.
"""
from __future__ import annotations

import operator
from typing import Any, Optional

import numpy as np

from .errors import InvalidArgumentError

F64 = np.dtype(np.float64)
F32 = np.dtype(np.float32)
I32 = np.dtype(np.int32)
_ndarray = np.ndarray


def working_dtype(main: Any, dtype: Any = None) -> np.dtype:
    """The working dtype: ``dtype`` if given (float64 or float32), else
    float32 when ``main`` is a float32 array, else float64."""
    if dtype is not None:
        d = np.dtype(dtype)
        if d != F64 and d != F32:
            raise InvalidArgumentError(
                "dtype must be float64 or float32, got %s" % d)
        return d
    if getattr(main, "dtype", None) == F32:
        return F32
    return F64


def precision(dtype: np.dtype) -> int:
    """fricl_precision of a working dtype (FRICL_F64 = 0, FRICL_F32 = 1)."""
    return 1 if dtype == F32 else 0


def real(a: Any, dtype: np.dtype, name: str) -> np.ndarray:
    """``a`` as a C-contiguous array of ``dtype``: itself when it already
    is one, else a converted copy."""
    if type(a) is _ndarray and a.dtype == dtype and a.flags.c_contiguous:
        return a
    try:
        arr = np.asarray(a)
        if arr.dtype.kind == "c":
            raise TypeError("complex values are not accepted")
        if arr.dtype.kind not in "biuf":
            raise TypeError("expected real numbers, got dtype %s" % arr.dtype)
        return np.asarray(arr, dtype=dtype, order="C")
    except (TypeError, ValueError) as e:
        raise InvalidArgumentError("argument '%s': %s" % (name, e)) from None


def real_shaped(a: Any, dtype: np.dtype, name: str, shape: tuple,
                broadcast: bool = False) -> np.ndarray:
    """:func:`real` with a shape check; scalars (and, with ``broadcast``,
    any broadcastable array) are broadcast to ``shape``."""
    arr = real(a, dtype, name)
    if arr.shape == shape:
        return arr
    if arr.ndim == 0 or broadcast:
        try:
            return np.ascontiguousarray(np.broadcast_to(arr, shape))
        except ValueError:
            pass
    elif arr.size == int(np.prod(shape)) and arr.ndim == 1:
        return arr.reshape(shape)
    raise InvalidArgumentError("argument '%s': expected shape %s, got %s"
                               % (name, shape, arr.shape))


def optional_real(a: Any, dtype: np.dtype, name: str, shape: tuple,
                  broadcast: bool = False) -> Optional[np.ndarray]:
    return None if a is None else real_shaped(a, dtype, name, shape,
                                              broadcast)


def ids(a: Any, name: str, k: int) -> np.ndarray:
    """Vertex ids as a C-contiguous (m, k) int32 array (see the module
    docstring for the rule)."""
    if type(a) is _ndarray and a.dtype == I32 and a.flags.c_contiguous:
        arr = a
    else:
        try:
            arr = np.asarray(a)
        except (TypeError, ValueError) as e:
            raise InvalidArgumentError("argument '%s': %s" % (name, e)) \
                from None
        if arr.size == 0:
            arr = arr.astype(I32)
        elif arr.dtype.kind not in "iu":
            raise InvalidArgumentError(
                "argument '%s': vertex ids must be integers, got dtype %s"
                % (name, arr.dtype))
        elif arr.dtype != I32:
            lo, hi = arr.min(), arr.max()
            if lo < -2**31 or hi > 2**31 - 1:
                bad = int(np.flatnonzero((arr.reshape(-1) < -2**31) |
                                         (arr.reshape(-1) > 2**31 - 1))[0])
                raise InvalidArgumentError(
                    "argument '%s': id %d at flat index %d does not fit in "
                    "int32" % (name, int(arr.reshape(-1)[bad]), bad))
        arr = np.ascontiguousarray(arr, dtype=I32)
    if arr.ndim == 1 and k == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2 or arr.shape[1] != k:
        if arr.size == 0:
            return np.zeros((0, k), I32)
        raise InvalidArgumentError("argument '%s': expected shape (m, %d), "
                                   "got %s" % (name, k, arr.shape))
    return arr


def count(value: Any, name: str) -> int:
    """A count argument (``n_vertices``, ...) as a Python int >= 0: an
    integer (numpy's too), never a float that ``int()`` would truncate;
    a negative value is refused here, naming the argument, rather than
    surfacing later as an error about some array's size."""
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError("argument '%s' must be an int, got %s"
                        % (name, type(value).__name__)) from None
    if n < 0:
        raise InvalidArgumentError("argument '%s' must be >= 0, got %d"
                                   % (name, n))
    return n


def out_array(out: Any, dtype: np.dtype, name: str,
              shape: tuple) -> np.ndarray:
    """A caller's output array: used as it is, or rejected."""
    if (type(out) is not _ndarray or out.dtype != dtype or
            not out.flags.c_contiguous or not out.flags.writeable or
            out.size != int(np.prod(shape))):
        raise InvalidArgumentError(
            "argument '%s': expected a writable C-contiguous %s array of "
            "%d elements" % (name, dtype, int(np.prod(shape))))
    return out


def scalar_or_array(a: Any, dtype: np.dtype, name: str, shape: tuple):
    """A Python float for a scalar, else an array of ``shape``."""
    if isinstance(a, (float, int)) and not isinstance(a, bool):
        return float(a)
    if isinstance(a, np.generic) or (isinstance(a, _ndarray) and a.ndim == 0):
        if np.iscomplexobj(a):
            raise InvalidArgumentError("argument '%s': complex values are "
                                       "not accepted" % name)
        return float(a)
    return real_shaped(a, dtype, name, shape, broadcast=True)
