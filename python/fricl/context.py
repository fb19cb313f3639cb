"""fricl.Context: a device and everything fricl caches on it."""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

from . import _native
from . import build as _build
from . import laws as _laws
from . import scalar as _scalar
from . import tangential as _tangential
from ._tables import BACKENDS
from .errors import InvalidArgumentError


def _backend_name(b: int) -> str:
    return BACKENDS[b] if 0 <= b < len(BACKENDS) else "backend%d" % b


def _crossover(value: Any) -> int:
    """auto_crossover for the native Context: -1 for math.inf (never the
    device), else a count >= 0. Checked here because -1 is the native
    layer's own spelling of infinity: a -1 from the caller must not mean
    it."""
    if value == math.inf:
        return -1
    try:
        n = int(value)  # documented as int or float: floats truncate
    except (TypeError, ValueError, OverflowError):
        raise InvalidArgumentError("argument 'auto_crossover' must be a "
                                   "number >= 0 or math.inf, got %r"
                                   % (value,)) from None
    if not value >= 0:
        raise InvalidArgumentError("argument 'auto_crossover' must be >= 0 "
                                   "or math.inf, got %r" % (value,))
    return n


class Context(_native.Context):
    """A fricl context: the device that evaluates, with its compiled kernels
    and scratch buffers (``fricl_context``).

    Parameters
    ----------
    device : str or None
        ``"auto"`` (default: per call by size, small calls on the threaded
        host backend, large ones on the first OpenCL GPU, else the first
        OpenCL CPU device such as PoCL; the host backend alone when there
        is no OpenCL device), ``"host"`` (built-in C on all cores),
        ``"reference"`` (portable C, one thread), ``"gpu"``, ``"cpu"``,
        ``"opencl:P:D"`` (see :func:`fricl.devices`), or None for the
        ``FRICL_DEVICE`` environment variable. Explicit specs never switch;
        one that matches nothing raises DeviceNotFoundError. (Libraries
        before 0.4 know neither ``host`` nor the per-call choice.)
    max_chunk_elements : int
        Largest number of elements per kernel launch (0: from the device's
        allocation limit). Larger batches are split transparently.
    no_fp64 : bool
        Behave as a device without float64 (float64 calls raise
        NoFP64Error; float32 works).
    build_options : str or None
        Extra OpenCL build options.
    threads : int
        Host threads fricl uses (0: ``FRICL_THREADS``, else every core; 1
        when you call fricl from your own thread pool). Results never
        depend on it.
    auto_crossover : int or float
        ``"auto"`` only: calls with fewer work items (elements, contacts,
        element-steps) run on the host backend, larger ones on the OpenCL
        device. 0: ``FRICL_AUTO_CROSSOVER``, else fricl's measured default;
        ``math.inf``: never the device.

    Use it as a context manager (``with fricl.Context() as ctx:``) or call
    :meth:`close`; closing also destroys the plans made on it. A context
    may be shared between Python threads: calls on it are serialised, and
    the GIL is released while fricl computes.
    """

    def __new__(cls, device: Optional[str] = "auto", *,
                max_chunk_elements: int = 0, no_fp64: bool = False,
                build_options: Optional[str] = None, threads: int = 0,
                auto_crossover: float = 0) -> "Context":
        cross = _crossover(auto_crossover)
        return super().__new__(cls, device, max_chunk_elements,
                               1 if no_fp64 else 0, build_options, threads,
                               cross)

    def __init__(self, device: Optional[str] = "auto", *,
                 max_chunk_elements: int = 0, no_fp64: bool = False,
                 build_options: Optional[str] = None, threads: int = 0,
                 auto_crossover: float = 0) -> None:
        pass

    @property
    def backend(self) -> str:
        """The backend large calls run on: ``"opencl"``, ``"host"`` or
        ``"reference"`` (for ``"auto"``: ``"opencl"`` when it found a
        device, else ``"host"``)."""
        return _backend_name(_native.Context.backend.__get__(self))

    @property
    def last_backend(self) -> str:
        """The backend that ran the last evaluation (with ``"auto"``, the
        per-call choice)."""
        return _backend_name(_native.Context.last_backend.__get__(self))

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        if self.closed:
            return "<fricl.Context (closed)>"
        return "<fricl.Context %s: %r%s>" % (
            self.backend, self.device_name,
            " (fell back)" if self.fell_back else "")

    # The families, as methods (each documented in its own module).
    def scalar(self, terms, y, eps_v, mu_s=0.0, mu_k=0.0, **kw):
        """Smooth friction terms: see :func:`fricl.scalar.evaluate`."""
        return _scalar.evaluate(self, terms, y, eps_v, mu_s, mu_k, **kw)

    def contacts(self, groups, n_vertices: int, **kw):
        """A :class:`fricl.Contacts` set on this context."""
        return _tangential.Contacts(self, groups, n_vertices, **kw)

    def build(self, lagged_positions, groups, **kw):
        """The lagged build: see :func:`fricl.build.build`."""
        return _build.build(self, lagged_positions, groups, **kw)

    def law(self, name, v=None, **kw):
        """One sample of a friction law: see :func:`fricl.laws.evaluate`."""
        return _laws.evaluate(self, name, v, **kw)

    def law_step(self, name, v=None, **kw):
        """A trajectory of a friction law: see :func:`fricl.laws.step`."""
        return _laws.step(self, name, v, **kw)


def devices() -> List[Dict[str, Any]]:
    """The OpenCL devices (``fricl_devices_list``): one dict per device
    with ``spec`` (for ``Context(device=...)``), names, type flags,
    ``has_fp64``, ``is_default``, compute units and memory sizes. Empty
    when no OpenCL runtime is installed (the reference backend is always
    there)."""
    return _native.devices()
