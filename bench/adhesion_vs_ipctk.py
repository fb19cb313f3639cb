"""Tangential adhesion: fricl.ipctk against ipctk 1.6.1 on two stacked
grids (argv: grid sizes; 13 gives ~2k collisions, 88 ~100k). Medians of
value, gradient, Hessian (CLAMP) and the lagged build, same run.
Run from the repository root after building (build/python)."""
import sys, time
sys.path.insert(0, "build/python")
import numpy as np, ipctk
import fricl.ipctk as fi

def grid(n, z, shift):
    xs = np.linspace(0, 1, n)
    X, Y = np.meshgrid(xs + shift, xs + shift)
    V = np.c_[X.ravel(), Y.ravel(), np.full(n * n, z)]
    F = []
    for i in range(n - 1):
        for j in range(n - 1):
            a = i * n + j
            F += [[a, a + 1, a + n], [a + 1, a + n + 1, a + n]]
    return V, np.array(F)

def scene(n):
    h = 1.0 / (n - 1)
    V0, F0 = grid(n, 0.0, 0.0)
    V1, F1 = grid(n, 0.3 * h, 0.37 * h)
    V = np.r_[V0, V1]; F = np.r_[F0, F1 + len(V0)]
    E = ipctk.edges(F)
    mesh = ipctk.CollisionMesh(V, E, F)
    dhat = 0.5 * h
    nc = ipctk.NormalCollisions(); nc.build(mesh, V, dhat)
    return mesh, V, nc, dhat

def med(f, reps):
    t = []
    for _ in range(reps):
        t0 = time.perf_counter(); f(); t.append(time.perf_counter() - t0)
    return float(np.median(t))

for n in [int(a) for a in sys.argv[1:]]:
    mesh, V, nc, dhat = scene(n)
    A = ipctk.NormalAdhesionPotential(0.3 * dhat, dhat, 1e3, 0.5)
    it = ipctk.TangentialCollisions(); it.build(mesh, V, nc, A, 0.5)
    ft = fi.TangentialCollisions(); ft.build(mesh, V, nc, A, 0.5)
    eps = 1e-3
    rng = np.random.default_rng(0)
    X = np.asfortranarray(rng.normal(size=V.shape) * eps)
    ip = ipctk.TangentialAdhesionPotential(eps); fp = fi.TangentialAdhesionPotential(eps)
    fp(it, mesh, X)  # fill the cache
    reps = 15 if len(it) < 20000 else 5
    psd = ipctk.PSDProjectionMethod.CLAMP
    print("n=%d collisions ipctk %d fricl %d" % (n, len(it), len(ft)))
    for name, fi_, fo_, ff_ in [
        ("value", lambda: ip(it, mesh, X), lambda: fp(it, mesh, X), lambda: fp(ft, mesh, X)),
        ("gradient", lambda: ip.gradient(it, mesh, X), lambda: fp.gradient(it, mesh, X), lambda: fp.gradient(ft, mesh, X)),
        ("hessian", lambda: ip.hessian(it, mesh, X, psd), lambda: fp.hessian(it, mesh, X, psd), lambda: fp.hessian(ft, mesh, X, psd))]:
        a, b, c = med(fi_, reps), med(fo_, reps), med(ff_, reps)
        print("  %-9s ipctk %9.3f ms  fricl(ipctk tc, cached) %8.3f ms (x%.1f)  fricl(own tc) %8.3f ms (x%.1f)" % (name, a*1e3, b*1e3, a/b, c*1e3, a/c))
    # the build itself
    a = med(lambda: ipctk.TangentialCollisions().build(mesh, V, nc, A, 0.5), 3)
    c = med(lambda: fi.TangentialCollisions().build(mesh, V, nc, A, 0.5), 3)
    print("  build     ipctk %9.3f ms  fricl %8.3f ms (x%.1f)" % (a*1e3, c*1e3, a/c))
