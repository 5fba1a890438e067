"""Host time of one public softmax call (torch tensors, out= given), queued behind a sleep kernel so
that nothing waits on the GPU: per call, and the top of a cProfile of 2000 calls.
Run from the repository root: `PYTHONPATH=src python3 benchmarks/h200/softmax/chunks-noise/host.py`."""
import cProfile
import pstats
import time

import torch

import bwlab

for shape, dim, d in [((4, 32768, 1024), 1, torch.bfloat16), ((16, 8192, 1024), 1, torch.bfloat16),
                      ((32768, 4096), -1, torch.bfloat16)]:
    x = torch.randn(*shape, device="cuda").to(d)
    out = torch.empty_like(x)
    kern = bwlab.explain_softmax(x, dim).split(" ")[0]
    for _ in range(5):
        bwlab.softmax(x, dim, out=out)
    torch.cuda.synchronize()
    best = []
    for _ in range(5):
        torch.cuda._sleep(400_000_000)
        t = time.perf_counter()
        for _ in range(200):
            bwlab.softmax(x, dim, out=out)
        best.append((time.perf_counter() - t) / 200 * 1e6)
        torch.cuda.synchronize()
    print(f"{str(list(shape)):18} {kern:12} host per call, us: " + " ".join(f"{b:.1f}" for b in best), flush=True)
    if kern == "colsChunks":
        torch.cuda._sleep(2_000_000_000)
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(2000):
            bwlab.softmax(x, dim, out=out)
        pr.disable()
        torch.cuda.synchronize()
        pstats.Stats(pr).sort_stats("tottime").print_stats(14)
