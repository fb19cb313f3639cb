"""Reading ipctk's collision containers in one pass.

ipctk 1.6.1 gives no bulk accessor for its ``NormalCollisions`` and
``TangentialCollisions``: every field of every collision is a pybind11
property, and each such read costs microseconds (its argument conversion
fails a fast path and formats an ``AttributeError`` before it succeeds).
Reading ~10 fields of 100k collisions that way took longer than ipctk's
own call on them by two orders of magnitude.

So this module reads the collisions' C++ storage directly, after
*learning* where each field lives rather than assuming it:

* **Calibration** (once per collision type and process): a private
  container of three collisions of that type is made through ipctk's own
  Python API, every field read here is set to distinct sentinel values
  through its pybind11 setter, and the three elements' bytes are searched
  for them. A field is accepted only at the one offset where all three
  elements hold their sentinels; the element stride is the distance
  between consecutive items' addresses. Any doubt (no match, two matches,
  an item that is not a reference into its container) gives no layout,
  and the caller reads field by field as before.
* **Reading** a caller's container: its items must be of the calibrated
  class (so their value pointers are where the calibration found them),
  the item addresses of each type's first, middle and last collision must
  lie on that stride (one contiguous ``std::vector``), and every read
  field of the middle one must equal what ipctk's property returns, bit
  for bit; only then is each field of the whole range copied with one
  strided numpy copy. Otherwise: None, and the caller reads field by
  field.

The calibration reads through ``/proc/self/mem`` (a bad address is an
``OSError``, never a crash); where that file cannot be read nothing here
is used.
"""
from __future__ import annotations

import ctypes
import os
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

# The types in ipctk's container order (operator[] runs vv, ev, ee, fv,
# then plane-vertex, which is left to the field-by-field reader).
_ORDER = ("vv", "ev", "ee", "fv")
_NAMES = {"vv": "VertexVertex", "ev": "EdgeVertex", "ee": "EdgeEdge",
          "fv": "FaceVertex"}
_IDS = {"vv": ("vertex0_id", "vertex1_id"),
        "ev": ("vertex_id", "edge_id"),
        "ee": ("edge0_id", "edge1_id"),
        "fv": ("vertex_id", "face_id")}
_NB = {"vv": 0, "ev": 1, "ee": 2, "fv": 2}

_mem_fd: Optional[int] = None
_mem_ok = True
# (kind, type) -> layout dict, or None where calibration failed
_LAYOUTS: Dict[Tuple[str, str], Optional[Dict[str, Any]]] = {}


def _read(addr: int, n: int) -> Optional[bytes]:
    """n bytes at addr of this process, or None (unreadable)."""
    global _mem_fd, _mem_ok
    if not _mem_ok:
        return None
    try:
        if _mem_fd is None:
            _mem_fd = os.open("/proc/self/mem", os.O_RDONLY)
        b = os.pread(_mem_fd, n, addr)
    except (OSError, OverflowError, ValueError):
        if _mem_fd is None:
            _mem_ok = False
        return None
    return b if len(b) == n else None


def _address(item: Any) -> Optional[int]:
    """The C++ object a pybind11 instance holds (its value pointer, which
    pybind11's simple instance layout keeps right after the object
    header). The calibration checks it (through /proc/self/mem) for the
    item's class; a read uses it only for items of a calibrated class."""
    if type(item).__basicsize__ < 24:
        return None
    return ctypes.c_void_p.from_address(id(item) + 16).value or None


def _find(blocks: List[bytes], values: List[np.ndarray]) -> Optional[int]:
    """The one offset (8-aligned) at which block j holds values[j]'s
    bytes for every j, else None."""
    pats = [v.tobytes() for v in values]
    hits = None
    for blk, pat in zip(blocks, pats):
        found = set()
        start = blk.find(pat)
        while start >= 0:
            if start % 4 == 0:
                found.add(start)
            start = blk.find(pat, start + 1)
        hits = found if hits is None else hits & found
    if hits is None or len(hits) != 1:
        return None
    return hits.pop()


def _fields(kind: str, t: str) -> List[Tuple[str, str]]:
    """(attribute, how) of what is read from a collision of type t."""
    f = [(a, "id") for a in _IDS[t]] + [("weight", "f8")]
    if kind == "normal":
        f.append(("dmin", "f8"))
        if t == "ee":
            f.append(("dtype", "enum"))
        return f
    if _NB[t]:
        f.append(("closest_point", "cp"))
    f += [("tangent_basis", "P"), ("normal_force_magnitude", "f8"),
          ("mu_s_effective_lagged", "f8"), ("mu_k_effective_lagged", "f8"),
          ("mu_aniso", "v2")]
    return f


def _private(kind: str, t: str) -> Any:
    """A container of three collisions of type t made through ipctk."""
    import ipctk
    n = _NAMES[t]
    if t == "ee":
        normals = [ipctk.EdgeEdgeNormalCollision(j, j + 1, 0.0)
                   for j in range(3)]
    else:
        normals = [getattr(ipctk, n + "NormalCollision")(j, j + 1)
                   for j in range(3)]
    if kind == "normal":
        c = ipctk.NormalCollisions()
        setattr(c, t + "_collisions", normals)
        return c
    c = ipctk.TangentialCollisions()
    tc = getattr(ipctk, n + "TangentialCollision")
    setattr(c, t + "_collisions", [tc(x) for x in normals])
    return c


def _sentinels(how: str, t: str, j: int, k: int) -> Tuple[Any, np.ndarray]:
    """(value to set, bytes to find) for field k of item j."""
    base = 1000.0 * (k + 1) + 0.125 * (j + 1) + 1.0 / 3.0
    if how == "id":
        v = -7654321 - 1000 * k - j
        return v, np.array([v], np.int64)
    if how == "f8":
        return base, np.array([base])
    if how == "v2":
        v = np.array([base, base + 0.5])
        return v, v
    if how == "cp":
        v = np.array([base, base + 0.5][:_NB[t]])
        return v, v
    if how == "P":  # 3 x 2, stored column-major
        v = base + np.arange(6.0).reshape(3, 2) / 7.0
        return v, np.asfortranarray(v).reshape(-1, order="F")
    import ipctk  # enum: three different distance types
    names = ("EA_EB", "EA0_EB", "EA1_EB1")
    v = getattr(ipctk.EdgeEdgeDistanceType, names[j])
    return v, np.array([int(v)], np.int32)


def layout(kind: str, t: str) -> Optional[Dict[str, Any]]:
    """The calibrated layout of ipctk's ``kind`` ("normal" or
    "tangential") collisions of type t: {"stride": bytes, "type": the
    item class, field: (offset, how)}; None when it cannot be learnt."""
    key = (kind, t)
    if key in _LAYOUTS:
        return _LAYOUTS[key]
    if os.environ.get("FRICL_IPCTK_DIRECT_READ", "1") == "0":
        return None  # the user's opt-out: read field by field
    _LAYOUTS[key] = None
    try:
        out = _calibrate(kind, t)
    except Exception:  # any surprise: no layout, read field by field
        out = None
    _LAYOUTS[key] = out
    return out


def _calibrate(kind: str, t: str) -> Optional[Dict[str, Any]]:
    c = _private(kind, t)
    fields = _fields(kind, t)
    want: List[List[np.ndarray]] = [[] for _ in fields]
    addr = []
    cls = None
    for j in range(3):
        item = c[j]
        cls = type(item)
        for k, (name, how) in enumerate(fields):
            v, b = _sentinels(how, t, j, k)
            setattr(item, name, v)
            want[k].append(b)
        addr.append(_address(item))
        del item
    # items are references into the container (what a read relies on):
    # a new item of each shows what was set through the old one
    for j in range(3):
        item = c[j]
        v = getattr(item, fields[0][0])
        del item
        if v != _sentinels(fields[0][1], t, j, 0)[0]:
            return None
    if None in addr or addr[1] - addr[0] <= 0 or \
            addr[2] - addr[1] != addr[1] - addr[0]:
        return None
    stride = addr[1] - addr[0]
    blocks = [_read(a, stride) for a in addr]
    if any(b is None for b in blocks):
        return None
    out: Dict[str, Any] = {"stride": stride, "type": cls}
    for (name, how), vals in zip(fields, want):
        off = _find(blocks, vals)  # type: ignore[arg-type]
        if how == "id":  # ipctk's index_t: int64, or int32 in some builds
            how = "i8"
            if off is None:
                how = "i4"
                off = _find(blocks, [v.astype(np.int32) for v in vals])
        if how == "enum" and off is None:  # an enum class of one byte
            how = "u1"
            off = _find(blocks, [v.astype(np.uint8) for v in vals])
        if off is None:
            return None
        out[name] = (off, how)
    del c
    out["fields"] = [(k, v) for k, v in out.items()
                     if k not in ("stride", "type")]
    return out


def _column(raw: np.ndarray, n: int, stride: int, off: int, how: str,
            dim: int) -> np.ndarray:
    """A field of the n elements of ``stride`` bytes that ``raw`` (bytes
    over a range already checked to be one container's storage) holds, as
    a new array: one strided copy."""
    if how == "u1":
        return _view(raw, n, stride, off, np.uint8, ()).astype(np.int32)
    if how in ("enum", "i4"):
        return _view(raw, n, stride, off, np.int32, ()).copy()
    if how in ("i8", "f8"):
        return _view(raw, n, stride, off,
                     np.int64 if how == "i8" else np.float64, ()).copy()
    if how in ("v2", "cp"):
        return _view(raw, n, stride, off, np.float64, (2,)).copy()
    # tangent basis: dim x (dim - 1), column-major with leading dim dim
    return _view(raw, n, stride, off, np.float64, (dim, dim - 1),
                 (8, 8 * dim)).copy()


def _view(raw: np.ndarray, n: int, stride: int, off: int, dtype: Any,
          inner: tuple, inner_strides: Optional[tuple] = None) -> np.ndarray:
    """A read-only view of n strided records at byte ``off`` of raw."""
    if inner_strides is None:
        item = np.dtype(dtype).itemsize
        inner_strides = tuple(item for _ in inner)
    return np.ndarray((n,) + inner, dtype, buffer=raw, offset=off,
                      strides=(stride,) + inner_strides)


def _raw(addr: int, size: int) -> np.ndarray:
    """A read-only uint8 view of size bytes at addr (checked by the
    caller to be live storage)."""
    a = np.frombuffer((ctypes.c_char * size).from_address(addr), np.uint8)
    a.flags.writeable = False
    return a


def _same(a: Any, b: Any) -> bool:
    a = np.asarray(a).reshape(-1)
    b = np.asarray(b).reshape(-1)
    return a.shape == b.shape and a.tobytes() == \
        np.asarray(b, a.dtype).tobytes()


def _item_value(item: Any, name: str, how: str, t: str, dim: int) -> Any:
    v = getattr(item, name)
    if how in ("enum", "u1"):
        return np.array([int(v)], np.int32)
    if how == "i8":
        return np.array([int(v)], np.int64)
    if how == "i4":
        return np.array([int(v)], np.int32)
    if how == "f8":
        return np.array([float(v)])
    if how == "cp":
        return np.asarray(v, np.float64).reshape(-1)[:_NB[t]]
    if how == "P":
        return np.asarray(v, np.float64).reshape(dim, dim - 1)
    return np.asarray(v, np.float64).reshape(-1)


def ranges(collisions: Any) -> Dict[str, Tuple[int, int]]:
    """[start, end) of each of vv, ev, ee, fv in ``collisions[i]``'s order
    (a binary search on the item types), plus "pv" for the rest."""
    n = len(collisions)
    names = {}
    for t in _ORDER:
        names[t] = _NAMES[t]
    rank = {}
    for r, t in enumerate(_ORDER):
        rank[t] = r

    def kind_at(i: int) -> int:
        tn = type(collisions[i]).__name__
        for t in _ORDER:
            if tn.startswith(names[t]) and tn[len(names[t]):] in (
                    "NormalCollision", "TangentialCollision"):
                return rank[t]
        return len(_ORDER)  # plane-vertex (or anything else): last

    out: Dict[str, Tuple[int, int]] = {}
    lo = 0
    for r, t in enumerate(_ORDER):
        # first index whose rank exceeds r
        a, b = lo, n
        while a < b:
            m = (a + b) // 2
            if kind_at(m) <= r:
                a = m + 1
            else:
                b = m
        out[t] = (lo, a)
        lo = a
    out["pv"] = (lo, n)
    return out


def read(kind: str, collisions: Any, t: str, start: int, end: int,
         dim: int) -> Optional[Dict[str, np.ndarray]]:
    """The fields of collisions[start:end] (all of type t) as arrays
    {attribute: array}, read in one pass; None when the layout is unknown
    or any check fails (the caller then reads field by field)."""
    n = end - start
    if n <= 0:
        return {}
    lay = layout(kind, t)
    if lay is None:
        return None
    stride = lay["stride"]
    idx = sorted(set((start, (start + end) // 2, end - 1)))
    items = [collisions[i] for i in idx]
    try:
        if any(type(it) is not lay["type"] for it in items):
            return None
        addr = [_address(it) for it in items]
        if None in addr:
            return None
        a0 = addr[0]
        if any(a - a0 != (i - start) * stride for a, i in zip(addr, idx)):
            return None
        # the range is one std::vector's storage: its first, middle and
        # last elements are items of it, on the stride
        fields = lay["fields"]
        out = {}
        raw = _raw(a0, n * stride)
        for name, (off, how) in fields:
            out[name] = _column(raw, n, stride, off, how, dim)
        del raw
        # every field of the middle item against ipctk's properties (the
        # offsets were learnt on a private container; this checks them on
        # the caller's)
        i = idx[len(idx) // 2]
        it = items[len(idx) // 2]
        for name, (off, how) in fields:
            got = out[name][i - start]
            if how == "cp":
                got = got[:_NB[t]]
            if not _same(_item_value(it, name, how, t, dim), got):
                return None
        del it
        return out
    finally:
        del items


def read_all(kind: str, collisions: Any, dim: int
             ) -> Optional[Tuple[Dict[str, Tuple[int, int]],
                                 Dict[str, Dict[str, np.ndarray]]]]:
    """(ranges(collisions), {type: read(...)}) for the vv, ev, ee and fv
    collisions of ``collisions``, or None when any type cannot be read in
    one pass (the caller then reads every collision field by field)."""
    if not _mem_ok or len(collisions) == 0:
        return None
    r = ranges(collisions)
    out = {}
    for t in _ORDER:
        s, e = r[t]
        if e > s:
            f = read(kind, collisions, t, s, e, dim)
            if f is None:
                return None
            out[t] = f
    return r, out


def stencil_ids(t: str, f: Dict[str, np.ndarray], E: np.ndarray,
                F: np.ndarray) -> np.ndarray:
    """ipctk's vertex_ids(edges, faces) of every collision read."""
    a, b = (f[n].astype(np.int64) for n in _IDS[t])
    if t == "vv":
        return np.stack([a, b], 1)
    if t == "ev":
        return np.column_stack([a, E[b]])
    if t == "ee":
        return np.column_stack([E[a], E[b]])
    return np.column_stack([a, F[b]])
