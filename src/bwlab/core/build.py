"""The one place that compiles CUDA C: NVRTC through cuda.core, one set of options.

Works without a GPU (pass an arch such as "sm_90"); the cubin and the ptxas resource
report (registers, shared memory, stack, spills) are cached on disk by content hash.
Every .cu file sees core/kernels/ (common.cuh) and its own folder on the include path.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .files import write_bytes_atomic, write_text_atomic

CORE_KERNELS = Path(__file__).parent / "kernels"
DEFAULT_ARCH = "sm_90"  # what is built when no GPU is visible (H100/H200)
STD = "c++17"
_ARCH = re.compile(r"sm_(\d+)[a-z]?")


@dataclass(frozen=True)
class Resources:
    registers: int = 0
    smem_bytes: int = 0
    stack_bytes: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    barriers: int = 0

    @property
    def spills(self) -> int:
        return self.spill_stores + self.spill_loads


@dataclass
class Build:
    source: str                   # path of the .cu file
    arch: str
    cubin_path: str
    symbols: dict[str, str]       # name expression -> mangled symbol
    resources: dict[str, Resources] = field(default_factory=dict)  # by name expression
    log: str = ""


class BuildError(RuntimeError):
    pass


def cache_dir() -> Path:
    d = Path(os.environ.get("BWLAB_CACHE", Path.home() / ".cache" / "bwlab"))
    d.mkdir(parents=True, exist_ok=True)
    return d


def nvrtc_version() -> str:
    from cuda.bindings import nvrtc

    _, major, minor = nvrtc.nvrtcVersion()
    return f"{major}.{minor}"


def supported_archs() -> list[str]:
    """The sm_XX targets this NVRTC can compile for."""
    from cuda.bindings import nvrtc

    err, n = nvrtc.nvrtcGetNumSupportedArchs()
    err, archs = nvrtc.nvrtcGetSupportedArchs()
    return [f"sm_{a}" for a in archs]


def check_arch(arch: str) -> str:
    """arch if NVRTC can target it, else ValueError listing what it can."""
    if not _ARCH.fullmatch(arch or ""):
        raise ValueError(f"arch must look like sm_90, got {arch!r}")
    known = supported_archs()
    if arch.rstrip("abf") not in known:
        raise ValueError(f"this NVRTC ({nvrtc_version()}) cannot compile for {arch}; it knows {', '.join(known)}")
    return arch


_FUNC = re.compile(r"(?:Compiling entry function|Function properties for) '?([\w$]+)'?")
_STACK = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers(?:, used (\d+) barriers)?")
_SMEM = re.compile(r"(\d+) bytes smem")  # after "bytes cumulative stack size" when there is a stack


def parse_ptxas(log: str) -> dict[str, Resources]:
    """Resources per mangled symbol from a `ptxas -v` report."""
    found: dict[str, dict] = {}
    current = None
    for line in log.splitlines():
        if m := _FUNC.search(line):
            current = m.group(1)
            found.setdefault(current, {})
        elif current and (m := _STACK.search(line)):
            found[current].update(stack_bytes=int(m[1]), spill_stores=int(m[2]), spill_loads=int(m[3]))
        elif current and (m := _USED.search(line)):
            smem = _SMEM.search(line)
            found[current].update(registers=int(m[1]), barriers=int(m[2] or 0),
                                  smem_bytes=int(smem[1]) if smem else 0)
    return {sym: Resources(**vals) for sym, vals in found.items()}


def _include_dirs(source: Path) -> list[Path]:
    return list(dict.fromkeys([source.parent, CORE_KERNELS]))


def _source_text(source: Path) -> str:
    """The source plus every header it could include (for the cache key)."""
    text = source.read_text()
    for d in _include_dirs(source):
        for header in sorted(d.glob("*.cuh")):
            text += header.read_text()
    return text


def _key(source: Path, text: str, exprs: list[str], arch: str) -> str:
    h = hashlib.sha256()
    for part in (source.name, text, "\0".join(exprs), arch, STD, nvrtc_version(), "v5"):  # v5: resources parsed again
        h.update(part.encode())
        h.update(b"\1")
    return h.hexdigest()[:24]


def compile_source(source, name_expressions, arch: str = DEFAULT_ARCH) -> Build:
    """Compile every name expression of one .cu file for arch (cached on disk)."""
    source = Path(source)
    if not source.is_file():
        raise BuildError(f"no kernel source {source}")
    exprs = sorted(set(name_expressions))
    cubin, meta = _cache_paths(source, exprs, arch)
    if cubin.is_file() and meta.is_file():
        m = json.loads(meta.read_text())
        res = {k: Resources(**v) for k, v in m["resources"].items()}
        return Build(str(source), arch, str(cubin), m["symbols"], res, m["log"])

    from cuda.core import Program, ProgramOptions

    # no_source_include: NVRTC would look for a quoted #include beside the program first, and a
    # program's "beside" is the working directory or the temporary folder, where a header of the same
    # name (a learner's own common.cuh) would be compiled in place of bwlab's. no_cache: NVRTC 13.0
    # answers a program it compiled before from its own disk cache with an empty log, so without
    # the ptxas report (registers, spills) that this file's cache keeps.
    opts = ProgramOptions(name=source.name, no_source_include=True, no_cache=True, arch=arch, std=STD,
                          include_path=[str(d) for d in _include_dirs(source)], ptxas_options=["-v"], lineinfo=True)
    log = io.StringIO()
    try:
        obj = Program(source.read_text(), "c++", options=opts).compile(
            "cubin", name_expressions=tuple(exprs), logs=log)
    except Exception as exc:  # NVRTC errors arrive as generic exceptions with the log
        raise BuildError(f"compiling {source.name} for {arch} failed: {exc}") from exc
    symbols = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in obj.symbol_mapping.items()}
    by_symbol = parse_ptxas(log.getvalue())
    resources = {expr: by_symbol.get(sym, Resources()) for expr, sym in symbols.items()}
    write_bytes_atomic(cubin, bytes(obj.code))
    write_text_atomic(meta, json.dumps({"symbols": symbols, "log": log.getvalue(),
                                        "resources": {k: asdict(v) for k, v in resources.items()}}))
    return Build(str(source), arch, str(cubin), symbols, resources, log.getvalue())


@dataclass
class Builds:
    """Many instantiations of one file, each compiled (and cached) on its own."""
    source: str
    arch: str
    by_expression: dict[str, Build]

    @property
    def resources(self) -> dict[str, Resources]:
        return {e: b.resources.get(e, Resources()) for e, b in self.by_expression.items()}


def _cache_paths(source: Path, exprs: list[str], arch: str) -> tuple[Path, Path]:
    key = _key(source, _source_text(source), exprs, arch)
    cubin = cache_dir() / f"{source.stem}-{arch}-{key}.cubin"
    return cubin, cubin.with_suffix(".json")


def _cached(source, expr: str, arch: str) -> bool:
    cubin, meta = _cache_paths(Path(source), [expr], arch)
    return cubin.is_file() and meta.is_file()


def _compile_one(args):
    source, expr, arch = args
    return expr, compile_source(source, [expr], arch)


def compile_each(source, name_expressions, arch: str = DEFAULT_ARCH, jobs: int = 0) -> Builds:
    """Compile every instantiation of a file separately, several at a time (jobs: processes,
    0 = one per CPU), each cached on its own: the cache a launch of one kernel uses."""
    exprs = sorted(set(name_expressions))
    todo = [(source, e, arch) for e in exprs]
    jobs = jobs or os.cpu_count() or 1
    missing = [t for t in todo if not _cached(*t)]
    if jobs > 1 and len(missing) > 2:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        # spawned (not forked) workers: the parent may hold a CUDA context and threads
        with ProcessPoolExecutor(min(jobs, len(missing)), mp_context=mp.get_context("spawn")) as pool:
            list(pool.map(_compile_one, missing))
        done = dict(map(_compile_one, todo))  # all from the cache now
    else:
        done = dict(map(_compile_one, todo))
    return Builds(str(source), arch, {e: done[e] for e in exprs})
