"""The stream kernels compile for sm_90 without a GPU, with zero spills, and read the clock and
the SM id from PTX special registers (no toolkit header)."""
from bwlab.core import build
from bwlab.workloads.streams import KERNELS, SOURCES
from bwlab.workloads.streams.scenarios import SOURCE


def test_kernels_compile_for_sm90_without_spills():
    assert set(SOURCES) == {SOURCE} and SOURCE.suffix == ".cu"
    b = build.compile_each(SOURCE, KERNELS, "sm_90", jobs=1)
    for k in KERNELS:
        r = b.resources[k]
        assert r.registers > 0, f"{k}: no compiler report"
        assert r.spill_stores == 0 and r.spill_loads == 0 and r.stack_bytes == 0, f"{k} spills: {r}"
        assert r.smem_bytes == 0


def test_the_clock_comes_from_ptx():
    text = SOURCE.read_text()
    assert "%%globaltimer" in text and "%%smid" in text and "#include <" not in text
