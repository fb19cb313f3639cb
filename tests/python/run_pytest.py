#!/usr/bin/env python3
"""CTest entry of the Python suite.

    run_pytest.py PACKAGE_DIR FRICL_CLI [pytest arguments]

Puts PACKAGE_DIR (the build tree's python/, holding fricl/ with the
extension) first on sys.path, exports FRICL_CLI, and runs pytest on this
directory. Exit 77 (CTest's skip code, printed loudly) when numpy or pytest
cannot be imported; every other outcome is pytest's.
"""
import os
import sys

if len(sys.argv) < 3:
    print(__doc__, file=sys.stderr)
    sys.exit(2)
pkg, cli = sys.argv[1], sys.argv[2]
try:
    import numpy  # noqa: F401
    import pytest
except ImportError as exc:
    print("*" * 72)
    print("SKIPPED: %s; the Python package's tests did NOT run" % exc)
    print("  install with: python3 -m pip install numpy scipy pytest")
    print("*" * 72)
    sys.exit(77)
sys.path.insert(0, os.path.abspath(pkg))
os.environ["PYTHONPATH"] = os.pathsep.join(
    [os.path.abspath(pkg)] + [p for p in os.environ.get("PYTHONPATH", "")
                              .split(os.pathsep) if p])
os.environ["FRICL_CLI"] = os.path.abspath(cli)
here = os.path.dirname(os.path.abspath(__file__))
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", here]
                     + sys.argv[3:] + [here] * (not any(
                         a.startswith(here) for a in sys.argv[3:]))))
