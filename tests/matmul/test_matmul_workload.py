"""The matmul workload's declarations, without a GPU: catalog, cases, models, goals."""
import importlib

import pytest

from bwlab.core.results import Record, Run
from bwlab.core.workload import Case

W = importlib.import_module("bwlab.workloads.matmul").WORKLOAD
catalog = importlib.import_module("bwlab.workloads.matmul.catalog")
reference = importlib.import_module("bwlab.workloads.matmul.reference")
LADDER = ["naive", "tiled", "coarseSeed", "coarse", "regBlock", "vecBlock", "warpTile", "asyncCopy", "pipelined",
          "tuned"]


def test_the_ladder_in_teaching_order():
    assert [k.name for k in W.kernels()] == LADDER
    names = [k.name for k in W.variants()]
    assert len(names) == len(set(names)) and not set(names) & set(LADDER)
    assert W.kernel(catalog.BEST) and W.peer("bwlab")


@pytest.mark.parametrize("spec", list(W.kernels()) + list(W.variants()), ids=lambda s: s.name)
def test_spec_is_complete(spec):
    assert spec.origin and spec.lesson and spec.role == "matmul" and spec.dtypes == ("float32",)
    assert spec.block in spec.legal_blocks() and 1 <= spec.block[0] * spec.block[1] <= 1024
    assert "{" not in spec.expression("float32", spec.block)
    for text in (spec.origin, spec.lesson, spec.fixed):
        assert "seed" not in text.lower() and "issue" not in text.lower()
    assert spec.grid(1, 1, spec.block) == (1, 1)
    rows, cols = spec.covers(*spec.block)
    assert spec.grid(rows + 1, 2 * cols, spec.block) == (2, 2)


def test_parse_case():
    assert W.parse_case(None, None) == W.default_case() == Case((4096, 4096, 4096), "float32")
    assert W.parse_case("8192x8192x1024", None).shape == (8192, 8192, 1024)
    assert W.parse_case("1000", "float32").shape == (1000, 1000, 1000)
    for bad, words in (("abc", "MxNxK"), ("4x4", "three extents"), ("1x2x3x4", "three extents"),
                       ("-1x4x4", "non-negative"), ("4x4x3000000000", "at most")):
        with pytest.raises(ValueError, match=words):
            W.parse_case(bad, None)
    with pytest.raises(ValueError, match="dtype must be one of float32"):
        W.parse_case("4x4x4", "float64")


def test_models():
    c = Case((8192, 8192, 1024), "float32")
    assert W.flops(c) == 2 * 8192 * 8192 * 1024
    assert W.bytes_moved(c) == 4 * (8192 * 1024 + 1024 * 8192 + 8192 * 8192)
    shapes = [x.shape for x in W.bench_cases()]
    assert shapes == [(1024,) * 3, (2048,) * 3, (4096,) * 3, (8192,) * 3, (8192, 8192, 1024), (1024, 1024, 32768)]
    assert W.precheck_cases(c)[0].shape == (1, 1, 1)


def test_packing_keeps_b_aligned():
    for m, n, k in ((1, 1, 1), (3, 5, 7), (4096, 4096, 4096), (5, 7, 0)):
        off = reference.b_offset(m, k)
        assert off >= m * k and off % 64 == 0 and reference.packed_size(m, n, k) == off + k * n


def _rec(name, gflops, shape=(4096, 4096, 4096)):
    return Record(name, "peer", "peer", "matmul", list(shape), "float32", 1, gflops=gflops, correct=True,
                  workload="matmul")


def test_goals():
    c4 = Case((4096, 4096, 4096), "float32")
    assert W.goals(c4, [_rec("bwlab", 46000), _rec("torch", 50000)]) == []
    assert W.goals(c4, [_rec("bwlab", 40000), _rec("torch", 50000)]) == ["80.0% of cuBLAS SGEMM (torch) < 90%"]
    assert W.goals(c4, [_rec("bwlab", 40000), _rec("cupy", 50000)])[0].endswith("(cupy) < 90%")
    assert W.goals(Case((2048,) * 3, "float32"), [_rec("bwlab", 38000), _rec("torch", 46000)]) == []
    assert W.goals(Case((8192, 8192, 1024), "float32"), [_rec("bwlab", 1), _rec("torch", 50000)]) == []
    assert "not timed" in W.goals(c4, [_rec("torch", 50000)])[0]


def test_bench_table():
    recs = [_rec("bwlab", 45000), _rec("torch", 50000), _rec("torch-tf32", 300000),
            _rec("bwlab", 20000, (8192, 8192, 1024)), _rec("torch", 40000, (8192, 8192, 1024))]
    run = Run(device={"name": "GPU"}, environment={}, config={"procedure": "bench", "workload": "matmul"},
              records=recs)
    (t,) = W.tables(run)
    assert t.rows[0] == ["4096x4096x4096", "45.0", "50.0", "90", ">= 90%", "300"]
    assert t.rows[1][3] == "50" and t.flags == ["", ""]


def test_public_kernel_choice():
    small = catalog.sgemm_name(catalog.SMALL_C)
    assert catalog.kernel_for(4096, 4096, 132) == catalog.BEST == "tuned"
    assert catalog.kernel_for(2048, 1100, 132) == "tuned"   # 16 x 9 = 144 tiles of 128 x 128
    assert catalog.kernel_for(1024, 1024, 132) == small      # 64 tiles: a 64 x 64 tile gives 256 blocks
    assert catalog.kernel_for(1, 1, 132) == small and W.kernel(small).shared > 0


@pytest.mark.parametrize("spec", [s for s in list(W.kernels()) + list(W.variants()) if s.shared],
                         ids=lambda s: s.name)
def test_dynamic_shared_memory_fits_an_sm(spec):
    """Opt-in limit per block on sm_90 (227 KiB), and the launcher opts in only past 48 KiB."""
    p = [int(v) for v in spec.template[spec.template.index("<") + 1:-1].split(",")]
    bm, bn, bk, stages = p[0], p[1], p[2], p[7]
    assert spec.shared == 4 * stages * bk * (bm + 4 + bn) <= 227 * 1024


def test_only_the_tf32_peer_says_it_computes_in_another_precision():
    assert {p.name: p.precision for p in W.peers()} == {"bwlab": "", "torch": "", "cupy": "", "torch-tf32": "tf32"}
