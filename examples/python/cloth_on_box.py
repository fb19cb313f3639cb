#!/usr/bin/env python3
"""A cloth falls onto a box and slides over it: one implicit-Euler IPC loop,
run on ipctk and on fricl.ipctk, timed part by part.

    PYTHONPATH=build/python python3 examples/python/cloth_on_box.py
        [--n 40] [--steps 6] [--backend {ipctk,fricl,both}] [--box-res 16]
        [--drop 0.002] [--dt 0.01] [--mu 0.3] [--eps-v 0.01] [--tol 0.01]
        [--device host] [--save final.npz] [--quiet]

The model (SI units; y is up)
-----------------------------
* Cloth: a 1 m x 1 m square of ``--n`` x ``--n`` vertices, each grid cell
  split into two triangles, 0.2 kg/m^2 lumped onto the vertices. It starts
  flat, ``--drop`` + dhat above the box top, overhanging its -x side, and
  moving at 0.5 m/s along +x: it falls onto the box, drapes over its edges
  and slides, slowed by friction.
* Elasticity: mass-spring. A stretch spring on every cloth edge (energy
  k/2 (l - L)^2, k = 200 N / L) and a weak bending spring between grid
  vertices two apart along each grid line (k = 2 N / L). A spring's 6x6
  Hessian is [[K, -K], [-K, K]], K = k [n n^T + max(0, 1 - L/l) (I - n n^T)]
  (n the unit spring direction): PSD, assembled as one sparse matrix.
* Obstacle: a 0.6 x 0.3 x 0.6 m box (top at y = 0), each face a
  ``--box-res`` x ``--box-res`` grid of triangle pairs, in the same
  collision mesh as the cloth; its vertices are pinned (no DOFs), so it
  collides with the cloth but never moves.
* Time step (implicit Euler, h = ``--dt``): x_{t+1} minimises
      E(x) = 1/2 (x - xh)^T M (x - xh) + h^2 (Psi(x) + B(x) + h D_v(v)),
      xh = x_t + h v_t + h^2 g,   v = (x - x_t) / h,
  Psi the springs, B the IPC barrier kappa sum_k w_k b(d_k^2) (ipctk's
  clamped-log barrier, activation distance dhat), D_v ipctk's friction
  potential of the velocities (mu, eps_v): its gradient in x is the
  friction force at v, its Hessian in x Hess(D_v) / h. The friction is
  lagged: its collisions, tangent bases and normal forces are built once
  per time step, from the collisions at x_t.
* dhat = a tenth of the cloth's grid spacing; kappa = 10 m g / (4.33
  dhat^3): ten times what lets one collision at d = dhat / 2 carry the
  weight m g of one cloth vertex (the barrier's force there is 4.33 kappa
  dhat^3).
* Newton with a backtracking line search. The direction solves H dx = -g
  on the cloth's DOFs (SuperLU, symmetric mode, minimum-degree ordering;
  the barrier and friction Hessians projected to PSD with
  ipctk.PSDProjectionMethod.CLAMP); the step starts at
  ipctk.compute_collision_free_stepsize (ipctk's CCD, in both backends)
  and halves until E decreases enough (Armijo, c = 1e-4), each trial point
  with its own collision set (two set objects, rebuilt in turn: the
  current point's and the trial's, swapped when the trial is accepted, as
  an ipctk user reuses a NormalCollisions). Stop when |dx|_inf < tol h
  (IPC's criterion, tol in m/s) or after 50 iterations.

The two backends run the same loop
----------------------------------
``ipctk``: ipctk.NormalCollisions.build, ipctk.BarrierPotential (value,
gradient, Hessian), ipctk.TangentialCollisions.build and
ipctk.FrictionPotential. ``fricl``: fricl.ipctk.NormalCollisions.build
(fricl's own broad and narrow phase, ipctk's build rules) on a
fricl.ipctk.CollisionMesh, fricl.ipctk.BarrierPotential on that set as
it is, fricl.ipctk.TangentialCollisions.build(mesh, x, collisions, B,
mu) on that set and that potential, fricl.ipctk.FrictionPotential on the
result; ipctk only for the CCD. The calls are ipctk's, and the classes
are fed straight into each other.

Output
------
Per backend, the median over the Newton iterations with contact of the
time each part takes in one iteration (all its calls summed): collision
build (the line search's builds, one per trial point), barrier (value,
gradient and Hessian), friction (value, gradient and Hessian), "contact
part" (those three), linear solve, CCD, "elasticity + assembly" (springs,
inertia, adding the sparse matrices, taking the free block) and the
whole iteration; then the lagged friction build, once per step. With
``--backend both``: one Markdown table with the ratio ipctk / fricl, and
how far apart the two trajectories are (the largest coordinate
difference of a cloth vertex, after each step). The two simulations take
turns, one time step each, so that a change in the machine's load falls
on both.

The defaults (1600 cloth vertices, 1538 box vertices, about 3k
collisions) run both backends in under a minute on a loaded 2-core
machine. A larger run (6400 cloth vertices, about 12k collisions; a few
minutes):

    python3 examples/python/cloth_on_box.py --n 80 --box-res 32 --steps 5

Needs numpy, scipy, ipctk and the fricl package (the build tree's python/
on PYTHONPATH, or ``pip install .``); exits 77 without them.
"""
import argparse
import sys
import time

try:
    import numpy as np
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla
    import ipctk
except ImportError as e:  # pragma: no cover - environment dependent
    print("SKIPPED: %s (python3 -m pip install numpy scipy ipctk)" % e)
    sys.exit(77)

PARTS = ("collision build", "barrier", "friction", "linear solve", "CCD",
         "elasticity + assembly")
CLAMP = ipctk.PSDProjectionMethod.CLAMP
STRETCH, BEND = 200.0, 2.0


# --------------------------------------------------------------- the scene
def grid_triangles(rows, cols, offset=0):
    """Triangles of a rows x cols vertex grid (row-major ids + offset)."""
    i, j = np.meshgrid(np.arange(rows - 1), np.arange(cols - 1),
                       indexing="ij")
    a = (i * cols + j).ravel() + offset
    return np.concatenate([np.c_[a, a + 1, a + cols + 1],
                           np.c_[a, a + cols + 1, a + cols]])


def unique_edges(F):
    E = np.sort(np.concatenate([F[:, [0, 1]], F[:, [1, 2]], F[:, [2, 0]]]),
                axis=1)
    return np.unique(E, axis=0)


def box_surface(lo, hi, res):
    """The triangulated surface of the box [lo, hi] (3-vectors), each face a
    res x res grid; shared boundary vertices merged."""
    lattice = {}
    verts, faces = [], []

    def vid(key):
        if key not in lattice:
            lattice[key] = len(verts)
            verts.append(lo + (hi - lo) * np.array(key, float) / res)
        return lattice[key]

    r = np.arange(res + 1)
    for axis in range(3):
        u, v = [a for a in range(3) if a != axis]
        for side in (0, res):
            ids = np.empty((res + 1, res + 1), np.int64)
            for a in r:
                for b in r:
                    key = [0, 0, 0]
                    key[axis], key[u], key[v] = side, a, b
                    ids[a, b] = vid(tuple(key))
            local = grid_triangles(res + 1, res + 1)
            faces.append(ids.ravel()[local])
    return np.array(verts), np.concatenate(faces)


class Scene:
    def __init__(self, n, box_res, drop=0.002):
        self.n = n
        L = 1.0
        self.spacing = L / (n - 1)
        s = np.linspace(0.0, L, n)
        xs, zs = np.meshgrid(s, s, indexing="ij")
        top = 0.0
        # drop + dhat above the box top (dhat = spacing / 10)
        cloth = np.c_[xs.ravel() - 0.7,
                      np.full(n * n, top + drop + self.spacing / 10),
                      zs.ravel() - 0.5]
        Fc = grid_triangles(n, n)
        Bv, Bf = box_surface(np.array([-0.3, -0.3, -0.3]),
                             np.array([0.3, top, 0.3]), box_res)
        self.nc = n * n                      # cloth vertices first (free)
        self.rest = np.vstack([cloth, Bv])
        self.F = np.vstack([Fc, Bf + self.nc]).astype(np.int32)
        self.E = unique_edges(self.F).astype(np.int32)
        self.nfree = 3 * self.nc
        # lumped mass, 0.2 kg/m^2
        self.m = 0.2 * L * L / (n * n)
        self.v0 = np.zeros_like(self.rest)
        self.v0[:self.nc, 0] = 0.5
        # springs: every cloth edge (stretch), skip-one along grid lines
        Ec = unique_edges(Fc)
        g = np.arange(n * n).reshape(n, n)
        bend = np.concatenate([np.c_[g[:-2].ravel(), g[2:].ravel()],
                               np.c_[g[:, :-2].ravel(), g[:, 2:].ravel()]])
        self.springs = np.vstack([Ec, bend])
        Ls = np.linalg.norm(cloth[self.springs[:, 1]] -
                            cloth[self.springs[:, 0]], axis=1)
        self.L = Ls
        self.k = np.concatenate([np.full(len(Ec), STRETCH),
                                 np.full(len(bend), BEND)]) / Ls
        # the sparsity of the spring Hessian (fixed): 36 entries per spring
        d = (3 * self.springs[:, :, None] + np.arange(3)).reshape(-1, 6)
        self._rows = np.repeat(d, 6, axis=1).ravel()
        self._cols = np.tile(d, (1, 6)).ravel()

    def springs_energy(self, x, grad=False, hess=False):
        """Psi(x) (and its gradient, PSD Hessian) of the springs."""
        i, j = self.springs[:, 0], self.springs[:, 1]
        d = x[j] - x[i]
        l = np.linalg.norm(d, axis=1)
        e = 0.5 * (self.k * (l - self.L) ** 2).sum()
        if not grad and not hess:
            return e
        out = [e]
        nrm = d / l[:, None]
        if grad:
            f = (self.k * (l - self.L))[:, None] * nrm
            G = np.zeros_like(x)
            np.add.at(G, j, f)
            np.add.at(G, i, -f)
            out.append(G.ravel())
        if hess:
            nn = nrm[:, :, None] * nrm[:, None, :]
            c = np.maximum(0.0, 1.0 - self.L / l)[:, None, None]
            K = self.k[:, None, None] * (nn + c * (np.eye(3) - nn))
            blk = np.block([[K, -K], [-K, K]])           # (m, 6, 6)
            n3 = x.size
            out.append(sp.csr_matrix((blk.ravel(), (self._rows, self._cols)),
                                     shape=(n3, n3)))
        return out


# ---------------------------------------------------------------- backends
class IpctkBackend:
    name = "ipctk"

    def __init__(self, scene, dhat, kappa, mu, eps_v, device):
        self.mesh = ipctk.CollisionMesh(scene.rest, scene.E, scene.F)
        self.ccd_mesh = self.mesh
        self.B = ipctk.BarrierPotential(dhat, kappa)
        self.D = ipctk.FrictionPotential(eps_v)
        self.dhat, self.mu = dhat, mu

    def build(self, x, into=None):
        """The collision set at x, built into ``into`` (a set of this
        backend's, reused) or a new one."""
        c = ipctk.NormalCollisions() if into is None else into
        c.build(self.mesh, x, self.dhat)
        return c

    def lagged(self, coll, x):
        tc = ipctk.TangentialCollisions()
        tc.build(self.mesh, x, coll, self.B, self.mu)
        return tc


class FriclBackend(IpctkBackend):
    name = "fricl"

    def __init__(self, scene, dhat, kappa, mu, eps_v, device):
        import fricl.ipctk as fi
        self.fi, self.device = fi, device
        self.mesh = fi.CollisionMesh(scene.rest, scene.E, scene.F,
                                     device=device)
        self.ccd_mesh = ipctk.CollisionMesh(scene.rest, scene.E, scene.F)
        self.B = fi.BarrierPotential(dhat, kappa, device=device)
        self.D = fi.FrictionPotential(eps_v, device=device)
        self.dhat, self.mu = dhat, mu

    def build(self, x, into=None):
        c = self.fi.NormalCollisions(device=self.device) if into is None \
            else into
        c.build(self.mesh, x, self.dhat)
        return c

    def lagged(self, coll, x):
        tc = self.fi.TangentialCollisions(device=self.device)
        tc.build(self.mesh, x, coll, self.B, self.mu)
        return tc


# ------------------------------------------------------------ the simulation
def solve(H, b):
    """H^-1 b for the symmetric positive definite H: SuperLU in symmetric
    mode with a minimum-degree ordering of H + H^T (about 2x faster than
    spsolve's default here)."""
    lu = spla.splu(H, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                   options=dict(SymmetricMode=True))
    return lu.solve(b)


class Timer:
    def __init__(self):
        self.t = dict.fromkeys(PARTS, 0.0)

    def __call__(self, part, fn, *args, **kw):
        t0 = time.perf_counter()
        r = fn(*args, **kw)
        self.t[part] += time.perf_counter() - t0
        return r


def simulate(scene, be, run, steps, dt, tol=1e-2, max_newton=50,
             quiet=False):
    """Runs ``steps`` implicit-Euler steps of ``scene`` on backend ``be``,
    yielding after each. Appends to ``run``: the cloth positions after each
    step ("traj"), the time of each part in each Newton iteration
    ("iters"), the lagged build's time per step ("lagged") and the number
    of collisions in each iteration ("ncoll")."""
    h = dt
    nf = scene.nfree
    M = scene.m
    gvec = np.zeros_like(scene.rest)
    gvec[:scene.nc, 1] = -9.81
    x = scene.rest.copy()
    v = scene.v0.copy()
    traj, iters, lagged_t, ncoll = (run[k] for k in ("traj", "iters",
                                                     "lagged", "ncoll"))

    def energy(xx, coll, tc, xt, xhat, timer, want=False):
        """E(x); with want: also its gradient and Hessian (free DOFs)."""
        vel = (xx - xt) / h
        b = timer("barrier", be.B, coll, be.mesh, xx)
        f = timer("friction", be.D, tc, be.mesh, vel) if len(tc) else 0.0
        t0 = time.perf_counter()
        dx = (xx - xhat)[:scene.nc]
        inertia = 0.5 * M * (dx * dx).sum()
        if not want:
            e = inertia + h * h * (scene.springs_energy(xx) + b + h * f)
            timer.t["elasticity + assembly"] += time.perf_counter() - t0
            return e
        es, gs, Hs = scene.springs_energy(xx, grad=True, hess=True)
        timer.t["elasticity + assembly"] += time.perf_counter() - t0
        gb = timer("barrier", be.B.gradient, coll, be.mesh, xx)
        Hb = timer("barrier", be.B.hessian, coll, be.mesh, xx, CLAMP)
        if len(tc):
            gf = timer("friction", be.D.gradient, tc, be.mesh, vel)
            Hf = timer("friction", be.D.hessian, tc, be.mesh, vel, CLAMP)
        t0 = time.perf_counter()
        e = inertia + h * h * (es + b + h * f)
        g = h * h * (gs + gb)
        H = Hs + Hb
        if len(tc):
            g += h * h * gf            # d/dx [h D_v((x - x_t)/h)] = grad D_v
            H = H + Hf / h             # d2/dx2: Hess D_v / h
        g = g[:nf]
        g += M * dx.ravel()
        H = (h * h) * H.tocsc()[:nf, :nf] + M * sp.identity(nf, format="csc")
        timer.t["elasticity + assembly"] += time.perf_counter() - t0
        return e, g, H

    # Two collision sets, rebuilt in turn: the current point's and the
    # line search's trial point's (swapped when the trial is accepted).
    coll = trial = None
    for step in range(steps):
        xt = x.copy()
        xhat = xt + h * v + h * h * gvec
        timer = Timer()
        if coll is None:  # else: the set at x, from the last line search
            coll = timer("collision build", be.build, x)
        t0 = time.perf_counter()
        tc = be.lagged(coll, x)
        lagged_t.append(time.perf_counter() - t0)
        it = 0
        while True:
            it += 1
            e0, g, H = energy(x, coll, tc, xt, xhat, timer, want=True)
            ncoll.append(len(coll))
            p = timer("linear solve", solve, H, -g)
            if np.abs(p).max() < tol * h or it >= max_newton:
                iters.append(timer.t)
                break
            dx = np.zeros_like(x)
            dx[:scene.nc] = p.reshape(-1, 3)
            alpha = timer("CCD", ipctk.compute_collision_free_stepsize,
                          be.ccd_mesh, x, x + dx)
            slope = g @ p
            while True:
                xn = x + alpha * dx
                trial = timer("collision build", be.build, xn, trial)
                en = energy(xn, trial, tc, xt, xhat, timer)
                if en <= e0 + 1e-4 * alpha * slope or alpha < 1e-12:
                    break
                alpha *= 0.5
            x, coll, trial = xn, trial, coll
            iters.append(timer.t)
            timer = Timer()
        v = (x - xt) / h
        traj.append(x[:scene.nc].copy())
        if not quiet:
            print("  %s step %2d: %2d Newton iterations, %5d collisions, "
                  "min y %.4f, mean vx %.3f" % (
                      be.name, step + 1, it, len(coll),
                      x[:scene.nc, 1].min(), v[:scene.nc, 0].mean()),
                  flush=True)
        yield


def medians(run):
    """Median seconds per Newton iteration of each part (and of the
    derived rows), over the iterations with collisions (all iterations
    when there are none)."""
    its = [t for t, n in zip(run["iters"], run["ncoll"]) if n] or \
        run["iters"]
    rows = {}
    for part in PARTS:
        rows[part] = np.median([t[part] for t in its])
    rows["contact part"] = np.median(
        [t["collision build"] + t["barrier"] + t["friction"] for t in its])
    rows["Newton iteration"] = np.median([sum(t.values()) for t in its])
    rows["friction lagged build (per step)"] = np.median(run["lagged"])
    return rows


ORDER = ("collision build", "barrier", "friction", "contact part",
         "linear solve", "CCD", "elasticity + assembly", "Newton iteration",
         "friction lagged build (per step)")
LABEL = {"barrier": "barrier (value + gradient + Hessian)",
         "friction": "friction (value + gradient + Hessian)",
         "contact part": "contact part (build + barrier + friction)"}


def table(runs):
    names = list(runs)
    meds = dict((b, medians(r)) for b, r in runs.items())
    head = "| part (median per Newton iteration) | " + " | ".join(
        "%s (ms)" % b for b in names)
    sep = "|---|" + "---:|" * len(names)
    if len(names) == 2:
        head += " | ipctk / fricl |"
        sep += "---:|"
    else:
        head += " |"
    lines = [head, sep]
    for row in ORDER:
        vals = [meds[b][row] for b in names]
        line = "| %s | " % LABEL.get(row, row) + " | ".join(
            "%.2f" % (1e3 * t) for t in vals) + " |"
        if len(names) == 2:
            a, b = meds["ipctk"][row], meds["fricl"][row]
            line += " %s |" % ("%.2f" % (a / b) if b > 0 else "-")
        lines.append(line)
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=40,
                    help="cloth resolution: n x n vertices (default 40)")
    ap.add_argument("--steps", type=int, default=6,
                    help="time steps (default 6)")
    ap.add_argument("--backend", choices=("ipctk", "fricl", "both"),
                    default="both")
    ap.add_argument("--box-res", type=int, default=16,
                    help="box faces: res x res grid each (default 16)")
    ap.add_argument("--drop", type=float, default=0.002,
                    help="initial gap above the box top, past dhat (m)")
    ap.add_argument("--dt", type=float, default=0.01)
    ap.add_argument("--mu", type=float, default=0.3)
    ap.add_argument("--eps-v", type=float, default=1e-2)
    ap.add_argument("--tol", type=float, default=1e-2,
                    help="Newton stops at |dx|_inf < tol * dt (m/s)")
    ap.add_argument("--device", default="host",
                    help="fricl device spec (default host threads)")
    ap.add_argument("--save", help="write the final cloth positions of "
                    "each backend to this .npz")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    if a.n < 3 or a.box_res < 1 or a.steps < 1:
        ap.error("need --n >= 3, --box-res >= 1, --steps >= 1")

    scene = Scene(a.n, a.box_res, a.drop)
    dhat = scene.spacing / 10
    # b(d^2) = -(d^2 - dhat^2)^2 log(d^2 / dhat^2); at d = dhat / 2 the
    # force -kappa b'(d^2) 2 d is 4.33 kappa dhat^3
    kappa = 10 * scene.m * 9.81 / (4.33 * dhat ** 3)
    backends = ("ipctk", "fricl") if a.backend == "both" else (a.backend,)
    print("cloth %d x %d (%d vertices), box %d vertices, %d faces, "
          "%d edges; dhat %.3g, kappa %.3g, mu %g, eps_v %g, dt %g, "
          "%d steps" % (a.n, a.n, scene.nc, len(scene.rest) - scene.nc,
                        len(scene.F), len(scene.E), dhat, kappa, a.mu,
                        a.eps_v, a.dt, a.steps), flush=True)
    runs, sims, wall = {}, {}, {}
    for name in backends:
        cls = IpctkBackend if name == "ipctk" else FriclBackend
        be = cls(scene, dhat, kappa, a.mu, a.eps_v, a.device)
        runs[name] = dict(traj=[], iters=[], lagged=[], ncoll=[])
        sims[name] = simulate(scene, be, runs[name], a.steps, a.dt, a.tol,
                              quiet=a.quiet)
        wall[name] = 0.0
    # The backends take turns, one time step each, so that a change in
    # the machine's load falls on both.
    for _ in range(a.steps):
        for name in backends:
            t0 = time.perf_counter()
            next(sims[name])
            wall[name] += time.perf_counter() - t0
    for name, r in runs.items():
        print("%s: %.1f s, %d Newton iterations, median %d collisions "
              "(max %d)" % (name, wall[name], len(r["iters"]),
                            np.median(r["ncoll"]), max(r["ncoll"])),
              flush=True)
    print()
    print(table(runs))
    if len(runs) == 2:
        d = [np.abs(xa - xb).max() for xa, xb in
             zip(runs["ipctk"]["traj"], runs["fricl"]["traj"])]
        print()
        print("trajectories: max |x_ipctk - x_fricl| after step %d: %.3e m "
              "(largest over the steps %.3e m; cloth spacing %.3g m, "
              "dhat %.3g m)" % (len(d), d[-1], max(d), scene.spacing, dhat))
    if a.save:
        np.savez(a.save, **dict((b, r["traj"][-1]) for b, r in runs.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
