"""fricl: batched friction terms for contact simulation, from numpy.

fricl evaluates the IPC friction potential (value, gradient, PSD-projected
Hessian) of millions of contacts per call, on an OpenCL device (GPU, or
the CPU through PoCL) or on its built-in C backend, and the smooth
friction scalar family, the lagged build and other friction laws.

Quick start::

    import fricl
    with fricl.Context() as ctx:                       # device="auto"
        g = fricl.ContactGroup("fv", ids, closest_point=beta,
                               tangent_basis=P, normal_force=N,
                               mu_s=0.5, mu_k=0.3)
        contacts = ctx.contacts([g], n_vertices)
        r = contacts.evaluate(v, eps_v=1e-3, gradient=True, hessian="csr",
                              psd="clamp")
        r.potential, r.gradient, r.hessian

Modules: :mod:`fricl.scalar`, :mod:`fricl.tangential`, :mod:`fricl.build`,
:mod:`fricl.laws`, :mod:`fricl.ipctk` (a drop-in for ipctk's friction
potential). Errors are :class:`fricl.Error` subclasses. How arrays are
taken (copies, dtypes): :mod:`fricl._convert`.
"""
from __future__ import annotations

from . import _native
from .errors import (BuildFailedError, DeviceNotFoundError, Error,
                     InternalError, InvalidArgumentError, NoFP64Error,
                     OpenCLError, OutOfMemoryError, UnsupportedError)
from ._tables import (BLENDS, BUILD_STATUSES, INTEGRATORS, LAW_OPTIONS, LAWS,
                      MU_PROFILES, PSD, STENCILS, TERMS)
from .context import Context, devices
from .tangential import (ContactGroup, Contacts, GroupOutputs, Plan,
                         TangentialResult)
from .build import BuildGroup, BuildResult
from .laws import LawInfo, LawParam, LawResult
from .laws import info as law_info

#: The C library's version string (``fricl_version_string()``).
__version__: str = _native.version_string()


def version_number() -> int:
    """``fricl_version_number()``: MAJOR * 10000 + MINOR * 100 + PATCH."""
    return _native.version_number()


__all__ = [
    "__version__", "version_number", "Context", "devices",
    "ContactGroup", "Contacts", "Plan", "TangentialResult", "GroupOutputs",
    "BuildGroup", "BuildResult", "LawInfo", "LawParam", "LawResult",
    "law_info", "Error", "InvalidArgumentError", "OutOfMemoryError",
    "DeviceNotFoundError", "NoFP64Error", "OpenCLError", "BuildFailedError",
    "UnsupportedError", "InternalError", "TERMS", "MU_PROFILES", "STENCILS",
    "PSD", "BLENDS", "BUILD_STATUSES", "LAWS", "INTEGRATORS", "LAW_OPTIONS",
]
