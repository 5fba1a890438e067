"""Every kernel any workload may launch compiles for sm_90 without a GPU, with zero spills
(CI's build check), and the compiler's report is read right."""
import os
import subprocess
import sys

import pytest

import bwlab
from bwlab.core import build, ceilings
from bwlab.workloads import all_workloads

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


def _sources():
    from bwlab.workloads import claims, streams  # not ladder workloads: their kernels are registered apart

    out = {src: list(exprs) for src, exprs in ceilings.SOURCES.items()}
    for src, exprs in list(streams.SOURCES.items()) + list(claims.SOURCES.items()):  # claims.LOCAL_MEMORY: apart
        out.setdefault(src, []).extend(exprs)
    for w in all_workloads():
        for src, exprs in w.sources().items():
            out.setdefault(src, []).extend(exprs)
    return out


SOURCES = _sources()


def test_every_cu_file_is_built_by_someone():
    package = {p for p in __import__("pathlib").Path(bwlab.__file__).parent.rglob("*.cu")}
    assert package == set(SOURCES)


@pytest.mark.parametrize("source", sorted(SOURCES), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_instantiation_compiles_without_spills(source):
    exprs = sorted(set(SOURCES[source]))
    b = build.compile_each(source, exprs, "sm_90")  # one by one, as launches build them
    for expr in exprs:
        assert expr in b.by_expression[expr].symbols, f"{expr} not instantiated"
        r = b.resources[expr]
        assert r.registers > 0, f"{expr}: no compiler report"
        assert r.spill_stores == 0 and r.spill_loads == 0 and r.stack_bytes == 0, f"{expr} spills: {r}"
        assert r.smem_bytes <= 48 * 1024, f"{expr} needs opt-in shared memory"
    again = build.compile_each(source, exprs, "sm_90", jobs=1)  # from the cache
    assert {e: x.cubin_path for e, x in again.by_expression.items()} == \
        {e: x.cubin_path for e, x in b.by_expression.items()}


def test_unknown_source_and_bad_code_are_clear_errors(tmp_path):
    with pytest.raises(build.BuildError, match="no kernel source"):
        build.compile_source(tmp_path / "nope.cu", [], "sm_90")
    (tmp_path / "broken.cu").write_text("__global__ void k() { this is not C++ }")
    with pytest.raises(build.BuildError, match="broken.cu"):
        build.compile_source(tmp_path / "broken.cu", [], "sm_90")


def test_headers_come_from_bwlab_not_the_working_directory(tmp_path):
    """A header named like one of bwlab's in the caller's working directory or temporary folder
    (a learner's own common.cuh) is not compiled in place of bwlab's: NVRTC looks for a quoted
    #include there first unless told not to. The ptxas report (the registers) comes back too. In a
    fresh process, since NVRTC reads where its temporary folder is once."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "common.cuh").write_text("#error the working directory's common.cuh was included\n")
    source = next(s for s in SOURCES if s.name == "naive.cu")
    assert '#include "common.cuh"' in source.read_text()
    code = ("import sys; from bwlab.core import build; "
            "b = build.compile_source(sys.argv[1], [sys.argv[2]], 'sm_90'); "
            "print(sys.argv[2] in b.symbols, b.resources[sys.argv[2]].registers > 0)")
    env = {**os.environ, "TMPDIR": str(work), "BWLAB_CACHE": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.run([sys.executable, "-c", code, str(source), sorted(SOURCES[source])[0]], cwd=work, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "True True", (run.stdout, run.stderr[-2000:])


def test_arch_is_checked_before_compiling():
    assert build.check_arch("sm_90") == "sm_90" and build.check_arch("sm_90a") == "sm_90a"
    with pytest.raises(ValueError, match="must look like sm_90"):
        build.check_arch("banana")
    with pytest.raises(ValueError, match="cannot compile for sm_12"):
        build.check_arch("sm_12")
