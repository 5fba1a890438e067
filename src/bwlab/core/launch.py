"""Load and launch kernels: one registry of every instantiation per .cu file, one build per
(file, arch) in one cache, and launches on the caller's stream through CuPy.

Workloads register what they may launch (their ladder and their public API alike), so each
source file compiles once per architecture with everything it needs.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from . import build

_registry: dict[Path, set[str]] = {}
_builds: dict[tuple[Path, str], build.Build] = {}
_functions: dict[tuple[Path, str, str], object] = {}
_modules: dict[str, object] = {}
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


def build_for(source, arch: str) -> build.Build:
    source = Path(source)
    key = (source, arch)
    if key not in _builds:
        _builds[key] = build.compile_source(source, sorted(_registry.get(source, ())), arch)
    return _builds[key]


def arch_of(device: int = 0) -> str:
    """sm_XY of a CUDA device (needs a GPU); read once per device."""
    if device not in _archs:
        import cupy

        _archs[device] = f"sm_{cupy.cuda.Device(device).compute_capability}"
    return _archs[device]


def function(source, expression: str, arch: Optional[str] = None, device: int = 0):
    """The CuPy function of one instantiation, built and loaded on first use."""
    source = Path(source)
    arch = arch or arch_of(device)
    key = (source, expression, arch)
    fn = _functions.get(key)
    if fn is None:
        register(source, [expression])
        b = build_for(source, arch)
        if expression not in b.symbols:
            raise build.BuildError(f"{expression!r} was not instantiated in {source.name}")
        import cupy

        if b.cubin_path not in _modules:
            _modules[b.cubin_path] = cupy.RawModule(path=b.cubin_path)
        fn = _functions[key] = _modules[b.cubin_path].get_function(b.symbols[expression])
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
