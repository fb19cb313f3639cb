"""fricl's CCD (fricl_ccd_stepsize, through fricl.ipctk.Candidates) against
ipctk 1.6.1's AdditiveCCD, on the random scenes of test_collisions_ipctk
(2-D and 3-D, every candidate kind, planes) moved through themselves:

- the collision-free step equals ipctk's Candidates.compute_collision_free_
  stepsize with AdditiveCCD, for min_distance 0 and > 0 and two conservative
  rescalings (ipctk's default 0.9, and 0.5);
- every candidate's time of impact equals ipctk's narrow-phase function on
  that candidate's points (point_point_ccd, point_edge_ccd, edge_edge_ccd,
  point_triangle_ccd, and point_static_plane_ccd for plane-vertex pairs);
- is_step_collision_free equals ipctk's, and another narrow phase (ipctk's
  default Tight Inclusion) is still ipctk's own answer.

Times are compared to 1e-12 relative: the same algorithm on the same
squared-distance formulas, which in practice agree bit for bit.
"""
import numpy as np
import pytest

ipctk = pytest.importorskip("ipctk")
pytest.importorskip("scipy")
import fricl.ipctk as fi  # noqa: E402

from test_collisions_ipctk import PARAMS, make, meshes  # noqa: E402

ipctk.set_logger_level(ipctk.LoggerLevel.error)


def motion(V, dhat, seed):
    """Everything pushed down (3-D: z, 2-D: y) through the scene by 4 dhat,
    with a jitter of dhat, so that some candidates collide and some do
    not."""
    rng = np.random.default_rng(seed + 100)
    V1 = V + dhat * rng.standard_normal(V.shape)
    V1[:, -1] -= 4 * dhat * (V[:, -1] > np.median(V[:, -1]))
    return np.ascontiguousarray(V1)


def same(a, b):
    return a == b or (np.isfinite(a) and abs(a - b) <= 1e-12 * max(abs(b),
                                                                     1e-300))


def ipctk_toi(ccd, kind, pair, V, V1, E, F, planes, dmin):
    a, b = (int(x) for x in pair)
    if kind == "vv":
        pts = [a, b]
        fn = ccd.point_point_ccd
    elif kind == "ev":
        pts = [b, E[a][0], E[a][1]]
        fn = ccd.point_edge_ccd
    elif kind == "ee":
        pts = [E[a][0], E[a][1], E[b][0], E[b][1]]
        fn = ccd.edge_edge_ccd
    elif kind == "fv":
        pts = [b, F[a][0], F[a][1], F[a][2]]
        fn = ccd.point_triangle_ccd
    else:
        n, c = planes[a]
        n = np.asarray(n, float)
        hit, t = ipctk.point_static_plane_ccd(
            V[b], V1[b], -c * n, n, ccd.conservative_rescaling)
        return t if hit and t <= 1 else np.inf
    args = [V[p] for p in pts] + [V1[p] for p in pts]
    hit, t = fn(*args, min_distance=dmin, tmax=1.0)
    return t if hit and t <= 1 else np.inf


@pytest.mark.parametrize("name,seed", PARAMS)
def test_ccd_matches_ipctk_additive(name, seed):
    V, E, F, dhat, planes = make(name, seed)
    mesh, fmesh = meshes(V, E, F, planes)
    V1 = motion(V, dhat, seed)
    A, B = ipctk.Candidates(), fi.Candidates()
    A.build(mesh, V, V1, 0.0, ipctk.BruteForce())
    B.build(fmesh, V, V1, 0.0)
    assert len(A) == len(B) > 0
    Ei = np.asarray(E)
    Fi = np.asarray(F) if F is not None else None
    hits = 0
    for eta in (0.9, 0.5):
        ccd = ipctk.AdditiveCCD(conservative_rescaling=eta)
        for dmin in ((0.0,) if planes else (0.0, 0.05 * dhat)):
            want = A.compute_collision_free_stepsize(mesh, V, V1, dmin, ccd)
            got = B.compute_collision_free_stepsize(fmesh, V, V1, dmin, ccd)
            assert same(got, want), (eta, dmin, got, want)
            # ipctk's mesh: its planes come back through ipctk's Hyperplane
            # (offset -n.(-c n)), which can move the plane by an ulp.
            assert same(B.compute_collision_free_stepsize(
                mesh, V, V1, min_distance=dmin, narrow_phase_ccd=ccd), got)
            assert B.is_step_collision_free(fmesh, V, V1, dmin, ccd) == \
                A.is_step_collision_free(mesh, V, V1, dmin, ccd)
            tois = B.compute_tois(fmesh, V, V1, dmin, ccd)
            assert len(tois) == len(B)
            assert got == min(1.0, tois.min())
            at = 0
            for kind in ("vv", "ev", "ee", "fv", "pv"):
                pairs = getattr(B, kind + "_candidates")
                for i, pair in enumerate(pairs):
                    w = ipctk_toi(ccd, kind, pair, V, V1, Ei, Fi, planes,
                                  dmin)
                    assert same(tois[at + i], w), (kind, pair, tois[at + i],
                                                   w)
                    hits += np.isfinite(w)
                at += len(pairs)
    assert hits > 0


def test_ccd_default_narrow_phase_is_ipctks():
    """Without a narrow phase (ipctk's default: Tight Inclusion) the step is
    ipctk's own, and a 'pv' scene's step falls before the plane."""
    V, E, F, dhat, planes = make("cloth_over_box", 1)
    mesh, fmesh = meshes(V, E, F, planes)
    V1 = motion(V, dhat, 1)
    A, B = ipctk.Candidates(), fi.Candidates()
    A.build(mesh, V, V1, 0.0, ipctk.BruteForce())
    B.build(fmesh, V, V1, 0.0)
    want = A.compute_collision_free_stepsize(mesh, V, V1)
    assert B.compute_collision_free_stepsize(fmesh, V, V1) == \
        pytest.approx(want, rel=1e-6)
    with pytest.raises(fi.UnsupportedError):
        B.compute_tois(fmesh, V, V1, 0.0, ipctk.TightInclusionCCD())


def test_ccd_bad_input_names_the_argument():
    V, E, F, dhat, planes = make("codim_3d", 0)
    mesh, fmesh = meshes(V, E, F, planes)
    V1 = motion(V, dhat, 0)
    B = fi.Candidates()
    B.build(fmesh, V, V1, 0.0)
    bad = V1.copy()
    bad[3, 1] = np.nan
    keep = bad.copy()
    with pytest.raises(fi.InvalidArgumentError, match=r"positions1\[10\]"):
        B.compute_collision_free_stepsize(fmesh, V, bad, 0.0,
                                          ipctk.AdditiveCCD())
    assert np.array_equal(bad, keep, equal_nan=True)
    with pytest.raises(fi.InvalidArgumentError, match="min_distance"):
        B.compute_collision_free_stepsize(fmesh, V, V1, -1.0,
                                          ipctk.AdditiveCCD())
