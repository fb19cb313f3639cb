#!/usr/bin/env python3
"""check_layers.py - the layer rule of docs/architecture-layers.md, checked.

A layer may include only its own headers, the layers below it, the kernels'
math headers and the public headers (include/fricl). The layers, top down:

    tools   src/cli, src/petsc, bench, python/src   public headers only
    api     src/api      every FRICL_API definition of libfricl
    backends src/host, src/opencl, src/multi        never each other
    core    src/core
    kernels kernels/     (and include/fricl, the public headers)

Also checked: src/core has no FRICL_WITH_* conditional (core knows no
backend), no backend creates or destroys contexts, every function declared
FRICL_API in include/fricl is defined
under src/api/ (those of fricl_petsc.h under src/petsc/, the PETSc
library's own API layer), and no tool links the library's internals
(fricl_internal).

Each violation is printed. Known exceptions are listed in ALLOWED below,
each with why; they are printed and counted but do not fail. An allowed
exception that no longer occurs fails, so that the list only shrinks.
Exit status: 0 when every violation is allowed, 1 otherwise.
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", ".."))

# Layer of each scanned folder, and what it may include besides itself.
LAYERS = {
    "src/core": ("core", {"kernels", "public"}),
    "src/host": ("host", {"core", "kernels", "public"}),
    "src/opencl": ("opencl", {"core", "kernels", "public"}),
    "src/multi": ("multi", {"core", "kernels", "public"}),
    "src/api": ("api", {"core", "host", "opencl", "multi", "kernels",
                        "public"}),
    "src/cli": ("cli", {"public"}),
    "src/petsc": ("petsc", {"public"}),
    "bench": ("bench", {"public"}),
    "python/src": ("python", {"public"}),
}
# Where a quoted include may be found (besides the includer's folder), in
# the order the build's include paths give.
SEARCH = ["src", "kernels", "include", "bench", "tests/ref"]
TOOL_CMAKE = ["src/cli/CMakeLists.txt", "src/cli/cli_sources.cmake",
              "bench/CMakeLists.txt", "bench/bench_sources.cmake",
              "src/petsc/CMakeLists.txt", "src/petsc/cli/CMakeLists.txt",
              "python/CMakeLists.txt"]

# Known exceptions: (file, what it reaches). Keep each with its reason;
# remove an entry when its violation is gone (a stale entry fails).
ALLOWED = {
    # The bench target (not installed): fricl-bench, the benchmark harness,
    # is a program of its own that `fricl bench` runs; its kernel-level
    # suites time the OpenCL backend's and core's internals directly, which
    # issue 20 allows for this target alone.
    ("bench/bench_build.c", "core/internal.h"),
    ("bench/bench_build_cl.c", "opencl/build_launch.h"),
    ("bench/bench_laws.c", "core/internal.h"),
    ("bench/bench_laws_cl.c", "opencl/opencl.h"),
    ("bench/bench_ocl.c", "opencl/opencl.h"),
    ("bench/bench_roof.c", "core/internal.h"),
    ("bench/bench_roof.c", "core/pool.h"),
    ("bench/bench_scalar.c", "core/internal.h"),
    ("bench/bench_scalar_cl.c", "opencl/opencl.h"),
    # Bench target (not installed): the accuracy suite compares against the
    # long-double oracle of the tests (tests/ref).
    ("bench/bench_accuracy.c", "tests/ref/scalar_ref_ld.h"),
    # Bench target (not installed): it links the internal static core for
    # the suites above.
    ("bench/CMakeLists.txt", "fricl_internal"),
}

INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', re.M)


def layer_of_path(rel):
    """Layer of a repository-relative file path, or None."""
    if rel.startswith("kernels/"):
        return "kernels"
    if rel.startswith("include/"):
        return "public"
    if rel.startswith("tests/"):
        return "tests"
    for folder, (name, _) in LAYERS.items():
        if rel.startswith(folder + "/"):
            return name
    return None


def resolve(includer, kind, target):
    """Repository-relative path of an include, or None (system/external)."""
    if kind == "<":
        return "include/" + target if target.startswith("fricl/") else None
    here = os.path.dirname(includer)
    for base in [here] + SEARCH:
        cand = os.path.normpath(os.path.join(base, target))
        if os.path.isfile(os.path.join(ROOT, cand)):
            return cand
    # Generated public headers (fricl_version.h) exist only in a build.
    if target.startswith("fricl/"):
        return "include/" + target
    return None


def sources(folder):
    for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
        for f in sorted(files):
            if f.endswith((".c", ".h", ".cpp")):
                yield os.path.relpath(os.path.join(dirpath, f), ROOT)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                  text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def include_violations():
    out = []
    for folder, (name, below) in LAYERS.items():
        for rel in sources(folder):
            text = strip_comments(open(os.path.join(ROOT, rel)).read())
            for m in INCLUDE.finditer(text):
                path = resolve(rel, m.group(1), m.group(2))
                if path is None:
                    continue
                to = layer_of_path(path)
                if to is None or to == name or to in below:
                    continue
                line = text.count("\n", 0, m.start()) + 1
                # Report the include as written when it names a layer
                # folder, else its resolved path.
                what = m.group(2) if "/" in m.group(2) else path
                out.append((rel, what, "%s:%d: %s (layer %s) includes %s "
                            "(layer %s)" % (rel, line, rel, name, what, to)))
    return out


def public_functions():
    """{name: header} of every FRICL_API function in include/fricl."""
    names = {}
    decl = re.compile(r"\bFRICL_API\b[^;(]*?\b(fricl_\w+)\s*\(")
    inc = os.path.join(ROOT, "include", "fricl")
    for f in sorted(os.listdir(inc)):
        if f.endswith(".h"):
            text = strip_comments(open(os.path.join(inc, f)).read())
            for m in decl.finditer(text):
                names[m.group(1)] = f
    return names


def definition_violations():
    names = public_functions()
    out = []
    defn = re.compile(r"^[A-Za-z_][\w \t\*]*?\b(fricl_\w+)\s*\(([^;{}]*?)\)"
                      r"\s*\{", re.M | re.S)
    for rel in sources("src"):
        if not rel.endswith(".c"):
            continue
        text = strip_comments(open(os.path.join(ROOT, rel)).read())
        for m in defn.finditer(text):
            fn = m.group(1)
            if fn not in names:
                continue
            home = "src/petsc/" if names[fn] == "fricl_petsc.h" else "src/api/"
            if rel.startswith(home):
                continue
            line = text.count("\n", 0, m.start()) + 1
            out.append((rel, fn, "%s:%d: public %s (FRICL_API, %s) is "
                        "defined outside %s" % (rel, line, fn, names[fn],
                                                home)))
    return out


def core_backend_conditionals():
    """Core knows no backend: no FRICL_WITH_OPENCL (or other backend
    switch) in src/core; the backend list is supplied from src/api."""
    out = []
    for rel in sources("src/core"):
        text = strip_comments(open(os.path.join(ROOT, rel)).read())
        for m in re.finditer(r"^\s*#\s*(?:el)?if.*\bFRICL_WITH_\w+", text,
                             re.M):
            line = text.count("\n", 0, m.start()) + 1
            out.append((rel, "FRICL_WITH", "%s:%d: core depends on which "
                        "backends are built (%s)" % (rel, line,
                                                     m.group(0).strip())))
    return out


def backend_context_violations():
    """A backend serves a context and never creates one: a context that
    owns a backend that owns contexts is a cycle."""
    out = []
    for folder in ("src/host", "src/opencl", "src/multi"):
        for rel in sources(folder):
            text = strip_comments(open(os.path.join(ROOT, rel)).read())
            for m in re.finditer(r"\b(fricl__context_(?:alloc|open|destroy)|"
                                 r"fricl_context_create\w*)\s*\(", text):
                line = text.count("\n", 0, m.start()) + 1
                out.append((rel, m.group(1), "%s:%d: a backend manages "
                            "contexts (%s)" % (rel, line, m.group(1))))
    return out


def link_violations():
    out = []
    for rel in TOOL_CMAKE:
        path = os.path.join(ROOT, rel)
        if not os.path.isfile(path):
            continue
        for i, line in enumerate(open(path), 1):
            code = line.split("#", 1)[0]
            if re.search(r"\bfricl_internal(_fi)?\b", code):
                out.append((rel, "fricl_internal", "%s:%d: a tool links the "
                            "library's internals (fricl_internal)" % (rel, i)))
    return out


def main():
    found = (include_violations() + definition_violations() +
             core_backend_conditionals() + backend_context_violations() +
             link_violations())
    bad, known, seen = [], [], set()
    for rel, what, msg in found:
        if (rel, what) in ALLOWED:
            known.append(msg)
            seen.add((rel, what))
        else:
            bad.append(msg)
    stale = sorted(ALLOWED - seen)
    for msg in known:
        print("known exception: " + msg)
    for msg in bad:
        print("VIOLATION: " + msg)
    for rel, what in stale:
        print("STALE allow-list entry (no longer occurs, remove it): "
              "%s -> %s" % (rel, what))
    print("layers: %d violation(s), %d known exception(s) in the allow-list, "
          "%d stale allow-list entr%s" % (len(bad), len(known), len(stale),
                                          "y" if len(stale) == 1 else "ies"))
    return 1 if bad or stale else 0


if __name__ == "__main__":
    sys.exit(main())
