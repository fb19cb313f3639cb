#!/usr/bin/env python3
"""Plot the batch-size sweep of `fricl bench` (per-call time vs contacts).

    fricl bench --suite sweep --json sweep.json
    python3 bench/plot_sweep.py sweep.json sweep.png

One log-log panel per operation of the sweep (evaluation, plan creation,
lagged build), one line per backend (reference, host, auto, every OpenCL
device), per-call median with the min-max range of the samples as a band.
Points where auto ran the call on its OpenCL device are ringed; a dotted
vertical line marks each measured crossover (the size from which on an
OpenCL device beats the host backend). A last panel shows the
8-plane-vertex-contact case as bars with its target (auto <= 2x reference).
Needs matplotlib (numpy is not used). Exits 2 on a file without a sweep.
"""
import argparse
import json
import sys

PANELS = ("eval", "plan", "build")
TITLES = {
    "eval": "potential + gradient + global Hessian\n(FV, PSD clamp, plan reused)",
    "plan": "plan creation",
    "build": "lagged build (fricl_build)",
}


def series(sweep, op, backend):
    pts = sorted((p for p in sweep["points"]
                  if p["op"] == op and p["backend"] == backend),
                 key=lambda p: p["contacts"])
    return pts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("json", help="fricl bench --json output with a sweep")
    ap.add_argument("png", help="image to write")
    ap.add_argument("--title", default=None, help="figure title")
    args = ap.parse_args()

    try:
        with open(args.json, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("plot_sweep: %s: %s" % (args.json, e), file=sys.stderr)
        return 2
    sweep = doc.get("sweep")
    if not sweep or not sweep.get("points"):
        print("plot_sweep: %s has no sweep (run fricl bench --suite sweep "
              "--json FILE)" % args.json, file=sys.stderr)
        return 2

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    backends = [b["name"] for b in sweep["backends"]]
    colors = {}
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, b in enumerate(backends):
        colors[b] = palette[i % len(palette)]
    ops = [op for op in PANELS if any(p["op"] == op for p in sweep["points"])]
    small = [p for p in sweep["points"] if p["op"] == "small"]
    n = len(ops) + (1 if small else 0)
    cols = 2 if n > 1 else 1
    rows = (n + cols - 1) // cols
    fig, grid = plt.subplots(rows, cols, figsize=(6.0 * cols, 4.6 * rows),
                             squeeze=False)
    axes = [ax for row in grid for ax in row]
    for ax in axes[n:]:
        ax.set_visible(False)
    axes = axes[:n]
    for ax, op in zip(axes, ops):
        for b in backends:
            pts = series(sweep, op, b)
            if not pts:
                continue
            x = [p["contacts"] for p in pts]
            y = [p["per_call_s"]["median"] for p in pts]
            lo = [p["per_call_s"]["min"] for p in pts]
            hi = [p["per_call_s"]["max"] for p in pts]
            ax.plot(x, y, marker="o", ms=4, label=b, color=colors[b])
            ax.fill_between(x, lo, hi, color=colors[b], alpha=0.15, lw=0)
            if b == "auto":
                dev = [(p["contacts"], p["per_call_s"]["median"]) for p in pts
                       if p["ran_on"] == "opencl"]
                if dev:
                    ax.scatter(*zip(*dev), s=90, facecolors="none",
                               edgecolors=colors[b], label="auto on OpenCL")
        for c in sweep.get("crossover", []):
            if c["op"] == op and c["beats_host_from_contacts"]:
                ax.axvline(c["beats_host_from_contacts"], ls=":",
                           color=colors.get(c["device"], "k"))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("contacts per call")
        ax.set_ylabel("time per call [s]")
        ax.set_title(TITLES.get(op, op), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    if small:
        ax = axes[-1]
        names = [b for b in backends
                 if any(p["backend"] == b for p in small)]
        t = [next(p for p in small if p["backend"] == b)["per_call_s"]["median"]
             for b in names]
        ax.bar(range(len(names)), [v * 1e6 for v in t],
               color=[colors[b] for b in names])
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=20, fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("time per call [us]")
        tgt = sweep.get("small_target", {})
        ref = [v for b, v in zip(names, t) if b == "reference"]
        if ref and tgt.get("target"):
            ax.axhline(ref[0] * tgt["target"] * 1e6, ls="--", color="k",
                       lw=1, label="target: %gx reference" % tgt["target"])
            ax.legend(fontsize=8)
        ax.set_title("%d plane-vertex contacts:\nvalue + gradient + local "
                     "Hessian" % small[0]["contacts"], fontsize=10)
        ax.grid(True, axis="y", which="both", alpha=0.3)
    title = args.title or ("fricl %s, %s (f64, median of %d samples)"
                           % (doc.get("fricl_version", "?"),
                              ", ".join(backends), doc.get("repeats", 0)))
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(args.png, dpi=120)
    print("plot_sweep: wrote %s" % args.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
