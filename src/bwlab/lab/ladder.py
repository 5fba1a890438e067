"""A ladder run over one workload and one case: verify every kernel and peer, time the
correct ones, and relate them to the ceilings measured in the same run (cudaMemcpy of the
same bytes, the copy kernels, the theoretical peak)."""
from __future__ import annotations

from dataclasses import asdict
from typing import Optional

from ..core import ceilings, launch, timing
from ..core.results import Run
from ..core.verify import poison
from ..core.workload import Case, KernelSpec, Peer, Workload
from .common import Log, after_run, fill_percentages, fill_timing, flusher, new_run, quiet, record, time_into


def precheck(w: Workload, spec: KernelSpec, case: Case, block, seed: Optional[int] = None):
    """The kernel at the workload's awkward cases against the reference; the first failure, or ok.
    A case outside what the kernel takes (it refuses it with ValueError) is passed over."""
    check = None
    for small in w.precheck_cases(case):
        x = w.make_input(small, seed)
        out = w.new_output(small, x, spec.copies)
        poison(out)
        try:
            prepared = w.prepare(spec, x, out, small, block)
        except ValueError:
            continue
        prepared.launch()
        check = w.check(out, w.copy_of(x) if spec.copies else w.reference(small, x))
        if not check.ok:
            return check
    return check


def select(items, names: Optional[list[str]], what: str):
    if names is None:
        return list(items)
    by = {i.name: i for i in items}
    missing = [n for n in names if n not in by]
    if missing:
        raise ValueError(f"unknown {what} {', '.join(map(repr, missing))}; known: {', '.join(by)}")
    return [by[n] for n in names]


def run_ladder(w: Workload, case: Optional[Case] = None, kernels: Optional[list[str]] = None,
               peers: Optional[list[str]] = None, block=None, warmup: int = 3, reps: int = 100,
               seed: Optional[int] = None, cpu: bool = True, log: Log = quiet, command: str = "") -> Run:
    import cupy

    case = case or w.default_case()
    specs = select(w.kernels() if kernels else w.kernels_for(case), kernels, "kernel")
    peer_list = [p for p in select(w.peers(), peers, "peer") if p.name != "numpy (CPU)" and p.role != "cpu"]
    cpu_peer = next((p for p in w.peers() if p.name.endswith("(CPU)")), None) if cpu else None
    run, dev = new_run("ladder", w, {"shape": list(case.shape), "dtype": case.dtype, "params": dict(case.params),
                                     "block": list(block) if block else None, "warmup": warmup, "reps": reps,
                                     "seed": seed}, command)
    nbytes = w.bytes_moved(case)
    flush = flusher(nbytes, dev.l2_bytes)
    run.config["l2_flush"] = flush is not None
    log(f"building kernels for {dev.arch}")
    for spec in specs + list(ceilings.COPY_KERNELS):
        launch.register(spec.source, spec.expressions())
    for source in {s.source for s in specs}:
        launch.build_for(source, dev.arch)

    log(f"generating a random {case.label} input")
    x = w.make_input(case, seed)
    if cpu_peer is not None and cpu_peer.unavailable(case.dtype) is None:
        log(f"timing {cpu_peer.name} (also the reference)")
        host = x.get()
        rec = record(w, case, cpu_peer.name, "cpu", "peer", cpu_peer.role, origin=cpu_peer.origin)
        run.records.append(rec)
        fn, result = cpu_peer.make(host, None, case)
        t = timing.time_cpu(fn, reps=2)
        fill_timing(rec, t)
        rec.correct, rec.check = True, "the reference"
        expected = cupy.asarray(result())
        del host
    else:
        expected = w.reference(case, x)

    def checked(rec, fn, result, copies: bool) -> None:
        fn()
        check = w.check(result(), w.copy_of(x) if copies else expected)
        rec.correct, rec.check = check.ok, str(check)
        if not check.ok:
            rec.notes.append("wrong result: not timed")
            return
        time_into(rec, fn, warmup=warmup, reps=reps, flush=flush)

    def do_peer(p: Peer) -> None:
        rec = record(w, case, p.name, "api" if p.name == "bwlab" else "peer", "peer", p.role, origin=p.origin,
                     precision=p.precision)
        run.records.append(rec)
        why = p.unavailable(case.dtype)
        if why:
            rec.notes.append(f"skipped: {why}")
            return
        log(f"peer {p.name}")
        out = w.new_output(case, x, p.role in ("copy", "ceiling"))
        try:
            fn, result = p.make(x, out, case)
            checked(rec, fn, result, p.role in ("copy", "ceiling"))
        except Exception as exc:  # a peer failing must not sink the run
            rec.correct, rec.notes = None, [f"skipped: {exc.__class__.__name__}: {str(exc)[:160]}"]

    def do_kernel(spec: KernelSpec, prepare) -> None:
        rec = record(w, case, spec.name, "kernel", spec.family, spec.role, origin=spec.origin, lesson=spec.lesson)
        run.records.append(rec)
        if case.dtype not in spec.dtypes and spec.role != "ceiling":
            rec.notes.append(f"skipped: no {case.dtype} version (has {', '.join(spec.dtypes)})")
            return
        use = tuple(block) if block else spec.block
        if block and spec.blocks is not None and use not in spec.blocks:
            rec.notes.append(f"block {use[0]}x{use[1]} not compiled for it; ran {spec.block[0]}x{spec.block[1]}")
            use = spec.block
        try:
            prepared = prepare(spec, use)
        except ValueError as exc:
            rec.notes.append(f"refused: {exc}")
            return
        rec.block, rec.grid = list(prepared.block), list(prepared.grid)
        if prepared.expression:  # an instantiation the case chose: listed, so its resources are reported
            launch.register(spec.source, [prepared.expression])
        rec.resources = asdict(launch.build_for(spec.source, dev.arch).resources.get(
            prepared.expression or spec.expression(case.dtype, prepared.block), launch.build.Resources()))
        log(f"kernel {spec.name} block {use[0]}x{use[1]}")
        if spec.role != "ceiling":
            pre = precheck(w, spec, case, prepared.block, seed)
            if pre is not None and not pre.ok:
                rec.correct, rec.check = False, str(pre)
                rec.notes.append("wrong at an awkward case: not timed")
                return
        poison(prepared.out)
        checked(rec, prepared.launch, lambda: prepared.out, spec.copies)

    src = x.reshape(-1).view(cupy.uint8)
    scratch = cupy.empty_like(src)
    try:
        # Ceilings first, then the ladder in catalog order, then what users would call.
        rec = record(w, case, "cudaMemcpy", "peer", "peer", "ceiling", origin="cudaMemcpyAsync device to device")
        run.records.append(rec)
        log("cudaMemcpy")
        poison(scratch)
        checked(rec, ceilings.memcpy(src.data.ptr, scratch.data.ptr, src.nbytes), lambda: scratch.view(x.dtype)
                .reshape(x.shape), True)
        for spec in ceilings.COPY_KERNELS:
            do_kernel(spec, lambda s, b: _copy_as(ceilings.prepare_copy(s, src, scratch, b), x))
        for p in peer_list:
            if p.role == "copy":
                do_peer(p)
        for spec in specs:
            do_kernel(spec, lambda s, b: w.prepare(s, x, w.new_output(case, x, s.copies), case, b))
        for p in peer_list:
            if p.role not in ("copy", "ceiling"):
                do_peer(p)
    except KeyboardInterrupt:  # keep what was measured; the caller saves it marked incomplete
        _finish(run)
        return run
    _finish(run)
    run.complete = True
    log("measuring the FP32 ceiling")
    run.ceilings["fp32_gflops"] = ceilings.measure_fp32(dev)
    after_run(run, dev.index)
    return run


def _copy_as(prepared, x):
    """A byte copy whose output is seen with x's shape and dtype, for the check."""
    out = prepared.out
    prepared.out = out.view(x.dtype).reshape(x.shape)
    return prepared


def _finish(run: Run) -> None:
    memcpy = next((r.gbs for r in run.records if r.name == "cudaMemcpy" and r.gbs), None)
    copies = [r for r in run.records if r.kind == "kernel" and r.role == "ceiling" and r.gbs and r.correct]
    best = max(copies, key=lambda r: r.gbs, default=None)
    run.ceilings = {"peak_gbs": run.device["peak_bandwidth_gbs"], "memcpy_gbs": memcpy,
                    "best_copy_gbs": best.gbs if best else None, "best_copy": best.name if best else None}
    fill_percentages(run)
