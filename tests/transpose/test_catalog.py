import pytest

from bwlab.core.workload import CTYPES
from bwlab.workloads import get
from bwlab.workloads.transpose import catalog, launch

W = get("transpose")
LADDER = ["copyRow", "copyCol", "naiveRow", "naiveCol", "naiveRowUnroll4", "naiveColUnroll4",
          "diagonalRow", "diagonalCol", "smem", "smemPad", "smemPad2", "smemUnrollPad", "tile32",
          "tile32Swizzle", "tile32DoubleBuffer", "tile64x32", "tileVec"]


def test_the_whole_ladder_is_there():
    names = [k.name for k in W.kernels()]
    assert len(names) == len(set(names)) and set(LADDER) <= set(names)
    variants = [k.name for k in W.variants()]
    assert len(variants) == len(set(variants)) == 168


@pytest.mark.parametrize("spec", catalog.KERNELS, ids=lambda s: s.name)
def test_spec_is_complete_and_says_nothing_a_user_cannot_see(spec):
    assert spec.origin and spec.lesson
    assert spec.role in ("ceiling", "bound", "floor", "transpose")
    assert set(spec.dtypes) <= set(CTYPES)
    assert spec.block in spec.legal_blocks()
    for bx, by in spec.legal_blocks():
        assert 1 <= bx * by <= 1024
    assert "{" not in spec.expression(spec.dtypes[0], spec.block)
    for text in (spec.origin, spec.lesson, spec.fixed):
        assert "seed" not in text.lower() and "DESIGN" not in text and "issue" not in text.lower()


def test_output_shapes():
    assert W.kernel("naiveRow").output_shape(3, 5) == (5, 3)
    assert W.kernel("copyRow").output_shape(3, 5) == (3, 5)


def test_unknown_names():
    with pytest.raises(ValueError, match="unknown kernel 'nope'"):
        W.kernel("nope")
    with pytest.raises(ValueError, match="unknown peer 'nope'"):
        W.peer("nope")


def test_expressions_fill_type_and_block():
    spec = W.kernel("smemPad")
    assert spec.expression("float64", (32, 8)) == "smemTranspose<double,32,8,1>"
    assert "smemTranspose<float,32,16,1>" in spec.expressions()


def test_templated_kernels_accept_only_compiled_blocks():
    spec = W.kernel("tile32")
    spec.check_block((32, 16))
    with pytest.raises(ValueError, match="block 64x8 not available"):
        spec.check_block((64, 8))


def test_runtime_block_kernels_take_any_legal_block():
    spec = W.kernel("naiveRow")
    spec.check_block((128, 8))
    with pytest.raises(ValueError, match="1..1024 threads"):
        spec.check_block((64, 32))


def test_too_tall_for_the_grid_is_refused():
    spec = W.kernel("naiveRow")  # grid.y = rows / 16 must stay <= 65535
    assert launch.grid_for(spec, 65535 * 16, 3, (32, 16))[1] == 65535
    with pytest.raises(ValueError, match="over the CUDA limit"):
        launch.grid_for(spec, 65535 * 16 + 1, 3, (32, 16))
