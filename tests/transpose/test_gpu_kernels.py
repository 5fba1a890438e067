"""Every ladder kernel, bit-exact against NumPy on fresh random data, output poisoned first."""
import dataclasses

import numpy as np
import pytest

from bwlab.core import verify
from bwlab.workloads import get
from bwlab.workloads.transpose import catalog, launch
from bwlab.workloads.transpose.reference import host_transpose

pytestmark = pytest.mark.gpu
W = get("transpose")
SHAPES = [(1, 1), (1, 1000), (1000, 1), (33, 31), (1025, 777), (4096, 4096), (3001, 9473)]
CASES = [(k, d) for k in catalog.KERNELS for d in k.dtypes]


def run_and_check(spec, shape, dtype, block=None):
    import cupy

    host = verify.random_host(shape, dtype)
    x = cupy.asarray(host)
    out = cupy.empty(spec.output_shape(*shape), dtype=x.dtype)
    verify.poison(out)
    launch.prepare(spec, x, out, block).launch()
    check = verify.compare(out.get(), host_transpose(host) if spec.transposes else host)
    assert check.ok, f"{spec.name} {dtype} block {block}: {check}"
    assert verify.compare(x.get(), host).ok, "input was modified"


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("spec, dtype", CASES, ids=lambda v: v if isinstance(v, str) else v.name)
def test_kernel_bit_exact(spec, dtype, shape):
    run_and_check(spec, shape, dtype)


@pytest.mark.parametrize("spec", [k for k in catalog.KERNELS if k.blocks], ids=lambda s: s.name)
def test_every_compiled_block(spec):
    for block in spec.blocks:
        for shape in ((33, 31), (1025, 777)):
            run_and_check(spec, shape, spec.dtypes[0], block)


@pytest.mark.parametrize("spec", [k for k in catalog.KERNELS if k.blocks is None], ids=lambda s: s.name)
@pytest.mark.parametrize("block", [(32, 8), (16, 16), (64, 4), (128, 1), (1, 32), (7, 5)])
def test_runtime_blocks(spec, block):
    run_and_check(spec, (1025, 777), "float32", block)


def test_variants_are_exact():
    """One variant per tile shape and every cache hint on one (the variants sweep checks each
    configuration again before timing it)."""
    seen = set()
    for spec in W.variants():
        tile = spec.name.split("-")[1:3]
        if tuple(tile) in seen and "-64x64-t256-" not in spec.name:
            continue
        seen.add(tuple(tile))
        run_and_check(spec, (1025, 772), "float32")


def test_the_checker_catches_a_wrong_kernel():
    """A copy launched where a transpose is expected must fail the check: the check can fail."""
    from bwlab.lab.ladder import precheck

    wrong = dataclasses.replace(W.kernel("copyRow"), role="transpose")  # copies, claims to transpose
    with pytest.raises(AssertionError, match="wrong elements"):
        run_and_check(wrong, (33, 31), "float32")
    case = W.parse_case("64x64", "float32")
    assert not precheck(W, wrong, case, wrong.block).ok


BIG = (46341, 46341)  # 2,147,488,281 elements > 2^31


@pytest.mark.parametrize("name", ["naiveRow", "tile32Swizzle", "tile32DoubleBuffer", "tileVec"])
def test_over_2_31_elements(name):
    """64-bit offsets: full comparison with CuPy's transpose plus independent spot checks."""
    import cupy

    spec = W.kernel(name)
    x = cupy.random.default_rng(7).standard_normal(BIG, dtype=np.float32)
    out = cupy.empty(spec.output_shape(*BIG), dtype=x.dtype)
    verify.poison(out)
    launch.prepare(spec, x, out).launch()
    ref = cupy.ascontiguousarray(x.T)
    assert verify.compare(out, ref).ok
    del ref
    rng = np.random.default_rng(0)
    i = cupy.asarray(rng.integers(0, BIG[0], 100000))
    j = cupy.asarray(rng.integers(0, BIG[1], 100000))
    i[:10], j[:10] = BIG[0] - 1, BIG[1] - 1 - cupy.arange(10)  # the far corner, past 2^31
    assert bool((out[j, i].view(cupy.uint32) == x[i, j].view(cupy.uint32)).all())
