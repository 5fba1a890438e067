"""What the GPUs of one machine can move between them: the peer-to-peer bandwidth and latency of
every pair (cudaMemcpyPeerAsync, one process), and all_to_all against size on NCCL (one process
per GPU), with nccl-tests' definitions:

    size   bytes each rank sends in one all_to_all (its whole send buffer, its own part included)
    algbw  size / time
    busbw  algbw * (n - 1) / n     (the bytes that cross links: n - 1 of each rank's n parts)

Time is the median over repetitions of the slowest rank's time, CUDA events around each
all_to_all after all ranks met on the GPU. GB/s here is 10^9 bytes per second of bytes that
cross once (a copy of S bytes moves S bytes), unlike the read + write count of one GPU's kernels.
"""
from __future__ import annotations

import os
import statistics
import tempfile
import time
from typing import Callable

from ..core import timing
from .results import SCHEMA

MIB = 1 << 20
COPY_SIZE = 256 * MIB
LATENCY_SIZE = 4           # bytes of the copies timed for latency
LATENCY_COPIES = 100       # back-to-back copies between two events, per repetition
A2A_MIN, A2A_MAX = 1 * MIB, 1024 * MIB


def sizes(max_size: int = A2A_MAX, min_size: int = A2A_MIN) -> list[int]:
    """min_size, x4, ... up to max_size (included)."""
    if min_size < 1 or max_size < min_size:
        raise ValueError(f"sizes from {min_size} to {max_size} bytes: the largest must be at least the smallest")
    out, n = [], min_size
    while n < max_size:
        out.append(n)
        n *= 4
    return out + [max_size]


# --- peer-to-peer copies in one process (CuPy on the CUDA runtime) --------------------------------

def _enable_peer(rt, a: int, b: int) -> bool:
    if a == b:
        return True
    if not rt.deviceCanAccessPeer(a, b):
        return False
    import cupy

    with cupy.cuda.Device(a):
        try:
            rt.deviceEnablePeerAccess(b)
        except cupy.cuda.runtime.CUDARuntimeError as exc:
            if "PeerAccessAlreadyEnabled" not in str(exc):
                raise
    return True


def _timed(rt, issue: Callable[[], None], first: int, others: list[tuple[int, int]], reps: int,
           warmup: int) -> timing.Timing:
    """GPU time of issue() in ms: events on stream `first` (of the current device), the other
    streams, given as (stream, its device), wait on the start and are joined before the stop."""
    import cupy

    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    joins = []
    for _, d in others:   # an event is recorded on a stream of its own device
        with cupy.cuda.Device(d):
            joins.append(cupy.cuda.Event(disable_timing=True))
    others = [s for s, _ in others]
    samples = []
    for r in range(warmup + reps):
        rt.eventRecord(start.ptr, first)
        for s in others:
            rt.streamWaitEvent(s, start.ptr, 0)
        issue()
        for j, s in zip(joins, others):
            rt.eventRecord(j.ptr, s)
            rt.streamWaitEvent(first, j.ptr, 0)
        rt.eventRecord(stop.ptr, first)
        rt.eventSynchronize(stop.ptr)
        if r >= warmup:
            samples.append(rt.eventElapsedTime(start.ptr, stop.ptr))
    return timing.stats(samples)


def copy_matrix(devices: list[int], size: int = COPY_SIZE, reps: int = 20, warmup: int = 3,
                log: Callable[[str], None] = lambda m: None) -> dict:
    """For every ordered pair (a, b) of devices: one-way GB/s of an a -> b copy of `size` bytes
    (checked, sampled), GB/s each way with a -> b and b -> a at once, the latency of a 4-byte copy
    in µs (GPU time per copy of 100 issued back to back), and
    whether a can reach b's memory directly (else the driver stages the copy through the host).
    On the diagonal (a == b): a device-to-device copy within the GPU."""
    import cupy
    import numpy as np

    rt = cupy.cuda.runtime
    n = len(devices)
    bufs, streams = {}, {}
    for d in devices:
        with cupy.cuda.Device(d):
            pattern = cupy.arange(size, dtype=cupy.uint8) if size else cupy.empty(0, cupy.uint8)
            bufs[d] = (pattern, cupy.zeros(size, cupy.uint8))
            streams[d] = cupy.cuda.Stream(non_blocking=True)
    access = [[_enable_peer(rt, a, b) for b in devices] for a in devices]
    one = [[None] * n for _ in range(n)]
    both = [[None] * n for _ in range(n)]
    lat = [[None] * n for _ in range(n)]
    correct = [[None] * n for _ in range(n)]
    for i, a in enumerate(devices):
        for j, b in enumerate(devices):
            log(f"copies GPU {a} -> GPU {b}")
            sa, sb = streams[a].ptr, streams[b].ptr
            src, dst = bufs[a][0].data.ptr, bufs[b][1].data.ptr

            def ab(nbytes=size):
                rt.memcpyPeerAsync(dst, b, src, a, nbytes, sa)

            with cupy.cuda.Device(b):
                bufs[b][1].fill(0)
                cupy.cuda.Device(b).synchronize()
            with cupy.cuda.Device(a):
                t = _timed(rt, ab, sa, [], reps, warmup)
                one[i][j] = timing.gbs(size, t.median_ms)
                rt.deviceSynchronize()
                step = max(1, size // 65536)
                correct[i][j] = bool(np.array_equal(cupy.asnumpy(bufs[b][1][::step]), cupy.asnumpy(bufs[a][0][::step])))
                if i < j:
                    back_src, back_dst = bufs[b][0].data.ptr, bufs[a][1].data.ptr

                    def both_ways():
                        rt.memcpyPeerAsync(dst, b, src, a, size, sa)
                        rt.memcpyPeerAsync(back_dst, a, back_src, b, size, sb)

                    t2 = _timed(rt, both_ways, sa, [(sb, b)], reps, warmup)
                    both[i][j] = both[j][i] = timing.gbs(size, t2.median_ms)

                def small():
                    for _ in range(LATENCY_COPIES):
                        rt.memcpyPeerAsync(dst, b, src, a, LATENCY_SIZE, sa)

                tl = _timed(rt, small, sa, [], max(5, reps // 2), 2)
                lat[i][j] = tl.median_ms * 1e3 / LATENCY_COPIES
    del bufs
    cupy.get_default_memory_pool().free_all_blocks()
    return {"devices": devices, "size_bytes": size, "one_way_gbs": one, "each_way_gbs": both,
            "latency_us": lat, "peer_access": access, "correct": correct, "reps": reps}


def pair_each_way_gbs(devices: list[int], size: int = COPY_SIZE, reps: int = 10, warmup: int = 3) -> dict:
    """The slowest pair's GB/s each way with both directions at once, over every pair of devices:
    what bounds an exchange in which every GPU sends and receives at the same time."""
    if len(devices) < 2:
        return {"method": "none: one GPU", "each_way_gbs": None, "pairs": []}
    m = copy_matrix(devices, size, reps, warmup)
    pairs = [{"a": a, "b": b, "each_way_gbs": m["each_way_gbs"][i][j], "peer_access": m["peer_access"][i][j]}
             for i, a in enumerate(devices) for j, b in enumerate(devices) if i < j]
    return {"method": f"cudaMemcpyPeerAsync, {size // MIB} MiB each way at once, slowest pair",
            "each_way_gbs": min(p["each_way_gbs"] for p in pairs), "pairs": pairs, "size_bytes": size}


# --- all_to_all on NCCL, one process per GPU --------------------------------------------------------

def all_to_all_sweep(size_list: list[int], reps: int, warmup: int, group=None,
                     log: Callable[[str], None] = lambda m: None) -> list[dict]:
    """Every rank calls it; the rows of nccl-tests' alltoall table (int32 elements, each size
    rounded down to whole elements per peer), each checked once before it is timed."""
    import torch
    import torch.distributed as dist

    n, me = dist.get_world_size(group), dist.get_rank(group)
    dev = torch.device("cuda", torch.cuda.current_device())
    rows = []
    for size in size_list:
        count = size // (4 * n)         # int32 elements per peer
        total = count * n
        log(f"all_to_all {size} bytes")
        peer = torch.arange(n, device=dev, dtype=torch.int64).repeat_interleave(count)
        elem = torch.arange(count, device=dev, dtype=torch.int64).repeat(n)
        send = ((me * 1_000_003 + peer * 7919 + elem) % (1 << 31)).to(torch.int32)
        want = ((peer * 1_000_003 + me * 7919 + elem) % (1 << 31)).to(torch.int32)
        recv = torch.full((total,), -1, dtype=torch.int32, device=dev)
        dist.all_to_all_single(recv, send, group=group)
        ok = torch.tensor([int(torch.equal(recv, want))], device=dev)
        dist.all_reduce(ok, op=dist.ReduceOp.MIN, group=group)
        del peer, elem, want
        t = time_collective(lambda: dist.all_to_all_single(recv, send, group=group), reps, warmup, group)
        nbytes = total * 4
        algbw = timing.gbs(nbytes, t["median_ms"]) if nbytes else 0.0
        rows.append({"size_bytes": nbytes, "count_per_peer": count, "dtype": "int32", "time_us": t["median_ms"] * 1e3,
                     "timing": t, "algbw_gbs": algbw, "busbw_gbs": algbw * (n - 1) / n, "correct": bool(ok.item())})
    return rows


def time_collective(fn: Callable[[], object], reps: int, warmup: int, group=None) -> dict:
    """Every rank calls it. Per repetition: the ranks meet on the GPU (a one-element all_reduce),
    then CUDA events around fn(); the repetition's time is the slowest rank's. Returns the
    statistics of those times (ms), each rank's median, and (on GPUs) host_median_ms: the
    slowest rank's median host time to queue fn(), which near the GPU time means the GPU waited
    on the host. On CPU tensors (gloo): the host clock after a barrier."""
    import torch
    import torch.distributed as dist

    n = dist.get_world_size(group)
    cuda = "nccl" in str(dist.get_backend(group)).lower() and torch.cuda.is_available()
    if cuda:
        dev = torch.device("cuda", torch.cuda.current_device())
        token = torch.zeros(1, device=dev)
        for _ in range(max(0, warmup)):
            fn()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        stops = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        host = []
        for a, b in zip(starts, stops):
            dist.all_reduce(token, group=group)
            a.record()
            t0 = time.perf_counter()
            fn()
            host.append((time.perf_counter() - t0) * 1e3)
            b.record()
        torch.cuda.synchronize(dev)
        mine = torch.tensor([a.elapsed_time(b) for a, b in zip(starts, stops)], dtype=torch.float64, device=dev)
        host_median = torch.tensor([statistics.median(host)], dtype=torch.float64, device=dev)
        dist.all_reduce(host_median, op=dist.ReduceOp.MAX, group=group)
    else:
        for _ in range(max(0, warmup)):
            fn()
        samples = []
        for _ in range(reps):
            dist.barrier(group=group)
            t0 = time.perf_counter()
            fn()
            samples.append((time.perf_counter() - t0) * 1e3)
        mine = torch.tensor(samples, dtype=torch.float64)
    every = [torch.empty_like(mine) for _ in range(n)]
    dist.all_gather(every, mine, group=group)
    table = torch.stack(every).cpu()
    slowest = table.max(dim=0).values.tolist()
    out = timing.stats(slowest).to_dict()
    out["rank_median_ms"] = [float(v) for v in table.median(dim=1).values.tolist()]
    if cuda:
        out["host_median_ms"] = float(host_median.item())
    return out


def _a2a_worker(rank: int, world: int, store_path: str, size_list, reps, warmup, queue) -> None:
    import torch
    import torch.distributed as dist

    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"file://{store_path}", rank=rank, world_size=world,
                            device_id=torch.device("cuda", rank))
    try:
        rows = all_to_all_sweep(size_list, reps, warmup)
        if rank == 0:
            queue.put(rows)
    finally:
        dist.destroy_process_group()


def all_to_all_on(gpus: int, size_list: list[int], reps: int, warmup: int,
                  log: Callable[[str], None] = lambda m: None) -> list[dict]:
    """The sweep on the first `gpus` GPUs: one process each (spawned; in this process for one)."""
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp

    if gpus == 1:
        torch.cuda.set_device(0)
        dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1,
                                device_id=torch.device("cuda", 0))
        try:
            return all_to_all_sweep(size_list, reps, warmup, log=log)
        finally:
            dist.destroy_process_group()
    ctx = mp.get_context("spawn")
    queue = ctx.SimpleQueue()
    with tempfile.TemporaryDirectory(prefix="bwlab-p2p-") as tmp:
        log(f"all_to_all on {gpus} GPUs ({gpus} processes)")
        mp.start_processes(_a2a_worker, args=(gpus, os.path.join(tmp, "store"), size_list, reps, warmup, queue),
                           nprocs=gpus, start_method="spawn")
        return queue.get()


def run_p2p(gpus: int, copy_size: int, size_list: list[int], reps: int, warmup: int, command: str = "",
            log: Callable[[str], None] = lambda m: None) -> dict:
    """The whole `bwlab p2p` document."""
    import datetime as dt

    from ..core import device

    names = [device.query(i).name for i in range(gpus)]
    doc = {"schema": SCHEMA, "procedure": "p2p", "command": command,
           "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
           "gpus": gpus, "devices": names, "environment": device.environment(0)}
    doc["copies"] = copy_matrix(list(range(gpus)), copy_size, reps, warmup, log=log)
    doc["all_to_all"] = all_to_all_on(gpus, size_list, reps, warmup, log=log)
    doc["environment"].update(_nccl_versions())
    return doc


def _nccl_versions() -> dict:
    try:
        import torch

        v = torch.cuda.nccl.version()
        return {"nccl": ".".join(map(str, v)) if isinstance(v, tuple) else str(v)}
    except Exception:
        return {"nccl": None}


__all__ = ["all_to_all_on", "all_to_all_sweep", "copy_matrix", "pair_each_way_gbs", "run_p2p", "sizes",
           "time_collective"]
