"""Where a small bwlab.transpose call's time goes: each step of the call path timed alone, in
microseconds per call, as the mean of 20000 back-to-back calls after 2000 of warm-up (host clock,
the GPU drained before and after). Run from the repository root: `PYTHONPATH=src python3
benchmarks/h200/transpose/small-calls/parts.py`."""
import time

import cupy
import torch

import bwlab
from bwlab.core import arrays
from bwlab.workloads.transpose import calls


def per_call(fn, n=20000, warm=2000):
    for _ in range(warm):
        fn()
    cupy.cuda.Device().synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    cupy.cuda.Device().synchronize()
    return (time.perf_counter() - t) / n * 1e6


def main():
    print(torch.cuda.get_device_name())
    empty = cupy.RawKernel('extern "C" __global__ void nothing(float* p) {}', "nothing")
    rows = []
    for n in (32, 64, 256):
        x = cupy.random.rand(n, n, dtype=cupy.float32)
        out = cupy.empty((n, n), cupy.float32)
        t = torch.from_dlpack(x)
        bwlab.transpose(x, out)
        p = next(iter(calls._plans.values()))
        s = cupy.cuda.get_current_stream().ptr
        xp, op = x.data.ptr, out.data.ptr
        parts = [
            ("bwlab.transpose(x, out)", lambda: bwlab.transpose(x, out)),
            ("bwlab.transpose(x)", lambda: bwlab.transpose(x)),
            ("torch t.T.contiguous()", lambda: t.transpose(-1, -2).contiguous()),
            ("cupy ascontiguousarray(x.T)", lambda: cupy.ascontiguousarray(x.T)),
            ("plan's launch alone", lambda: p.run(xp, op, s)),
            ("empty RawKernel launch", lambda: empty((1,), (32,), (out,))),
            ("signature(x)", lambda: arrays.signature(x)),
            ("current_stream", lambda: arrays.current_stream(None, "cupy", x, 0)),
            ("runtime.getDevice()", lambda: cupy.cuda.runtime.getDevice()),
            ("new_result", lambda: arrays.new_result("cupy", x, (n, n), 0)),
            ("torch_op_needed", lambda: arrays.torch_op_needed(x, out)),
        ]
        for name, fn in parts:
            rows.append((n, name, per_call(fn)))
            print(f"{n:4d}x{n:<4d} {name:30s} {rows[-1][2]:7.2f} us", flush=True)
        if n == 32:
            variants(x, out, p, s, n)
        calls._plans.clear()


def variants(x, out, p, s, n):
    """Cheaper forms of the call's steps, for the fast path."""
    import ctypes

    from bwlab.core import launch
    ctx = ctypes.c_void_p()
    lib = launch._driver()
    lib.cuCtxGetCurrent.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    xp, op = x.data.ptr, out.data.ptr
    parts = [("cupy.empty, no Device context", lambda: cupy.empty((n, n), dtype=x.dtype)),
             ("ctypes cuCtxGetCurrent (CDLL)", lambda: lib.cuCtxGetCurrent(ctypes.byref(ctx)))]
    py = ctypes.PyDLL("libcuda.so.1")  # the GIL held across the call
    py.cuLaunchKernel.argtypes, py.cuLaunchKernel.restype = lib.cuLaunchKernel.argtypes, ctypes.c_int
    py.cuCtxGetCurrent.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    parts.append(("ctypes cuCtxGetCurrent (PyDLL)", lambda: py.cuCtxGetCurrent(ctypes.byref(ctx))))
    for name, fn in parts:
        print(f"{n:4d}x{n:<4d} {name:30s} {per_call(fn):7.2f} us", flush=True)
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(200):
            p.run(xp, op, s)
        cupy.cuda.Device().synchronize()
    for e in prof.key_averages():
        if e.device_type.name == "CUDA" and e.count >= 200:
            t = getattr(e, "device_time", None) or e.cuda_time
            print(f"{n:4d}x{n:<4d} kernel {e.key[:40]:40s} x{e.count} on the GPU {t:.2f} us", flush=True)
    launch._libcuda[:] = [py]
    try:
        for name, fn in (("plan's launch alone (PyDLL)", lambda: p.run(xp, op, s)),
                         ("bwlab.transpose(x, out) (PyDLL)", lambda: bwlab.transpose(x, out))):
            print(f"{n:4d}x{n:<4d} {name:30s} {per_call(fn):7.2f} us", flush=True)
    finally:
        launch._libcuda[:] = [lib]


if __name__ == "__main__":
    main()
