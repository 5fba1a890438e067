"""The transpose workload's declarations, without a GPU: cases, bytes, goals."""
import pytest

from bwlab.core.results import Record
from bwlab.core.workload import Case
from bwlab.workloads import get
from bwlab.workloads.transpose import cases

W = get("transpose")


def test_parse_case_validates_at_the_door():
    assert W.parse_case("8192x4096", "uint8") == Case((8192, 4096), "uint8")
    assert W.parse_case(None, None) == W.default_case() == Case((16384, 16384), "float32")
    assert W.parse_case("2x3x4", "bfloat16").shape == (2, 3, 4)
    for bad, words in (("abc", "shape must look like"), ("12", "2 or more"), ("-1x4", "non-negative")):
        with pytest.raises(ValueError, match=words):
            W.parse_case(bad, None)
    with pytest.raises(ValueError, match="dtype must be one of"):
        W.parse_case("4x4", "float128")


def test_bytes_moved_counts_read_and_write():
    assert W.bytes_moved(Case((16384, 16384), "float32")) == 2 * 16384 * 16384 * 4
    assert W.bytes_moved(Case((3, 5, 7), "complex128")) == 2 * 105 * 16
    assert W.bytes_moved(Case((4, 4), "bfloat16")) == 64


def test_bench_cases():
    assert len(W.bench_cases()) == len(cases.BENCH_SHAPES) * len(cases.BENCH_DTYPES)
    assert {c.dtype for c in W.bench_cases(all_dtypes=True)} >= {"bool", "bfloat16", "complex64"}


def _rec(name, gbs, nbytes=2 << 30):
    return Record(name, "peer", "peer", "transpose", [16384, 16384], "float32", nbytes, gbs=gbs,
                  pct_memcpy=None if gbs is None else 100 * gbs / 4000)


def test_goals_name_each_miss_with_its_reason():
    case = Case((16384, 16384), "float64")
    recs = [_rec("bwlab", 3700), _rec("cudaMemcpy", 4000), _rec("torch", 1800), _rec("triton", 3800)]
    misses = W.goals(case, recs)
    assert any("92.5% of memcpy < 95%" in m for m in misses)
    assert any("only 2.06x torch" in m and "unreachable" in m for m in misses)
    assert any("slower than triton" in m for m in misses)
    assert W.goals(case, [_rec("bwlab", 3990), _rec("cudaMemcpy", 4000), _rec("torch", 1000)]) == []
    assert W.goals(case, [_rec("bwlab", 10, nbytes=1 << 20)]) == []  # below the goals' size


def test_why_missed_names_the_kernel_and_the_cause():
    assert "not a multiple of 16 elements" in W.why_missed(Case((16381, 16387), "uint8"), "tileScalar<1,64,64,256>: x")
    assert "fill 64/128" in W.why_missed(Case((64, 4194304), "uint8"), "tileAny<1,128,256,512>: x")
