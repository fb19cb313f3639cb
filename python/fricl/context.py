"""fricl.Context: a device and everything fricl caches on it."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from . import _native
from . import build as _build
from . import laws as _laws
from . import scalar as _scalar
from . import tangential as _tangential
from ._tables import BACKENDS


class Context(_native.Context):
    """A fricl context: the device that evaluates, with its compiled kernels
    and scratch buffers (``fricl_context``).

    Parameters
    ----------
    device : str or None
        ``"auto"`` (default: the first GPU, else the first OpenCL CPU device
        such as PoCL, else the built-in C backend), ``"gpu"``, ``"cpu"``,
        ``"reference"`` (portable C, single thread), ``"opencl:P:D"`` (see
        :func:`fricl.devices`), or None for the ``FRICL_DEVICE``
        environment variable. Only ``"auto"`` falls back silently; an
        explicit spec that matches nothing raises DeviceNotFoundError.
    max_chunk_elements : int
        Largest number of elements per kernel launch (0: from the device's
        allocation limit). Larger batches are split transparently.
    no_fp64 : bool
        Behave as a device without float64 (float64 calls raise
        NoFP64Error; float32 works).
    build_options : str or None
        Extra OpenCL build options.

    Use it as a context manager (``with fricl.Context() as ctx:``) or call
    :meth:`close`; closing also destroys the plans made on it. A context
    may be shared between Python threads: calls on it are serialised, and
    the GIL is released while fricl computes.
    """

    def __new__(cls, device: Optional[str] = "auto", *,
                max_chunk_elements: int = 0, no_fp64: bool = False,
                build_options: Optional[str] = None) -> "Context":
        return super().__new__(cls, device, max_chunk_elements,
                               1 if no_fp64 else 0, build_options)

    def __init__(self, device: Optional[str] = "auto", *,
                 max_chunk_elements: int = 0, no_fp64: bool = False,
                 build_options: Optional[str] = None) -> None:
        pass

    @property
    def backend(self) -> str:
        """``"opencl"``, ``"reference"`` (or ``"host"``, the threaded host
        backend of newer libraries)."""
        b = _native.Context.backend.__get__(self)
        return BACKENDS.get(b, "backend%d" % b)

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
