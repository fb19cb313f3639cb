"""Argument checks shared by the ipctk drop-in classes (fricl.ipctk's
FrictionPotential, BarrierPotential): a drop-in must refuse what ipctk
refuses, with an error that names the argument, rather than compute
something else.
"""
from __future__ import annotations

from typing import Any

import numpy as np

import ipctk as _ipctk

from . import _convert as cv
from .errors import InvalidArgumentError

#: ipctk's default projection (hessian(..., project_hessian_to_psd=NONE)).
PSD_DEFAULT = _ipctk.PSDProjectionMethod.NONE
_PSD_NAMES = {"NONE": "none", "CLAMP": "clamp", "ABS": "abs"}


def psd(project: Any) -> str:
    """fricl's psd name ("none", "clamp", "abs") of an
    ``ipctk.PSDProjectionMethod``. ipctk 1.6.1's pybind11 bindings take
    the enum and nothing else (True, 1, "CLAMP", None all raise
    TypeError there), so a bool or a string must not be read as some
    projection here either (True once silently meant NONE)."""
    if not isinstance(project, _ipctk.PSDProjectionMethod):
        raise TypeError("argument 'project_hessian_to_psd': expected an "
                        "ipctk.PSDProjectionMethod (NONE, CLAMP or ABS), "
                        "got %r" % (project,))
    return _PSD_NAMES[project.name]


def count(x: Any) -> int:
    """An ipctk count that is a property or, in some releases, a method."""
    return x() if callable(x) else x


def mesh_positions(mesh: Any, X: Any, name: str = "X") -> np.ndarray:
    """``X`` as the collision mesh's ``(num_vertices, dim)`` float64
    array. ipctk itself does not check this (a 1-D or transposed X is
    read out of bounds there), so it is checked here, naming ``X``."""
    Xa = cv.real(X, cv.F64, name)
    nv, dim = count(mesh.num_vertices), count(mesh.dim)
    if Xa.shape != (nv, dim):
        raise InvalidArgumentError(
            "argument '%s': expected the collision mesh's (%d, %d) array, "
            "got shape %s (map full-mesh arrays with mesh.map_displacements "
            "or mesh.vertices)" % (name, nv, dim, Xa.shape))
    return Xa
