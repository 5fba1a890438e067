"""The measured ceilings every workload is compared with, in the same run: cudaMemcpy device
to device and the 16-byte copy kernels (GB/s, bytes read + bytes written), and an FMA-only
kernel for FP32 (GFLOP/s)."""
from __future__ import annotations

from typing import Optional

import numpy as np

from . import launch, timing
from .build import CORE_KERNELS
from .device import DeviceSpec
from .workload import KernelSpec, Prepared

COPY_SOURCE, PEAK_SOURCE = CORE_KERNELS / "copy.cu", CORE_KERNELS / "peak.cu"
_BLOCKS = ((256, 1), (512, 1), (1024, 1))
COPY_KERNELS = (
    KernelSpec("copyVec", COPY_SOURCE, "copyVec<1>", "ceiling", (256, 1), _BLOCKS, "bwlab",
               "One 16-byte load and store per thread: the copy roof a kernel aims at."),
    KernelSpec("copyVecUnroll4", COPY_SOURCE, "copyVec<4>", "ceiling", (256, 1), _BLOCKS, "bwlab",
               "Four independent 16-byte loads in flight per thread before any store."),
)
_UNROLL = {"copyVec": 1, "copyVecUnroll4": 4}
SOURCES = {COPY_SOURCE: [k.template for k in COPY_KERNELS], PEAK_SOURCE: ["fmaPeak"]}
for _path, _exprs in SOURCES.items():
    launch.register(_path, _exprs)


def memcpy(src_ptr: int, dst_ptr: int, nbytes: int, stream_ptr: Optional[int] = None):
    """A callable doing cudaMemcpyAsync device to device on the stream (default: CuPy's current)."""
    import cupy

    rt = cupy.cuda.runtime

    def run():
        rt.memcpyAsync(dst_ptr, src_ptr, nbytes, rt.memcpyDeviceToDevice,
                       cupy.cuda.get_current_stream().ptr if stream_ptr is None else stream_ptr)
    return run


def copy_grid(spec: KernelSpec, nbytes: int, block) -> int:
    """Blocks a copy kernel needs for nbytes: every 16-byte vector covered, at least one block."""
    return max(1, launch.cdiv(nbytes // 16, block[0] * _UNROLL[spec.name]))


def prepare_copy(spec: KernelSpec, src, dst, block=None) -> Prepared:
    """A copy kernel over the raw bytes of src into dst (CuPy arrays of the same size)."""
    if src.nbytes != dst.nbytes:
        raise ValueError(f"{spec.name}: source has {src.nbytes} bytes, destination {dst.nbytes}")
    block = tuple(block or spec.block)
    spec.check_block(block)
    grid = (copy_grid(spec, src.nbytes, block), 1)
    fn = launch.function(spec.source, spec.template, device=src.device.id)
    args = (src, dst, np.int64(src.nbytes))

    def run():
        fn((grid[0], 1, 1), (block[0], 1, 1), args)
    return Prepared(run, dst, grid, block)


def measure_ceilings(spec: DeviceSpec, nbytes: int = 1 << 30, reps: int = 50) -> dict:
    """cudaMemcpy and the copy kernels on nbytes (well above L2), in GB/s (read + write)."""
    import cupy

    from .verify import compare, random_device

    x = random_device((nbytes // 4,), "float32")
    y = cupy.empty_like(x)
    out = {"cudaMemcpy": timing.gbs(2 * x.nbytes, timing.time_gpu(memcpy(x.data.ptr, y.data.ptr, x.nbytes),
                                                                  reps=reps).median_ms)}
    for k in COPY_KERNELS:
        run = prepare_copy(k, x, y).launch
        run()
        out[k.name] = (timing.gbs(2 * x.nbytes, timing.time_gpu(run, reps=reps).median_ms)
                       if compare(y, x).ok else None)  # a wrong copy gets no number
    return out


def measure_fp32(spec: DeviceSpec, iters: int = 4096, reps: int = 20) -> float:
    """FP32 GFLOP/s of an FMA-only kernel filling every SM (the measured compute ceiling)."""
    import cupy

    fn = launch.function(PEAK_SOURCE, "fmaPeak", spec.arch, device=spec.index)
    blocks, threads = spec.sm_count * 8, 256
    out = cupy.empty(blocks * threads, cupy.float32)
    args = (out, np.int32(iters), np.float32(0.999), np.float32(1e-3))
    t = timing.time_gpu(lambda: fn((blocks,), (threads,), args), warmup=2, reps=reps)
    return blocks * threads * iters * 8 * 2 / (t.median_ms * 1e-3) / 1e9
