"""The verdict rules on recorded numbers: each claim decides as expected on near-H200 numbers, and
changes its verdict when the numbers say otherwise (no GPU)."""
import pytest

from bwlab.workloads.claims import CLAIMS, DEPENDS, FAILS, HOLDS, Verdict, get
from bwlab.workloads.claims.claim import speedup_verdict, trend
from ledger_synth import EXPECTED, numbers

MEASURED = [c.id for c in CLAIMS if c.measured]


@pytest.mark.parametrize("cid", MEASURED)
def test_rule_on_near_h200_numbers(cid):
    v = get(cid).decide(numbers(cid))
    assert v.status == EXPECTED[cid], v.text
    assert v.text and (v.status != DEPENDS or v.on)


# (claim, changed numbers, the verdict they must give)
FLIPS = [
    ("column-reads", {"naiveCol_gbs": 500.0}, FAILS),
    ("naive-unroll", {"naiveRowUnroll4_gbs": 700.0}, HOLDS),
    ("naive-unroll", {"naiveColUnroll4_gbs": 1500.0}, FAILS),
    ("diagonal-order", {"diagonalRow_gbs": 700.0}, DEPENDS),
    ("diagonal-order", {"diagonalRow_gbs": 700.0, "diagonalCol_gbs": 1700.0}, HOLDS),
    ("thin-blocks", {"naiveCol_32x8_gbs": 1700.0}, FAILS),
    ("thin-blocks", {"naiveCol_32x8_gbs": 1510.0}, HOLDS),   # within 2% of the best counts as the best
    ("smem-tile", {"smem_gbs": 560.0}, FAILS),
    ("padding", {"columnReads_padded_cycles": 30.0}, FAILS),
    ("padding", {"tile32Pad_gbs": 1770.0}, DEPENDS),
    ("swizzle", {"columnReads_swizzled_cycles": 20.0}, FAILS),
    ("swizzle", {"tile32Swizzle_gbs": 1700.0}, DEPENDS),
    ("double-buffer", {"tile32DoubleBuffer_32x32_gbs": 3200.0}, HOLDS),
    ("larger-tiles", {"tile64Pad_gbs": 3000.0}, DEPENDS),
    ("larger-tiles", {"tile64Pad_gbs": 3000.0, "tile64x32_gbs": 2000.0, "tile64x32_32x32_gbs": 2000.0}, FAILS),
    ("smem-unroll", {"smemUnrollPad_gbs": 1900.0}, FAILS),
    ("copy-upper-bound", {"tile64Pad_gbs": 2000.0, "tileVec_gbs": 2100.0}, HOLDS),
    ("copy-lower-bound", {"naiveRowUnroll4_gbs": 400.0}, FAILS),
    ("peak-bandwidth", {"copyVec_gbs": 5000.0}, FAILS),
    ("peak-bandwidth", {"cudaMemcpy_gbs": 2000.0, "copyVec_gbs": 2000.0, "copyVecUnroll4_gbs": 2000.0}, DEPENDS),
    ("peak-flops", {"fmaPeak_gflops": 70000.0}, FAILS),
    ("peak-flops", {"fmaPeak_gflops": 40000.0}, DEPENDS),
    ("memory-levels", {"DRAM_cycles": 60.0}, FAILS),
    ("memory-levels", {"shared_read_gbs": 5000.0}, FAILS),
    ("local-memory", {"local_cycles": 5.0}, HOLDS),
    ("local-memory", {"local_cycles": 9.0}, DEPENDS),
    ("fewer-threads-more-registers", {"spill_ms": 1.0}, FAILS),
    ("fewer-threads-more-registers", {"spill_ms": 0.5}, FAILS),
    ("constant-broadcast", {"constant_divergent_ms": 0.15}, FAILS),
    ("read-only-cache", {"ldg_reuse_gbs": 4500.0}, HOLDS),
    ("coalescing", {"offset1_gbs": 2800.0}, HOLDS),
    ("latency-hiding", {"DRAM_latency_cycles": 6000.0}, DEPENDS),
    ("latency-hiding", {"w4_k4_gbs": 520.0}, FAILS),
    ("coalescing", {"stride2_gbs": 3250.0, "stride8_gbs": 3000.0}, FAILS),
    ("shift-for-pow2", {"constant_ms": 2.0}, HOLDS),
    ("shift-for-pow2", {"runtime_ms": 0.5}, FAILS),
    ("rsqrtf", {"rsqrtf_geval_s": 400.0}, FAILS),
    ("double-literals", {"double_literals_geval_s": 3000.0}, FAILS),
    ("fast-intrinsics", {"__expf_geval_s": 800.0}, DEPENDS),
    ("fast-intrinsics", {"__expf_geval_s": 800.0, "__sinf_geval_s": 600.0, "__logf_geval_s": 700.0,
                         "__fdividef_geval_s": 500.0}, FAILS),
    ("fast-intrinsics", {"__logf_max_ulp": 0.1}, DEPENDS),
    ("warp-divergence", {"lanes_ms": 1.05}, FAILS),
    ("warp-divergence", {"warps_ms": 1.5, "lanes_ms": 2.6}, DEPENDS),
    ("signed-loop-counters", {"unsigned_ms": 1.3}, HOLDS),
    ("signed-loop-counters", {"unsigned_ms": 0.8}, FAILS),
    ("divergent-syncthreads", {"divergent_diagnostics": 2}, FAILS),
    ("thread-coarsening", {"coarse-t16-c16_tflops": 8.9}, DEPENDS),
    ("thread-coarsening", {"coarse-t16-c16_occupancy_pct": 100.0}, DEPENDS),   # slower, but not from occupancy
    ("thread-coarsening", {f"coarse-t16-c{cf}_tflops": 7.6 for cf in (2, 4, 8, 16)}, FAILS),
    ("register-tiling", {"regBlock_tflops": 9.0}, FAILS),
    ("null-stream", {"overlap_k2_k3": 0.6}, FAILS),
    ("null-stream", {"gap_k1_k2_us": -50.0}, FAILS),
    ("null-stream", {"overlap_k1_k3_without_null": 0.0, "span_without_null_us": 6010.0}, DEPENDS),
    ("bottleneck-cases", {"fmaChains_pct_fp32": 30.0}, DEPENDS),     # between the bands: no case
    ("bottleneck-cases", {"strideRead_pct_bw": 60.0}, DEPENDS),      # read as bandwidth-bound
    ("bottleneck-cases", {"scaleVec_pct_bw": 40.0, "fmaChains_pct_fp32": 30.0, "strideRead_pct_bw": 60.0}, FAILS),
    ("char-short-promotion", {f"{t}_madd_gsteps": 70.0 for t in ("u8", "u16", "s8", "s16")}, DEPENDS),
    ("char-short-promotion", {"s8_madd_gsteps": 70.0}, DEPENDS),
    ("char-short-promotion", {f"{t}_{op}_gsteps": v for t in ("u8", "u16", "s8", "s16")
                              for op, v in (("madd", 68.0), ("xorshift", 31.0))}, FAILS),
    ("restrict-pointers", {"restrict_1_gbs": 4500.0}, HOLDS),
    ("restrict-pointers", {"restrict_8_gbs": 2040.0}, FAILS),
    ("dram-banks", {"s65536_gbs": 2000.0}, HOLDS),
    ("dram-banks", {"s4096_gbs": 3600.0}, DEPENDS),
]


@pytest.mark.parametrize("cid, change, want", FLIPS, ids=[f"{c}-{w}-{i}" for i, (c, _, w) in enumerate(FLIPS)])
def test_rule_follows_the_numbers(cid, change, want):
    v = get(cid).decide(numbers(cid, **change))
    assert v.status == want, v.text


def test_every_measured_claim_can_change_its_verdict():
    assert {c for c, _, _ in FLIPS} == set(MEASURED)


def test_the_depends_verdicts_say_on_what_they_found():
    v = get("char-short-promotion").decide(numbers("char-short-promotion", **{f"{t}_madd_gsteps": 70.0
                                                                              for t in ("u8", "u16", "s8", "s16")}))
    assert v.on.startswith("the operation: a shift") and "x = x ^ (x >> 3): unsigned char 1.30x" in v.text
    v = get("char-short-promotion").decide(numbers("char-short-promotion", s8_madd_gsteps=70.0))
    assert v.on.startswith("the type and the operation") and " signed char (madd)" not in v.on
    assert "unsigned char (madd)" in v.on
    v = get("bottleneck-cases").decide(numbers("bottleneck-cases", strideRead_pct_bw=60.0))
    assert v.on.endswith("misread strideRead") and "strideRead (built for case 3, read as case 1)" in v.text
    v = get("restrict-pointers").decide(numbers("restrict-pointers"))
    assert "8 steps, loads after stores only" in v.text and "(16 registers)" in v.text
    v = get("dram-banks").decide(numbers("dram-banks", s65536_gbs=2000.0))
    assert "64 KiB" in v.text and "49% lost" in v.text
    v = get("null-stream").decide(numbers("null-stream"))
    assert "2.00x as long" in v.text and "K2 started 3.2 us after K1 ended" in v.text


def test_bottleneck_diagnosis_bands():
    from bwlab.workloads.claims.bottleneck import diagnose

    assert diagnose(0.85, 0.02) == 1 and diagnose(0.02, 0.87) == 2 and diagnose(0.13, 0.002) == 3
    assert diagnose(0.4, 0.02) == 0 and diagnose(0.6, 0.6) == 0 and diagnose(0.1, 0.3) == 0


def test_trend_has_a_noise_band():
    assert trend(1.2) == 1 and trend(1 / 1.2) == -1 and trend(1.02) == 0 and trend(0.97) == 0


def test_speedup_verdict_says_where_it_helps():
    v = speedup_verdict({"a": 1.5, "b": 0.9}, "It", "the case")
    assert v.status == DEPENDS and v.on == "the case" and "a only" in v.text
    assert speedup_verdict({"a": 1.5, "b": 1.3}, "It", "x").status == HOLDS
    assert speedup_verdict({"a": 1.0, "b": 0.5}, "It", "x").status == FAILS


def test_a_verdict_is_one_of_three_and_depends_names_on_what():
    with pytest.raises(ValueError):
        Verdict("maybe", "text")
    with pytest.raises(ValueError, match="on what"):
        Verdict(DEPENDS, "text")


def test_latency_hiding_says_which_side_of_the_estimate_the_knee_is():
    above = get("latency-hiding").decide(numbers("latency-hiding"))
    assert above.status == HOLDS and "above the estimate" in above.text
    below = get("latency-hiding").decide(numbers("latency-hiding") | {"DRAM_latency_cycles": 1500.0})
    assert below.status == HOLDS and "at or below the estimate" in below.text, below.text
