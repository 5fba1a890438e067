"""Host microseconds per kernel launch, GPU idle against GPU busy (a sleep kernel queued first), on
the legacy default stream and on a stream of its own: CuPy's RawKernel launch of an empty kernel,
bwlab's PackedLaunch (ctypes, cuLaunchKernel) of the same kernel, and torch's own launch (a tiny
in-place add). Run from the repository root:
`PYTHONPATH=src python3 benchmarks/h200/softmax/chunks-noise/launch_cost.py`."""
import time

import cupy
import torch

from bwlab.core import launch as core_launch

K = cupy.RawKernel(r'extern "C" __global__ void empty(const float* a, float* b, long long n) {}', "empty")
a = cupy.zeros(1024, cupy.float32)
b = cupy.zeros(1024, cupy.float32)
t = torch.zeros(1024, device="cuda")
K((1,), (32,), (a, b, cupy.int64(1024)))
cupy.cuda.Device().synchronize()
packed = core_launch.PackedLaunch(K, (1, 1, 1), (32, 1, 1), [("ptr", 0), ("ptr", 0), ("i64", 1024)])
side = torch.cuda.Stream()
N = 300


def per_launch(fn, busy, stream):
    torch.cuda.synchronize()
    with torch.cuda.stream(stream):
        if busy:
            torch.cuda._sleep(400_000_000)
        s = stream.cuda_stream
        t0 = time.perf_counter()
        for _ in range(N):
            fn(s)
        dt = (time.perf_counter() - t0) / N * 1e6
    torch.cuda.synchronize()
    return dt


def cupy_launch(s):
    with cupy.cuda.ExternalStream(s):
        K((1,), (32,), (a, b, cupy.int64(1024)))


calls = {"cupy RawKernel": cupy_launch, "bwlab PackedLaunch": lambda s: packed(s, a.data.ptr, b.data.ptr),
         "torch add_": lambda s: t.add_(1.0)}
print(f"{'launch':20} {'stream':8} {'idle us':>8} {'busy us':>8}")
for name, fn in calls.items():
    for label, stream in (("legacy", torch.cuda.default_stream()), ("own", side)):
        idle = min(per_launch(fn, False, stream) for _ in range(3))
        busy = min(per_launch(fn, True, stream) for _ in range(3))
        print(f"{name:20} {label:8} {idle:8.1f} {busy:8.1f}", flush=True)
