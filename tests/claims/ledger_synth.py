"""Plausible numbers for every measured claim (near what an H200 gives), so that the verdict rules,
the ledger document and its renderers can be tested without a GPU."""
from __future__ import annotations

import copy

from bwlab.core.results import Record, Run
from bwlab.lab import claims as lab
from bwlab.workloads.claims import CLAIMS
from bwlab.workloads.claims.transpose import EXTRA_BLOCKS, SEED_BLOCKS

_BLOCKS = {(32, 32): 1100.0, (32, 16): 1500.0, (32, 8): 1400.0, (64, 16): 1200.0, (64, 8): 1300.0,
           (128, 8): 1000.0, (16, 16): 1700.0, (16, 32): 1800.0, (8, 32): 2100.0}
_FLOAT = {"1/sqrtf": (400.0, 0.9), "rsqrtf": (2000.0, 1.8), "expf": (900.0, 1.0), "__expf": (1800.0, 20.0),
          "sinf": (700.0, 1.2), "__sinf": (2000.0, 9e5), "logf": (800.0, 0.8), "__logf": (1900.0, 3.0),
          "division": (600.0, 0.5), "__fdividef": (1900.0, 1.5), "double literals": (500.0, 0.5),
          "float literals": (3000.0, 1.6)}


def _float(labels) -> dict:
    out = {}
    for label in labels:
        k = label.replace("/", "_").replace(" ", "_")
        rate, ulp = _FLOAT[label]
        out.update({f"{k}_geval_s": rate, f"{k}_max_ulp": ulp, f"{k}_max_abs": ulp * 1e-7})
    return out


_TRANSPOSE = {"naiveRow": 563.0, "naiveCol": 1513.0, "naiveColL2": 1351.0, "naiveRowUnroll4": 525.0,
              "naiveColUnroll4": 1922.0, "diagonalRow": 557.0, "diagonalCol": 1320.0, "smem": 1571.0,
              "smemPad": 1938.0, "smemPad2": 1942.0, "smemUnrollPad": 2839.0, "tile32": 1763.0, "tile32Pad": 3503.0,
              "tile32Swizzle": 2823.0, "tile32DoubleBuffer": 2726.0, "tile32DoubleBuffer_32x32": 2600.0,
              "tile64x32": 3632.0, "tile64x32_32x32": 3500.0, "tile64Pad": 3973.0, "tileVec": 4039.0,
              "copyRow": 2180.0, "copyCol": 549.0, "cudaMemcpy": 4253.0, "copyVec": 4277.0, "copyVecUnroll4": 4280.0}
_BANKS = {"columnReads_unpadded_cycles": 32.5, "columnReads_padded_cycles": 1.1, "columnReads_swizzled_cycles": 1.3}
_LAT = {"register_cycles": 4.0, "shared_cycles": 30.0, "constant_cycles": 60.0, "local_cycles": 35.0,
        "L1_cycles": 33.0, "L2_cycles": 270.0, "DRAM_cycles": 800.0}
_BW = {"shared_read_gbs": 30000.0, "L1_read_gbs": 28000.0, "L2_read_gbs": 10000.0, "DRAM_read_gbs": 3900.0}


def _t(*names) -> dict:
    return {f"{n}_gbs": _TRANSPOSE[n] for n in names}


def _bottleneck(gbs: dict, gflops: dict, peak_gbs: float = 4814.3, peak_gflops: float = 66908.2) -> dict:
    """The bottleneck-cases numbers from each kernel's GB/s and GFLOP/s (and the fractions they make)."""
    out = {"peak_gbs": peak_gbs, "peak_gflops": peak_gflops,
           "strideRead_sector_gbs": gbs["strideRead"] / 8 * 36}
    for k in gbs:
        out.update({f"{k}_gbs": gbs[k], f"{k}_gflops": gflops[k], f"{k}_pct_bw": 100 * gbs[k] / peak_gbs,
                    f"{k}_pct_fp32": 100 * gflops[k] / peak_gflops})
    return out


# G dependent steps/s of the narrow-integer chains: (multiply-add, multiply-add then xor-shift)
_NARROW = {"u8": (52.0, 23.0), "u16": (52.0, 23.0), "u32": (70.0, 30.0), "s8": (60.0, 19.0), "s16": (60.0, 19.0),
           "s32": (70.0, 30.0)}
# GB/s of the partition-camping reads by stride (bytes): flat, as address hashing makes it
_CAMPING = {s: 3900.0 + (17 * i) % 40 for i, s in enumerate([256 << k for k in range(9)]
                                                             + [(256 << k) + 256 for k in range(1, 9)])}


NUMBERS = {
    "column-reads": _t("naiveRow", "naiveCol", "naiveColL2"),
    "naive-unroll": _t("naiveRow", "naiveRowUnroll4", "naiveCol", "naiveColUnroll4"),
    "diagonal-order": _t("naiveRow", "diagonalRow", "naiveCol", "diagonalCol"),
    "thin-blocks": {f"naiveCol_{b[0]}x{b[1]}_gbs": _BLOCKS[b] for b in SEED_BLOCKS + EXTRA_BLOCKS},
    "smem-tile": _t("naiveRow", "naiveCol", "smem"),
    "padding": {**_t("tile32", "tile32Pad", "smem", "smemPad", "smemPad2"), **_BANKS},
    "swizzle": {**_t("tile32", "tile32Pad", "tile32Swizzle"), **_BANKS},
    "double-buffer": _t("tile32Swizzle", "tile32DoubleBuffer", "tile32DoubleBuffer_32x32"),
    "larger-tiles": _t("tile32Swizzle", "tile32Pad", "tile64Pad", "tile64x32", "tile64x32_32x32"),
    "smem-unroll": _t("smemPad2", "smemUnrollPad"),
    "copy-upper-bound": _t("copyRow", "tile64Pad", "tileVec", "cudaMemcpy", "copyVec"),
    "copy-lower-bound": _t("copyCol", "naiveRow", "naiveRowUnroll4", "diagonalRow"),
    "peak-bandwidth": {"mem_clock_mhz": 3201.0, "bus_width_bits": 6016, "peak_gbs": 4814.3,
                       **_t("cudaMemcpy", "copyVec", "copyVecUnroll4")},
    "peak-flops": {"sm_count": 132, "sm_clock_mhz": 1980.0, "fp32_lanes_per_sm": 128, "peak_gflops": 66908.2,
                   "fmaPeak_gflops": 60000.0},
    "memory-levels": {**_LAT, **_BW},
    "local-memory": {k: _LAT[k] for k in ("register_cycles", "local_cycles", "L1_cycles", "shared_cycles")},
    "fewer-threads-more-registers": {"spill_registers": 32, "spill_spill_bytes": 2064, "spill_blocks_per_sm": 8,
                                     "spill_ms": 2.0, "nospill_registers": 64, "nospill_spill_bytes": 0,
                                     "nospill_blocks_per_sm": 4, "nospill_ms": 1.0},
    "constant-broadcast": {"constant_uniform_ms": 0.1, "global_uniform_ms": 0.15, "constant_divergent_ms": 2.0,
                           "global_divergent_ms": 0.3},
    "read-only-cache": {"plain_stream_gbs": 3800.0, "ldg_stream_gbs": 3810.0, "ldcg_stream_gbs": 3790.0,
                        "plain_reuse_gbs": 3500.0, "ldg_reuse_gbs": 3520.0, "ldcg_reuse_gbs": 2000.0},
    "coalescing": {"stride1_gbs": 3300.0, "stride2_gbs": 2200.0, "stride4_gbs": 1300.0, "stride8_gbs": 700.0,
                   "stride16_gbs": 690.0, "stride32_gbs": 680.0, "offset0_gbs": 3300.0, "offset1_gbs": 3250.0,
                   "offset4_gbs": 3260.0, "offset8_gbs": 3270.0, "offset16_gbs": 3280.0, "offset31_gbs": 3240.0,
                   "offset32_gbs": 3300.0},
    "bottleneck-cases": _bottleneck({"scaleVec": 4100.0, "fmaChains": 113.0, "strideRead": 620.0},
                                    {"scaleVec": 1025.0, "fmaChains": 58000.0, "strideRead": 155.0}),
    "dram-banks": {"buffer_mib": 1024, **{f"s{s}_gbs": v for s, v in _CAMPING.items()}},
    "char-short-promotion": {f"{t}_{op}_gsteps": v[i] for t, v in _NARROW.items()
                             for i, op in enumerate(("madd", "xorshift"))},
    "restrict-pointers": {"plain_8_gbs": 2000.0, "plain_8_registers": 16, "restrict_8_gbs": 3900.0,
                          "restrict_8_registers": 10, "plain_1_gbs": 3900.0, "plain_1_registers": 12,
                          "restrict_1_gbs": 3910.0, "restrict_1_registers": 12},
    "null-stream": {"overlap_k1_k2": 0.0, "overlap_k2_k3": 0.0, "gap_k1_k2_us": 3.2, "gap_k2_k3_us": 2.8,
                    "overlap_k1_k3_without_null": 0.99, "span_with_null_us": 8010.0, "span_without_null_us": 4008.0,
                    "kernel_us": 2000.0, "passes": 5},
    "shift-for-pow2": {"runtime_ms": 2.0, "shift_ms": 0.5, "constant_ms": 0.51},
    # bandwidth rising with bytes in flight per SM (warps x 32 x loads x 16 bytes) up to 4 TB/s
    "latency-hiding": {**{f"w{w}_k{k}_gbs": min(4000.0, 0.25 * w * 32 * k * 16) for w in (4, 8, 16, 32, 64)
                          for k in (1, 2, 4)},
                       "DRAM_latency_cycles": 664.0, "sm_clock_mhz": 1980.0, "sm_count": 132},
    "thread-coarsening": {f"coarse-t16-c{cf}_{k}": v for cf, t, r, o in
                          ((1, 7.66, 31, 100.0), (2, 8.72, 32, 100.0), (4, 8.91, 32, 100.0), (8, 8.90, 40, 75.0),
                           (16, 7.54, 48, 62.0))
                          for k, v in (("tflops", t), ("registers", r), ("occupancy_pct", o))},
    "register-tiling": {"tiled_tflops": 7.7, "tiled_registers": 31, "tiled_occupancy_pct": 100.0,
                        "coarse_tflops": 8.9, "coarse_registers": 32, "coarse_occupancy_pct": 100.0,
                        "regBlock_tflops": 20.3, "regBlock_registers": 150, "regBlock_occupancy_pct": 12.5},
    "rsqrtf": _float(("1/sqrtf", "rsqrtf")),
    "double-literals": _float(("double literals", "float literals")),
    "fast-intrinsics": _float(("expf", "__expf", "sinf", "__sinf", "logf", "__logf", "division", "__fdividef")),
    "warp-divergence": {"all_A_ms": 1.0, "all_B_ms": 1.0, "warps_ms": 1.0, "lanes_ms": 2.0},
    "signed-loop-counters": {"signed_ms": 1.0, "unsigned_ms": 1.01},
    "divergent-syncthreads": {"divergent_compiled": 1, "divergent_diagnostics": 0, "divergent_barriers": 1,
                              "divergent_launched": 0, "safe_form_checked": 1},
}
# What the rules say on these numbers.
EXPECTED = {"column-reads": "holds", "naive-unroll": "depends", "diagonal-order": "does not hold",
            "thin-blocks": "holds", "smem-tile": "holds", "padding": "holds", "swizzle": "holds",
            "double-buffer": "does not hold", "larger-tiles": "holds", "smem-unroll": "holds",
            "copy-upper-bound": "does not hold", "copy-lower-bound": "holds", "peak-bandwidth": "holds",
            "peak-flops": "holds", "memory-levels": "holds", "local-memory": "does not hold",
            "fewer-threads-more-registers": "holds", "constant-broadcast": "holds",
            "read-only-cache": "does not hold", "coalescing": "depends", "latency-hiding": "holds",
            "shift-for-pow2": "depends", "rsqrtf": "holds",
            "double-literals": "holds", "fast-intrinsics": "holds", "warp-divergence": "holds",
            "signed-loop-counters": "does not hold", "divergent-syncthreads": "holds",
            "thread-coarsening": "holds", "register-tiling": "holds", "bottleneck-cases": "holds",
            "dram-banks": "does not hold", "char-short-promotion": "holds", "restrict-pointers": "depends",
            "null-stream": "holds"}


def numbers(claim_id: str, **changes) -> dict:
    n = copy.deepcopy(NUMBERS[claim_id])
    n.update(changes)
    return n


def make_run(wrong: str = "", failed: str = "") -> Run:
    """A claims document with every claim: measured ones decided on NUMBERS, one record each."""
    device = {"name": "NVIDIA H200", "peak_bandwidth_gbs": 4814.3, "arch": "sm_90", "cc": [9, 0], "sm_count": 132,
              "sm_clock_khz": 1980000, "mem_clock_khz": 3201000, "bus_width_bits": 6016, "total_mem_bytes": 150 << 30,
              "l2_bytes": 60 << 20, "smem_per_block": 49152, "smem_per_block_optin": 232448, "smem_per_sm": 233472,
              "regs_per_block": 65536, "regs_per_sm": 65536, "max_threads_per_block": 1024,
              "max_threads_per_sm": 2048, "peak_fp32_gflops": 66908.2, "peak_fp64_gflops": 33454.1}
    entries, records = [], []
    for c in CLAIMS:
        if not c.measured:
            entries.append(lab.entry(c))
            continue
        e = lab.decided(c, NUMBERS[c.id])
        if c.id == wrong:
            e = lab.entry(c)
            e.update(verdict="a kernel gave a wrong result, so nothing of this claim was kept: x: 3 wrong", wrong=True)
        elif c.id == failed:
            e = lab.entry(c)
            e["verdict"] = "the experiment failed: RuntimeError: boom"
        entries.append(e)
        records.append(Record(f"{c.id} kernel", "kernel", "banks", "claim", [4], "float32", 0,
                              params={"claim": c.id}, correct=True, check="checked before timing",
                              timing={"median_ms": 1.0, "mean_ms": 1.0, "std_ms": 0.0, "min_ms": 1.0, "reps": 3}))
    return Run(device=device, environment={"cupy": "14.2.0"}, records=records, ceilings={"peak_gbs": 4814.3},
               config={"procedure": "claims", "workload": "", "reps": 3, "warmup": 1, "seed": 1, "small": False,
                       "claims": entries}, created="2026-01-01T00:00:00+00:00", command="bwlab claims")

