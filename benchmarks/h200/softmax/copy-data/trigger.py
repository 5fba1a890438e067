"""What slows the first cudaMemcpy reference after a bfloat16 API timing (run from this folder as
`PYTHONPATH=../../../../src python3 trigger.py STEP`, one fresh process per STEP): the API (bfloat16
[64, 4194304], through torch) timed as the bench times it, then STEP, then the copy timed with every
sample in order. STEP: free (the bench's _free: gc.collect, torch.cuda.empty_cache, CuPy's
free_all_blocks), gc, torch, cupy (one of those alone), none, or warm (free, then 20 ms of copies
before the samples)."""
import gc
import sys

import cupy
import torch

from bwlab.core import ceilings, timing
from bwlab.core.verify import poison
from bwlab.core.workload import Case
from bwlab.lab.bench import _free
from bwlab.workloads import get

from placement import samples


def main(step):
    w = get("softmax")
    case = Case((64, 4194304), "bfloat16", (("dim", -1),))
    x = w.make_input(case, 0)
    src = x.reshape(-1).view(cupy.uint8)
    out = w.new_output(case, x)
    poison(out)
    fn, _ = w.peer("bwlab").make(x, out, case)
    t = timing.time_gpu(fn, warmup=3, reps=30)
    fn = out = None
    {"free": _free, "gc": gc.collect, "torch": torch.cuda.empty_cache,
     "cupy": cupy.get_default_memory_pool().free_all_blocks, "none": lambda: None, "warm": _free}[step]()
    dst = cupy.empty_like(src)
    run = ceilings.memcpy(src.data.ptr, dst.data.ptr, src.nbytes)
    if step == "warm":
        for _ in range(80):  # about 20 ms
            run()
    ms = samples(run)
    print(f"{step:5} (bwlab {t.median_ms:.4f} ms) copy median {sorted(ms)[15]:.4f} ms: {[round(v, 3) for v in ms]}",
          flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
