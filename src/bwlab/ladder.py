"""A ladder run: verify every kernel and peer, time the correct ones, relate them to the
ceilings measured in the same run."""
from __future__ import annotations

import datetime as dt
from dataclasses import asdict
from typing import Callable, Optional

import numpy as np

from . import catalog, device, harness, peers, verify
from .catalog import KernelSpec
from .launch import Launcher
from .results import Record, Run

DEFAULT_SHAPE = (16384, 16384)
Log = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


def precheck(launcher: Launcher, spec: KernelSpec, dtype: str, block, shapes=verify.AWKWARD_SHAPES,
             seed: Optional[int] = None) -> verify.Check:
    """Run the kernel at awkward shapes against NumPy on the host; the first failure, or ok."""
    import cupy

    rng = np.random.default_rng(seed)
    check = verify.Check(True)
    for shape in shapes:
        host = verify.random_host(shape, dtype, rng)
        x = cupy.asarray(host)
        out = cupy.empty(spec.output_shape(*shape), dtype=x.dtype)
        verify.poison(out)
        launcher(spec, x, out, block)
        check = verify.compare(out.get(), verify.reference(host, spec.transposes))
        if not check.ok:
            return check
    return check


def _fill_percentages(run: Run) -> None:
    peak = run.device["peak_bandwidth_gbs"]
    memcpy = next((r.gbs for r in run.records if r.name == "cudaMemcpy" and r.gbs), None)
    copies = [r for r in run.records if r.kind == "kernel" and r.family == "copy" and r.gbs and r.correct]
    best = max(copies, key=lambda r: r.gbs, default=None)
    run.ceilings = {"peak_gbs": peak, "memcpy_gbs": memcpy,
                    "best_copy_gbs": best.gbs if best else None, "best_copy": best.name if best else None}
    for r in run.records:
        if r.gbs is None:
            continue
        r.pct_peak = 100 * r.gbs / peak
        r.pct_memcpy = 100 * r.gbs / memcpy if memcpy else None
        r.pct_best_copy = 100 * r.gbs / best.gbs if best else None


def run_transpose(kernels: Optional[list[str]] = None, peer_names: Optional[list[str]] = None,
                  shape=DEFAULT_SHAPE, dtype: str = "float32", block=None, warmup: int = 3,
                  reps: int = 100, seed: Optional[int] = None, cpu: bool = True,
                  log: Log = _quiet, command: str = "") -> Run:
    import cupy

    specs = catalog.select(kernels)
    peer_list = list(peers.PEERS) if peer_names is None else [peers.get(p) for p in peer_names]
    rows, cols = shape
    dev = device.query()
    run = Run(device=dev.to_dict(), environment=device.environment(dev.index), command=command,
              created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              config={"kind": "ladder", "shape": [rows, cols], "dtype": dtype, "block": list(block) if block else None,
                      "warmup": warmup, "reps": reps, "seed": seed})
    itemsize = np.dtype(dtype).itemsize
    nbytes = 2 * rows * cols * itemsize
    flush = harness.L2Flusher(dev.l2_bytes) if harness.needs_flush(nbytes, dev.l2_bytes) else None
    run.config["l2_flush"] = flush is not None
    launcher = Launcher(dev.arch)
    log(f"building kernels for {dev.arch}")
    launcher.build_all()

    log(f"generating {rows}x{cols} {dtype} random input")
    x = verify.random_device(shape, dtype, seed)
    host = x.get()
    base = dict(shape=[rows, cols], dtype=dtype, bytes=nbytes)

    ref_host = {}
    if cpu:
        log("timing NumPy on the CPU (also the reference)")
        timing = harness.time_cpu(lambda: ref_host.setdefault("t", verify.reference(host, True)), reps=2)
        run.records.append(Record(peers.CPU_PEER, "cpu", "peer", "transpose", timing=timing.to_dict(),
                                  gbs=harness.gbs(nbytes, timing.median_ms), correct=True,
                                  check="the reference", origin="numpy.ascontiguousarray(x.T)", **base))
        if timing.noisy:
            run.records[-1].notes.append(f"noisy: CV {100 * timing.cv:.1f}%")
    ref_t = cupy.asarray(ref_host["t"] if ref_host else verify.reference(host, True))
    del host, ref_host

    def timed(rec: Record, fn, result_of) -> None:
        check = verify.compare(result_of(), ref_t if rec.role == "transpose" else x)
        rec.correct, rec.check = check.ok, str(check)
        if not check.ok:
            rec.notes.append("wrong result: not timed")
            return
        t = harness.time_gpu(fn, warmup=warmup, reps=reps, flush=flush)
        rec.timing, rec.gbs = t.to_dict(), harness.gbs(nbytes, t.median_ms)
        if t.noisy:
            rec.notes.append(f"noisy: CV {100 * t.cv:.1f}%")

    def do_peer(p: peers.Peer) -> None:
        rec = Record(p.name, "peer", "peer", p.role, origin=p.origin, **base)
        run.records.append(rec)
        why = p.unavailable(dtype)
        if why:
            rec.notes.append(f"skipped: {why}")
            return
        log(f"peer {p.name}")
        try:
            fn = p.make(x)
            timed(rec, fn, lambda: peers.as_cupy(fn()))
        except Exception as exc:  # a peer failing must not sink the run
            rec.correct, rec.notes = None, [f"skipped: {exc.__class__.__name__}: {exc}"]

    def do_kernel(spec: KernelSpec) -> None:
        rec = Record(spec.name, "kernel", spec.family, spec.role, origin=spec.origin, lesson=spec.lesson, **base)
        run.records.append(rec)
        if spec.args != "bytes" and dtype not in spec.dtypes:
            rec.notes.append(f"skipped: no {dtype} version (has {', '.join(spec.dtypes)})")
            return
        use = tuple(block) if block else spec.block
        if block and spec.blocks is not None and use not in spec.blocks:
            rec.notes.append(f"block {use[0]}x{use[1]} not compiled for it; ran {spec.block[0]}x{spec.block[1]}")
            use = spec.block
        out = cupy.empty(spec.output_shape(rows, cols), dtype=x.dtype)
        try:
            launch, grid, use = launcher.prepare(spec, x, out, use)
        except ValueError as exc:
            rec.notes.append(f"refused: {exc}")
            return
        rec.block, rec.grid = list(use), list(grid)
        rec.resources = asdict(launcher.resources(spec, dtype, use))
        log(f"kernel {spec.name} block {use[0]}x{use[1]}")
        pre = precheck(launcher, spec, dtype, use, seed=seed)
        if not pre.ok:
            rec.correct, rec.check = False, str(pre)
            rec.notes.append("wrong at an awkward shape: not timed")
            return
        verify.poison(out)

        def result():
            launch()
            return out

        timed(rec, launch, result)

    # Ceilings first, then the ladder in catalog order, then the transposes users would use.
    try:
        for p in peer_list:
            if p.role != "transpose":
                do_peer(p)
        for spec in specs:
            do_kernel(spec)
        for p in peer_list:
            if p.role == "transpose":
                do_peer(p)
    except KeyboardInterrupt:  # keep what was measured; the caller saves it marked incomplete
        run.complete = False
        _fill_percentages(run)
        return run
    _fill_percentages(run)
    log("measuring the FP32 ceiling")
    run.ceilings["fp32_gflops"] = device.measure_fp32(dev)
    after = device.nvidia_smi("clocks.sm,clocks.mem,temperature.gpu", dev.index)
    if after:  # the clocks under load, next to the idle ones read at the start
        run.environment["after_run"] = dict(zip(("sm_clock_mhz", "mem_clock_mhz", "temperature_c"), after))
    return run
