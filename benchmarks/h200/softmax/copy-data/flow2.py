"""The bench's steps for bfloat16 [64, 4194304] taken apart (run from this folder as
`PYTHONPATH=../../../../src python3 flow2.py`): the cudaMemcpy reference timed before the API, right
after the API's timing (as the bench does), after a 0.5 s sleep, and after a torch synchronize; every
sample in order."""
import time

import cupy
import torch

from bwlab.core import ceilings, timing
from bwlab.core.verify import poison
from bwlab.core.workload import Case
from bwlab.lab.bench import _free
from bwlab.workloads import get

from placement import samples


def main():
    w = get("softmax")
    case = Case((64, 4194304), "bfloat16", (("dim", -1),))
    x = w.make_input(case, 0)
    src = x.reshape(-1).view(cupy.uint8)

    def copy_samples(label):
        dst = cupy.empty_like(src)
        ms = samples(ceilings.memcpy(src.data.ptr, dst.data.ptr, src.nbytes))
        ms_sorted = sorted(ms)
        print(f"{label:44} median {ms_sorted[len(ms) // 2]:.4f} ms: {[round(v, 3) for v in ms]}", flush=True)

    def api():
        out = w.new_output(case, x)
        poison(out)
        fn, _ = w.peer("bwlab").make(x, out, case)
        t = timing.time_gpu(fn, warmup=3, reps=30)
        print(f"{'  (bwlab timed)':44} median {t.median_ms:.4f} ms", flush=True)
        fn = out = None
        _free()

    copy_samples("copy before the API")
    for rnd in (1, 2):
        api()
        copy_samples(f"copy right after it #{rnd}")
        copy_samples(f"copy again #{rnd}")
    api()
    time.sleep(0.5)
    copy_samples("copy after a 0.5 s sleep")
    api()
    torch.cuda.synchronize()
    cupy.cuda.Device().synchronize()
    copy_samples("copy after synchronizing torch and CuPy")


if __name__ == "__main__":
    main()
