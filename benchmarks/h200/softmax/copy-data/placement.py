"""Why the bench's cudaMemcpy reference of a 512 MiB input ran at 3780 GB/s where a copy of 512 MiB
ran at 4190 (run from this folder as `PYTHONPATH=../../../../src python3 placement.py`). The bench
copies the case's input into `cupy.empty_like` of it; here that copy is timed as the bench times it
(bwlab's time_gpu, 3 warm-up and 30 timed copies), every sample printed, beside the same copy into a
destination placed 1 MiB further on, a copy kernel (copyVec<4>) on the same buffers, and a float32
input of 1 GiB. Pointers and their distance are printed."""
import cupy
import numpy as np

from bwlab.core import ceilings, timing
from bwlab.workloads.softmax import reference

MiB = 1 << 20


def samples(run, reps=30, warmup=3):
    """Each repetition's ms between its own pair of events, in order (as time_gpu takes them)."""
    for _ in range(warmup):
        run()
    ev = [(cupy.cuda.Event(), cupy.cuda.Event()) for _ in range(reps)]
    for a, b in ev:
        a.record()
        run()
        b.record()
    ev[-1][1].synchronize()
    return [cupy.cuda.get_elapsed_time(a, b) for a, b in ev]


def show(label, run, nbytes):
    t = timing.time_gpu(run, warmup=3, reps=30)
    ms = samples(run)
    print(f"{label:46} time_gpu median {timing.gbs(2 * nbytes, t.median_ms):5.0f} GB/s ({t.median_ms:.4f} ms, min "
          f"{t.min_ms:.4f}); then 30 in order: {[round(v, 3) for v in ms]}", flush=True)


def case(shape, dtype):
    x = reference.random_input(shape, dtype, 0)
    src = x.reshape(-1).view(cupy.uint8)
    dst = cupy.empty_like(src)
    n = src.nbytes
    gap = (dst.data.ptr - src.data.ptr) / MiB
    print(f"{dtype} {shape}: src {src.data.ptr:#x} dst {dst.data.ptr:#x} dst - src {gap:+.0f} MiB", flush=True)
    for rnd in (1, 2):
        show(f"  cudaMemcpy into empty_like #{rnd}", ceilings.memcpy(src.data.ptr, dst.data.ptr, n), n)
        big = cupy.empty(n + 2 * MiB, cupy.uint8)
        d2 = big[MiB:MiB + n]
        show(f"  cudaMemcpy into a buffer 1 MiB further #{rnd}", ceilings.memcpy(src.data.ptr, d2.data.ptr, n), n)
        big = d2 = None
        k = next(s for s in ceilings.COPY_KERNELS if s.name == "copyVecUnroll4")
        show(f"  copyVec<4> into empty_like #{rnd}", ceilings.prepare_copy(k, src, dst).launch, n)
    x = src = dst = None
    cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    np.random.seed(0)
    case((64, 4194304), "bfloat16")
    case((64, 4194304), "float32")
    case((32768, 4096), "bfloat16")
