"""Package-level behaviour: version, context, errors, conversions, threads,
documentation."""
import pydoc
import threading

import numpy as np
import pytest

import fricl
from conftest import groups_of, random_contacts, velocities


def test_version_is_the_libraries(cli):
    assert fricl.__version__ == cli("--version").stdout.split()[-1]
    major, minor, patch = map(int, fricl.__version__.split("."))
    assert fricl.version_number() == major * 10000 + minor * 100 + patch


def test_context_properties_and_close():
    with fricl.Context("reference") as ctx:
        assert ctx.backend == "reference"
        assert "reference" in ctx.device_name
        assert ctx.has_fp64 and not ctx.fell_back and not ctx.closed
        assert "reference" in repr(ctx)
    assert ctx.closed
    with pytest.raises(fricl.InvalidArgumentError, match="closed"):
        ctx.scalar("smooth_friction_f0", [0.0], 1.0)
    ctx.close()  # idempotent
    auto = fricl.Context()
    assert auto.backend in ("opencl", "reference", "host")
    assert isinstance(auto.device_name, str) and auto.device_name
    auto.close()


def test_close_destroys_plans():
    ctx = fricl.Context("reference")
    rng = np.random.default_rng(0)
    c = ctx.contacts(groups_of(random_contacts(rng, 10, 3, {"fv": 4})), 10)
    plan = c.plan
    ctx.close()
    assert plan.closed
    with pytest.raises(fricl.InvalidArgumentError, match="closed"):
        c.evaluate(np.zeros((10, 3)), 1e-3, hessian=True)


def test_device_errors():
    with pytest.raises(fricl.DeviceNotFoundError) as e:
        fricl.Context("opencl:99:0")
    assert e.value.status == "DEVICE_NOT_FOUND" and e.value.code == -3
    assert isinstance(e.value, LookupError) and isinstance(e.value,
                                                           fricl.Error)
    assert "99" in str(e.value)
    with pytest.raises(fricl.InvalidArgumentError):
        fricl.Context("quantum")
    for d in fricl.devices():
        assert d["spec"].startswith("opencl:")
        with fricl.Context(d["spec"]) as c:
            assert c.backend == "opencl"


def test_no_fp64():
    with fricl.Context("reference", no_fp64=True) as ctx:
        assert not ctx.has_fp64
        with pytest.raises(fricl.NoFP64Error) as e:
            ctx.scalar("smooth_friction_f0", np.zeros(3), 1.0)
        assert e.value.status == "NO_FP64"
        f = ctx.scalar("smooth_friction_f0", np.zeros(3, np.float32), 1.0)
        assert f.dtype == np.float32


def test_error_classes():
    names = [c.status for c in (fricl.InvalidArgumentError,
                                fricl.OutOfMemoryError,
                                fricl.DeviceNotFoundError, fricl.NoFP64Error,
                                fricl.OpenCLError, fricl.BuildFailedError,
                                fricl.UnsupportedError, fricl.InternalError)]
    assert names == ["INVALID_ARGUMENT", "OUT_OF_MEMORY", "DEVICE_NOT_FOUND",
                     "NO_FP64", "OPENCL_ERROR", "BUILD_FAILED", "UNSUPPORTED",
                     "INTERNAL"]
    assert issubclass(fricl.InvalidArgumentError, ValueError)
    assert issubclass(fricl.OutOfMemoryError, MemoryError)


def test_tangential_errors_name_group_and_contact(ref_ctx):
    rng = np.random.default_rng(1)
    data = random_contacts(rng, 20, 3, {"ev": 6, "fv": 8})
    data["fv"]["ids"][5, 2] = 20  # out of range
    c = ref_ctx.contacts(groups_of(data), 20)
    v = np.zeros((20, 3))
    with pytest.raises(fricl.InvalidArgumentError) as e:
        c.evaluate(v, 1e-3)
    assert "fv" in e.value.message and "5" in e.value.message
    data["fv"]["ids"][5, 2] = 3
    data["ev"]["normal_force"][2] = -1
    c = ref_ctx.contacts(groups_of(data), 20)
    with pytest.raises(fricl.InvalidArgumentError) as e:
        c.evaluate(v, 1e-3)
    assert "ev" in e.value.message and "2" in e.value.message
    data["ev"]["normal_force"][2] = 1
    c = ref_ctx.contacts(groups_of(data), 20)
    with pytest.raises(fricl.InvalidArgumentError, match="eps_v"):
        c.evaluate(v, 0.0)
    with pytest.raises(fricl.InvalidArgumentError, match="velocities"):
        c.evaluate(np.zeros((19, 3)), 1e-3)
    with pytest.raises(fricl.InvalidArgumentError, match="psd"):
        c.evaluate(v, 1e-3, psd="clip")
    with pytest.raises(fricl.InvalidArgumentError, match="hessian"):
        c.evaluate(v, 1e-3, hessian="coo")
    with pytest.raises(fricl.InvalidArgumentError, match="int32"):
        fricl.ContactGroup("vv", np.array([[0, 2**40]]),
                           tangent_basis=np.zeros((1, 3, 2)),
                           normal_force=1.0, mu_s=0.5, mu_k=0.3)
    with pytest.raises(fricl.InvalidArgumentError, match="closest_point"):
        fricl.ContactGroup("ev", [[0, 1, 2]],
                           tangent_basis=np.zeros((1, 3, 2)),
                           normal_force=1.0, mu_s=0.5, mu_k=0.3)
    with pytest.raises(fricl.InvalidArgumentError, match="shape"):
        fricl.ContactGroup("vv", [[0, 1]], tangent_basis=np.zeros((1, 3, 2)),
                           normal_force=[1.0, 2.0], mu_s=0.5, mu_k=0.3)
    # A plan belongs to its context.
    other = fricl.Context("reference")
    plan = c.plan
    c2 = other.contacts(groups_of(data), 20)
    c2._plan = plan
    with pytest.raises(fricl.InvalidArgumentError, match="another"):
        c2.evaluate(v, 1e-3, gradient=True)
    other.close()


def test_native_layer_checks_buffers(ref_ctx):
    """The extension never trusts the Python layer: wrong sizes, dtypes or
    layouts are rejected before fricl is called."""
    from fricl import _native
    g = _native.Groups(3, 0, ((3, np.zeros((2, 4), np.int32), np.zeros(4),
                               np.zeros(12), np.ones(2), None, np.ones(2),
                               np.ones(2), None),))
    v = np.zeros((4, 3))
    with pytest.raises(fricl.InvalidArgumentError, match="fv.tangent_basis"):
        _native.Groups(3, 0, ((3, np.zeros((2, 4), np.int32), np.zeros(4),
                               np.zeros(18), np.ones(2), None, np.ones(2),
                               np.ones(2), None),))
    with pytest.raises(fricl.InvalidArgumentError, match="int32"):
        _native.Groups(3, 0, ((3, np.zeros((2, 4), np.int64), np.zeros(4),
                               np.zeros(12), np.ones(2), None, np.ones(2),
                               np.ones(2), None),))
    with pytest.raises(fricl.InvalidArgumentError, match="velocities"):
        _native.tangential_eval(ref_ctx, g, None, 0, 0, 0, 4, np.zeros(11),
                                1e-3, None, None, None, None, None, None)
    with pytest.raises(fricl.InvalidArgumentError, match="C-contiguous"):
        _native.tangential_eval(ref_ctx, g, None, 0, 0, 0, 4,
                                np.zeros((3, 8))[:, ::2], 1e-3, None, None,
                                None, None, None, None)
    with pytest.raises(fricl.InvalidArgumentError, match="writable"):
        ro = np.zeros(12)
        ro.flags.writeable = False
        _native.tangential_eval(ref_ctx, g, None, 0, 0, 0, 4, v, 1e-3, None,
                                None, ro, None, None, None)
    with pytest.raises(fricl.InvalidArgumentError, match="expected float64"):
        _native.tangential_eval(ref_ctx, g, None, 0, 0, 0, 4,
                                v.astype(np.float32), 1e-3, None, None, None,
                                None, None, None)


def test_threads_share_a_context(ctx):
    """Calls on one context from several threads are serialised by the
    package (the GIL is released inside) and give the serial bits."""
    rng = np.random.default_rng(3)
    data = random_contacts(rng, 300, 3, {"ee": 400, "fv": 400})
    c = ctx.contacts(groups_of(data), 300)
    vs = [velocities(rng, 300, 3, 1e-3) for _ in range(8)]
    serial = [c.evaluate(v, 1e-3, gradient=True, hessian="values")
              for v in vs]
    got = [None] * len(vs)

    def work(i):
        got[i] = c.evaluate(vs[i], 1e-3, gradient=True, hessian="values")

    threads = [threading.Thread(target=work, args=(i,))
               for i in range(len(vs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, b in zip(serial, got):
        assert a.gradient.tobytes() == b.gradient.tobytes()
        assert a.hessian.tobytes() == b.hessian.tobytes()


def test_help_explains_arguments_and_units():
    for obj, words in ((fricl.Context, ["device", "auto", "reference"]),
                       (fricl.Contacts.evaluate, ["eps_v", "psd",
                                                  "velocities"]),
                       (fricl.ContactGroup, ["normal_force", "force",
                                             "tangent_basis"]),
                       (fricl.scalar.evaluate, ["eps_v", "mu_profile"]),
                       (fricl.build.build, ["dhat", "kappa", "length"]),
                       (fricl.laws.evaluate, ["params", "state"])):
        text = pydoc.render_doc(obj)
        for w in words:
            assert w in text, (obj, w)
    assert "copy" in fricl._convert.__doc__


def test_conversions_are_silent(ref_ctx):
    """Converted inputs (other dtypes, orders, lists, float16, int64 ids)
    give the same results and no warning."""
    import warnings
    rng = np.random.default_rng(9)
    data = random_contacts(rng, 12, 3, {"ev": 5})
    d = data["ev"]
    v = velocities(rng, 12, 3, 1e-3)
    ref = ref_ctx.contacts(groups_of(data), 12).evaluate(v, 1e-3,
                                                         gradient=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = fricl.ContactGroup(
            "ev", d["ids"].astype(np.int64).tolist(),
            tangent_basis=np.asfortranarray(d["tangent_basis"]),
            normal_force=list(d["normal_force"]),
            mu_s=d["mu_s"].astype(">f8"), mu_k=d["mu_k"],
            closest_point=d["closest_point"][:, 0],
            weight=d["weight"], mu_aniso=d["mu_aniso"].tolist())
        r = ref_ctx.contacts([g], 12).evaluate(np.asfortranarray(v), 1e-3,
                                               gradient=True)
        ref_ctx.scalar("smooth_mu", np.zeros(4, np.float16), 1e-3, 0.5, 0.3)
        ref_ctx.scalar("smooth_mu", np.arange(4), 1, 0.5, 0.3)
    assert r.potential == ref.potential
    assert r.gradient.tobytes() == ref.gradient.tobytes()


def test_gil_is_released():
    """Another Python thread keeps running while fricl computes: its
    longest pause is far shorter than the fricl call (with the GIL held
    it would last the whole call)."""
    import time
    with fricl.Context("reference") as ctx:
        y = np.linspace(0, 3e-3, 4_000_000)
        ctx.scalar("smooth_friction_f0", y[:10], 1e-3)
        state = {"call": None}  # set by the worker

        def work():
            t0 = time.perf_counter()
            ctx.scalar("all", y, 1e-3, 0.5, 0.3)
            state["call"] = time.perf_counter() - t0

        t = threading.Thread(target=work)
        gap, last = 0.0, time.perf_counter()
        t.start()
        while state["call"] is None:
            now = time.perf_counter()
            gap, last = max(gap, now - last), now
        t.join()
        assert state["call"] > 0.05, state
        assert gap < 0.5 * state["call"], (gap, state["call"])


def test_count_arguments_are_refused_at_once(ref_ctx):
    """Negative or non-integer counts are refused where they are given,
    naming the argument (issue 19, defect 8): threads=-1 once wrapped to
    UINT_MAX threads (256 after fricl's cap), and contacts(groups, -1)
    surfaced later as an error about 'velocities'."""
    for kw, name in ((dict(threads=-1), "threads"),
                     (dict(threads=2**40), "threads"),
                     (dict(max_chunk_elements=-1), "max_chunk_elements"),
                     (dict(auto_crossover=-1), "auto_crossover"),
                     (dict(auto_crossover=float("nan")), "auto_crossover")):
        with pytest.raises(fricl.InvalidArgumentError, match=name):
            fricl.Context("reference", **kw)
    with pytest.raises(TypeError, match="threads"):
        fricl.Context("reference", threads=1.5)
    with fricl.Context("host", threads=np.int64(2)) as ctx:
        assert ctx.threads == 2
    rng = np.random.default_rng(4)
    groups = groups_of(random_contacts(rng, 10, 3, {"vv": 3}))
    with pytest.raises(fricl.InvalidArgumentError, match="n_vertices"):
        ref_ctx.contacts(groups, -1)
    with pytest.raises(TypeError, match="n_vertices"):
        ref_ctx.contacts(groups, 10.5)
    assert ref_ctx.contacts(groups, np.int32(10)).n_vertices == 10
