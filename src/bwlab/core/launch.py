"""Load and launch kernels: one registry of every instantiation per .cu file, one build cache,
and launches on the caller's stream.

Workloads register what they may launch (their ladder and their public API alike): listings
and the spill check build everything registered for a file at once (build_for); a launch
builds only the instantiation it needs (function), so a first call compiles one kernel.
"""
from __future__ import annotations

import ctypes
import threading
from pathlib import Path
from typing import Optional

from . import build

_registry: dict[Path, set[str]] = {}
_builds: dict[tuple[Path, str], build.Builds] = {}
_functions: dict[tuple[Path, str, str, int], object] = {}
_modules: dict[tuple[str, int], object] = {}
_archs: dict[int, str] = {}
_streams: dict[int, object] = {}


def register(source, expressions) -> None:
    """Declare instantiations of a .cu file that may be launched."""
    source = Path(source)
    have = _registry.setdefault(source, set())
    new = set(expressions) - have
    if new:
        have |= new
        for key in [k for k in _builds if k[0] == source]:  # rebuilt with the new ones on next use
            del _builds[key]


def registered() -> dict[Path, list[str]]:
    return {p: sorted(e) for p, e in _registry.items()}


def build_for(source, arch: str) -> build.Builds:
    """Every registered instantiation of a file, compiled one by one (in parallel) and cached."""
    source = Path(source)
    key = (source, arch)
    if key not in _builds:
        _builds[key] = build.compile_each(source, sorted(_registry.get(source, ())), arch)
    return _builds[key]


def arch_of(device: int = 0) -> str:
    """sm_XY of a CUDA device (needs a GPU); read once per device."""
    if device not in _archs:
        import cupy

        _archs[device] = f"sm_{cupy.cuda.Device(device).compute_capability}"
    return _archs[device]


def function(source, expression: str, arch: Optional[str] = None, device: int = 0):
    """The CuPy function of one instantiation, built (alone) and loaded on first use."""
    source = Path(source)
    arch = arch or arch_of(device)
    key = (source, expression, arch, device)
    fn = _functions.get(key)
    if fn is None:
        register(source, [expression])
        b = build.compile_source(source, [expression], arch)
        if expression not in b.symbols:
            raise build.BuildError(f"{expression!r} was not instantiated in {source.name}")
        import cupy

        with cupy.cuda.Device(device):  # a module belongs to one device's context
            _bind_context()  # which a new host thread (torch's autograd thread) may not have yet
            if (b.cubin_path, device) not in _modules:
                _modules[(b.cubin_path, device)] = cupy.RawModule(path=b.cubin_path)
            fn = _functions[key] = _modules[(b.cubin_path, device)].get_function(b.symbols[expression])
    return fn


def stream(ptr: int):
    """A CuPy view of a raw cudaStream_t (cached: it only wraps the handle)."""
    s = _streams.get(ptr)
    if s is None:
        import warnings

        import cupy

        with warnings.catch_warnings():  # CuPy 14 prefers Stream.from_external(protocol object)
            warnings.simplefilter("ignore", DeprecationWarning)
            s = _streams[ptr] = cupy.cuda.ExternalStream(ptr)
    return s


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


# --- launches with arguments packed once -------------------------------------------------

_C_TYPES = {"u64": ctypes.c_uint64, "i64": ctypes.c_int64, "i32": ctypes.c_int32, "ptr": ctypes.c_uint64}
_libcuda: list = []


_INVALID_CONTEXT = 201  # CUDA_ERROR_INVALID_CONTEXT
_COOPERATIVE_TOO_LARGE = 720  # CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE


class LaunchTooLarge(RuntimeError):
    """A cooperative launch with more blocks than the GPU holds at once for this context."""


def _bind_context() -> None:
    """Make the current device's primary context current on this thread (cudaSetDevice does
    so since CUDA 12, even for the device already selected)."""
    import cupy

    rt = cupy.cuda.runtime
    rt.setDevice(rt.getDevice())


def _driver():
    if not _libcuda:
        lib = ctypes.CDLL("libcuda.so.1")
        lib.cuFuncSetAttribute.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
        lib.cuFuncSetAttribute.restype = ctypes.c_int
        lib.cuMemsetD8Async.argtypes = [ctypes.c_uint64, ctypes.c_ubyte, ctypes.c_size_t, ctypes.c_void_p]
        lib.cuMemsetD8Async.restype = ctypes.c_int
        lib.cuOccupancyMaxActiveClusters.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_void_p, ctypes.c_void_p]
        lib.cuOccupancyMaxActiveClusters.restype = ctypes.c_int
        lib.cuOccupancyMaxActiveBlocksPerMultiprocessor.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_void_p,
                                                                    ctypes.c_int, ctypes.c_size_t]
        lib.cuOccupancyMaxActiveBlocksPerMultiprocessor.restype = ctypes.c_int
        lib.cuStreamIsCapturing.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
        lib.cuStreamIsCapturing.restype = ctypes.c_int
        lib.cuLaunchKernelEx.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        lib.cuLaunchKernelEx.restype = ctypes.c_int
        _libcuda.append(lib)
    return _libcuda[0]


def _launchers() -> tuple:
    """(plain, cooperative, error): CuPy's bindings of cuLaunchKernel and cuLaunchCooperativeKernel,
    which convert their arguments in C and raise `error` (its .status the CUDA error) on failure. On
    the lab's H200 host a launch through them took 1.2-3.8 us less than through ctypes, whose
    conversion of eleven arguments a call cost that much (launch_paths.txt among the H200's
    benchmarks)."""
    from cupy.cuda import driver

    return driver.launchKernel, driver.launchCooperativeKernel, driver.CUDADriverError


_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14  # CUfunction_attribute


def allow_large_clusters(fn) -> None:
    """Let a kernel launch with clusters above the portable 8 blocks (Hopper: up to 16)."""
    ptr = ctypes.c_void_p(getattr(fn, "kernel", fn).ptr)
    err = _driver().cuFuncSetAttribute(ptr, _NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)
    if err:
        raise RuntimeError(f"cuFuncSetAttribute failed with CUDA error {err}")


DEFAULT_SHARED = 48 * 1024  # dynamic shared memory a kernel may use without opting in


def allow_shared(fn, nbytes: int) -> None:
    """Opt a kernel in to nbytes of dynamic shared memory when that is above the default 48 KiB
    (once: the attribute stays set on the function)."""
    if nbytes > DEFAULT_SHARED and getattr(fn, "max_dynamic_shared_size_bytes", 0) < nbytes:
        fn.max_dynamic_shared_size_bytes = nbytes


class _LaunchConfig(ctypes.Structure):  # CUlaunchConfig
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3), ("shared", ctypes.c_uint),
                ("stream", ctypes.c_void_p), ("attrs", ctypes.c_void_p), ("num_attrs", ctypes.c_uint)]


class _LaunchAttribute(ctypes.Structure):  # CUlaunchAttribute: an id, then a 64-byte union at offset 8
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_int), ("value", ctypes.c_int), ("rest", ctypes.c_uint8 * 60)]


_PROGRAMMATIC_STREAM_SERIALIZATION = 6  # CUlaunchAttributeID


def max_active_clusters(fn, cluster: int, block, shared: int) -> Optional[int]:
    """How many clusters of a kernel (its cluster size compiled in) the current GPU runs at
    once: 0 when not even one fits (a GPC with fewer free SMs than the cluster, as on a MIG
    slice); None when the driver cannot say."""
    ptr = ctypes.c_void_p(getattr(fn, "kernel", fn).ptr)
    cfg = _LaunchConfig((ctypes.c_uint * 3)(cluster, 1, 1), (ctypes.c_uint * 3)(*block), shared, None, None, 0)
    n = ctypes.c_int(0)
    err = _driver().cuOccupancyMaxActiveClusters(ctypes.byref(n), ptr, ctypes.byref(cfg))
    if err == _INVALID_CONTEXT:
        _bind_context()
        err = _driver().cuOccupancyMaxActiveClusters(ctypes.byref(n), ptr, ctypes.byref(cfg))
    return None if err else n.value


def resident_blocks(fn, threads: int, shared: int, device: int = 0) -> int:
    """How many blocks of a kernel the current GPU holds at once (every SM), the most a
    cooperative launch may have."""
    import cupy

    ptr = ctypes.c_void_p(getattr(fn, "kernel", fn).ptr)
    n = ctypes.c_int(0)
    err = _driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(n), ptr, threads, shared)
    if err == _INVALID_CONTEXT:
        _bind_context()
        err = _driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(n), ptr, threads, shared)
    if err:
        raise RuntimeError(f"cuOccupancyMaxActiveBlocksPerMultiprocessor failed with CUDA error {err}")
    return n.value * cupy.cuda.runtime.deviceGetAttribute(cupy.cuda.runtime.cudaDevAttrMultiProcessorCount, device)


def capturing(stream: int) -> bool:
    """Whether a stream is being captured into a CUDA graph."""
    status = ctypes.c_int(0)
    err = _driver().cuStreamIsCapturing(ctypes.c_void_p(stream), ctypes.byref(status))
    if err == _INVALID_CONTEXT:
        _bind_context()
        err = _driver().cuStreamIsCapturing(ctypes.c_void_p(stream), ctypes.byref(status))
    if err:
        raise RuntimeError(f"cuStreamIsCapturing failed with CUDA error {err}")
    return status.value != 0


def memset_async(ptr: int, nbytes: int, stream: int) -> None:
    """Zero nbytes at a device pointer, in stream order."""
    err = _driver().cuMemsetD8Async(ptr, 0, nbytes, stream)
    if err == _INVALID_CONTEXT:
        _bind_context()
        err = _driver().cuMemsetD8Async(ptr, 0, nbytes, stream)
    if err:
        raise RuntimeError(f"cuMemsetD8Async failed with CUDA error {err}")


class PackedLaunch:
    """One kernel with its grid, block and arguments packed into a C struct once: a call
    rewrites the leading arguments (the data pointers) and calls cuLaunchKernel (through CuPy's
    binding: _launchers): the launch alone took 5-8 us of host time on the lab's H200 host, about
    what CuPy's launch of an empty kernel takes. args: (C type name,
    value) pairs; types "ptr", "u64", "i64", "i32", and "bytes" (a struct passed by value, given
    as its bytes); shared: dynamic shared memory bytes; cooperative: every block resident at
    once, or the launch fails (for blocks that wait on each other); dependent: a programmatic
    dependent launch (sm_90 on): its blocks may start while the kernel before it on the stream
    drains, and must wait (griddepcontrol.wait) before touching what that kernel writes. Calls are
    serialised by a lock, so threads may share one."""

    def __init__(self, fn, grid, block, args, shared: int = 0, cooperative: bool = False, dependent: bool = False):
        fields = [(f"a{i}", ctypes.c_uint8 * len(v) if t == "bytes" else _C_TYPES[t])
                  for i, (t, v) in enumerate(args)]
        struct = type("Args", (ctypes.Structure,), {"_fields_": fields})
        self._args = struct(*[(ctypes.c_uint8 * len(v))(*v) if t == "bytes" else v for t, v in args])
        base = ctypes.addressof(self._args)
        self._params = (ctypes.c_void_p * len(args))(*[base + getattr(struct, f"a{i}").offset
                                                      for i in range(len(args))])
        self._names = [f"a{i}" for i in range(len(args))]
        self._func = ctypes.c_void_p(getattr(fn, "kernel", fn).ptr)  # CuPy's RawKernel wraps a Function
        self._dims = (*(int(v) for v in grid), *(int(v) for v in block))
        self._shared = int(shared)
        self._head = (int(getattr(fn, "kernel", fn).ptr), *self._dims, self._shared)  # as the bindings take them
        self._pp = ctypes.addressof(self._params)
        self._plain, self._cooperative, self._error = _launchers()
        self._lock = threading.Lock()
        self._coop = cooperative
        self._config = None
        if dependent:
            assert not cooperative
            self._attr = _LaunchAttribute(_PROGRAMMATIC_STREAM_SERIALIZATION, 0, 1)
            self._config = _LaunchConfig((ctypes.c_uint * 3)(*self._dims[:3]), (ctypes.c_uint * 3)(*self._dims[3:]),
                                         self._shared, None, ctypes.addressof(self._attr), 1)
        # most calls rewrite just the two data pointers: set directly, about a microsecond less
        self._two = len(args) >= 2 and all(t in ("ptr", "u64") for t, _ in args[:2])

    def __call__(self, stream: int, *leading) -> None:
        """Launch with the first len(leading) arguments replaced."""
        if len(leading) == 2 and self._two:
            with self._lock:
                self._args.a0, self._args.a1 = leading
                err = self._launch(stream)
            if err:
                self._failed(err, stream, dict(enumerate(leading)))
            return
        self.call_at(stream, dict(enumerate(leading)))

    def _launch(self, stream: int) -> int:
        """The launch's CUDA error (0: launched)."""
        if self._config is not None:  # cuLaunchKernelEx, which CuPy does not bind
            self._config.stream = stream
            return _driver().cuLaunchKernelEx(ctypes.byref(self._config), self._func, self._params, None)
        try:
            if self._coop:
                self._cooperative(*self._head, stream, self._pp)
            else:
                self._plain(*self._head, stream, self._pp, 0)
        except self._error as e:
            return e.status
        return 0

    def call_at(self, stream: int, values: dict) -> None:
        """Launch with the arguments at the given positions replaced."""
        with self._lock:
            for i, v in values.items():
                setattr(self._args, self._names[i], v)
            err = self._launch(stream)
        if err:
            self._failed(err, stream, values)

    def _failed(self, err: int, stream: int, values: dict) -> None:
        if err == _INVALID_CONTEXT:
            # A host thread that has not yet made any CUDA runtime call has no current
            # context (torch's autograd thread, when a bwlab op is its first CUDA work):
            # bind the runtime's device's primary context to this thread and launch again.
            _bind_context()
            with self._lock:  # another thread may have launched meanwhile: set the arguments again
                for i, v in values.items():
                    setattr(self._args, self._names[i], v)
                err = self._launch(stream)
        if err == _COOPERATIVE_TOO_LARGE:
            raise LaunchTooLarge(f"cuLaunchCooperativeKernel: {self._dims[0] * self._dims[1] * self._dims[2]} blocks "
                                 "are more than the GPU holds at once here")
        if err:
            name = "cuLaunchKernelEx" if self._config is not None else (
                "cuLaunchCooperativeKernel" if self._coop else "cuLaunchKernel")
            raise RuntimeError(f"{name} failed "
                               f"with CUDA error {err}")
