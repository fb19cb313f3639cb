"""Names of fricl's enums, read from the C library itself."""
from __future__ import annotations

from typing import Dict, List, Sequence

from . import _native
from .errors import InvalidArgumentError

TABLES: Dict[str, List[str]] = _native.tables()
TERMS: List[str] = TABLES["terms"]
MU_PROFILES: List[str] = TABLES["mu_profiles"]
STENCILS: List[str] = TABLES["stencils"]
PSD: List[str] = TABLES["psd"]
MOLLIFIERS: List[str] = TABLES["mollifiers"]
BLENDS: List[str] = TABLES["blends"]
BUILD_STATUSES: List[str] = TABLES["build_statuses"]
LAWS: List[str] = TABLES["laws"]
INTEGRATORS: List[str] = TABLES["integrators"]
LAW_OPTIONS: List[str] = TABLES["law_options"]
# (k vertices, nb closest-point coordinates) per stencil
STENCIL_SIZES = _native.stencil_sizes()
BACKENDS: List[str] = TABLES["backends"]


def lookup(table: Sequence[str], name, what: str) -> int:
    """Index of ``name`` in ``table`` (ints are accepted as they are)."""
    if isinstance(name, int) and not isinstance(name, bool):
        if 0 <= name < len(table):
            return name
    else:
        try:
            return table.index(name)
        except ValueError:
            pass
    raise InvalidArgumentError("unknown %s %r (one of: %s)"
                               % (what, name, ", ".join(table)))
