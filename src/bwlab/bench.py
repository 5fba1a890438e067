"""`bwlab bench transpose`: bwlab.transpose against what users would otherwise call, over a
matrix of shapes x dtypes, each result checked bit-exact on the GPU before it is timed.

Arrays live in torch (every dtype, bfloat16 and bool included); CuPy and cuBLAS see the
same memory through DLPack. GB/s = (bytes read + bytes written) / median time; % memcpy is
against cudaMemcpy of the same bytes in the same case. The goals of issue 3 are evaluated
per case and every miss gets a row with its reason.
"""
from __future__ import annotations

import datetime as dt
import gc
from typing import Callable, Optional

import numpy as np

from . import device, harness, verify
from .results import Record, Run

SHAPES: tuple[tuple[int, ...], ...] = (
    (16384, 16384), (16381, 16387), (8192, 32768), (32768, 8192), (10_000_000, 3), (3, 10_000_000),
    (64, 4_194_304), (256, 4096, 4096), (1024, 1024))
DTYPES = ("uint8", "float16", "float32", "float64", "complex128")  # one per element size
ALL_DTYPES = ("bool", "int8", "uint8", "float16", "bfloat16", "int16", "float32", "int32", "float64",
              "int64", "complex64", "complex128")
GOAL_BYTES = 256 << 20  # goals apply from this input size up
PEERS = ("bwlab", "cudaMemcpy", "torch", "cupy", "cublas.geam", "triton")
# Masks that keep random float bits finite (exponent MSB cleared): cuBLAS computes
# 1 * x, which would quiet signalling NaNs; the bits are otherwise random.
_MASK = {"float16": 0xBFFFBFFF, "bfloat16": 0xBFFFBFFF, "float32": 0xBFFFFFFF, "complex64": 0xBFFFFFFF,
         "bool": 0x01010101}
_WIDE_FLOAT = ("float64", "complex128")  # high word of each 8-byte float masked separately


def goal_pct(itemsize: int) -> float:
    return 90.0 if itemsize <= 2 else 95.0


def _torch_dtype(name: str):
    import torch

    return getattr(torch, name)


def make_input(shape, dtype: str, seed: int):
    import cupy
    import torch

    x = torch.empty(shape, dtype=_torch_dtype(dtype), device="cuda")
    flat = cupy.from_dlpack(x.view(-1).view(torch.uint8))
    verify.fill_random_bits(flat, seed, _MASK.get(dtype, 0xFFFFFFFF))
    if dtype in _WIDE_FLOAT:  # clear the exponent MSB in the high word of every float64
        words = flat[: flat.size // 8 * 8].view(cupy.uint32)
        words[1::2] &= np.uint32(0xBFFFFFFF)
    return x


def _free() -> None:
    import cupy
    import torch

    gc.collect()
    torch.cuda.empty_cache()
    cupy.get_default_memory_pool().free_all_blocks()


def peer_callable(name: str, x, out):
    """(fn, result) for a peer: fn() runs it, result() gives its output as a torch tensor;
    or a string saying why the peer does not apply."""
    import cupy
    import torch

    from .transpose import transpose as bw

    if name == "bwlab":
        return (lambda: bw(x, out)), (lambda: out)
    if name == "cudaMemcpy":
        rt = cupy.cuda.runtime
        n = x.numel() * x.element_size()
        return (lambda: rt.memcpyAsync(out.data_ptr(), x.data_ptr(), n, rt.memcpyDeviceToDevice,
                                       torch.cuda.current_stream().cuda_stream)), None
    holder = {}  # the peer's latest result; dropped before the next call so only one is alive

    def keep(make):
        def run():
            holder.pop("r", None)
            holder["r"] = make()
        return run

    if name == "torch":
        return keep(lambda: x.transpose(-1, -2).contiguous()), (lambda: holder["r"])
    if name == "cupy":
        try:
            xc = cupy.from_dlpack(x)
        except Exception as exc:
            return f"CuPy cannot view {x.dtype} ({exc.__class__.__name__})"
        return keep(lambda: cupy.ascontiguousarray(xc.swapaxes(-1, -2))), (lambda: torch.from_dlpack(holder["r"]))
    if name == "cublas.geam":
        if x.dtype not in (torch.float32, torch.float64):
            return "geam is float32/float64 only here"
        if x.dim() != 2:
            return "geam transposes one matrix; no batched form"
        import cupy.cublas  # noqa: F401  (not imported by `import cupy`)

        xc, oc = cupy.from_dlpack(x), cupy.from_dlpack(out)
        return (lambda: cupy.cublas.geam("T", "N", 1.0, xc, 0.0, oc, out=oc)), (lambda: out)
    if name == "triton":
        try:
            from . import triton_peer
        except Exception as exc:
            return f"triton not importable ({exc.__class__.__name__})"
        return (lambda: triton_peer.transpose(x, out)), (lambda: out)
    raise ValueError(f"unknown peer {name!r}")


def _reps_for(nbytes: int, reps: Optional[int]) -> int:
    if reps:
        return reps
    return 100 if nbytes < (1 << 30) else 30 if nbytes < (16 << 30) else 10


def bench_case(shape, dtype: str, peers, reps: Optional[int], warmup: int, l2_bytes: int,
               seed: int, log: Callable[[str], None]) -> list[Record]:
    import torch

    from .transpose import explain

    x = make_input(shape, dtype, seed)
    nbytes = 2 * x.numel() * x.element_size()
    out_shape = tuple(shape[:-2]) + (shape[-1], shape[-2])
    out = torch.empty(out_shape, dtype=x.dtype, device="cuda")
    flush = harness.L2Flusher(l2_bytes) if harness.needs_flush(nbytes, l2_bytes) else None
    n = _reps_for(nbytes, reps)
    base = dict(shape=list(shape), dtype=dtype, bytes=nbytes)
    records = []
    for name in peers:
        kind = "kernel" if name == "bwlab" else "peer"
        rec = Record(name, kind, "bench", "ceiling" if name == "cudaMemcpy" else "transpose", **base)
        records.append(rec)
        if name == "bwlab":
            rec.origin = explain(x)
        log(f"{'x'.join(map(str, shape))} {dtype}: {name}")
        try:
            made = peer_callable(name, x, out)
            if isinstance(made, str):
                rec.notes.append(f"skipped: {made}")
                continue
            fn, result = made
            if result is not None:
                out.view(torch.uint8).fill_(verify.POISON_BYTE) if out.numel() else None
                fn()
                got = result()
                check = verify.compare_transposed(_as_cupy(got), _as_cupy(x))
                rec.correct, rec.check = check.ok, str(check)
                if not check.ok:
                    rec.notes.append("wrong result: not timed")
                    continue
            else:
                rec.correct, rec.check = True, "copy (not a transpose)"
            t = harness.time_gpu(fn, warmup=warmup, reps=n, flush=flush)
            rec.timing, rec.gbs = t.to_dict(), harness.gbs(nbytes, t.median_ms)
            if t.noisy:
                rec.notes.append(f"noisy: CV {100 * t.cv:.1f}%")
        except torch.OutOfMemoryError:
            rec.correct = None
            rec.notes.append(f"skipped: does not fit beside the {2 * nbytes / 2**30:.0f} GiB of input and output")
        except Exception as exc:  # a peer failing must not sink the benchmark
            rec.correct = None
            rec.notes.append(f"skipped: {exc.__class__.__name__}: {str(exc)[:160]}")
        finally:
            made = fn = result = None
            _free()
    memcpy = next((r.gbs for r in records if r.name == "cudaMemcpy" and r.gbs), None)
    for r in records:
        if r.gbs and memcpy:
            r.pct_memcpy = 100 * r.gbs / memcpy
    return records


def _as_cupy(t):
    import cupy
    import torch

    if t.dtype == torch.bool:
        t = t.view(torch.uint8)
    elif t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return cupy.from_dlpack(t)


def evaluate(records: list[Record], itemsize: int) -> list[str]:
    """The issue's goals for one case; one line per miss (empty when all are met or n/a)."""
    by = {r.name: r for r in records}
    bw = by.get("bwlab")
    if not bw or records[0].bytes // 2 < GOAL_BYTES:
        return []
    if not bw.gbs:
        return [f"bwlab not measured: {'; '.join(bw.notes) or bw.check}"]
    misses = []
    want = goal_pct(itemsize)
    if bw.pct_memcpy is not None and bw.pct_memcpy < want:
        misses.append(f"{bw.pct_memcpy:.1f}% of memcpy < {want:.0f}%")
    memcpy = by["cudaMemcpy"].gbs if "cudaMemcpy" in by else None
    for name in ("torch", "cupy"):
        p = by.get(name)
        if p and p.gbs and bw.gbs < 3 * p.gbs:
            line = f"only {bw.gbs / p.gbs:.2f}x {name} (goal 3x)"
            if memcpy and 3 * p.gbs > memcpy:
                line += f"; unreachable: 3x {name} = {3 * p.gbs:.0f} GB/s is above cudaMemcpy ({memcpy:.0f})"
            misses.append(line)
    for name in ("cublas.geam", "triton"):
        p = by.get(name)
        if p and p.gbs and bw.gbs < p.gbs:
            misses.append(f"slower than {name} ({bw.gbs:.0f} < {p.gbs:.0f} GB/s)")
    return misses


def why_missed(shape, itemsize: int, kernel: str) -> str:
    """What ran at this shape (kernel: explain()'s text), and the known cause of a miss."""
    rows, cols = shape[-2:]
    ve = 16 // itemsize
    if kernel.startswith("tileScalar"):
        return (f"{rows}x{cols} is not a multiple of {ve} elements (16 bytes) on both sides: rows are "
                f"misaligned for 16-byte vectors, so the element-by-element tile runs ({kernel.split(':')[0]})")
    if kernel.startswith("tileAny"):
        tr = int(kernel.split(",")[1])
        if rows < tr:
            return f"{rows} rows fill {rows}/{tr} of each {tr}-row tile: the rest of the block idles ({kernel.split(':')[0]})"
    return kernel


def run_bench(shapes=SHAPES, dtypes=DTYPES, peers=PEERS, reps: Optional[int] = None, warmup: int = 3,
              seed: int = 0, log: Callable[[str], None] = lambda m: None, command: str = "",
              on_record: Callable[[Run], None] = lambda r: None) -> Run:
    dev = device.query()
    run = Run(device=dev.to_dict(), environment=device.environment(dev.index), command=command,
              created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              config={"kind": "bench transpose", "shapes": [list(s) for s in shapes], "dtypes": list(dtypes),
                      "peers": list(peers), "reps": reps, "warmup": warmup, "seed": seed,
                      "goal_input_bytes": GOAL_BYTES}, complete=False)
    misses = []
    for shape in shapes:
        for dtype in dtypes:
            itemsize = np.dtype(dtype).itemsize if dtype != "bfloat16" else 2
            _free()
            try:
                recs = bench_case(shape, dtype, peers, reps, warmup, dev.l2_bytes, seed, log)
            except Exception as exc:  # e.g. input + output do not fit: say so, go on
                out_bytes = 2 * int(np.prod(shape)) * itemsize
                recs = [Record("bwlab", "kernel", "bench", "transpose", list(shape), dtype, out_bytes,
                               notes=[f"skipped: {exc.__class__.__name__}: {str(exc)[:160]}"])]
            _free()
            run.records.extend(recs)
            for m in evaluate(recs, itemsize):
                kernel = next((r.origin for r in recs if r.name == "bwlab"), "")
                misses.append({"shape": list(shape), "dtype": dtype, "miss": m,
                               "why": why_missed(shape, itemsize, kernel)})
            run.config["misses"] = misses
            on_record(run)
    run.complete = True
    return run
