"""Every kernel, bit-exact against NumPy on fresh random data, output poisoned first."""
import numpy as np
import pytest

from bwlab import catalog, verify

pytestmark = pytest.mark.gpu

SHAPES = [(1, 1), (1, 1000), (1000, 1), (33, 31), (1025, 777), (4096, 4096), (3001, 9473)]
CASES = [(k, d) for k in catalog.KERNELS for d in (k.dtypes if k.args != "bytes" else ("float32", "float64"))]


@pytest.fixture(scope="module")
def launcher():
    from bwlab.launch import Launcher

    return Launcher()


def run_and_check(launcher, spec, shape, dtype, block=None):
    import cupy

    host = verify.random_host(shape, dtype)
    x = cupy.asarray(host)
    out = cupy.empty(spec.output_shape(*shape), dtype=x.dtype)
    verify.poison(out)
    launcher(spec, x, out, block)
    check = verify.compare(out.get(), verify.reference(host, spec.transposes))
    assert check.ok, f"{spec.name} {dtype} block {block}: {check}"
    assert verify.compare(x.get(), host).ok, "input was modified"


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("spec, dtype", CASES, ids=lambda v: v if isinstance(v, str) else v.name)
def test_kernel_bit_exact(launcher, spec, dtype, shape):
    run_and_check(launcher, spec, shape, dtype)


@pytest.mark.parametrize("spec", [k for k in catalog.KERNELS if k.blocks], ids=lambda s: s.name)
def test_every_compiled_block(launcher, spec):
    for block in spec.blocks:
        for shape in ((33, 31), (1025, 777)):
            run_and_check(launcher, spec, shape, spec.dtypes[0], block)


@pytest.mark.parametrize("spec", [k for k in catalog.KERNELS if k.blocks is None], ids=lambda s: s.name)
@pytest.mark.parametrize("block", [(32, 8), (16, 16), (64, 4), (128, 1), (1, 32), (7, 5)])
def test_runtime_blocks(launcher, spec, block):
    run_and_check(launcher, spec, (1025, 777), "float32", block)


def test_the_checker_catches_a_wrong_kernel(launcher):
    """A transpose launched where a copy is expected must fail the check: the check can fail."""
    import dataclasses

    from bwlab.ladder import precheck

    wrong = dataclasses.replace(catalog.get("copyRow"), role="transpose")  # copies, claims to transpose
    with pytest.raises(AssertionError, match="wrong elements"):
        run_and_check(launcher, wrong, (33, 31), "float32")
    assert not precheck(launcher, wrong, "float32", wrong.block, shapes=((5, 5),)).ok


BIG = (46341, 46341)  # 2,147,488,281 elements > 2^31


@pytest.mark.parametrize("name", ["copyVecUnroll4", "naiveRow", "tile32Swizzle", "tile32DoubleBuffer", "tileVec"])
def test_over_2_31_elements(launcher, name):
    """64-bit offsets: full comparison with CuPy's transpose plus independent spot checks."""
    import cupy

    spec = catalog.get(name)
    x = cupy.random.default_rng(7).standard_normal(BIG, dtype=np.float32)
    out = cupy.empty(spec.output_shape(*BIG), dtype=x.dtype)
    verify.poison(out)
    launcher(spec, x, out)
    ref = cupy.ascontiguousarray(x.T) if spec.transposes else x
    assert verify.compare(out, ref).ok
    del ref
    rng = np.random.default_rng(0)
    i = cupy.asarray(rng.integers(0, BIG[0], 100000))
    j = cupy.asarray(rng.integers(0, BIG[1], 100000))
    if spec.transposes:
        i[:10], j[:10] = BIG[0] - 1, BIG[1] - 1 - cupy.arange(10)  # the far corner, past 2^31
        assert bool((out[j, i].view(cupy.uint32) == x[i, j].view(cupy.uint32)).all())
    else:
        assert bool((out[i, j].view(cupy.uint32) == x[i, j].view(cupy.uint32)).all())
