#!/usr/bin/env python3
"""Write the seed corpus of fuzz_scalar_api (tests/fuzz/corpus/scalar/).

The byte layout is the one fuzz_scalar_api.c decodes:
  flags u8   bit0 f32, bit1 ipctk, bit2 terms=0 (out[t] form), bit3..5
             per-element eps_v / mu_s / mu_k arrays, bit6 mischief
  terms u16  requested terms (low 12 bits)
  n     u16  n = v % 4096 if its top 3 bits are set, else v % 64
  eps_v, mu_s, mu_k    tagged values (below)
  per element: y, then eps_v, mu_s, mu_k for those given as arrays
  (mischief only) up to 3 x [kind u8, arg u8, arg u16]
Tagged values: tag & 7 == 0/1: specials[(tag >> 3) + 32 * (tag & 1)];
2: raw bits (u64, or u32 in f32); 3: eps_v * int16 / 4096; 4: int16 *
2^int8; 5: wide exponent; 6: next to +-e or +-e/2; 7: subnormal.
Run from anywhere: python3 tests/fuzz/make_scalar_seeds.py
"""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "scalar")
SPECIAL = {"0": 0, "-0": 1, "1": 2, "-1": 3, "nan": 4, "-nan": 5, "inf": 6,
           "-inf": 7, "dbl_min": 8, "denorm_min": 9, "dbl_max": 10,
           "1e-3": 12, "0.5": 13, "0.3": 14, "1e-8": 15, "1e300": 16,
           "1e-300": 17, "flt_max": 18, "0.1": 21, "1e36": 29, "1e-36": 30,
           "0.25": 32, "-1e-3": 35}
ALL = 0xFFF


def sp(name):
    k = SPECIAL[name]
    return bytes([((k % 32) << 3) | (1 if k >= 32 else 0)])


def rel(ratio):  # ratio * eps_v
    return bytes([3]) + struct.pack("<h", int(round(ratio * 4096)))


def near(edge_e, k, neg=False):  # k ULPs from e (edge_e) or e/2
    return bytes([6 | (8 if edge_e else 0) | (16 if neg else 0)]) + struct.pack("<b", k)


def raw64(x):
    return bytes([2]) + struct.pack("<d", x)


def head(flags, terms, n):
    return bytes([flags]) + struct.pack("<HH", terms, n | 0xE000 if n >= 64 else n)


def write(name, data):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


sweep = [rel(r / 8) for r in range(-24, 25)]
edges = [near(True, k) for k in (-1, 0, 1)] + [near(False, k) for k in (-1, 0, 1)] \
    + [near(True, 0, True), near(False, 0, True)]
specials = [sp(s) for s in ("0", "-0", "nan", "inf", "-inf", "denorm_min", "1e300", "-1")]
ys = sweep + edges + specials

# 1-2. f64, both profiles, all terms, scalar parameters, the sweep.
for prof in (0, 1):
    write("f64_%s_all.bin" % ("cubic", "ipctk")[prof],
          head(prof << 1, ALL, len(ys)) + sp("1e-3") + sp("0.5") + sp("0.3") + b"".join(ys))
# 3. f32 ipctk, per-element eps_v, mu_s, mu_k.
elems = b""
for i, y in enumerate(ys[:40]):
    elems += y + sp(("1e-3", "0.1", "1e-8")[i % 3]) + sp(("0.5", "0.25", "0")[i % 3]) \
        + sp(("0.3", "0.25", "0")[i % 3])
write("f32_ipctk_arrays.bin", head(1 | 2 | 8 | 16 | 32, ALL, 40) + sp("1e-3") + sp("0.5") + sp("0.3") + elems)
# 4. out[t]-non-NULL form, mu_s == mu_k, a few terms.
write("f64_outform_const_mu.bin",
      head(4, (1 << 4) | (1 << 5) | (1 << 11), 16) + sp("0.1") + sp("0.25") + sp("0.25") + b"".join(ys[::3][:16]))
# 5. extreme parameters: tiny and huge eps_v, raw doubles.
write("f64_extreme.bin", head(8, ALL, 8) + sp("1e-300") + sp("0.5") + sp("0")
      + b"".join(y + e for y, e in zip(
          [raw64(1e-301), raw64(-3e299), sp("1e300"), rel(0.5), rel(-0.999), raw64(5e-324), sp("dbl_max"), sp("-0")],
          [sp("1e-300"), sp("1e300"), sp("1e300"), sp("1e-36"), sp("1e36"), sp("1e-3"), sp("1e-8"), sp("dbl_min")])))
# 6. invalid parameters: NaN eps_v, negative mu_k, f32 overflow of eps_v.
write("invalid_eps_nan.bin", head(0, ALL, 4) + sp("nan") + sp("0.5") + sp("0.3") + b"".join(ys[:4]))
write("invalid_muk_negative.bin", head(0, 1 << 9, 4) + sp("1e-3") + sp("0.5") + sp("-1") + b"".join(ys[:4]))
write("invalid_f32_eps_overflow.bin", head(1, 1, 4) + sp("1e300") + sp("0.5") + sp("0.3") + b"".join(ys[:4]))
# 7. mischief: [kind, arg, arg16]; kinds 0 y NULL, 1 out NULL, 2 out over out,
#    3 out over input, 4 stray output, 5 bad header field, 6 huge n, 7 n = 0.
base = head(64, ALL, 8) + sp("1e-3") + sp("0.5") + sp("0.3") + b"".join(ys[:8])
for name, m in (("y_null", [0, 0, 0]), ("out_null", [1, 3, 0]),
                ("out_overlap", [2, 0x21, 3]), ("out_over_y", [3, 0x05, 1]),
                ("stray_out", [4, 0x30 | 0, 0]), ("bad_precision", [5, 0, 7]),
                ("bad_profile", [5, 1, 6]), ("terms_high_bits", [5, 2, 1]),
                ("struct_size", [5, 3, 8]), ("huge_n", [6, 0, 5]),
                ("n_zero_nulls", [7, 2, 3])):
    write("mischief_%s.bin" % name, base + bytes(m[:2]) + struct.pack("<H", m[2]))
# A stray output over y for a term not requested: only out[0] requested.
write("mischief_stray_over_input.bin",
      head(64, 1, 8) + sp("1e-3") + sp("0.5") + sp("0.3") + b"".join(ys[:8]) + bytes([4, 0x05]) + struct.pack("<H", 2))
# Outputs over an unused mu_s array (no mu term requested).
write("mischief_out_over_unused_mu.bin",
      head(64 | 16, 1, 8) + sp("1e-3") + sp("0.5") + sp("0.3")
      + b"".join(y + sp("nan") for y in ys[:8]) + bytes([3, 0x24]) + struct.pack("<H", 0))
