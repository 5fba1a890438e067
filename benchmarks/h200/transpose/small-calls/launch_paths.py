"""A small call's launch through three paths to the driver, on the plan of a 32x32 float32
transpose (tileAny): ctypes' cuLaunchKernel with its 11 arguments converted each call (PackedLaunch
before it took CuPy's binding), CuPy's Cython binding of cuLaunchKernel
(cupy.cuda.driver.launchKernel: the arguments converted in C; PackedLaunch since), and ctypes'
cuLaunchKernelEx on a configuration packed once (4 arguments). Each path is put in
PackedLaunch._launch and timed through the plan's launch alone and through bwlab.transpose(x,
out), in microseconds a call (host clock: the mean of 20000 back-to-back calls after 2000 of
warm-up, the GPU drained before and after, as parts.py), the paths in turn for ROUNDS rounds (5);
the median of the rounds is printed last. Every path's output is checked against CuPy's transpose.
From the repository root: `PYTHONPATH=src python3
benchmarks/h200/transpose/small-calls/launch_paths.py [ROUNDS]`."""
import ctypes
import statistics
import sys

import cupy
import torch

import bwlab
from bwlab.core import launch
from bwlab.workloads.transpose import calls

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from parts import per_call  # noqa: E402

ORIGINAL = launch.PackedLaunch._launch


def ctypes_plain(self, stream):
    return self._lib.cuLaunchKernel(self._func, *self._dims, self._shared, stream, self._params, None)


def cupy_driver(self, stream):
    cupy.cuda.driver.launchKernel(self._fp, *self._dims, self._shared, stream, self._pp, 0)
    return 0


def kernel_ex(self, stream):
    self._cfgx.stream = stream
    return self._ex(self._cfgx_ref, self._func, self._params, None)


PATHS = {"ctypes cuLaunchKernel": ctypes_plain, "cupy driver.launchKernel": cupy_driver,
         "ctypes cuLaunchKernelEx": kernel_ex}


def packed_of(run):
    """The PackedLaunch inside a plan's run closure, given what the other paths need."""
    k = next(c.cell_contents for c in run.__closure__ if isinstance(c.cell_contents, launch.PackedLaunch))
    k._fp = k._func.value
    k._pp = ctypes.addressof(k._params)
    k._cfgx = launch._LaunchConfig((ctypes.c_uint * 3)(*k._dims[:3]), (ctypes.c_uint * 3)(*k._dims[3:]),
                                   k._shared, None, None, 0)
    k._cfgx_ref = ctypes.byref(k._cfgx)
    k._ex = launch._driver().cuLaunchKernelEx
    k._lib = ctypes.CDLL("libcuda.so.1")
    k._lib.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
    k._lib.cuLaunchKernel.restype = ctypes.c_int
    return k


def main(rounds=5):
    print(torch.cuda.get_device_name(), "cupy", cupy.__version__, flush=True)
    n = 32
    x = cupy.random.rand(n, n, dtype=cupy.float32)
    out = cupy.empty((n, n), cupy.float32)
    t = torch.from_dlpack(x)
    bwlab.transpose(x, out)
    p = next(iter(calls._plans.values()))
    packed_of(p.run)
    s = cupy.cuda.get_current_stream().ptr
    xp, op = x.data.ptr, out.data.ptr
    empty = cupy.RawKernel('extern "C" __global__ void nothing(float* p) {}', "nothing")
    times = {}
    try:
        for name, path in PATHS.items():  # each path checked first
            launch.PackedLaunch._launch = path
            out.fill(float("nan"))
            bwlab.transpose(x, out)
            print(f"# {name}: output {'ok' if bool((out == x.T).all()) else 'WRONG'}", flush=True)
        for r in range(rounds):
            for name, path in PATHS.items():
                launch.PackedLaunch._launch = path
                for what, fn in (("plan's launch alone", lambda: p.run(xp, op, s)),
                                 ("bwlab.transpose(x, out)", lambda: bwlab.transpose(x, out))):
                    us = per_call(fn)
                    times.setdefault((what, name), []).append(us)
                    print(f"r{r + 1} {what:24} {name:26} {us:6.2f} us", flush=True)
            launch.PackedLaunch._launch = ORIGINAL
            for what, fn in (("empty RawKernel launch", lambda: empty((1,), (32,), (out,))),
                             ("torch t.T.contiguous()", lambda: t.transpose(-1, -2).contiguous())):
                us = per_call(fn)
                times.setdefault((what, "-"), []).append(us)
                print(f"r{r + 1} {what:24} {'-':26} {us:6.2f} us", flush=True)
    finally:
        launch.PackedLaunch._launch = ORIGINAL
    print("median of the rounds (min-max):")
    for (what, name), v in times.items():
        print(f"  {what:24} {name:26} {statistics.median(v):6.2f} us ({min(v):.2f}-{max(v):.2f})")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
