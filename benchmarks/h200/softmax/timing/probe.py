"""Why the bench has torch.compile 1-3% ahead of bwlab at the copy roof when launching both the same
way (../roof) has bwlab ahead (run from this folder as `PYTHONPATH=../../../../src python3 probe.py`).
The bench's own inputs and peer functions, each output checked as the bench checks it, then timed
three ways, alternating, three rounds:
  single  the bench's harness (core.timing.time_gpu: events around each call, warm-up, 20 reps)
  batch   events around batches of 8 calls (25 batches)
  host    host time a call, the GPU not waited for (above the kernel's time, single would count it)
Inputs: the bench's (seed 0), and for the first case also the roof probe's (torch.randn * 3). bwlab-alt writes two outputs in
turn, as torch.compile's calls (a new output each, the last one kept) do."""
import statistics
import time

import cupy
import torch

from bwlab.core import ceilings, timing
from bwlab.core.arrays import as_cupy
from bwlab.core.verify import poison
from bwlab.core.workload import Case
from bwlab.workloads import get

W = get("softmax")
CASES = [Case((128, 1024, 1024), "bfloat16", (("dim", 2),)),
         Case((128, 1024, 1024), "bfloat16", (("dim", 2), ("log", True))),
         Case((4194304, 32), "float32", (("dim", -1),)),
         Case((32768, 4096), "bfloat16", (("dim", -1), ("op", "backward")))]


def batched(fn, batches=25, per=8):
    s = cupy.cuda.get_current_stream()
    for _ in range(16):
        fn()
    ev = [(cupy.cuda.Event(), cupy.cuda.Event()) for _ in range(batches)]
    for a, b in ev:
        a.record(s)
        for _ in range(per):
            fn()
        b.record(s)
    ev[-1][1].synchronize()
    return statistics.median(cupy.cuda.get_elapsed_time(a, b) for a, b in ev) / per


def host_ms(fn, n=30):
    cupy.cuda.Device().synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    t = (time.perf_counter() - t0) / n * 1e3
    cupy.cuda.Device().synchronize()
    return t


def randn3(case):
    t = (torch.randn(*case.shape, device="cuda") * 3).to(getattr(torch, case.dtype))
    return as_cupy(t.view(torch.uint16) if case.dtype == "bfloat16" else t).copy()


def peers(case, x):
    """name -> (fn, checked) for bwlab, bwlab-alt, torch.compile and a cudaMemcpy of the same bytes."""
    out = {}
    exp = W.reference(case, x)
    for name in ("bwlab", "torch.compile"):
        o = W.new_output(case, x)
        poison(o)
        fn, result = W.peer(name).make(x, o, case)
        fn()
        out[name] = (fn, W.check(result(), exp).ok)
        if name == "bwlab":
            o2 = W.new_output(case, x)
            poison(o2)
            f2, r2 = W.peer(name).make(x, o2, case)
            flip = [0]

            def alt(fn=fn, f2=f2):
                flip[0] ^= 1
                (fn if flip[0] else f2)()
            f2()
            out["bwlab-alt"] = (alt, W.check(r2(), exp).ok)
    n = W.bytes_moved(case) // 2
    src, dst = cupy.zeros(n, cupy.uint8), cupy.empty(n, cupy.uint8)
    out["cudaMemcpy"] = (ceilings.memcpy(src.data.ptr, dst.data.ptr, n), True)
    return out


def main():
    print(f"{'case':34} {'data':6} {'rnd':3} {'peer':13} {'ok':>3} {'single':>7} {'batch':>7} {'host':>7} "
          f"{'GB/s s':>7} {'GB/s b':>7}", flush=True)
    for case in CASES:
        moved = W.bytes_moved(case)
        datas = ["bench"] + (["randn3"] if case is CASES[0] else [])
        for data in datas:
            x = W.make_input(case, 0) if data == "bench" else randn3(case)
            ps = peers(case, x)
            for rnd in (1, 2, 3):
                for name, (fn, ok) in ps.items():
                    s = timing.time_gpu(fn, warmup=3, reps=20).median_ms
                    b = batched(fn)
                    h = host_ms(fn)
                    print(f"{case.label:34} {data:6} r{rnd:<2} {name:13} {int(ok):3d} {s:7.4f} {b:7.4f} {h:7.4f} "
                          f"{moved / s / 1e6:7.0f} {moved / b / 1e6:7.0f}", flush=True)
            ps = x = None
            torch._dynamo.reset()
            cupy.get_default_memory_pool().free_all_blocks()
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
