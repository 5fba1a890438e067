"""`bwlab transfers`: host-device copies by size, from pinned and from pageable memory, both
directions at once, device to device, and GPU to GPU where there are two; torch's copies of
the same kinds timed as peers in the same run.

Every transfer is timed the same way, whichever library issues it: a CUDA event before and
after it on its stream (other streams of the transfer wait on the first event and are joined
before the second), then a wait for the second event; the event pair gives the GPU time, the
host clock around the whole gives the time a caller waits (latency). bwlab's and torch's copies
of the same kind and size take turns, one repetition each (the first alternating), so a drift of
the link or the host during the run weighs on both alike. GB/s counts the bytes
that cross the link once: one copy of size bytes moves size bytes; both directions at once
move 2 x size; device to device reads and writes 2 x size (as every bwlab GB/s does).
"""
from __future__ import annotations

import datetime as dt
import re
import time
from typing import Callable, Optional

from ..core import timing
from ..core.results import Record, Run

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
MIN_SIZE, MAX_SIZE = 4 * KIB, GIB
GOAL_SIZE = 64 * MIB    # the bandwidth goal is judged from here up (below, latency dominates)
GOAL_RATIO = 0.95       # pinned copies at least 95% of torch's GB/s
REPS, WARMUP = 50, 2
MIN_REPS = 10           # even the biggest copies: enough for a median the 5% goal can be judged on
LIBRARY = "cudaMemcpyAsync"  # bwlab's rows: the CUDA runtime through CuPy
# mode -> (direction, memory, bytes moved per byte of size)
MODES = {
    "H2D pinned": ("H2D", "pinned", 1), "H2D pageable": ("H2D", "pageable", 1),
    "D2H pinned": ("D2H", "pinned", 1), "D2H pageable": ("D2H", "pageable", 1),
    "H2D+D2H pinned": ("both", "pinned", 2), "D2D": ("D2D", "device", 2), "P2P 0->1": ("P2P", "device", 1),
}
TORCH_MODES = ("H2D pinned", "H2D pageable", "D2H pinned", "D2H pageable", "H2D+D2H pinned", "D2D")
GOAL_MODES = ("H2D pinned", "D2H pinned", "H2D+D2H pinned")

_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?\s*", re.I)


def parse_size(text: str) -> int:
    """'4K', '4KiB', '16M', '1G', '1GiB', '4096' -> bytes (binary units)."""
    m = _SIZE.fullmatch(str(text))
    if not m:
        raise ValueError(f"a size looks like 4K, 16MiB, 1G or 4096, got {text!r}")
    n = float(m[1]) * {"": 1, "k": KIB, "m": MIB, "g": GIB}[m[2].lower()]
    if n != int(n) or n < 1:
        raise ValueError(f"a size must be a whole number of bytes, got {text!r}")
    return int(n)


def size_text(n: int) -> str:
    for unit, name in ((GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")):
        if n >= unit and n % unit == 0:
            return f"{n // unit} {name}"
    return f"{n} B"


def sizes(max_size: int = MAX_SIZE, min_size: int = MIN_SIZE) -> list[int]:
    """min_size, x4, x4, ... up to max_size (max_size itself always included)."""
    if min_size < 1 or max_size < min_size:
        raise ValueError(f"sizes from {size_text(min_size)} to {size_text(max_size)}: the largest must be at least "
                         "the smallest")
    out, n = [], min_size
    while n < max_size:
        out.append(n)
        n *= 4
    return out + [max_size]


def reps_for(size: int, reps: int) -> int:
    """Fewer repetitions for big copies (about the time of `reps` copies of 64 MiB), at least
    MIN_REPS (or reps, when fewer were asked for)."""
    return max(min(MIN_REPS, reps), min(reps, int(reps * GOAL_SIZE / size)))


# --- timing -------------------------------------------------------------------------------

def _timed_once(issue: Callable[[], None], streams: list[int]) -> Callable[[], tuple[float, float]]:
    """A function that issues one transfer between two events and waits for it: (GPU ms, host ms).
    streams: raw handles, the first carries the events, the others wait on it and are joined back."""
    import cupy

    rt = cupy.cuda.runtime
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    joins = [cupy.cuda.Event(disable_timing=True) for _ in streams[1:]]

    def once():
        t0 = time.perf_counter()
        rt.eventRecord(start.ptr, streams[0])
        for s in streams[1:]:
            rt.streamWaitEvent(s, start.ptr, 0)
        issue()
        for j, s in zip(joins, streams[1:]):
            rt.eventRecord(j.ptr, s)
            rt.streamWaitEvent(streams[0], j.ptr, 0)
        rt.eventRecord(stop.ptr, streams[0])
        rt.eventSynchronize(stop.ptr)
        return rt.eventElapsedTime(start.ptr, stop.ptr), (time.perf_counter() - t0) * 1e3

    return once


def time_transfers(ops: list, reps: int, warmup: int = WARMUP) -> list:
    """[(GPU time, host time) as Timing objects, in ms] for each (issue, streams) in ops, their
    repetitions taking turns (one each, the first of every round alternating)."""
    onces = [_timed_once(issue, streams) for issue, streams in ops]
    for once in onces:
        for _ in range(max(0, warmup)):
            once()
    samples: list = [([], []) for _ in onces]
    for r in range(reps):
        order = range(len(onces)) if r % 2 == 0 else reversed(range(len(onces)))
        for i in order:
            g, h = onces[i]()
            samples[i][0].append(g)
            samples[i][1].append(h)
    return [(timing.stats(g), timing.stats(h)) for g, h in samples]


# --- the buffers and what each library calls --------------------------------------------------

class _CupyBuffers:
    def __init__(self, max_size: int, peer: Optional[int]):
        import cupy
        import cupyx
        import numpy as np

        self.cupy, self.rt = cupy, cupy.cuda.runtime
        self.pinned = [cupyx.empty_pinned((max_size,), np.uint8) for _ in range(2)]
        self.pageable = [np.empty(max_size, np.uint8) for _ in range(2)]
        rng = np.random.default_rng(1)
        pattern = np.resize(rng.integers(0, 256, size=min(max_size, 1 << 20), dtype=np.uint8), max_size)
        for a in self.pinned + self.pageable:  # every page touched (mapped) before timing
            a[:] = pattern
        # destinations start different from their sources, so the checks see the copies arrive
        self.dev = [cupy.zeros(max_size, cupy.uint8), cupy.asarray(pattern) + cupy.uint8(1)]
        self.streams = [cupy.cuda.Stream(non_blocking=True) for _ in range(2)]
        self.peer = None
        self.peer_note = ""
        if peer is not None:
            with cupy.cuda.Device(peer):
                self.peer = cupy.empty(max_size, cupy.uint8)
            if self.rt.deviceCanAccessPeer(0, peer):
                try:
                    self.rt.deviceEnablePeerAccess(peer)
                except cupy.cuda.runtime.CUDARuntimeError as exc:  # already enabled
                    if "PeerAccessAlreadyEnabled" not in str(exc):
                        raise
            else:
                self.peer_note = "no peer access between the GPUs: the driver stages the copy through the host"
        self.rt.deviceSynchronize()

    def op(self, mode: str, size: int):
        """(issue, streams) for one transfer of size bytes."""
        rt, (s1, s2) = self.rt, (self.streams[0].ptr, self.streams[1].ptr)
        h2d, d2h, d2d = rt.memcpyHostToDevice, rt.memcpyDeviceToHost, rt.memcpyDeviceToDevice
        host = self.pinned if "pinned" in mode else self.pageable
        d0, d1 = self.dev[0].data.ptr, self.dev[1].data.ptr
        h0, h1 = host[0].ctypes.data, host[1].ctypes.data
        if mode.startswith("H2D+D2H"):
            def issue():
                rt.memcpyAsync(d0, h0, size, h2d, s1)
                rt.memcpyAsync(h1, d1, size, d2h, s2)
            return issue, [s1, s2]
        if mode.startswith("H2D"):
            return (lambda: rt.memcpyAsync(d0, h0, size, h2d, s1)), [s1]
        if mode.startswith("D2H"):
            return (lambda: rt.memcpyAsync(h1, d1, size, d2h, s1)), [s1]
        if mode == "D2D":
            return (lambda: rt.memcpyAsync(d1, d0, size, d2d, s1)), [s1]
        if mode.startswith("P2P"):
            dst, peer = self.peer.data.ptr, self.peer.device.id
            return (lambda: rt.memcpyPeerAsync(dst, peer, d0, 0, size, s1)), [s1]
        raise ValueError(mode)

    def check(self, mode: str, size: int) -> Optional[bool]:
        """The bytes arrived (sampled: up to 64 Ki positions, first and last byte included)."""
        import numpy as np

        step = max(1, size // 65536)
        idx = np.unique(np.r_[np.arange(0, size, step), size - 1])
        host = self.pinned if "pinned" in mode else self.pageable
        if mode.startswith("H2D"):
            ok = np.array_equal(self.dev[0][:size].get()[idx], host[0][idx])
            if mode.startswith("H2D+D2H"):
                ok = ok and np.array_equal(host[1][idx], self.dev[1][:size].get()[idx])
            return bool(ok)
        if mode.startswith("D2H"):
            return bool(np.array_equal(host[1][idx], self.dev[1][:size].get()[idx]))
        if mode == "D2D":
            return bool(np.array_equal(self.dev[1][:size].get()[idx], self.dev[0][:size].get()[idx]))
        if mode.startswith("P2P"):
            return bool(np.array_equal(self.peer[:size].get()[idx], self.dev[0][:size].get()[idx]))
        return None


class _TorchBuffers:
    """The same transfers as a torch user writes them: tensor.copy_(other, non_blocking=True),
    host tensors from torch.empty(pin_memory=True) or plain torch.empty."""

    def __init__(self, max_size: int):
        import torch

        self.torch = torch
        dev = torch.device("cuda", 0)
        self.pinned = [torch.ones(max_size, dtype=torch.uint8).pin_memory() for _ in range(2)]
        self.pageable = [torch.ones(max_size, dtype=torch.uint8) for _ in range(2)]
        self.dev = [torch.ones(max_size, dtype=torch.uint8, device=dev) for _ in range(2)]
        self.streams = [torch.cuda.Stream(device=dev) for _ in range(2)]
        torch.cuda.synchronize()

    def op(self, mode: str, size: int):
        torch = self.torch
        s1, s2 = self.streams
        host = self.pinned if "pinned" in mode else self.pageable
        d0, d1 = self.dev[0][:size], self.dev[1][:size]
        h0, h1 = host[0][:size], host[1][:size]

        def on(stream, fn):
            with torch.cuda.stream(stream):
                fn()

        if mode.startswith("H2D+D2H"):
            def issue():
                on(s1, lambda: d0.copy_(h0, non_blocking=True))
                on(s2, lambda: h1.copy_(d1, non_blocking=True))
            return issue, [s1.cuda_stream, s2.cuda_stream]
        if mode.startswith("H2D"):
            return (lambda: on(s1, lambda: d0.copy_(h0, non_blocking=True))), [s1.cuda_stream]
        if mode.startswith("D2H"):
            return (lambda: on(s1, lambda: h1.copy_(d1, non_blocking=True))), [s1.cuda_stream]
        if mode == "D2D":
            return (lambda: on(s1, lambda: d1.copy_(d0, non_blocking=True))), [s1.cuda_stream]
        raise ValueError(mode)


# --- the procedure ---------------------------------------------------------------------------

def _record(mode: str, library: str, size: int, gpu=None, host=None, correct=None, notes=()) -> Record:
    direction, memory, factor = MODES[mode]
    moved = factor * size
    params = {"mode": mode, "direction": direction, "memory": memory, "size": size, "library": library}
    rec = Record(mode, "peer" if library == "torch" else "copy", library, "transfer", [size], "uint8", moved,
                 workload="transfers", params=params, correct=correct, notes=list(notes))
    if gpu is not None:
        rec.timing = gpu.to_dict()
        rec.gbs = timing.gbs(moved, gpu.median_ms)
        params["latency_us"] = round(gpu.median_ms * 1e3, 3)
        params["host_us"] = round(host.median_ms * 1e3, 3)
        if gpu.noisy:
            rec.notes.append(f"noisy: coefficient of variation {100 * gpu.cv:.0f}%")
    return rec


def torch_missing() -> Optional[str]:
    try:
        import torch
    except Exception as exc:  # noqa: BLE001
        return f"torch is not installed ({exc.__class__.__name__})"
    if not torch.cuda.is_available():
        return "torch sees no CUDA device"
    return None


def goals(run: Run) -> list[tuple[str, Optional[bool], str]]:
    """(mode, met or None when not measurable, the numbers) for the pinned-copy goal:
    at every size from 64 MiB up, at least 95% of torch's GB/s for the same transfer."""
    out = []
    for mode in GOAL_MODES:
        pairs = []
        for r in run.records:
            if r.name == mode and r.family == LIBRARY and r.gbs and r.shape[0] >= GOAL_SIZE:
                t = next((x for x in run.records if x.name == mode and x.family == "torch" and x.shape == r.shape
                          and x.gbs), None)
                if t:
                    pairs.append((r.shape[0], r.gbs, t.gbs))
        if not pairs:
            out.append((mode, None, f"no size of at least {size_text(GOAL_SIZE)} with both measured"))
            continue
        worst = min(pairs, key=lambda p: p[1] / p[2])
        met = all(b / t >= GOAL_RATIO for _, b, t in pairs)
        out.append((mode, met, f"worst {100 * worst[1] / worst[2]:.1f}% of torch at {size_text(worst[0])} "
                               f"({worst[1]:.1f} against {worst[2]:.1f} GB/s)"))
    return out


def run_transfers(size_list: list[int], reps: int = REPS, warmup: int = WARMUP, peers: bool = True,
                  log: Callable[[str], None] = lambda m: None, command: str = "",
                  on_record: Callable[[Run], None] = lambda r: None) -> Run:
    """Every mode at every size, bwlab's calls then torch's, into one results document."""
    import cupy

    from ..core.device import environment, query

    spec = query()
    ndev = cupy.cuda.runtime.getDeviceCount()
    modes = [m for m in MODES if not m.startswith("P2P") or ndev > 1]
    max_size = max(size_list)
    config = {"procedure": "transfers", "workload": "transfers", "sizes": list(size_list), "reps": reps,
              "warmup": warmup, "modes": modes, "goal_size": GOAL_SIZE, "goal_ratio": GOAL_RATIO, "gpus": ndev,
              "peers_interleaved": True}
    run = Run(spec.to_dict(), environment(), config, created=dt.datetime.now().isoformat(timespec="seconds"),
              command=command, complete=False)
    log("allocating host and device buffers")
    mine = _CupyBuffers(max_size, 1 if ndev > 1 else None)
    why_not = torch_missing() if peers else "peers not requested (--no-peers)"
    theirs = None
    if why_not is None:
        try:
            theirs = _TorchBuffers(max_size)
        except Exception as exc:  # noqa: BLE001 - a peer that fails is a row saying so
            why_not = f"torch failed: {exc.__class__.__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    for size in size_list:
        n = reps_for(size, reps)
        for mode in modes:
            log(f"{mode}, {size_text(size)}")
            ops = [mine.op(mode, size)]
            if mode in TORCH_MODES and theirs is not None:
                ops.append(theirs.op(mode, size))
            timed = time_transfers(ops, n, warmup)
            notes = [mine.peer_note] if mode.startswith("P2P") and mine.peer_note else []
            run.records.append(_record(mode, LIBRARY, size, *timed[0], mine.check(mode, size), notes))
            if mode in TORCH_MODES:
                if theirs is None:
                    run.records.append(_record(mode, "torch", size, notes=[f"skipped: {why_not}"]))
                else:
                    run.records.append(_record(mode, "torch", size, *timed[1]))
        on_record(run)
    run.complete = True
    return run

