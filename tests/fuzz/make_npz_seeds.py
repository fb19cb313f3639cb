#!/usr/bin/env python3
"""Write the seed corpus of fuzz_npz (corpus/npz): small archives as numpy
writes them (stored and deflated, a contact set in fricl's schema), plus
zipfile-made variants (archive comment, a non-.npy member, an empty
archive, a data descriptor) and a few broken ones."""
import io
import os
import sys
import zipfile

import numpy as np

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "corpus", "npz")
os.makedirs(out, exist_ok=True)


def put(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def savez(fn, **arrays):
    b = io.BytesIO()
    fn(b, **arrays)
    return b.getvalue()


small = dict(x=np.arange(3.0), ids=np.array([[0, 1]], np.int32),
             s=np.float64(2.5), e=np.zeros((0, 2)))
put("savez.npz", savez(np.savez, **small))
put("savez_compressed.npz", savez(np.savez_compressed, **small))
contacts = dict(velocities=np.zeros((3, 3)), eps_v=np.float64(1e-3),
                vv=np.array([[0, 1]]), vv_tangent_basis=np.eye(3)[None, :, :2],
                vv_normal_force=np.ones(1), vv_mu_s=np.ones(1) * 0.5,
                vv_mu_k=np.ones(1) * 0.3)
put("contacts.npz", savez(np.savez_compressed, **contacts))
b = io.BytesIO()
with zipfile.ZipFile(b, "w") as z:
    z.comment = b"a comment"
    s = io.BytesIO()
    np.save(s, np.ones(2))
    z.writestr("a.npy", s.getvalue())
put("comment.npz", b.getvalue())
b = io.BytesIO()
with zipfile.ZipFile(b, "w") as z:
    z.writestr("readme.txt", "not an array")
put("not_npy_member.npz", b.getvalue())
b = io.BytesIO()
zipfile.ZipFile(b, "w").close()
put("empty_archive.npz", b.getvalue())


class Unseekable(io.RawIOBase):
    def __init__(self):
        self.buf = bytearray()

    def writable(self):
        return True

    def write(self, data):
        self.buf += data
        return len(data)


u = Unseekable()
with zipfile.ZipFile(u, "w", zipfile.ZIP_DEFLATED) as z:
    with z.open("d.npy", "w") as f:
        np.save(f, np.arange(4, dtype=np.int64))
put("data_descriptor.npz", bytes(u.buf))
good = savez(np.savez, **small)
put("truncated.npz", good[: len(good) // 2])
bad = bytearray(good)
bad[100] ^= 0xFF
put("bad_crc.npz", bytes(bad))
