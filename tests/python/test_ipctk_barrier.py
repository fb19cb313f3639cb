"""fricl.ipctk.BarrierPotential against ipctk.BarrierPotential (1.6.1) on
random scenes built by ipctk (tests/ipctk/barrier_crosscheck.py): value,
gradient and Hessian with every PSD projection, physical barrier off and
on, dmin 0 and > 0, within 1e-10 of scale."""
import os
import sys

import numpy as np
import pytest

ipctk = pytest.importorskip("ipctk")
pytest.importorskip("scipy")
import fricl.ipctk as fi  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "ipctk"))
import barrier_crosscheck as bc  # noqa: E402


@pytest.mark.parametrize("seed", range(6))
def test_barrier_potential_matches_ipctk(seed):
    ipctk.set_num_threads(1)
    rng = np.random.default_rng(100 + seed)
    kind = ("tets", "triangles", "polylines")[seed % 3]
    mesh, V, E, F, nc, plane, info = bc.build(rng, kind, 0.3 * (seed % 2))
    for physical in (False, True):
        bi = ipctk.BarrierPotential(info["dhat"], info["kappa"], physical)
        bf = fi.BarrierPotential(info["dhat"], info["kappa"], physical)
        want = bi(nc, mesh, V)
        assert abs(bf(nc, mesh, V) - want) <= 1e-10 * abs(want)
        assert bc.rel_err(bf.gradient(nc, mesh, V),
                          bi.gradient(nc, mesh, V)) <= 1e-10
        scale = np.abs(bi.hessian(nc, mesh, V).toarray()).max()
        for name in ("NONE", "CLAMP", "ABS"):
            psd = getattr(ipctk.PSDProjectionMethod, name)
            got = bf.hessian(nc, mesh, V, psd)
            assert got.shape == (V.size, V.size)
            assert bc.rel_err(got.toarray(),
                              bi.hessian(nc, mesh, V, psd).toarray(),
                              scale) <= 1e-10
