"""Contact groups, plan and evaluation against `fricl tangential`
(bitwise), and the consistency of the Hessian formats."""
import numpy as np
import pytest
import scipy.sparse as sp

import fricl
from conftest import (device_of, groups_of, npz_of, random_contacts,
                      velocities)

SCENES = {
    3: {"vv": 7, "ev": 19, "ee": 23, "fv": 29, "pv": 5},
    2: {"vv": 11, "ev": 31, "pv": 4},
}


def scene(dim, seed, n=40, dtype=np.float64):
    rng = np.random.default_rng(seed)
    data = random_contacts(rng, n, dim, SCENES[dim])
    eps_v = 1e-3
    v = velocities(rng, n, dim, eps_v)
    return data, v, eps_v, n


def run_cli(cli, tmp_path, ctx, data, v, eps_v, hessian, psd, profile, prec,
            ipctk_abs=False):
    arrays = npz_of(data)
    arrays["velocities"] = v
    arrays["eps_v"] = np.float64(eps_v)
    np.savez(tmp_path / "in.npz", **arrays)
    args = ["tangential", tmp_path / "in.npz", "-o", tmp_path / "out.npz",
            "--psd", psd, "--hessian", hessian, "--mu-profile", profile,
            "--precision", prec, "--device", device_of(ctx)]
    if ipctk_abs:
        args.append("--ipctk-abs")
    cli(*args)
    with np.load(tmp_path / "out.npz") as z:
        return dict((k, z[k]) for k in z.files)


def same(a, b, what):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype, (what, a.dtype, b.dtype)
    assert a.size == b.size, (what, a.shape, b.shape)
    assert a.reshape(-1).tobytes() == b.reshape(-1).tobytes(), \
        "%s differs: max |diff| %g" % (what, np.max(np.abs(
            a.reshape(-1).astype(float) - b.reshape(-1).astype(float))))


@pytest.mark.parametrize("dim", [3, 2])
@pytest.mark.parametrize("psd,profile,ipctk_abs,dtype", [
    ("none", "cubic", False, np.float64),
    ("clamp", "ipctk", False, np.float64),
    ("abs", "ipctk", True, np.float64),
    ("abs", "cubic", False, np.float32),
])
def test_global_bitwise_vs_cli(cli, ctx, tmp_path, dim, psd, profile,
                               ipctk_abs, dtype):
    data, v, eps_v, n = scene(dim, 10 + dim)
    prec = "f64" if dtype == np.float64 else "f32"
    ref = run_cli(cli, tmp_path, ctx, data, v, eps_v, "global", psd, profile,
                  prec, ipctk_abs)
    contacts = ctx.contacts(groups_of(data, dtype), n)
    r = contacts.evaluate(v, eps_v, psd=psd, mu_profile=profile,
                          ipctk_abs=ipctk_abs, gradient=True, hessian="csr")
    same(r.potential, ref["potential"], "potential")
    assert r.gradient.shape == (n, dim)
    same(r.gradient, ref["gradient"], "gradient")
    H = r.hessian
    assert isinstance(H, sp.csr_matrix) and H.shape == (n * dim, n * dim)
    rows = np.repeat(np.arange(n * dim), np.diff(H.indptr))
    same(rows, ref["hessian_rows"], "hessian rows")
    same(H.indices.astype(np.int64), ref["hessian_cols"], "hessian cols")
    same(H.data, ref["hessian_values"], "hessian values")
    # The other formats hold the same matrix, entry for entry.
    dense = H.toarray()
    for fmt, cls in (("bsr", sp.bsr_matrix), ("csc", sp.csc_matrix)):
        M = contacts.hessian(v, eps_v, psd=psd, mu_profile=profile,
                             ipctk_abs=ipctk_abs, format=fmt)
        assert isinstance(M, cls) and M.dtype == dtype
        same(M.toarray(), dense, fmt)
    Hc = contacts.hessian(v, eps_v, psd=psd, mu_profile=profile,
                          ipctk_abs=ipctk_abs, format="csc")
    assert Hc.has_sorted_indices
    vals = contacts.hessian(v, eps_v, psd=psd, mu_profile=profile,
                            ipctk_abs=ipctk_abs, format="values")
    assert vals.shape == (contacts.plan.nnz_blocks, dim, dim)
    # Matrix-free product: the same matrix, summed in another order.
    p = np.random.default_rng(1).normal(size=(n, dim)).astype(dtype)
    Hp = contacts.hessian_product(v, p, eps_v, psd=psd, mu_profile=profile,
                                  ipctk_abs=ipctk_abs)
    ref_Hp = dense.astype(float) @ p.reshape(-1).astype(float)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    assert np.max(np.abs(Hp.reshape(-1) - ref_Hp)) <= \
        tol * np.abs(dense).max() * np.abs(p).max() * 8


@pytest.mark.parametrize("dim", [3, 2])
@pytest.mark.parametrize("hessian", ["local", "factored"])
def test_per_contact_bitwise_vs_cli(cli, ctx, tmp_path, dim, hessian):
    data, v, eps_v, n = scene(dim, 20 + dim)
    ref = run_cli(cli, tmp_path, ctx, data, v, eps_v, hessian, "clamp", "ipctk",
                  "f64")
    contacts = ctx.contacts(groups_of(data), n)
    r = contacts.evaluate(v.reshape(-1), eps_v, psd="clamp",
                          mu_profile="ipctk", gradient=True,
                          contact_potential=True,
                          local_hessian=hessian == "local",
                          factored=hessian == "factored")
    assert r.gradient.shape == (n * dim,)  # shaped like the velocities
    same(r.gradient, ref["gradient"], "gradient")
    assert [g.type for g in r.groups] == list(data)
    for g in r.groups:
        t = g.type
        same(g.potential, ref[t + "_potential"], t + " potential")
        if hessian == "local":
            k = {"vv": 2, "ev": 3, "ee": 4, "fv": 4, "pv": 1}[t]
            assert g.local_hessian.shape == (len(data[t]["ids"]), k * dim,
                                             k * dim)
            same(g.local_hessian, ref[t + "_hessian"], t + " local")
            assert g.factored_gamma is None
        else:
            same(g.factored_gamma, ref[t + "_gamma"], t + " gamma")
            same(g.factored_grad, ref[t + "_grad"], t + " grad")
            same(g.factored_hessian, ref[t + "_hessian_factored"],
                 t + " factored")
            assert g.local_hessian is None


def test_displacements_and_homogeneity(ctx):
    data, v, eps_v, n = scene(3, 31)
    c = ctx.contacts(groups_of(data), n)
    h = 2.0 ** -5
    a = c.evaluate(v, eps_v, gradient=True, hessian="values")
    b = c.evaluate(v * h, eps_v * h, gradient=True, hessian="values")
    same(b.potential, a.potential * h, "D(hv) = h D(v)")
    same(b.gradient, a.gradient, "gradient invariant")
    same(b.hessian * h, a.hessian, "Hessian / h")


def test_no_copy_for_right_arrays_and_reuse(ctx):
    data, v, eps_v, n = scene(3, 41)
    d = data["fv"]
    g = fricl.ContactGroup("fv", d["ids"], tangent_basis=d["tangent_basis"],
                           normal_force=d["normal_force"], mu_s=d["mu_s"],
                           mu_k=d["mu_k"], closest_point=d["closest_point"])
    assert g.tangent_basis is d["tangent_basis"]
    assert g.vertices is d["ids"] and g.normal_force is d["normal_force"]
    # Fortran order, int64 ids and scalars: converted copies, same values.
    g2 = fricl.ContactGroup("fv", d["ids"].astype(np.int64),
                            tangent_basis=np.asfortranarray(
                                d["tangent_basis"]),
                            normal_force=d["normal_force"], mu_s=0.5,
                            mu_k=0.3, closest_point=d["closest_point"])
    assert g2.vertices.dtype == np.int32 and g2.mu_s.shape == (len(d["ids"]),)
    np.testing.assert_array_equal(g2.tangent_basis, d["tangent_basis"])
    c = ctx.contacts([g], n)
    r1 = c.potential(v, eps_v)
    plan = c.plan
    r2 = c.evaluate(v, eps_v, hessian=True)
    assert c.plan is plan  # one plan for the whole Newton loop
    same(r1, r2.potential, "repeat")
    assert plan.shape == (3 * n, 3 * n)
    assert plan.row_ptr.dtype == np.int64 and plan.row_ptr[-1] == \
        plan.nnz_blocks
    assert not plan.row_ptr.flags.writeable


def test_float32_groups(ctx):
    data, v, eps_v, n = scene(3, 51)
    c64 = ctx.contacts(groups_of(data), n)
    c32 = ctx.contacts(groups_of(data, np.float32), n)
    assert c32.dtype == np.float32
    r32 = c32.evaluate(v, eps_v, gradient=True)
    assert r32.gradient.dtype == np.float32
    r64 = c64.evaluate(v, eps_v, gradient=True)
    scale = np.abs(r64.gradient).max()
    assert np.abs(r32.gradient - r64.gradient).max() <= 1e-4 * scale


def test_empty_group_and_zero_contacts(ctx):
    g = fricl.ContactGroup("ev", np.zeros((0, 3), np.int32),
                           tangent_basis=np.zeros((0, 3, 2)),
                           normal_force=[], mu_s=[], mu_k=[],
                           closest_point=np.zeros((0, 1)))
    c = ctx.contacts([g], 5)
    r = c.evaluate(np.ones((5, 3)), 1e-3, gradient=True, hessian="csr")
    assert r.potential == 0 and not r.gradient.any() and r.hessian.nnz == 0


def test_sparse_formats_of_any_values(ctx):
    """to_csr / to_csc / to_bsr give the same matrix for values that are
    not symmetric (the CSC is an exact transpose, not a symmetric
    shortcut)."""
    data, v, eps_v, n = scene(3, 61)
    c = ctx.contacts(groups_of(data), n)
    plan = c.plan
    vals = np.random.default_rng(4).normal(size=(plan.nnz_blocks, 3, 3))
    B = plan.to_bsr(vals).toarray()
    assert np.any(B != B.T)
    same(plan.to_csr(vals).toarray(), B, "csr")
    Hc = plan.to_csc(vals)
    same(Hc.toarray(), B, "csc")
    assert Hc.has_sorted_indices
    v32 = vals.astype(np.float32)
    same(plan.to_csc(v32).toarray(), plan.to_bsr(v32).toarray(), "csc f32")
