"""fricl._native.shape_assemble (the shape derivative's weight term,
H + sum_c a_c b_c^T as CSC) against a dense numpy oracle on random
sparse data, and its argument checks."""
import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")
import fricl  # noqa: E402
from fricl import _native  # noqa: E402


def _case(seed, n=30, nc=25):
    rng = np.random.default_rng(seed)
    H = sp.random(n, n, density=0.1, random_state=seed, format="csc")
    H.sort_indices()
    a_len = rng.integers(1, 7, nc)
    a_ptr = np.concatenate(([0], np.cumsum(a_len))).astype(np.int64)
    a_rows = np.concatenate([rng.choice(n, k, replace=False)
                             for k in a_len]).astype(np.int64)
    a_vals = rng.uniform(-1, 1, len(a_rows))
    # b_c: a few columns each, as (collision, column, value) entries
    wr, wc = [], []
    for c in range(nc):
        cols = rng.choice(n, rng.integers(0, 5), replace=False)
        wr += [c] * len(cols)
        wc += list(cols)
    wr, wc = np.asarray(wr, np.int64), np.asarray(wc, np.int64)
    wv = rng.uniform(-1, 1, len(wr))
    order = np.lexsort((wr, wc))
    w_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(wc, minlength=n), out=w_ptr[1:])
    dense = H.toarray()
    for c, j, v in zip(wr, wc, wv):
        rows = a_rows[a_ptr[c]:a_ptr[c + 1]]
        dense[rows, j] += a_vals[a_ptr[c]:a_ptr[c + 1]] * v
    args = [n, H.indptr.astype(np.int64), H.indices.astype(np.int64),
            H.data, a_ptr, a_rows, a_vals, w_ptr, wr[order], wv[order]]
    return args, dense


@pytest.mark.parametrize("seed", range(5))
def test_matches_dense_oracle(seed):
    args, dense = _case(seed)
    n = args[0]
    pp, pi = _native.shape_assemble(*args, None, None, None)
    pp, pi = np.frombuffer(pp, np.int64), np.frombuffer(pi, np.int64)
    for j in range(n):  # rows sorted, unique
        col = pi[pp[j]:pp[j + 1]]
        assert np.all(np.diff(col) > 0)
    data = np.empty(len(pi))
    assert _native.shape_assemble(*args, pp, pi, data) is None
    got = sp.csc_matrix((data, pi, pp), shape=(n, n)).toarray()
    np.testing.assert_allclose(got, dense, rtol=1e-14, atol=1e-14)
    # every nonzero of the oracle lies in the pattern
    pat = sp.csc_matrix((np.ones(len(pi)), pi, pp), shape=(n, n)).toarray()
    assert np.all(pat[dense != 0] == 1)


def test_bad_arguments_raise():
    args, _ = _case(0)
    n = args[0]
    pp, pi = _native.shape_assemble(*args, None, None, None)
    pp, pi = np.frombuffer(pp, np.int64), np.frombuffer(pi, np.int64)
    bad = list(args)
    bad[5] = args[5].copy()
    bad[5][3] = n  # a row out of range
    with pytest.raises(fricl.InvalidArgumentError, match=r"a_rows\[3\]"):
        _native.shape_assemble(*bad, None, None, None)
    # a pattern that lacks a row the data needs
    short = np.ascontiguousarray(pi.copy())
    keep = pp.copy()
    j = int(np.argmax(np.diff(pp)))
    short = np.delete(short, pp[j])
    keep[j + 1:] -= 1
    with pytest.raises(fricl.InvalidArgumentError, match="pattern lacks"):
        _native.shape_assemble(*args, keep, short, np.empty(len(short)))
    with pytest.raises(fricl.InvalidArgumentError, match="sizes"):
        _native.shape_assemble(n + 1, *args[1:], None, None, None)
