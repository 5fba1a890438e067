"""The one place that compiles CUDA C: NVRTC through cuda.core, one set of options.

Works without a GPU (pass an arch such as "sm_90"); the cubin and the ptxas resource
report (registers, shared memory, stack, spills) are cached on disk by content hash.
On a GPU, `module()` loads the cubin into CuPy for launching.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

KERNEL_DIR = Path(__file__).parent / "kernels"
DEFAULT_ARCH = "sm_90"  # what CI builds for when no GPU is visible (H100/H200)
STD = "c++17"


@dataclass(frozen=True)
class Resources:
    registers: int = 0
    smem_bytes: int = 0
    stack_bytes: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    barriers: int = 0


@dataclass
class Build:
    family: str
    arch: str
    cubin_path: str
    symbols: dict[str, str]  # name expression -> mangled symbol
    resources: dict[str, Resources] = field(default_factory=dict)  # by name expression
    log: str = ""


class BuildError(RuntimeError):
    pass


def cache_dir() -> Path:
    d = Path(os.environ.get("BWLAB_CACHE", Path.home() / ".cache" / "bwlab"))
    d.mkdir(parents=True, exist_ok=True)
    return d


def source_path(family: str) -> Path:
    path = KERNEL_DIR / f"{family}.cu"
    if not path.is_file():
        raise BuildError(f"no kernel source for family {family!r} (looked for {path})")
    return path


def families() -> list[str]:
    return sorted(p.stem for p in KERNEL_DIR.glob("*.cu"))


def nvrtc_version() -> str:
    from cuda.bindings import nvrtc

    _, major, minor = nvrtc.nvrtcVersion()
    return f"{major}.{minor}"


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


def _key(family: str, source: str, exprs: list[str], arch: str) -> str:
    h = hashlib.sha256()
    for part in (family, source, "\0".join(exprs), arch, STD, nvrtc_version(), "v2"):
        h.update(part.encode())
        h.update(b"\1")
    return h.hexdigest()[:24]


def _source_text(family: str) -> str:
    """The family's source plus every header in the kernel folder (for the cache key)."""
    text = source_path(family).read_text()
    for header in sorted(KERNEL_DIR.glob("*.cuh")):
        text += header.read_text()
    return text


def compile_family(family: str, name_expressions: list[str], arch: str = DEFAULT_ARCH) -> Build:
    exprs = sorted(set(name_expressions))
    source = _source_text(family)
    key = _key(family, source, exprs, arch)
    cubin = cache_dir() / f"{family}-{arch}-{key}.cubin"
    meta = cubin.with_suffix(".json")
    if cubin.is_file() and meta.is_file():
        m = json.loads(meta.read_text())
        res = {k: Resources(**v) for k, v in m["resources"].items()}
        return Build(family, arch, str(cubin), m["symbols"], res, m["log"])

    from cuda.core import Program, ProgramOptions

    opts = ProgramOptions(arch=arch, std=STD, include_path=[str(KERNEL_DIR)],
                          ptxas_options=["-v"], lineinfo=True)
    log = io.StringIO()
    try:
        obj = Program(source_path(family).read_text(), "c++", options=opts).compile(
            "cubin", name_expressions=tuple(exprs), logs=log)
    except Exception as exc:  # NVRTC errors arrive as generic exceptions with the log
        raise BuildError(f"compiling {family}.cu for {arch} failed: {exc}") from exc
    symbols = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in obj.symbol_mapping.items()}
    by_symbol = parse_ptxas(log.getvalue())
    resources = {expr: by_symbol.get(sym, Resources()) for expr, sym in symbols.items()}
    tmp = cubin.with_suffix(f".tmp{os.getpid()}")
    tmp.write_bytes(bytes(obj.code))
    os.replace(tmp, cubin)
    meta_tmp = meta.with_suffix(f".tmp{os.getpid()}")
    meta_tmp.write_text(json.dumps({"symbols": symbols, "log": log.getvalue(),
                                    "resources": {k: asdict(v) for k, v in resources.items()}}))
    os.replace(meta_tmp, meta)
    return Build(family, arch, str(cubin), symbols, resources, log.getvalue())


_modules: dict[str, object] = {}


def module(build: Build):
    """The build's cubin loaded into CuPy (needs a GPU); cached per process."""
    import cupy

    if build.cubin_path not in _modules:
        _modules[build.cubin_path] = cupy.RawModule(path=build.cubin_path)
    return _modules[build.cubin_path]


def function(build: Build, expression: str):
    if expression not in build.symbols:
        raise BuildError(f"{expression!r} was not instantiated in {build.family}.cu")
    return module(build).get_function(build.symbols[expression])
