#!/usr/bin/env python3
"""Plot the effective friction coefficient of examples/sliding_block.c.

    python3 examples/plot_sliding_block.py sliding_block.csv [OUT.png]

One curve per mu profile: (F - M a) / N against the push F / N. Below
breakaway the block creeps (mu_eff = F / N: static friction balances the
push); above it slides and mu_eff = mu_k.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "sliding_block.csv"
    out = sys.argv[2] if len(sys.argv) > 2 else "sliding_block.png"
    curves = {}
    with open(src) as f:
        for row in csv.DictReader(f):
            c = curves.setdefault(row["profile"], ([], []))
            c[0].append(float(row["push_over_N"]))
            c[1].append(float(row["mu_eff"]))
    fig, ax = plt.subplots(figsize=(5, 3.4), dpi=100)
    for (name, (x, y)), style in zip(sorted(curves.items()), ("-o", "--s")):
        ax.plot(x, y, style, ms=2.5, lw=1.2, label="mu profile %s" % name)
    ax.axhline(0.3, color="gray", lw=0.6, ls=":")
    ax.text(0.45, 0.285, "mu_k = 0.3", fontsize=8, color="gray")
    ax.set_xlabel("push F / N")
    ax.set_ylabel("effective mu = (F - M a) / N")
    ax.set_title("Sliding block: fricl barrier + friction, implicit Euler",
                 fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out)
    print("wrote", out)


if __name__ == "__main__":
    main()
