#!/bin/sh
# pip_install_check.sh PYTHON SOURCE_DIR WORK_DIR FRICL_CLI
#
# `python3 -m pip install .` from the repository root into a fresh virtual
# environment, then `import fricl` from outside the source tree and a part
# of the pytest suite against the installed package (not the build tree's).
# The venv sees the system's site-packages (numpy, scipy, pytest, ipctk,
# scikit-build-core) and pip builds without isolation, so nothing is
# downloaded. Exit 77 (skipped, loudly) when venv, pip or
# scikit-build-core is missing.
set -eu
py=$1
src=$2
work=$3
cli=$4
skip() {
  echo "************************************************************"
  echo "SKIPPED: $1; 'pip install .' was NOT checked"
  echo "************************************************************"
  exit 77
}
rm -rf "$work"
mkdir -p "$work"
"$py" -c "import scikit_build_core, numpy" 2>/dev/null ||
  skip "scikit-build-core or numpy is not installed"
"$py" -m venv --system-site-packages "$work/venv" >/dev/null 2>&1 ||
  skip "python3 -m venv does not work (Debian: apt-get install python3-venv)"
vpy=$work/venv/bin/python
"$vpy" -m pip --version >/dev/null 2>&1 || skip "no pip in the venv"
"$vpy" -m pip install --no-build-isolation --no-deps -q "$src"
cd "$work"
"$vpy" - <<'PY'
import os, sys
import fricl
here = os.path.dirname(fricl.__file__)
assert here.startswith(sys.prefix), "fricl imported from %s, not the venv" % here
assert os.path.exists(os.path.join(here, "libfricl.so")), os.listdir(here)
with fricl.Context("reference") as ctx:
    f = ctx.scalar("smooth_mu", [0.0, 1.0], 1.0, 0.5, 0.3)
    assert f[0] == 0.5 and f[1] == 0.3, f
print("pip install: fricl %s from %s, backend %s" % (
    fricl.__version__, here, fricl.Context().backend))
PY
"$vpy" "$src/tests/python/run_pytest.py" - "$cli" \
  "$src/tests/python/test_api.py" "$src/tests/python/test_tangential.py"
