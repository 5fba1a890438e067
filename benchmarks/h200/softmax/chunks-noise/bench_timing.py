"""[4, 32768, 1024] bfloat16 softmax (colsChunks, three launches a call) timed by the bench's own
function (bwlab.core.timing.time_gpu: warm-up 3, then 20 calls, an event pair around each, queued
back to back), 8 times as the bench runs it and 8 times behind a sleep kernel that holds the GPU
until every call is queued; then the same loop by hand with the host's time for each call.
Run from the repository root: `PYTHONPATH=src python3 benchmarks/h200/softmax/chunks-noise/bench_timing.py`."""
import time

import cupy
import torch

import bwlab
from bwlab.core.timing import time_gpu

for dtype in (torch.bfloat16, torch.float32):
    x = torch.randn(4, 32768, 1024, device="cuda").to(dtype)
    out = torch.empty_like(x)
    fn = lambda: bwlab.softmax(x, 1, out=out)  # noqa: E731
    for queued in (False, True):
        for _ in range(8):
            torch.cuda.synchronize()
            if queued:
                torch.cuda._sleep(100_000_000)
            t = time_gpu(fn, warmup=3, reps=20)
            print(f"{str(dtype):15} queued={queued!s:5} median {t.median_ms:.4f} min {t.min_ms:.4f} "
                  f"mean {t.mean_ms:.4f} cv {100 * t.cv:5.1f}%", flush=True)
    # by hand: host microseconds per call and the GPU's time per call
    torch.cuda.synchronize()
    for _ in range(3):
        fn()
    ev = [(cupy.cuda.Event(), cupy.cuda.Event()) for _ in range(20)]
    host = []
    for a, b in ev:
        t0 = time.perf_counter()
        a.record()
        fn()
        b.record()
        host.append((time.perf_counter() - t0) * 1e6)
    torch.cuda.synchronize()
    gpu = [cupy.cuda.get_elapsed_time(a, b) for a, b in ev]
    print("host us per call: " + " ".join(f"{h:.0f}" for h in host))
    print("gpu ms per call:  " + " ".join(f"{g:.3f}" for g in gpu), flush=True)
    x = out = None
    torch.cuda.empty_cache()
