"""`bwlab streams`: run each stream scenario on the GPU and read back its timeline.

Spin kernels stamp %globaltimer and %smid per block (workloads/streams/kernels/timeline.cu), so
what ran at once is measured on the GPU. Cases that need an environment variable read when the
CUDA context is created (CUDA_DEVICE_MAX_CONNECTIONS) or when CuPy is imported
(CUPY_CUDA_PER_THREAD_DEFAULT_STREAM) run in a child process: `python -m bwlab.lab.streams`
reads the cases as JSON on stdin and writes their timelines as one JSON line on stdout.

The results document (schema bwlab.streams/1) is a JSON object:
  schema, created, command, complete, device, environment, config
  scenarios: [{name, title, claim, data, verdict: {holds, text, numbers},
               cases: [{label, env, ops: [op...], metrics, notes, error}]}]
An op: name, lane (the Gantt row), kind (kernel | h2d | d2h), start_us and end_us (from the
case's first stamp), clock (globaltimer | events); kernels add sms (the SMs their blocks ran
on) and blocks; copies add ready_us (when their stream reached them) and group (their stream).
"""
from __future__ import annotations

import ctypes
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable

import numpy as np

from ..core import launch
from ..core.files import read_json, schema_found, write_text_atomic
from ..core.timing import WARMUP_MS
from ..workloads.streams import analysis as A
from ..workloads.streams.scenarios import CONN_ENV, PTDS_ENV, SCENARIOS, SOURCE, pipeline_label, scenario

SCHEMA = "bwlab.streams/1"
KERNEL_US = 2000.0           # how long each spin kernel runs
PIPELINE_MIB = 256           # bytes copied in (and out) by the pipeline
PIPELINE_CHUNKS = 16
PIPELINE_STREAMS = (1, 2, 4, 8)
PIPELINE_REPS = 3
# compute time per chunk / copy-in time per chunk. Above 1, so compute is the busiest stage even
# while copies in and out share the PCIe link (both directions at once are slower than each alone,
# which the ideal, built from stages timed alone, does not count); at 1 the pipeline is link-bound.
COMPUTE_RATIO = 1.5
CHILD_TIMEOUT_S = 300
NAMES = tuple(s.name for s in SCENARIOS)


def _float(x) -> float:
    return round(float(x), 3)


# --- one case of spin kernels, in this process ------------------------------------------------

def _blocks(case: dict, spec) -> int:
    if case["blocks"] == "full":
        return spec.sm_count * max(1, spec.max_threads_per_sm // case["threads"])
    return int(case["blocks"])


def _lane(stream: str, thread: int, threaded: bool) -> str:
    name = {"null": "null stream", "default": "default stream"}.get(stream, stream)
    return f"{name} (thread {thread})" if threaded else name


_libcuda: list = []


def _driver():
    if not _libcuda:
        _libcuda.append(ctypes.CDLL("libcuda.so.1"))
    return _libcuda[0]


def _current_context() -> ctypes.c_void_p:
    ctx = ctypes.c_void_p()
    err = _driver().cuCtxGetCurrent(ctypes.byref(ctx))
    if err or not ctx.value:
        raise RuntimeError(f"no current CUDA context to share with host threads (error {err})")
    return ctx


def _in_threads(by_thread: dict, issue: Callable, device: int) -> None:
    """Each host thread's steps issued from its own thread, all released at once."""
    import cupy

    ctx = _current_context()
    barrier = threading.Barrier(len(by_thread))
    errors: list = []

    def work(steps):
        try:
            cupy.cuda.runtime.setDevice(device)
            err = _driver().cuCtxSetCurrent(ctx)  # the same (primary) context as the main thread
            if err:
                raise RuntimeError(f"cuCtxSetCurrent failed with CUDA error {err}")
            barrier.wait(timeout=30)
            issue(steps)
        except BaseException as exc:  # noqa: BLE001 - reported by the caller
            errors.append(exc)
            barrier.abort()

    workers = [threading.Thread(target=work, args=(steps,)) for _, steps in sorted(by_thread.items())]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    if errors:
        raise next((e for e in errors if not isinstance(e, threading.BrokenBarrierError)), errors[0])


def _one_pass(case: dict, spec, kernel_us: float, default_handle: int) -> tuple[list, list]:
    """Issue the case's steps once; the ops measured (globaltimer spans) and notes."""
    import cupy

    rt = cupy.cuda.runtime
    fn = launch.function(SOURCE, "spin", device=spec.index)
    threads, blocks = int(case["threads"]), _blocks(case, spec)
    steps = [tuple(s) for s in case["steps"]]
    launches = [s for s in steps if s[0] == "launch"]
    stamps = cupy.zeros((len(launches), blocks, 4), dtype=cupy.uint64)
    streams = {label: cupy.cuda.Stream(non_blocking=(kind == "non-blocking")) for label, kind in case["streams"].items()}
    handles = {"null": 0, "default": default_handle, **{k: s.ptr for k, s in streams.items()}}
    spin_ns = int(round(kernel_us * 1e3))
    packed = {s[1]: launch.PackedLaunch(fn, (blocks, 1, 1), (threads, 1, 1),
                                        [("ptr", stamps[i].data.ptr), ("i64", spin_ns)])
              for i, s in enumerate(launches)}
    events = {s[1]: cupy.cuda.Event(disable_timing=True) for s in steps if s[0] == "record"}
    rt.deviceSynchronize()  # the zeroed stamps are in place before any stream may run

    def issue(todo):
        for op, a, b, _ in todo:
            if op == "launch":
                packed[a](handles[b])
            elif op == "record":    # ("record", event, stream)
                rt.eventRecord(events[a].ptr, handles[b])
            elif op == "wait":      # ("wait", stream, event)
                rt.streamWaitEvent(handles[a], events[b].ptr, 0)
            else:
                raise ValueError(f"unknown step {op!r}")

    by_thread: dict = {}
    for s in steps:
        by_thread.setdefault(int(s[3]), []).append(s)
    if len(by_thread) == 1:
        issue(steps)
    else:
        _in_threads(by_thread, issue, spec.index)
    rt.deviceSynchronize()
    host = stamps.get()
    if (host[:, :, 0] == 0).any() or (host[:, :, 1] == 0).any():
        raise RuntimeError("a kernel left no time stamps (did it run?)")
    base = int(host[:, :, 0].min())
    ops, notes = [], []
    threaded = len(by_thread) > 1
    for i, (_, name, stream, thread) in enumerate(launches):
        st = host[i]
        op = {"name": name, "lane": _lane(stream, int(thread), threaded), "kind": "kernel",
              "start_us": _float((int(st[:, 0].min()) - base) / 1e3), "end_us": _float((int(st[:, 1].max()) - base) / 1e3),
              "sms": sorted({int(v) for v in st[:, 2]}), "blocks": blocks, "clock": "globaltimer"}
        ops.append(op)
        if (st[:, 2] != st[:, 3]).any():
            notes.append(f"{name}: a block reported another SM at its end than at its start")
        if A.dur(op) < 0.9 * kernel_us:
            notes.append(f"{name}: ran {A.dur(op):.1f} us, less than the {kernel_us:.0f} us it spins (clock?)")
    for s in streams.values():  # streams are destroyed with their objects; make sure nothing is pending
        s.synchronize()
    return ops, notes


def run_case(case: dict, spec, kernel_us: float) -> dict:
    """One case, measured after a short warm-up pass (new streams, module load, launch path)."""
    import cupy

    default_handle = int(cupy.cuda.get_current_stream().ptr)  # 0: legacy, 2: per-thread (as CuPy sees it)
    out = {"label": case["label"], "env": dict(case["env"]), "ops": [], "metrics": {}, "notes": [], "error": ""}
    try:
        _one_pass(case, spec, 10.0, default_handle)
        ops, notes = _one_pass(case, spec, kernel_us, default_handle)
    except Exception as exc:  # noqa: BLE001 - a case that fails is reported, the others still run
        out["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0]
        return out
    if os.environ.get(PTDS_ENV) == "1" and default_handle != 2:  # cudaStreamPerThread
        notes.append(f"{PTDS_ENV}=1 but CuPy's default stream is handle {default_handle}, not the per-thread one (2)")
    out["ops"], out["notes"] = ops, notes
    out["metrics"] = {"span_us": _float(A.span_us(ops)), "concurrency": _float(A.concurrency(ops)),
                      "peak_concurrency": A.peak_concurrency(ops), "kernel_us": kernel_us,
                      "blocks_per_kernel": ops[0]["blocks"] if ops else 0, "threads_per_block": int(case["threads"]),
                      "default_stream_handle": default_handle,
                      "process_env": {k: os.environ.get(k) for k in (PTDS_ENV, CONN_ENV)}}
    return out


# --- cases that need a fresh process ------------------------------------------------------------

def _error_case(case: dict, why: str) -> dict:
    return {"label": case["label"], "env": dict(case["env"]), "ops": [], "metrics": {}, "notes": [], "error": why}


def child_env(env: dict) -> dict:
    """This process's environment with env on top, and this bwlab first on the import path."""
    full = dict(os.environ)
    full.update({k: str(v) for k, v in env.items()})
    src = str(Path(__file__).resolve().parents[2])
    full["PYTHONPATH"] = src + (os.pathsep + full["PYTHONPATH"] if full.get("PYTHONPATH") else "")
    return full


def run_in_child(cases: list, kernel_us: float, env: dict, timeout_s: int = CHILD_TIMEOUT_S) -> list:
    """Cases sharing one environment, run in one fresh Python process."""
    payload = json.dumps({"cases": cases, "kernel_us": kernel_us})
    try:
        proc = subprocess.run([sys.executable, "-m", "bwlab.lab.streams"], input=payload, capture_output=True,
                              text=True, timeout=timeout_s, env=child_env(env))
    except subprocess.TimeoutExpired:
        return [_error_case(c, f"child process timed out after {timeout_s} s") for c in cases]
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return [_error_case(c, f"child process failed (exit {proc.returncode}): {tail}") for c in cases]
    try:
        results = json.loads(lines[-1])["results"]
    except (ValueError, KeyError, TypeError):
        return [_error_case(c, f"child process answered {lines[-1][:80]!r}") for c in cases]
    if len(results) != len(cases):
        return [_error_case(c, "child process returned the wrong number of cases") for c in cases]
    return results


def run_cases(cases: list, spec, kernel_us: float) -> list:
    """Every case, in order: those with an environment in one child process per environment."""
    out: list = [None] * len(cases)
    groups: dict = {}
    for i, c in enumerate(cases):
        if c["env"]:
            groups.setdefault(tuple(sorted(c["env"].items())), []).append(i)
        else:
            out[i] = run_case(c, spec, kernel_us)
    for env, idx in groups.items():
        for i, r in zip(idx, run_in_child([cases[i] for i in idx], kernel_us, dict(env))):
            out[i] = r
    return out


def _child_main() -> None:
    request = json.loads(sys.stdin.read())
    from ..core.device import query

    spec = query()
    launch.function(SOURCE, "spin", device=spec.index)
    results = [run_case(c, spec, float(request["kernel_us"])) for c in request["cases"]]
    sys.stdout.write(json.dumps({"results": results}) + "\n")
    sys.stdout.flush()


# --- the copy-compute-copy pipeline ---------------------------------------------------------

def _median_ms(issue: Callable, stream, reps: int = 5, other=None) -> float:
    """Median time of one op issued alone on one stream (events around it); with `other`, issue
    gets both streams, other waits for the start and is joined before the stop."""
    import cupy

    start, stop, join = cupy.cuda.Event(), cupy.cuda.Event(), cupy.cuda.Event(disable_timing=True)
    args = (stream,) if other is None else (stream, other)
    issue(*args)
    cupy.cuda.runtime.deviceSynchronize()
    samples = []
    for _ in range(reps):
        start.record(stream)
        if other is not None:
            other.wait_event(start)
        issue(*args)
        if other is not None:
            join.record(other)
            stream.wait_event(join)
        stop.record(stream)
        stop.synchronize()
        samples.append(cupy.cuda.get_elapsed_time(start, stop))
    return statistics.median(samples)


def _warm(issue: Callable, stream, ms: float = WARMUP_MS) -> None:
    """Issue op after op until `ms` of GPU time have passed (the bench's warm-up length). After an
    idle spell the first copies run slow while the link and clocks wake (on an H100 host, the first
    median of a 4 MiB copy in a process 0.159 ms against 0.083 after it), and one call before timing
    did not cover that."""
    import cupy

    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    n, spent = 1, 0.0
    while spent < ms:
        start.record(stream)
        for _ in range(n):
            issue(stream)
        stop.record(stream)
        stop.synchronize()
        spent += cupy.cuda.get_elapsed_time(start, stop)
        n *= 2


class _Pipeline:
    """Buffers, kernels and stage times of one pipeline setup (pinned and pageable host memory)."""

    THREADS = 256

    def __init__(self, spec, total_mib: int, chunks: int, compute_ratio: float, log: Callable, streams: int = 1):
        import cupy
        import cupyx

        self.spec, self.chunks, self.ratio = spec, chunks, compute_ratio
        self.chunk = total_mib * (1 << 20) // 4 // chunks  # floats per chunk
        if self.chunk < 1:
            raise ValueError(f"{total_mib} MiB cannot be cut into {chunks} chunks")
        self.n = self.chunk * chunks
        self.chunk_bytes = self.chunk * 4
        self.grid = spec.sm_count * max(1, spec.max_threads_per_sm // self.THREADS)
        self.fn = launch.function(SOURCE, "fmaChain", device=spec.index)
        self.spin = launch.function(SOURCE, "spin", device=spec.index)
        self.stamp_fn = launch.function(SOURCE, "stamp", device=spec.index)
        log("pipeline: host buffers")
        x = np.random.default_rng(0).random(self.n, dtype=np.float32)
        self.host = {"pinned": (cupyx.empty_pinned((self.n,), np.float32), cupyx.empty_pinned((self.n,), np.float32)),
                     "pageable": (np.empty(self.n, np.float32), np.zeros(self.n, np.float32))}
        for src, dst in self.host.values():
            src[:] = x
            dst[:] = 0  # pages touched: mapped before anything is timed
        self.d_in = cupy.asarray(x)
        self.d_out = cupy.zeros(self.n, cupy.float32)
        self.stamps = cupy.zeros((chunks, self.grid, 4), cupy.uint64)
        self.gate_stamps = cupy.zeros((1, 4), cupy.uint64)
        self.clock = cupy.zeros(2, cupy.uint64)
        self.stamp = launch.PackedLaunch(self.stamp_fn, (1, 1, 1), (32, 1, 1), [("ptr", self.clock.data.ptr)])
        self.calibrate(compute_ratio, log, streams)

    def kernels(self, iters: int) -> list:
        return [launch.PackedLaunch(self.fn, (self.grid, 1, 1), (self.THREADS, 1, 1),
                                    [("ptr", self.d_in.data.ptr + i * self.chunk_bytes),
                                     ("ptr", self.d_out.data.ptr + i * self.chunk_bytes), ("i64", self.chunk),
                                     ("i32", iters), ("ptr", self.stamps[i].data.ptr)]) for i in range(self.chunks)]

    def copy_in(self, memory: str, i: int, stream_ptr: int) -> None:
        import cupy

        rt = cupy.cuda.runtime
        off = i * self.chunk_bytes
        rt.memcpyAsync(self.d_in.data.ptr + off, self.host[memory][0].ctypes.data + off, self.chunk_bytes,
                       rt.memcpyHostToDevice, stream_ptr)

    def copy_out(self, memory: str, i: int, stream_ptr: int) -> None:
        import cupy

        rt = cupy.cuda.runtime
        off = i * self.chunk_bytes
        rt.memcpyAsync(self.host[memory][1].ctypes.data + off, self.d_out.data.ptr + off, self.chunk_bytes,
                       rt.memcpyDeviceToHost, stream_ptr)

    def total_ms(self, stage: Callable, memory: str, streams: list, reps: int = 3) -> float:
        """Median time of one stage over every chunk (chunk i on streams[i mod n]), nothing else
        running: what the busiest stage takes in the pipeline at best. Chunk kernels on several
        streams overlap one another's first and last blocks, so this can be less than chunks x
        one chunk timed alone."""
        import cupy

        s0 = streams[0]
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        joins = [cupy.cuda.Event(disable_timing=True) for _ in streams[1:]]

        def once() -> float:
            start.record(s0)
            for s in streams[1:]:
                s.wait_event(start)
            for i in range(self.chunks):
                stage(memory, i, streams[i % len(streams)].ptr)
            for j, s in zip(joins, streams[1:]):
                j.record(s)
                s0.wait_event(j)
            stop.record(s0)
            stop.synchronize()
            return cupy.cuda.get_elapsed_time(start, stop)

        once()
        return statistics.median(once() for _ in range(reps))

    def calibrate(self, ratio: float, log: Callable, nstreams: int = 1) -> None:
        """Stage times of one chunk, each alone (and the two copies at once); the FMA count
        that makes compute take ratio x the copy-in time of a chunk (pinned); each stage over
        all chunks on nstreams streams, alone."""
        import cupy

        s = cupy.cuda.Stream(non_blocking=True)
        log("pipeline: stage times")
        self.stages = {}
        for memory in ("pinned", "pageable"):
            _warm(lambda st: (self.copy_in(memory, 0, st.ptr), self.copy_out(memory, 0, st.ptr)), s)
            self.stages[memory] = {"t_in_ms": _median_ms(lambda st: self.copy_in(memory, 0, st.ptr), s),
                                   "t_out_ms": _median_ms(lambda st: self.copy_out(memory, 0, st.ptr), s)}
        # one chunk in and one out at the same time, on two streams: what the copies of a full
        # pipeline do, sharing the link (pinned only: pageable copies cannot overlap)
        s2 = cupy.cuda.Stream(non_blocking=True)
        self.stages["pinned"]["t_both_ms"] = _median_ms(
            lambda a, b: (self.copy_in("pinned", 0, a.ptr), self.copy_out("pinned", 0, b.ptr)), s, other=s2)
        target = ratio * self.stages["pinned"]["t_in_ms"]
        iters = 256
        for _ in range(3):  # the kernel's time is nearly proportional to iters once compute-bound
            k = self.kernels(iters)[0]
            t = _median_ms(lambda st: k(st.ptr), s)
            iters = max(8, int(round(iters * target / t))) if t > 0 else iters
        self.iters = iters
        self.launches = self.kernels(iters)
        t_c = _median_ms(lambda st: self.launches[0](st.ptr), s)
        log("pipeline: stage totals")
        streams = [cupy.cuda.Stream(non_blocking=True) for _ in range(max(1, nstreams))]
        total_c = self.total_ms(lambda memory, i, ptr: self.launches[i](ptr), "pinned", streams)
        self.total_streams = len(streams)
        for memory, st in self.stages.items():
            st["t_compute_ms"] = t_c
            st["total_in_ms"] = self.total_ms(self.copy_in, memory, streams)
            st["total_compute_ms"] = total_c
            st["total_out_ms"] = self.total_ms(self.copy_out, memory, streams)
            st["ideal_ms"] = A.pipeline_ideal_ms(st["t_in_ms"], t_c, st["t_out_ms"], self.chunks,
                                                 (st["total_in_ms"], total_c, st["total_out_ms"]))
            st["serial_ms"] = self.chunks * (st["t_in_ms"] + t_c + st["t_out_ms"])
            for k in list(st):
                st[k] = _float(st[k]) if st[k] >= 1 else round(float(st[k]), 6)
        # the reference: the same kernel over the whole input at once (same bits per element)
        scratch = cupy.zeros((self.grid, 4), cupy.uint64)  # kept alive until the launch is done
        whole = launch.PackedLaunch(self.fn, (self.grid, 1, 1), (self.THREADS, 1, 1),
                                    [("ptr", self.d_in.data.ptr), ("ptr", self.d_out.data.ptr), ("i64", self.n),
                                     ("i32", iters), ("ptr", scratch.data.ptr)])
        cupy.cuda.runtime.deviceSynchronize()
        whole(s.ptr)
        s.synchronize()
        del scratch
        self.reference = self.d_out.get()
        self.d_out.fill(0)
        cupy.cuda.runtime.deviceSynchronize()

    def data(self) -> dict:
        return {"chunks": self.chunks, "chunk_bytes": self.chunk_bytes, "total_bytes": self.n * 4,
                "iters": self.iters, "grid": self.grid, "threads": self.THREADS, "compute_ratio": self.ratio,
                "total_streams": self.total_streams, **self.stages}

    def once(self, memory: str, streams: list, gate_us: float) -> dict:
        """One pass over all chunks, chunk i on stream i mod len(streams); ops and total time."""
        import cupy

        ev = cupy.cuda.Event
        s0 = streams[0]
        gate = launch.PackedLaunch(self.spin, (1, 1, 1), (32, 1, 1),
                                   [("ptr", self.gate_stamps.data.ptr), ("i64", int(gate_us * 1e3))])
        gate(s0.ptr)  # holds stream 0 while the host issues everything, so issue speed does not count
        base, after = ev(), ev()
        base.record(s0)
        self.stamp(s0.ptr)
        after.record(s0)
        for s in streams[1:]:
            s.wait_event(base)
        marks = [[ev() for _ in range(4)] for _ in range(self.chunks)]
        for i in range(self.chunks):
            s, m = streams[i % len(streams)], marks[i]
            m[0].record(s)
            self.copy_in(memory, i, s.ptr)
            m[1].record(s)
            self.launches[i](s.ptr)
            m[2].record(s)
            self.copy_out(memory, i, s.ptr)
            m[3].record(s)
        ends = [ev() for _ in streams]
        for e, s in zip(ends, streams):
            e.record(s)
        for e in ends:
            e.synchronize()

        def t(e) -> float:  # us after base
            return cupy.cuda.get_elapsed_time(base, e) * 1e3

        total_ms = max(t(e) for e in ends) / 1e3
        half = t(after) / 2  # the stamp kernel ran between base and after: its clock sits mid-way
        g0 = int(self.clock.get()[0])
        stamps = self.stamps.get()
        ops = []
        for i in range(self.chunks):
            group, m = f"stream {i % len(streams) + 1}", marks[i]
            ops.append({"name": f"in{i}", "lane": "copy in (H2D)", "kind": "h2d", "group": group,
                        "ready_us": t(m[0]), "start_us": t(m[0]), "end_us": t(m[1]), "clock": "events"})
            st = stamps[i]
            if g0 and st[:, 0].min() > 0:
                k0, k1 = (int(st[:, 0].min()) - g0) / 1e3 + half, (int(st[:, 1].max()) - g0) / 1e3 + half
                clock = "globaltimer"
            else:  # no usable stamps: fall back to the events around the launch
                k0, k1, clock = t(m[1]), t(m[2]), "events"
            ops.append({"name": f"k{i}", "lane": "compute", "kind": "kernel", "group": group, "start_us": k0,
                        "end_us": k1, "sm_count": len({int(v) for v in st[:, 2]}), "blocks": self.grid,
                        "clock": clock})
            ops.append({"name": f"out{i}", "lane": "copy out (D2H)", "kind": "d2h", "group": group,
                        "ready_us": t(m[2]), "start_us": t(m[2]), "end_us": t(m[3]), "clock": "events"})
        for kind in ("h2d", "d2h"):  # one copy engine per direction: a copy starts when the one before it ends
            prev = -1e18
            for op in sorted((o for o in ops if o["kind"] == kind), key=lambda o: o["end_us"]):
                op["start_us"] = min(op["end_us"], max(op["ready_us"], prev))
                prev = op["end_us"]
        for op in ops:
            for k in ("ready_us", "start_us", "end_us"):
                if k in op:
                    op[k] = _float(op[k])
        return {"ops": ops, "total_ms": total_ms, "clock_align_us": _float(half)}


def run_pipeline(spec, total_mib: int = PIPELINE_MIB, chunks: int = PIPELINE_CHUNKS, stream_counts=PIPELINE_STREAMS,
                 reps: int = PIPELINE_REPS, compute_ratio: float = COMPUTE_RATIO,
                 log: Callable[[str], None] = lambda m: None) -> tuple[list, dict]:
    """Every (streams, memory) case of the pipeline: (cases, data with the stage times)."""
    import cupy

    p = _Pipeline(spec, total_mib, chunks, compute_ratio, log, max(stream_counts))
    gate_us = max(2000.0, 150.0 * chunks)
    cases = []
    for memory in ("pinned", "pageable"):
        dst = p.host[memory][1]
        for n in stream_counts:
            log(f"pipeline: {pipeline_label(n, memory)}")
            streams = [cupy.cuda.Stream(non_blocking=True) for _ in range(n)]
            runs = []
            for r in range(reps):
                if r == reps - 1:
                    dst[:] = np.nan  # poisoned: the last pass must write every element
                runs.append(p.once(memory, streams, gate_us))
            correct = bool(np.array_equal(dst, p.reference))
            totals = [x["total_ms"] for x in runs]
            pick = sorted(range(len(runs)), key=lambda i: totals[i])[len(runs) // 2]
            ideal = p.stages[memory]["ideal_ms"]
            median = statistics.median(totals)
            metrics = {"streams": n, "memory": memory, "total_ms": round(median, 4),
                       "totals_ms": [round(v, 4) for v in totals], "ideal_ms": ideal,
                       "over_ideal": round(median / ideal, 4) if ideal else None,
                       "serial_ms": p.stages[memory]["serial_ms"], "correct": correct,
                       "clock_align_us": runs[pick]["clock_align_us"]}
            cases.append({"label": pipeline_label(n, memory), "env": {}, "ops": runs[pick]["ops"],
                          "metrics": metrics, "notes": [] if correct else ["WRONG: the output differs from the "
                                                                           "reference"], "error": ""})
    return cases, p.data()


# --- the document ---------------------------------------------------------------------------

def new_document(device: dict, environment: dict, config: dict, command: str = "") -> dict:
    return {"schema": SCHEMA, "created": dt.datetime.now().isoformat(timespec="seconds"), "command": command,
            "complete": False, "device": device, "environment": environment, "config": config, "scenarios": []}


def entry(name: str, cases: list, data: dict) -> dict:
    s = scenario(name)
    return {"name": s.name, "title": s.title, "claim": s.claim, "data": data, "cases": cases,
            "verdict": s.verdict(cases, data)}


def run_streams(doc: dict, names, kernel_us: float = KERNEL_US, pipeline_mib: int = PIPELINE_MIB,
                chunks: int = PIPELINE_CHUNKS, stream_counts=PIPELINE_STREAMS, reps: int = PIPELINE_REPS,
                compute_ratio: float = COMPUTE_RATIO, log: Callable[[str], None] = lambda m: None,
                on_scenario: Callable[[dict], None] = lambda d: None) -> dict:
    """Measure the named scenarios into doc (appended one by one; on_scenario(doc) after each)."""
    from ..core.device import query

    spec = query()
    launch.function(SOURCE, "spin", device=spec.index)  # built now: child processes load it from the cache
    for name in names:
        log(name)
        if name == "pipeline":
            cases, data = run_pipeline(spec, pipeline_mib, chunks, stream_counts, reps, compute_ratio, log)
        else:
            cases, data = run_cases(scenario(name).cases(), spec, kernel_us), {"kernel_us": kernel_us}
        doc["scenarios"].append(entry(name, cases, data))
        on_scenario(doc)
    doc["complete"] = True
    return doc


def measure(names, command: str = "", log: Callable[[str], None] = lambda m: None,
            on_scenario: Callable[[dict], None] = lambda d: None, **settings) -> dict:
    """A new document with the named scenarios measured (settings: those of run_streams)."""
    from ..core.device import environment, query

    config = {"procedure": "streams", "scenarios": list(names), **settings,
              "process_env": {k: os.environ.get(k) for k in (PTDS_ENV, CONN_ENV)}}
    if "stream_counts" in config:
        config["stream_counts"] = list(config["stream_counts"])
    doc = new_document(query().to_dict(), environment(), config, command)
    return run_streams(doc, names, log=log, on_scenario=on_scenario, **settings)


def save(doc: dict, path) -> Path:
    return write_text_atomic(Path(path), json.dumps(doc, indent=1, default=float) + "\n")


def _check_doc(d) -> dict:
    if not isinstance(d, dict):
        raise ValueError(f"not a bwlab streams document: expected a JSON object, got {type(d).__name__}")
    if d.get("schema") != SCHEMA:
        raise ValueError(f"not a bwlab streams document ({schema_found(d)}): this reads the streams.json that `bwlab "
                         f"streams` writes (schema {SCHEMA})")
    if not isinstance(d.get("device"), dict) or not isinstance(d["device"].get("name"), str):
        raise ValueError("bwlab streams document: 'device' needs a name")
    if not isinstance(d.get("scenarios"), list):
        raise ValueError("bwlab streams document: 'scenarios' should be a list")
    for i, s in enumerate(d["scenarios"]):
        where = f"scenario {i + 1}"
        if not isinstance(s, dict) or not isinstance(s.get("name"), str) or not isinstance(s.get("cases"), list):
            raise ValueError(f"{where}: needs a name and a list of cases")
        for j, c in enumerate(s["cases"]):
            w = f"{where} ({s['name']}) case {j + 1}"
            if not isinstance(c, dict) or not isinstance(c.get("label"), str) or not isinstance(c.get("ops"), list):
                raise ValueError(f"{w}: needs a label and a list of ops")
            for k, op in enumerate(c["ops"]):
                if not isinstance(op, dict) or not isinstance(op.get("name"), str):
                    raise ValueError(f"{w} op {k + 1}: needs a name")
                for key in ("start_us", "end_us"):
                    v = op.get(key)
                    if not isinstance(v, (int, float)) or isinstance(v, bool):
                        raise ValueError(f"{w} op {op['name']}: {key!r} should be a number")
        s.setdefault("verdict", {"holds": None, "text": "", "numbers": {}})
        s.setdefault("title", s["name"])
        s.setdefault("claim", "")
        s.setdefault("data", {})
    for key in ("config", "environment"):
        d.setdefault(key, {})
    d.setdefault("complete", True)
    return d


def load(path) -> dict:
    """The streams document at path, or ValueError with one line saying what is wrong."""
    path = Path(path)
    doc = read_json(path)
    try:
        return _check_doc(doc)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def wrong(doc: dict) -> list[str]:
    """Cases whose output was checked and found wrong."""
    return [f"{s['name']}: {c['label']}" for s in doc["scenarios"] for c in s["cases"]
            if c.get("metrics", {}).get("correct") is False]


def unmeasured(doc: dict) -> list[str]:
    return [f"{s['name']}: {c['label']}: {c['error']}" for s in doc["scenarios"] for c in s["cases"] if c.get("error")]


if __name__ == "__main__":
    _child_main()
