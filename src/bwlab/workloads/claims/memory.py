"""Claims about the memory spaces: shared against global memory (latency by pointer chasing,
bandwidth by level), local memory and register spills, constant memory broadcast against
divergent reads, and the read-only (texture) data path. Each experiment checks what its kernels
computed (the end of every pointer chain, every sum) before it keeps a time."""
from __future__ import annotations

import math
import statistics

import numpy as np

from .claim import (DEPENDS, FAILS, HOLDS, Bars, Claim, Kernels, Verdict, cu, gbs, ratio, trend, x)

TOPIC = "notes on the memory spaces"
BANKS, CHASE, LEVELS, SPILL, CONSTANT, READONLY = (cu(n) for n in
                                                   ("banks", "chase", "levels", "spill", "constant", "readonly"))
BLOCK = 256


def blocks(ctx, per_sm: int = 8) -> int:
    """Enough 256-thread blocks to fill every SM (a handful for a quick check)."""
    return per_sm if ctx.small else ctx.dev.sm_count * per_sm


def _u32(ctx, n: int):
    """n random 32-bit words on the GPU."""
    import cupy

    from ...core.verify import fill_random_bits

    a = cupy.empty(n, cupy.uint32)
    fill_random_bits(a, int(ctx.rng().integers(1 << 62)))
    return a


def _wrap32(a):
    return (a & 0xFFFFFFFF).astype(np.uint32)


# --- bank conflicts (used by the padding and swizzle claims) ------------------------------------

LAYOUTS = ("unpadded", "padded", "swizzled")


def bank_cycles(ctx) -> dict:
    """SM cycles per warp-wide column read of a 32x32 word tile, per layout (once per run)."""
    return ctx.memo(("banks",), lambda: _bank_cycles(ctx))


def _bank_cycles(ctx) -> dict:
    import cupy

    from ...core.verify import compare, poison

    nblocks = blocks(ctx, 32)              # one warp per block, 32 per SM
    rounds = 64 if ctx.small else 32768
    data = _u32(ctx, nblocks * 1024)
    tile = data.get().reshape(nblocks, 32, 32).astype(np.uint64)
    full, rem = divmod(rounds, 32)
    want = cupy.asarray(_wrap32(full * tile.sum(axis=2) + tile[:, :, :rem].sum(axis=2)).reshape(-1))
    out = {}
    for layout, name in enumerate(LAYOUTS):
        fn = ctx.function(BANKS, f"columnReads<{layout}>")
        res = cupy.empty(nblocks * 32, cupy.uint32)
        poison(res)

        def run(fn=fn, res=res):
            fn((nblocks,), (32,), (data, res, np.int32(rounds)))
        run()
        ctx.require(f"columnReads {name}", compare(res, want))
        rec = ctx.time(f"columnReads {name}", run, family="banks", shape=(nblocks, 32, 32), dtype="uint32",
                       block=(32, 1), grid=(nblocks, 1))
        warp_reads = nblocks * rounds / ctx.dev.sm_count
        out[f"columnReads_{name}_cycles"] = rec.median_ms * 1e-3 * ctx.dev.sm_clock_khz * 1e3 / warp_reads
    return out


# --- latency by pointer chasing -----------------------------------------------------------------

class Cycle:
    """A random single cycle through n slots `stride` words apart: next[slot] holds the word index
    of the following slot. walk() says where a chase of k steps from a word ends."""

    def __init__(self, n: int, stride: int, rng):
        self.n, self.stride = n, stride
        self.perm = rng.permutation(n).astype(np.int64)
        self.pos = np.empty(n, np.int64)
        self.pos[self.perm] = np.arange(n)

    def table(self, words: int):
        """The chain as a CuPy array of `words` 32-bit words (built on the GPU)."""
        import cupy

        t = cupy.zeros(words, cupy.uint32)
        t[cupy.asarray(self.perm * self.stride)] = cupy.asarray(np.roll(self.perm, -1) * self.stride).astype(
            cupy.uint32)
        return t

    def host_table(self, words: int) -> np.ndarray:
        t = np.zeros(words, np.uint32)
        t[self.perm * self.stride] = (np.roll(self.perm, -1) * self.stride).astype(np.uint32)
        return t

    def start(self) -> int:
        return int(self.perm[0] * self.stride)

    def walk(self, start: int, steps: int) -> int:
        return int(self.perm[(self.pos[start // self.stride] + steps) % self.n] * self.stride)


def square_walk(x: int, steps: int) -> int:
    """Where chainRegister's x = x * x + c ends after `steps` steps (32-bit)."""
    for _ in range(steps):
        x = (x * x + 1013904223) & 0xFFFFFFFF
    return x


def _chase(ctx, label: str, launch, walk, start: int, steps: int, reps: int = 3) -> float:
    """Median SM cycles per step of a chase; every chase continues where the last one ended (so a
    chain longer than reps x steps is never revisited) and its end is checked."""
    import cupy

    end = cupy.empty(1, cupy.uint32)
    cycles = cupy.zeros(1, cupy.int64)
    samples = []
    for rep in range(reps + 1):  # the first is the warm-up
        launch(start, end, cycles)
        got, want = int(end.get()[0]), walk(start, steps)
        ctx.require(f"{label}: chain end", got == want, f"ended at {got}, expected {want}")
        if rep:
            samples.append(int(cycles.get()[0]) / steps)
        start = got
    value = statistics.median(samples)
    ctx.record(label, family=CHASE.stem, notes=[f"{value:.1f} SM cycles per step (median of {reps} chases of "
                                                f"{steps} steps)"], check="chain end as walked on the host")
    return value


LEVEL_SETS = (("L1", 16 << 10, False), ("L2", 4 << 20, True), ("DRAM", 256 << 20, True))


def latencies(ctx) -> dict:
    return ctx.memo(("latencies",), lambda: _latencies(ctx))


def _one_thread(fn, steps: int, *lead, threads: int = 1):
    """A chase launch: (start, end, cycles) -> one block of `threads`, thread 0 chasing."""
    def launch(start, end, cycles):
        fn((1,), (threads,), lead + (np.uint32(start), np.int32(steps), end, cycles))
    return launch


def _latencies(ctx) -> dict:
    import cupy

    steps = 500 if ctx.small else 20000
    rng = ctx.rng()
    out = {"register_cycles": _chase(ctx, "register: dependent multiply-add",
                                     _one_thread(ctx.function(CHASE, "chainRegister"), steps), square_walk, 12345, steps)}
    chain = Cycle(1024, 1, rng)
    table = chain.table(1024)
    out["shared_cycles"] = _chase(ctx, "shared memory, 1024 words",
                                  _one_thread(ctx.function(CHASE, "chaseShared"), steps, table, threads=32),
                                  chain.walk, chain.start(), steps)
    module, fn = ctx.module(CHASE, "chaseConstant")
    module.get_global("chaseTable").copy_from_device(table.data, table.nbytes)
    out["constant_cycles"] = _chase(ctx, "constant memory, 1024 words", _one_thread(fn, steps), chain.walk,
                                    chain.start(), steps)
    local = Cycle(64, 1, rng)
    out["local_cycles"] = _chase(ctx, "local memory, a 64-word thread array",
                                 _one_thread(ctx.function(CHASE, "chaseLocal"), steps, local.table(64)),
                                 local.walk, local.start(), steps)
    for level, nbytes, l2_only in LEVEL_SETS:
        if ctx.small:
            nbytes = min(nbytes, 4 << 20)
        chain = Cycle(nbytes // 128, 32, rng)   # one 128-byte line per step
        table = chain.table(nbytes // 4)
        if level == "L2":
            int(table.sum())                    # read it all once: the chain sits in L2
        elif level == "DRAM":
            ctx.flush_l2()                      # nothing of the chain left in L2
        fn = ctx.function(CHASE, f"chaseGlobal<{'true' if l2_only else 'false'}>")
        label = f"global memory, {nbytes >> 10} KiB" + (" (loads skip L1)" if l2_only else "")
        out[f"{level}_cycles"] = _chase(ctx, label, _one_thread(fn, steps, table), chain.walk, chain.start(), steps)
        table = None
        cupy.get_default_memory_pool().free_all_blocks()
    return out


# --- bandwidth by level -----------------------------------------------------------------------

def bandwidths(ctx) -> dict:
    return ctx.memo(("bandwidths",), lambda: _bandwidths(ctx))


def _expected_sums(data, threads: int, passes: int, step: int, mask: int):
    """What readLevel computes for threads 0..threads-1 (uint32 sums), on the GPU: the index
    sequence of a thread repeats with period P, so at most P passes are gathered."""
    import cupy

    vec = data.reshape(-1, 4).astype(cupy.uint64).sum(axis=1)
    t = cupy.arange(threads, dtype=cupy.uint64)
    period = (mask + 1) // math.gcd(step, mask + 1)
    full, rem = divmod(passes, period)
    acc = cupy.zeros(threads, cupy.uint64)
    part = cupy.zeros(threads, cupy.uint64)
    for p in range(min(period, passes)):
        acc += vec[(t + p * step) & mask]
        if p + 1 == rem:
            part = acc.copy()
    total = acc if full == 0 else acc * full + part
    return (total & 0xFFFFFFFF).astype(cupy.uint32)


def _bandwidths(ctx) -> dict:
    import cupy

    from ...core.verify import compare, poison

    nblocks = blocks(ctx)
    threads = nblocks * BLOCK
    heavy = 8 if ctx.small else 4096
    dram = (64 << 20) if ctx.small else (1 << 30)
    sets = (("shared", 16 << 10, True, heavy, BLOCK), ("L1", 16 << 10, False, heavy, BLOCK),
            ("L2", 4 << 20, False, heavy, threads), ("DRAM", dram, False, None, threads))
    out = {}
    for level, nbytes, shared, passes, step in sets:
        nvec = nbytes // 16
        passes = passes or max(1, nvec // threads)   # DRAM: every vector read once
        data = _u32(ctx, nvec * 4)
        res = cupy.empty(threads, cupy.uint32)
        poison(res)
        fn = ctx.function(LEVELS, f"readLevel<{'true' if shared else 'false'}>")
        args = (data, res, np.uint32(nvec - 1), np.int32(passes), np.uint32(step))

        def run(fn=fn, args=args, shared=shared, nbytes=nbytes):
            fn((nblocks,), (BLOCK,), args, shared_mem=nbytes if shared else 0)
        run()
        if shared:  # every block reads the same buffer: the sums depend on threadIdx.x only
            want = cupy.tile(_expected_sums(data, BLOCK, passes, BLOCK, nvec - 1), nblocks)
        else:
            want = _expected_sums(data, threads, passes, step, nvec - 1)
        ctx.require(f"readLevel from {level}", compare(res, want))
        if level == "DRAM":
            ctx.flush_l2()
        rec = ctx.time(f"read from {level} ({nbytes >> 10} KiB)", run, family=LEVELS.stem,
                       bytes=threads * passes * 16, shape=(nvec, 4), dtype="uint32", block=(BLOCK, 1),
                       grid=(nblocks, 1))
        out[f"{level}_read_gbs"] = rec.gbs
        del data, res
        cupy.get_default_memory_pool().free_all_blocks()
    return out


def measure_levels(ctx) -> dict:
    return {**latencies(ctx), **bandwidths(ctx)}


def decide_levels(n: dict) -> Verdict:
    lat = ratio(n["DRAM_cycles"], n["shared_cycles"])
    bw = ratio(n["shared_read_gbs"], n["DRAM_read_gbs"])
    text = (f"Latency: shared memory {n['shared_cycles']:.0f} SM cycles, global memory {n['L1_cycles']:.0f} from "
            f"L1, {n['L2_cycles']:.0f} from L2, {n['DRAM_cycles']:.0f} from DRAM ({x(lat)} the shared latency). Read "
            f"bandwidth: shared {gbs(n['shared_read_gbs'])}, L1 {gbs(n['L1_read_gbs'])}, L2 {gbs(n['L2_read_gbs'])}, DRAM "
            f"{gbs(n['DRAM_read_gbs'])} (shared {x(bw)} DRAM).")
    if lat >= 4 and bw >= 4:
        near = ratio(n["L1_cycles"], n["shared_cycles"])
        tail = (f" Global reads that hit L1 are nearly as quick ({x(near)} the shared latency): shared memory's "
                "edge is over L2 and DRAM." if near < 2 else "")
        return Verdict(HOLDS, text + tail)
    return Verdict(FAILS, text)


def measure_local(ctx) -> dict:
    lat = latencies(ctx)
    return {k: lat[k] for k in ("register_cycles", "local_cycles", "L1_cycles", "shared_cycles")}


def decide_local(n: dict) -> Verdict:
    r = ratio(n["local_cycles"], n["register_cycles"])
    text = (f"A dependent access to a thread's local array takes {n['local_cycles']:.0f} SM cycles, a dependent "
            f"register operation {n['register_cycles']:.0f} ({x(r)}); a global read from L1 takes "
            f"{n['L1_cycles']:.0f}: local memory is device memory cached in L1, not a slower register file.")
    if r <= 1.5:
        return Verdict(HOLDS, text)
    if r >= 3:
        return Verdict(FAILS, text)
    return Verdict(DEPENDS, text, "how often the spilled values are used")


# --- spills against occupancy ---------------------------------------------------------------

LIVE = 48


def measure_spills(ctx) -> dict:
    import cupy

    from ...core.verify import compare, poison

    nblocks = blocks(ctx)
    threads = nblocks * BLOCK
    iters = 4 if ctx.small else 256
    rng = ctx.rng()
    host = rng.uniform(-0.5, 0.5, size=(LIVE, threads)).astype(np.float32)
    data = cupy.asarray(host)
    out, results = {}, {}
    for min_blocks, name in ((8, "spill"), (1, "nospill")):
        expr = f"liveValues<{min_blocks}>"
        fn = ctx.function(SPILL, expr)
        res = cupy.empty(threads, cupy.float32)
        poison(res)

        def run(fn=fn, res=res):
            fn((nblocks,), (BLOCK,), (data, res, np.int32(iters)))
        run()
        results[name] = res
        r = ctx.resources(SPILL, expr)
        out[f"{name}_registers"] = r.registers
        out[f"{name}_spill_bytes"] = r.spill_stores + r.spill_loads
        out[f"{name}_blocks_per_sm"] = min(ctx.dev.max_threads_per_sm // BLOCK,
                                           ctx.dev.regs_per_sm // max(1, r.registers * BLOCK))
        if name == "spill":
            ctx.require("liveValues: 64 threads against the host", _close(res.get()[:64], _host_live(host[:, :64],
                                                                                                     iters)))
        else:
            ctx.require("liveValues: spilled and unspilled agree bit for bit", compare(results["spill"], res))
        rec = ctx.time(f"liveValues {name} ({r.registers} registers)", run, family=SPILL.stem, shape=(LIVE, threads),
                       dtype="float32", block=(BLOCK, 1), grid=(nblocks, 1))
        out[f"{name}_ms"] = rec.median_ms
    return out


def _host_live(v: np.ndarray, iters: int) -> np.ndarray:
    v = v.astype(np.float64).copy()
    for _ in range(iters):
        for k in range(LIVE):
            v[k] = np.float32(v[k] * v[(k + 1) % LIVE] - 0.25)
    return v.sum(axis=0)


def _close(got: np.ndarray, want: np.ndarray, tol: float = 1e-4):
    bad = ~(np.abs(got.astype(np.float64) - want) <= tol)
    return (not bad.any(), f"{int(bad.sum())} of {bad.size} off by more than {tol}")


def decide_spills(n: dict) -> Verdict:
    r = ratio(n["spill_ms"], n["nospill_ms"])
    text = (f"Capped at {n['spill_registers']} registers the kernel spills ({n['spill_spill_bytes']} bytes of "
            f"spill loads and stores in its code) and runs {n['spill_blocks_per_sm']} blocks per SM: "
            f"{n['spill_ms']:.3f} ms. With {n['nospill_registers']} registers and no spills, "
            f"{n['nospill_blocks_per_sm']} blocks per SM: {n['nospill_ms']:.3f} ms ({x(r)} faster).")
    t = trend(r)
    return Verdict(HOLDS if t > 0 else FAILS, text)


# --- constant memory --------------------------------------------------------------------------

def measure_constant(ctx) -> dict:
    import cupy

    from ...core.verify import compare, poison

    nblocks = blocks(ctx)
    iters = 64 if ctx.small else 4096
    table = ctx.rng().integers(0, 1 << 32, size=256, dtype=np.uint32)
    dev_table = cupy.asarray(table)
    i = np.arange(iters, dtype=np.int64)
    lane = np.arange(BLOCK) % 32
    out = {}
    for mode, name in ((0, "uniform"), (1, "divergent")):
        idx = (i[None, :] + lane[:, None] * (8 if mode else 0)) & 255
        want = cupy.asarray(np.tile(_wrap32(table[idx].astype(np.uint64).sum(axis=1)), nblocks))
        for space in ("constant", "global"):
            if space == "constant":
                module, fn = ctx.module(CONSTANT, f"constantReads<{mode}>")
                module.get_global("constTable").copy_from_device(dev_table.data, dev_table.nbytes)
                args = ()
            else:
                fn = ctx.function(CONSTANT, f"globalReads<{mode}>")
                args = (dev_table,)
            res = cupy.empty(nblocks * BLOCK, cupy.uint32)
            poison(res)

            def run(fn=fn, args=args, res=res):
                fn((nblocks,), (BLOCK,), args + (res, np.int32(iters)))
            run()
            ctx.require(f"{space} memory, {name} reads", compare(res, want))
            rec = ctx.time(f"{space} memory, {name} reads", run, family=CONSTANT.stem, shape=(256,), dtype="uint32",
                           block=(BLOCK, 1), grid=(nblocks, 1))
            out[f"{space}_{name}_ms"] = rec.median_ms
    return out


def decide_constant(n: dict) -> Verdict:
    r = ratio(n["constant_divergent_ms"], n["constant_uniform_ms"])
    g = ratio(n["constant_divergent_ms"], n["global_divergent_ms"])
    text = (f"Reading constant memory with 32 different addresses per warp takes {x(r)} as long as a broadcast "
            f"({n['constant_divergent_ms']:.3f} against {n['constant_uniform_ms']:.3f} ms); the same divergent reads "
            f"from global memory (served by L1) take {n['global_divergent_ms']:.3f} ms, {x(g)} faster than from "
            f"constant memory.")
    return Verdict(HOLDS if r >= 2 else FAILS, text)


# --- the read-only data path --------------------------------------------------------------------

PATHS = ("plain", "ldg", "ldcg")
PATTERNS = (("stream", 0), ("reuse", 8))


def measure_readonly(ctx) -> dict:
    import cupy

    from ...core.launch import cdiv
    from ...core.verify import compare, poison

    n = (1 << 20) if ctx.small else (64 << 20)
    data = _u32(ctx, n)
    res = cupy.empty(n, cupy.uint32)
    out = {}
    for pattern, radius in PATTERNS:
        want = data.copy()
        for k in range(1, radius + 1):
            want += cupy.roll(data, -k)
            want += cupy.roll(data, k)
        for path, name in enumerate(PATHS):
            fn = ctx.function(READONLY, f"stencil<{path},{radius}>")
            poison(res)

            def run(fn=fn):
                fn((cdiv(n, BLOCK),), (BLOCK,), (data, res, np.int64(n)))
            run()
            ctx.require(f"stencil radius {radius}, {name} loads", compare(res, want))
            rec = ctx.time(f"stencil radius {radius}, {name} loads", run, family=READONLY.stem, bytes=8 * n,
                           shape=(n,), dtype="uint32", block=(BLOCK, 1), grid=(cdiv(n, BLOCK), 1))
            out[f"{name}_{pattern}_gbs"] = rec.gbs
        del want
    return out


def decide_readonly(n: dict) -> Verdict:
    r = ratio(n["ldg_reuse_gbs"], n["plain_reuse_gbs"])
    l1 = ratio(n["plain_reuse_gbs"], n["ldcg_reuse_gbs"])
    text = (f"With reuse (each element read by 17 neighbouring threads): read-only path {gbs(n['ldg_reuse_gbs'])}, "
            f"ordinary loads {gbs(n['plain_reuse_gbs'])} ({x(r)}), loads skipping L1 {gbs(n['ldcg_reuse_gbs'])}. "
            f"Streaming: {gbs(n['ldg_stream_gbs'])}, {gbs(n['plain_stream_gbs'])}, {gbs(n['ldcg_stream_gbs'])}.")
    if trend(r) > 0:
        return Verdict(HOLDS, text)
    return Verdict(FAILS, text + f" Ordinary loads are cached in the same L1 on this GPU; the cache itself is "
                                 f"worth {x(l1)} on the reused reads.")


_LAT = (("register op", "register_cycles"), ("shared", "shared_cycles"), ("constant", "constant_cycles"),
        ("local", "local_cycles"), ("global, L1", "L1_cycles"), ("global, L2", "L2_cycles"),
        ("global, DRAM", "DRAM_cycles"))

CLAIMS = (
    Claim("memory-levels", "memory", TOPIC,
          "Shared memory is much faster than global memory, in latency and in bandwidth.",
          "Latency: one thread follows a random chain of dependent loads (SM cycles per load by clock64) in shared "
          "memory, constant memory, a local array and global memory of 16 KiB (L1), 4 MiB (L2, loads skip L1) and "
          "256 MiB (DRAM, a new part of the chain every time). Bandwidth: every thread of a full grid reads 16-byte "
          "vectors of a 16 KiB buffer in shared memory and in global memory (L1), of 4 MiB (L2) and of 1 GiB "
          "(DRAM); GB/s = bytes read over the median time. Every chain end and every sum is checked.",
          measure_levels, decide_levels,
          kernels=(Kernels(CHASE, ("chaseGlobal<false>", "chaseGlobal<true>", "chaseShared", "chaseConstant",
                                   "chainRegister", "chaseLocal"), local_memory=("chaseLocal",)),
                   Kernels(LEVELS, ("readLevel<false>", "readLevel<true>"))),
          charts=(Bars("latency of a dependent access", "SM cycles", _LAT, log=True),
                  Bars("read bandwidth by level", "GB/s", (("shared", "shared_read_gbs"), ("L1", "L1_read_gbs"),
                                                            ("L2", "L2_read_gbs"), ("DRAM", "DRAM_read_gbs")),
                       log=True))),
    Claim("local-memory", "memory", TOPIC,
          "Local memory, where the compiler puts what does not fit in registers, is only slightly slower than "
          "registers.",
          "A chain of dependent reads through a 64-word array private to one thread (the compiler puts it in "
          "local memory), against a chain of dependent integer multiply-adds on registers and a chain through "
          "global memory that hits L1; SM cycles per step by clock64.",
          measure_local, decide_local,
          kernels=(Kernels(CHASE, ("chainRegister", "chaseLocal", "chaseGlobal<false>", "chaseShared"),
                           local_memory=("chaseLocal",)),)),
    Claim("fewer-threads-more-registers", "memory", TOPIC,
          "Giving each thread more registers (fewer threads per SM) so that nothing spills to local memory makes a "
          "kernel faster.",
          "One kernel keeping 48 values live across a loop of fused multiply-adds, built twice: capped at 32 "
          "registers per thread (8 blocks of 256 per SM; it spills) and uncapped (64 registers, no spills, fewer "
          "blocks per SM); a full grid, median time. Both results agree bit for bit and with the host.",
          measure_spills, decide_spills,
          kernels=(Kernels(SPILL, ("liveValues<8>", "liveValues<1>"), local_memory=("liveValues<8>",)),)),
    Claim("constant-broadcast", "memory", TOPIC,
          "Constant memory is fast when all threads of a warp read the same address and slow when they read "
          "different addresses, which it serves one after another.",
          "Each thread of a full grid sums 4096 words of a 256-word table, all lanes of a warp on the same word "
          "(broadcast) or each lane on its own (divergent), with the table in constant memory and in global "
          "memory; median time.",
          measure_constant, decide_constant,
          kernels=(Kernels(CONSTANT, ("constantReads<0>", "constantReads<1>", "globalReads<0>", "globalReads<1>")),),
          charts=(Bars("constant against global reads", "ms",
                       (("constant, broadcast", "constant_uniform_ms"), ("constant, divergent", "constant_divergent_ms"),
                        ("global, broadcast", "global_uniform_ms"), ("global, divergent", "global_divergent_ms"))),)),
    Claim("read-only-cache", "memory", TOPIC,
          "Reading through the read-only (texture) data cache speeds up access patterns with reuse.",
          "A 1-D stencil over 64 Mi 32-bit words (256 MiB in, 256 MiB out) that reads each element once "
          "(streaming) or sums 17 neighbours (reuse), with ordinary loads, read-only loads (__ldg) and loads that "
          "skip L1 (__ldcg); GB/s = ideal bytes read + written over the median time.",
          measure_readonly, decide_readonly,
          kernels=(Kernels(READONLY, tuple(f"stencil<{p},{r}>" for p in range(3) for _, r in PATTERNS)),),
          charts=(Bars("load paths", "GB/s", tuple((f"{p}, {pat}", f"{p}_{pat}_gbs") for pat, _ in PATTERNS
                                                    for p in PATHS)),)),
)
