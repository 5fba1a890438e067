"""Every kernel a claim builds compiles for sm_90 without a GPU: no stack frame and no spills,
except the instantiations declared as deliberate local-memory users, which must use it; and the
divergent-barrier kernel compiles without a word from the compiler (what its claim reports)."""
import pytest

from bwlab.core import build
from bwlab.workloads import claims

OWN = claims.SOURCES


@pytest.mark.parametrize("source", sorted(OWN), ids=lambda p: p.name)
def test_claim_kernels_compile_for_sm90_without_spills(source):
    b = build.compile_each(source, OWN[source], "sm_90")
    for expr, r in b.resources.items():
        assert r.registers > 0, f"{expr}: no compiler report"
        assert r.stack_bytes == 0 and r.spills == 0, f"{expr} uses local memory: {r}"
        assert r.smem_bytes <= 48 * 1024


@pytest.mark.parametrize("source", sorted(claims.LOCAL_MEMORY), ids=lambda p: p.name)
def test_declared_local_memory_kernels_do_use_it(source):
    b = build.compile_each(source, claims.LOCAL_MEMORY[source], "sm_90")
    for expr, r in b.resources.items():
        assert r.stack_bytes > 0, f"{expr} was declared as using local memory but does not: {r}"


def test_the_spill_pair_differs_only_in_spilling():
    src = claims.get("fewer-threads-more-registers").kernels[0].source
    b = build.compile_each(src, ["liveValues<8>", "liveValues<1>"], "sm_90")
    capped, free = b.resources["liveValues<8>"], b.resources["liveValues<1>"]
    assert capped.registers <= 32 and capped.spills > 0
    assert free.registers > 32 and free.spills == 0 and free.stack_bytes == 0


def test_a_divergent_barrier_compiles_silently():
    src = claims.get("divergent-syncthreads").kernels[0].source
    b = build.compile_source(src, ["barrierInBranch"], "sm_90")
    assert b.resources["barrierInBranch"].barriers == 1
    assert not [line for line in b.log.splitlines() if "warning" in line.lower() or "error" in line.lower()]


def test_restrict_changes_the_build_of_the_kernel_with_loads_after_stores():
    # __restrict__ reaches the compiler through the Pointers<true> typedefs: the 8-step build keeps
    # fewer values live (it loads a[i] and b[i] once instead of after every store)
    src = claims.get("restrict-pointers").kernels[0].source
    r = build.compile_each(src, ["hornerInPlace<false,8>", "hornerInPlace<true,8>"], "sm_90").resources
    assert r["hornerInPlace<true,8>"].registers < r["hornerInPlace<false,8>"].registers
