"""Every kernel compiles for sm_90 without a GPU, with zero spills (CI's build check)."""
import pytest

from bwlab import build, catalog

SAMPLE_LOG = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z3fooPf' for 'sm_90'
ptxas info    : Function properties for _Z3fooPf
ptxas         .     8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 16640 bytes smem, 384 bytes cmem[0]
ptxas info    : Compiling entry function 'bar' for 'sm_90'
ptxas info    : Function properties for bar
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 0 barriers
"""


def test_parse_ptxas():
    res = build.parse_ptxas(SAMPLE_LOG)
    assert res["_Z3fooPf"] == build.Resources(registers=40, smem_bytes=16640, stack_bytes=8,
                                              spill_stores=4, spill_loads=12, barriers=1)
    assert res["bar"] == build.Resources(registers=10)


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    import os

    os.environ["BWLAB_CACHE"] = str(tmp_path_factory.mktemp("cache"))
    return {f: build.compile_family(f, e, "sm_90") for f, e in catalog.family_expressions().items()}


def test_every_source_family_is_built_by_the_catalog_or_the_transpose(builds):
    from bwlab import device, dispatch

    assert set(builds) | set(dispatch.expressions()) | {device.PEAK_FAMILY} == set(build.families())
    peak = build.compile_family(device.PEAK_FAMILY, device.PEAK_EXPRESSIONS, "sm_90")
    assert peak.resources["fmaPeak"].spill_stores == 0


@pytest.mark.parametrize("spec", catalog.KERNELS, ids=lambda s: s.name)
def test_kernel_compiles_without_spills(builds, spec):
    b = builds[spec.family]
    for expr in spec.expressions():
        assert expr in b.symbols, f"{expr} not instantiated"
        r = b.resources[expr]
        assert r.registers > 0, f"{expr}: no ptxas report"
        assert r.spill_stores == 0 and r.spill_loads == 0 and r.stack_bytes == 0, f"{expr} spills: {r}"
        assert r.smem_bytes <= 48 * 1024, f"{expr} needs opt-in shared memory"


def test_cache_hit_returns_the_same_build(builds):
    fam, exprs = next(iter(catalog.family_expressions().items()))
    again = build.compile_family(fam, exprs, "sm_90")
    assert again.cubin_path == builds[fam].cubin_path and again.symbols == builds[fam].symbols


def test_unknown_family_and_bad_source_are_clear_errors(tmp_path, monkeypatch):
    with pytest.raises(build.BuildError, match="no kernel source"):
        build.compile_family("nope", [], "sm_90")
    monkeypatch.setattr(build, "KERNEL_DIR", tmp_path)
    (tmp_path / "broken.cu").write_text("__global__ void k() { this is not C++ }")
    with pytest.raises(build.BuildError, match="broken.cu"):
        build.compile_family("broken", [], "sm_90")
