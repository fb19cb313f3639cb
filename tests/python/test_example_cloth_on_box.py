"""examples/python/cloth_on_box.py at a small size, both backends.

CTest runs it as python_example_cloth_on_box (tests/python/
python_tests.cmake), through run_pytest.py: skipped (77) without numpy,
scipy, pytest or ipctk. A few seconds.

What is checked:
* the example completes (exit 0) on ipctk and on fricl, with contact
  from the first step on (--drop 5e-4: the cloth starts 0.5 mm outside
  dhat and falls 1 mm in the first step);
* both runs take the same Newton iterations per step (give or take one:
  a run may stop an iteration earlier, see below) and end each step with
  the same number of collisions within 3 %: fricl builds ipctk's sets, but
  where a contact is a tie between stencils (a cloth vertex exactly above
  a box grid line, which this scene has) it may pick other stencils than
  ipctk, with the same potential; measured up to 1.1 % on this mesh;
* the final cloth positions agree within STEPS * TOL * DT. The two backends
  evaluate the same potentials to rounding (the drop-in tests: 1e-12 of
  scale), so the Newton iterates agree to rounding while both take the
  same steps; the only way for them to part by more is that one run stops
  an iteration earlier than the other, and the step it did not take is
  below TOL * DT in every coordinate (the stopping test |dx|_inf < tol *
  dt). Over STEPS steps that is at most STEPS * TOL * DT (3e-5 m here,
  half a percent of dhat = 6.7e-3 m); the measured difference is 9e-11 m;
* the Markdown table is printed with every part and the ipctk / fricl
  ratio column, and the trajectories' agreement line.
"""
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "examples", "python",
                       "cloth_on_box.py")
N, STEPS, BOX, TOL, DT = 16, 3, 6, 1e-3, 0.01


def test_cloth_on_box_both_backends(tmp_path):
    out = tmp_path / "final.npz"
    r = subprocess.run(
        [sys.executable, EXAMPLE, "--n", str(N), "--steps", str(STEPS),
         "--box-res", str(BOX), "--drop", "5e-4", "--tol", str(TOL),
         "--dt", str(DT), "--backend", "both", "--save", str(out)],
        capture_output=True, text=True, timeout=300)
    text = r.stdout + r.stderr
    assert r.returncode == 0, text

    # contact, and the same iterations and collision counts on both
    steps = dict((b, np.array(re.findall(
        r"^  %s step +\d+: +(\d+) Newton iterations, +(\d+) collisions" % b,
        text, re.M), int).reshape(-1, 2)) for b in ("ipctk", "fricl"))
    assert len(steps["ipctk"]) == len(steps["fricl"]) == STEPS, text
    it, nc = steps["ipctk"].T
    assert np.all(np.abs(it - steps["fricl"][:, 0]) <= 1), text
    assert np.all(np.abs(nc - steps["fricl"][:, 1]) <= 0.03 * nc), text
    assert np.all(nc > 0), "no contact: " + text

    # the final positions
    d = np.load(out)
    assert d["ipctk"].shape == (N * N, 3)
    diff = np.abs(d["ipctk"] - d["fricl"]).max()
    assert diff <= STEPS * TOL * DT, diff
    m = re.search(r"max \|x_ipctk - x_fricl\| after step %d: (\S+) m"
                  % STEPS, text)
    assert m and float(m.group(1)) == float("%.3e" % diff), text

    # the table
    assert "| part (median per Newton iteration) | ipctk (ms) | fricl (ms) " \
        "| ipctk / fricl |" in text, text
    for row in ("collision build", "barrier (value + gradient + Hessian)",
                "friction (value + gradient + Hessian)",
                "contact part (build + barrier + friction)", "linear solve",
                "CCD", "elasticity + assembly", "Newton iteration",
                "friction lagged build (per step)"):
        assert re.search(r"^\| %s \| [\d.]+ \| [\d.]+ \| [\d.]+ \|$"
                         % re.escape(row), text, re.M), row
