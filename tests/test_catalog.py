import pytest

from bwlab import catalog

LADDER = ["copyRow", "copyCol", "naiveRow", "naiveCol", "naiveRowUnroll4", "naiveColUnroll4",
          "diagonalRow", "diagonalCol", "smem", "smemPad", "smemPad2", "smemUnrollPad", "tile32",
          "tile32Swizzle", "tile32DoubleBuffer", "tile64x32", "tileVec", "copyVec"]


def test_the_whole_ladder_is_there():
    names = [k.name for k in catalog.KERNELS]
    assert len(names) == len(set(names))
    for n in LADDER:
        assert n in names


@pytest.mark.parametrize("spec", catalog.KERNELS, ids=lambda s: s.name)
def test_spec_is_complete(spec):
    assert spec.origin and spec.lesson
    assert spec.role in ("ceiling", "bound", "floor", "transpose")
    assert set(spec.dtypes) <= set(catalog.CTYPES)
    assert spec.block in spec.legal_blocks()
    for bx, by in spec.legal_blocks():
        assert 1 <= bx * by <= 1024
    assert "{" not in spec.expression(spec.dtypes[0], spec.block)


def test_output_shapes():
    assert catalog.get("naiveRow").output_shape(3, 5) == (5, 3)
    assert catalog.get("copyRow").output_shape(3, 5) == (3, 5)


def test_select_and_unknown_names():
    assert [k.name for k in catalog.select(["tileVec", "smem"])] == ["tileVec", "smem"]
    assert len(catalog.select(None)) == len(catalog.KERNELS)
    with pytest.raises(ValueError, match="unknown kernel 'nope'"):
        catalog.select(["nope"])


def test_expressions_fill_type_and_block():
    spec = catalog.get("smemPad")
    assert spec.expression("float64", (32, 8)) == "smemTranspose<double,32,8,1>"
    assert "smemTranspose<float,32,16,1>" in spec.expressions()
