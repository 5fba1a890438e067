"""The transpose workload's declarations, without a GPU: cases, bytes, goals."""
import pytest

from bwlab.core.results import Record
from bwlab.lab.bench import NO_COPY_NOTE
from bwlab.core.workload import Case
from bwlab.workloads import get
from bwlab.workloads.transpose import cases, reference

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


def test_bench_suites():
    assert len(W.bench_cases()) == len(cases.BENCH_SHAPES) * len(cases.BENCH_DTYPES)
    assert {c.dtype for c in W.bench_cases(all_dtypes=True)} >= {"bool", "bfloat16", "complex64"}
    for suite in W.bench_suites:
        for c in W.bench_cases(suite):
            assert cases.shape_class(c) and W.bytes_moved(c) > 0
    for c in W.bench_cases("misaligned") + W.bench_cases("skinny"):
        e = reference.ITEMSIZE[c.dtype]
        assert W.bytes_moved(c) // 2 >= 256 << 20, c
        assert e == 16 or any((n * e) % 16 for n in c.shape[-2:]), c  # 16-byte elements always align
    skinny = {min(c.shape) for c in W.bench_cases("skinny")}
    assert skinny == set(cases.SHORT_SIDES) and max(skinny) == 64
    views = W.bench_cases("views")
    assert cases.view_shape(views[0]) == (16384, 16382) and W.bytes_moved(views[0]) == 2 * 16384 * 16382 * 4
    assert all(c.param("timing") == "wall" for c in W.bench_cases("small"))
    with pytest.raises(ValueError, match="suite must be one of"):
        W.bench_cases("nope")


def _rec(name, gbs, nbytes=2 << 30):
    return Record(name, "peer", "peer", "transpose", [16384, 16384], "float32", nbytes, gbs=gbs,
                  pct_memcpy=None if gbs is None else 100 * gbs / 4000)


def test_goals_name_each_miss_with_its_reason():
    case = Case((16383, 16389), "float64")
    misses = W.goals(case, [_rec("bwlab", 3000), _rec("cudaMemcpy", 4000), _rec("torch", 1800)])
    assert misses == ["75.0% of memcpy < 90%"]
    skinny = Case((10_000_001, 13), "float32")
    misses = W.goals(skinny, [_rec("bwlab", 3000), _rec("cudaMemcpy", 4000), _rec("torch", 3500)])
    assert any("slower than torch" in m for m in misses)
    view = _rec("torch", 90000)
    view.notes.append(NO_COPY_NOTE)  # torch returned a view of an n x 1 matrix: nothing to compare
    assert W.goals(Case((67_108_865, 1), "float32"), [_rec("bwlab", 3900), _rec("cudaMemcpy", 4000), view]) == []
    assert W.goals(case, [_rec("bwlab", 3700), _rec("cudaMemcpy", 4000), _rec("torch", 1000)]) == []
    assert W.goals(case, [_rec("bwlab", 10, nbytes=1 << 20)]) == []  # below the goals' size
    small = Case((32, 32), "float32", (("class", "small calls"), ("timing", "wall")))
    t = lambda name, ms: Record(name, "peer", "peer", "transpose", [32, 32], "float32", 8192, gbs=1.0,  # noqa: E731
                                timing={"median_ms": ms, "mean_ms": ms, "std_ms": 0, "min_ms": ms, "reps": 5})
    assert W.goals(small, [t("bwlab", 0.009), t("torch", 0.010), t("cupy", 0.008)]) == []
    assert "slower than torch and CuPy" in W.goals(small, [t("bwlab", 0.012), t("torch", 0.010), t("cupy", 0.008)])[0]


def test_why_missed_names_the_kernel_and_the_cause():
    assert "realigns them" in W.why_missed(Case((16383, 16389), "uint8"), "tileAlign<1,128,256,512>: x")
    shifted = W.why_missed(Case((16383, 16389), "uint8"), "tileWholeWords<1,256,124,512,3>: x")
    assert "rows of 16383x16389 do not start" in shifted and "shifted" in shifted
    for kernel in ("tileWholeWords<1,128,128,256>: x", "tileWholeWords<1,128,256,256>: x",
                   "tileWholeWords<2,128,128,256>: x"):  # only the output's rows misaligned: nothing shifted
        why = W.why_missed(Case((16389, 16384), "uint8"), kernel)
        assert why.startswith("output rows of 16384x16389 do not start") and "shifted" not in why, why
    assert "fill 64/128" in W.why_missed(Case((64, 4194304), "uint8"), "tileAny<1,128,256,512>: x")
