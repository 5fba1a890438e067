"""Every matmul kernel against a float64 product on fresh random data, output poisoned
first, at awkward shapes (1s, primes, no multiple of any tile, non-square, K = 0); the
check's tolerance: |err| <= 4 sqrt(K) 2^-24 (|A||B|)_ij (see the workload's reference)."""
import importlib

import pytest

from bwlab.core import build, verify
from bwlab.core import launch as core_launch
from bwlab.core.workload import Case

pytestmark = pytest.mark.gpu
W = importlib.import_module("bwlab.workloads.matmul").WORKLOAD
ref = importlib.import_module("bwlab.workloads.matmul.reference")
mlaunch = importlib.import_module("bwlab.workloads.matmul.launch")
LADDER = list(W.kernels())
# (300, 520, 64): blocks inside C beside blocks on its edges
SHAPES = list(ref.AWKWARD) + [(1000, 1000, 1000), (515, 771, 1029), (64, 2050, 16), (300, 520, 64)]
_cache: dict = {}


@pytest.fixture(scope="module", autouse=True)
def built():
    """Compile everything once, in parallel (launches then load from the cache)."""
    arch = core_launch.arch_of(0)
    for src, exprs in W.sources().items():
        build.compile_each(src, exprs, arch)


def case_data(shape):
    if shape not in _cache:
        case = Case(shape, "float32")
        x = W.make_input(case, seed=sum(shape))
        _cache[shape] = (case, x, W.reference(case, x), x.copy())
    return _cache[shape]


def run_and_check(spec, shape):
    case, x, want, orig = case_data(shape)
    out = W.new_output(case, x)
    verify.poison(out)
    W.prepare(spec, x, out, case).launch()
    check = W.check(out, want)
    assert check.ok, f"{spec.name} at {shape}: {check}"
    assert verify.compare(x, orig).ok, f"{spec.name} modified its input"


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("spec", LADDER, ids=lambda s: s.name)
def test_kernel_matches_float64(spec, shape):
    run_and_check(spec, shape)


@pytest.mark.parametrize("spec", list(W.variants()), ids=lambda s: s.name)
def test_every_variant(spec):
    for shape in ((129, 127, 131), (97, 1021, 253), (256, 256, 64), (300, 520, 64)):
        run_and_check(spec, shape)


@pytest.mark.parametrize("name", ["vecBlock", "warpTile", "asyncCopy", "pipelined", "tuned"])
@pytest.mark.parametrize("skew", ["A", "B", "C"])
def test_misaligned_operands_take_the_element_path(name, skew):
    """N and K multiples of 4 but one operand 4 bytes off a 16-byte boundary: the kernels
    must notice and use 4-byte accesses."""
    import cupy

    spec = W.kernel(name)
    m, n, k = 67, 132, 260
    base = cupy.random.default_rng(3).random(m * k + k * n + m * n + 16, dtype=cupy.float32) - 0.5
    oa = 1 if skew == "A" else 0
    ob = m * k + 4 + (1 if skew == "B" else 0)
    a = base[oa: oa + m * k].reshape(m, k)
    b = base[ob: ob + k * n].reshape(k, n)
    cbuf = cupy.empty(m * n + 4, cupy.float32)
    oc = 1 if skew == "C" else 0
    c = cbuf[oc: oc + m * n].reshape(m, n)
    verify.poison(cbuf)
    mlaunch.prepare_operands(spec, a, b, c).launch()
    check = ref.compare(c, ref.product(a, b))
    assert check.ok, f"{name}, {skew} misaligned: {check}"


def test_the_checker_catches_wrong_answers():
    case, x, want, _ = case_data((129, 127, 131))
    out = W.new_output(case, x)
    W.prepare(W.kernel("tiled"), x, out, case).launch()
    assert W.check(out, want).ok
    a, b = W.operands(case, x)
    out[5, 7] -= a[5, 100] * b[100, 7] + 0.01 * float(want.bound[5, 7].get()) / 131  # one term lost, about
    assert not W.check(out, want).ok
    verify.poison(out)
    assert not W.check(out, want).ok  # NaN fails
    assert "wrong elements" in str(W.check(out, want))
    wrong = W.new_output(Case((129, 131, 127), "float32"), x)
    assert not W.check(wrong, want).ok  # shape


def test_refusals():
    import cupy

    spec = W.kernel("pipelined")
    case = Case((64, 48, 32), "float32")
    x = W.make_input(case, 1)
    out = W.new_output(case, x)
    with pytest.raises(ValueError, match="packs"):
        W.prepare(spec, x[:-1], out, case)
    with pytest.raises(ValueError, match="C must be 64x48"):
        W.prepare(spec, x, cupy.empty((48, 64), cupy.float32), case)
    with pytest.raises(TypeError, match="dtype"):
        W.prepare(spec, x, cupy.empty((64, 48), cupy.float64), case)
    with pytest.raises(ValueError, match="C-contiguous"):
        W.prepare(spec, x, cupy.empty((48, 64), cupy.float32).T, case)
    a, b = W.operands(case, x)
    with pytest.raises(ValueError, match="inner extents"):
        mlaunch.prepare_operands(spec, a, b[:16], out)
    with pytest.raises(ValueError, match="overlaps"):
        mlaunch.prepare_operands(spec, a, b, x[: 64 * 48].reshape(64, 48))
    with pytest.raises(ValueError, match="block"):
        W.prepare(spec, x, out, case, (128, 1))
    with pytest.raises(ValueError, match="float64"):
        W.prepare(spec, x, out, Case((64, 48, 32), "float64"))


def test_peers_agree():
    case, x, want, _ = case_data((515, 771, 1029))
    for p in W.peers():
        why = p.unavailable(case.dtype)
        if why:
            continue
        out = W.new_output(case, x)
        verify.poison(out)
        fn, result = p.make(x, out, case)
        fn()
        check = W.check(result(), want)
        assert check.ok, f"{p.name}: {check}"


def test_big_k_on_the_gpu_reference():
    """A long K, 2 M N K above the host limit: the reference is cuBLAS DGEMM."""
    case = Case((257, 515, 16411), "float32")
    x = W.make_input(case, 5)
    want = W.reference(case, x)
    for name in ("coarse", "vecBlock", "pipelined", "tuned"):
        out = W.new_output(case, x)
        verify.poison(out)
        W.prepare(W.kernel(name), x, out, case).launch()
        check = W.check(out, want)
        assert check.ok, f"{name}: {check}"
