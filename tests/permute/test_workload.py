"""The permute workload without a GPU: cases from the command line, the bench's cases and goals."""
import pytest

from bwlab.core.results import Record
from bwlab.core.workload import Case
from bwlab.workloads import get
from bwlab.workloads.permute import cases

W = get("permute")


def test_parse_case():
    c = W.parse_case("64x128x128x64", "float16", dims="0,2,1,3")
    assert c.shape == (64, 128, 128, 64) and c.param("dims") == (0, 2, 1, 3)
    assert W.parse_case("2x3x4", None).param("dims") == (2, 1, 0)  # full reversal by default
    assert W.parse_case(None, None) == cases.LADDER_CASE
    assert W.size_case(8192, "float32") == Case((8192, 8192), "float32", (("dims", (1, 0)),))  # bwlab profile's default
    for bad, err in [({"dims": "0,1"}, "has 2 axes"), ({"dims": "x"}, "3,2,1,0"), ({"axis": "1"}, "unknown")]:
        with pytest.raises(ValueError, match=err):
            W.parse_case("2x3x4", None, **bad)


def test_bench_covers_the_required_permutations():
    cs = W.bench_cases()
    assert {len(c.shape) for c in cs} == {2, 3, 4, 5, 6}
    assert {c.dtype for c in cs} == {"uint8", "float16", "float32", "float64"}
    assert sum(cases.is_reversal(c) for c in cs) >= 3 * 4
    assert W.bytes_moved(Case((2, 3), "float32", (("dims", (1, 0)),))) == 48


def rec(name, gbs, pct=None, nbytes=2 << 30):
    r = Record(name, "api" if name == "bwlab" else "peer", "peer", "permute", [64, 128, 128, 64], "float32", nbytes,
               workload="permute")
    r.gbs, r.pct_memcpy = gbs, pct
    return r


def test_goals():
    rev = Case((64, 128, 128, 64), "float32", (("dims", (3, 2, 1, 0)),))
    assert cases.goals(rev, [rec("bwlab", 3600, 90), rec("torch", 273)]) == []
    misses = cases.goals(rev, [rec("bwlab", 2000, 50), rec("torch", 273)])
    assert any("85%" in m for m in misses) and any("10x" in m for m in misses)
    swap = Case((64, 128, 128, 64), "float32", (("dims", (0, 2, 1, 3)),))
    assert any("slower than torch" in m for m in cases.goals(swap, [rec("bwlab", 2000, 90), rec("torch", 2400)]))
    assert cases.goals(swap, [rec("bwlab", 100, 5, nbytes=1 << 20)]) == []  # below 64 MiB: no goal
