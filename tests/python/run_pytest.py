#!/usr/bin/env python3
"""CTest entry of the Python suite.

    run_pytest.py PACKAGE_DIR FRICL_CLI [--require MODULE]... [pytest args]

Puts PACKAGE_DIR (a directory holding the fricl package, e.g. the build
tree's python/; "-" to use the installed package) first on sys.path,
exports FRICL_CLI (the `fricl` tool of the same build, the tests' bitwise
reference) and runs pytest on the given files (default: this directory).
Exit 77 (CTest's skip code, with a loud message) when numpy, pytest or a
--require'd module cannot be imported; every other outcome is pytest's.
"""
import importlib
import os
import sys


def skip(why):
    print("*" * 72)
    print("SKIPPED: %s; these Python tests did NOT run" % why)
    print("  install with: python3 -m pip install numpy scipy pytest ipctk")
    print("*" * 72)
    sys.exit(77)


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    pkg, cli, rest = argv[0], argv[1], argv[2:]
    required = ["numpy", "scipy", "pytest"]
    while rest[:1] == ["--require"]:
        required.append(rest[1])
        rest = rest[2:]
    for mod in required:
        try:
            importlib.import_module(mod)
        except ImportError as exc:
            skip("%s (%s)" % (mod, exc))
    import pytest
    if pkg != "-":
        pkg = os.path.abspath(pkg)
        sys.path.insert(0, pkg)
        os.environ["PYTHONPATH"] = os.pathsep.join(
            [pkg] + [p for p in os.environ.get("PYTHONPATH", "").split(
                os.pathsep) if p])
    os.environ["FRICL_CLI"] = os.path.abspath(cli)
    here = os.path.dirname(os.path.abspath(__file__))
    files = [a for a in rest if not a.startswith("-")] or [here]
    opts = [a for a in rest if a.startswith("-")]
    return pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", here]
                       + opts + files)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
