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
import fricl  # noqa: E402
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


def test_psd_argument_is_ipctks_enum_only():
    """hessian's project_hessian_to_psd takes an ipctk.PSDProjectionMethod
    (by position or keyword; default NONE) and refuses what ipctk refuses
    with a TypeError naming it (issue 19, defect 6: True, 1, "CLAMP" were
    read as NONE and gave the unprojected Hessian)."""
    rng = np.random.default_rng(100)
    mesh, V, E, F, nc, plane, info = bc.build(rng, "tets", 0.0)
    bi = ipctk.BarrierPotential(info["dhat"], info["kappa"], False)
    bf = fi.BarrierPotential(info["dhat"], info["kappa"], False)
    M = ipctk.PSDProjectionMethod
    for m in (M.NONE, M.CLAMP, M.ABS):
        want = bi.hessian(nc, mesh, V, m).toarray()
        scale = max(np.abs(want).max(), 1.0)
        for got in (bf.hessian(nc, mesh, V, m),
                    bf.hessian(nc, mesh, V, project_hessian_to_psd=m)):
            assert bc.rel_err(got.toarray(), want, scale) <= 1e-10
    assert np.array_equal(bf.hessian(nc, mesh, V).toarray(),
                          bf.hessian(nc, mesh, V, M.NONE).toarray())
    for bad in (True, False, 1, 0, "CLAMP", "clamp", None, 1.0):
        with pytest.raises(TypeError):  # what ipctk does
            bi.hessian(nc, mesh, V, bad)
        with pytest.raises(TypeError, match="project_hessian_to_psd"):
            bf.hessian(nc, mesh, V, bad)
        with pytest.raises(TypeError, match="project_hessian_to_psd"):
            bf.hessian(nc, mesh, V, project_hessian_to_psd=bad)


def test_X_must_be_the_collision_meshs_array():
    """A 1-D, transposed or short X is refused naming X (issue 19, defect
    8: a 1-D X raised 'IndexError: tuple index out of range'; ipctk
    itself reads such arrays out of bounds)."""
    rng = np.random.default_rng(101)
    mesh, V, E, F, nc, plane, info = bc.build(rng, "triangles", 0.0)
    bf = fi.BarrierPotential(info["dhat"], info["kappa"], False)
    for bad in (V.ravel(), V.T, V[:, :-1], V[:-1], V[0, 0]):
        for f in (bf, bf.gradient, bf.hessian):
            with pytest.raises(fricl.InvalidArgumentError, match="'X'"):
                f(nc, mesh, bad)
    assert bf(nc, mesh, V.tolist()) == bf(nc, mesh, V)
