"""Shared fixtures of the Python suite (run by tests/python/run_pytest.py
from CTest, against the package built in the build tree).

FRICL_CLI names the `fricl` command-line tool of the same build: most
tests compare the package with it bitwise, through .npy/.npz files.
"""
import os
import subprocess

import numpy as np
import pytest

import fricl

TYPES = ("vv", "ev", "ee", "fv", "pv")
K = {"vv": 2, "ev": 3, "ee": 4, "fv": 4, "pv": 1}
NB = {"vv": 0, "ev": 1, "ee": 2, "fv": 2, "pv": 0}
# Every OpenCL context costs kernel builds: the suite uses one per device:
# the reference and host backends, "auto" (which sends the suite's small
# calls to the host backend) and the first OpenCL device, if any.
_OPENCL = [d["spec"] for d in fricl.devices()][:1]
DEVICES = os.environ.get("FRICL_PY_DEVICES", ",".join(
    ["reference", "host", "auto"] + _OPENCL)).split(",")


@pytest.fixture(scope="session")
def cli():
    """A function running the fricl CLI; it returns the completed process."""
    exe = os.environ.get("FRICL_CLI")
    if not exe or not os.path.exists(exe):
        pytest.skip("FRICL_CLI is not set (run through CTest)")

    def run(*args, check=True):
        r = subprocess.run([exe] + [str(a) for a in args],
                           capture_output=True, text=True)
        if check and r.returncode != 0:
            raise AssertionError("fricl %s failed (%d): %s"
                                 % (" ".join(map(str, args)), r.returncode,
                                    r.stderr))
        return r
    return run


_CONTEXTS = {}


def context(device):
    if device not in _CONTEXTS or _CONTEXTS[device].closed:
        _CONTEXTS[device] = fricl.Context(device)
    return _CONTEXTS[device]


def device_of(ctx):
    """The device spec a suite context was made with (for the CLI's
    --device, so that both run on the same backend)."""
    for spec, c in _CONTEXTS.items():
        if c is ctx:
            return spec
    raise KeyError(ctx)


@pytest.fixture(scope="session", params=DEVICES)
def ctx(request):
    """A context on each device of FRICL_PY_DEVICES (reference, auto)."""
    return context(request.param)


@pytest.fixture(scope="session")
def ref_ctx():
    return context("reference")


def orthonormal_bases(rng, m, dim):
    """m random (dim, dim - 1) matrices with orthonormal columns."""
    q, _ = np.linalg.qr(rng.normal(size=(m, dim, dim)))
    return np.ascontiguousarray(q[:, :, :dim - 1])


def random_contacts(rng, n_vertices, dim, counts, weights=True, aniso=True,
                    dtype=np.float64):
    """Random lagged data per type: dict type -> dict of arrays, in the
    CLI's schema names (without the type prefix)."""
    out = {}
    for t, m in counts.items():
        ids = np.stack([rng.choice(n_vertices, K[t], replace=False)
                        for _ in range(m)]).astype(np.int32) if m else \
            np.zeros((0, K[t]), np.int32)
        d = dict(ids=ids, tangent_basis=orthonormal_bases(rng, m, dim),
                 normal_force=rng.uniform(0, 10, m),
                 mu_s=rng.uniform(0.2, 1.0, m), mu_k=rng.uniform(0.1, 0.8, m))
        if NB[t]:
            d["closest_point"] = rng.uniform(-0.2, 1.2, (m, NB[t]))
        if weights:
            d["weight"] = rng.uniform(-1, 3, m)
        if aniso and dim == 3:
            d["mu_aniso"] = rng.uniform(0.5, 2, (m, dim - 1))
        for key in d:
            if key != "ids":
                d[key] = d[key].astype(dtype)
        out[t] = d
    return out


def groups_of(data, dtype=None):
    return [fricl.ContactGroup(t, d["ids"], tangent_basis=d["tangent_basis"],
                               normal_force=d["normal_force"],
                               mu_s=d["mu_s"], mu_k=d["mu_k"],
                               closest_point=d.get("closest_point"),
                               weight=d.get("weight"),
                               mu_aniso=d.get("mu_aniso"), dtype=dtype)
            for t, d in data.items()]


def npz_of(data):
    """The CLI's input schema for the same contacts."""
    arrays = {}
    for t, d in data.items():
        arrays[t] = d["ids"]
        for key, val in d.items():
            if key != "ids":
                arrays[t + "_" + key] = val
    return arrays


def velocities(rng, n, dim, eps_v, dtype=np.float64):
    """Every regime at once: per-vertex scales from 1e-2 to 1e2 eps_v, and
    a few vertices exactly at rest."""
    v = rng.normal(size=(n, dim)) * eps_v * 10.0 ** rng.uniform(-2, 2, (n, 1))
    v[rng.uniform(size=n) < 0.1] = 0
    return v.astype(dtype)
