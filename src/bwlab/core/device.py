"""Device facts and theoretical peaks, from the device's own attributes (no kernel runs here;
the measured ceilings are in ceilings.py).

Peaks never come from a table of bus widths:
bandwidth = memory clock x 2 (double data rate) x bus width / 8, and
FLOP/s = SMs x lanes per SM x 2 (an FMA is two operations) x SM clock.
"""
from __future__ import annotations

import platform
import shutil
import subprocess
from dataclasses import asdict, dataclass, field
from typing import Optional

# FP32 and FP64 FMA lanes per SM by compute capability: the "Arithmetic Instructions"
# throughput table of the CUDA C++ Programming Guide (32- and 64-bit floating-point
# add, multiply, multiply-add: results per clock cycle per multiprocessor), which agrees
# with the whitepapers (V100, A100, H100, Blackwell).
LANES_PER_SM: dict[tuple[int, int], tuple[int, int]] = {
    (7, 0): (64, 32),    # V100
    (7, 2): (64, 2),     # Xavier
    (7, 5): (64, 2),     # Turing
    (8, 0): (64, 32),    # A100
    (8, 6): (128, 2),    # GA10x
    (8, 7): (128, 2),    # Orin
    (8, 9): (128, 2),    # Ada
    (9, 0): (128, 64),   # H100, H200
    (10, 0): (128, 64),  # B200
}

# cudaDeviceAttr numbers (CUDA 13 dropped the clock fields from cudaDeviceProp).
ATTR = {
    "max_threads_per_block": 1, "smem_per_block": 8, "warp_size": 10, "regs_per_block": 12,
    "sm_clock_khz": 13, "sm_count": 16, "mem_clock_khz": 36, "bus_width_bits": 37,
    "l2_bytes": 38, "max_threads_per_sm": 39, "cc_major": 75, "cc_minor": 76,
    "smem_per_sm": 81, "regs_per_sm": 82, "smem_per_block_optin": 97,
}


def peak_bandwidth_gbs(mem_clock_khz: int, bus_width_bits: int) -> float:
    """Theoretical DRAM bandwidth in GB/s (10^9 bytes/s)."""
    return mem_clock_khz * 1e3 * 2 * bus_width_bits / 8 / 1e9


def lanes_per_sm(cc: tuple[int, int]) -> tuple[int, int]:
    if cc not in LANES_PER_SM:
        raise ValueError(f"no FP32/FP64 lane count for compute capability {cc[0]}.{cc[1]}")
    return LANES_PER_SM[cc]


def peak_gflops(sm_count: int, sm_clock_khz: int, cc: tuple[int, int], precision: str = "fp32") -> float:
    fp32, fp64 = lanes_per_sm(cc)
    lanes = {"fp32": fp32, "fp64": fp64}[precision]
    return sm_count * lanes * 2 * sm_clock_khz * 1e3 / 1e9


@dataclass
class DeviceSpec:
    index: int
    name: str
    cc: tuple[int, int]
    sm_count: int
    sm_clock_khz: int
    mem_clock_khz: int
    bus_width_bits: int
    l2_bytes: int
    total_mem_bytes: int
    smem_per_block: int
    smem_per_block_optin: int
    smem_per_sm: int
    regs_per_block: int
    regs_per_sm: int
    max_threads_per_block: int
    max_threads_per_sm: int
    warp_size: int = 32
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def arch(self) -> str:
        return f"sm_{self.cc[0]}{self.cc[1]}"

    @property
    def peak_bandwidth_gbs(self) -> float:
        return peak_bandwidth_gbs(self.mem_clock_khz, self.bus_width_bits)

    def peak_gflops(self, precision: str = "fp32") -> Optional[float]:
        try:
            return peak_gflops(self.sm_count, self.sm_clock_khz, self.cc, precision)
        except ValueError:
            return None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["cc"] = list(self.cc)
        d["arch"] = self.arch
        d["peak_bandwidth_gbs"] = self.peak_bandwidth_gbs
        d["peak_fp32_gflops"] = self.peak_gflops("fp32")
        d["peak_fp64_gflops"] = self.peak_gflops("fp64")
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "DeviceSpec":
        keep = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        keep["cc"] = tuple(keep["cc"])
        return cls(**keep)


# The install command of the GPU extra, as the README gives it (hints quote it verbatim).
INSTALL_GPU = 'python3 -m pip install -e ".[gpu]"'
_available: list[tuple[bool, str]] = []


def cuda_available() -> tuple[bool, str]:
    """(True, "") when CuPy sees a CUDA device, else (False, the reason in words)."""
    if not _available:
        _available.append(_cuda_available())
    return _available[0]


def _cuda_available() -> tuple[bool, str]:
    try:
        import cupy
    except ImportError:
        return False, f"CuPy is not installed (install the GPU extra: {INSTALL_GPU})"
    except Exception as exc:  # a CuPy built for another CUDA
        return False, f"CuPy does not load ({exc.__class__.__name__}: {exc})"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return False, f"no CUDA driver or device ({str(exc).strip() or exc.__class__.__name__})"
    return (n > 0, "" if n > 0 else "no CUDA device visible")


def nvidia_smi(fields: str, index: int = 0) -> list[str]:
    if not shutil.which("nvidia-smi"):
        return []
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader,nounits",
                              f"--id={index}"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return []
    return [s.strip() for s in out.stdout.strip().split(",")] if out.returncode == 0 else []


_specs: dict[int, DeviceSpec] = {}


def query(index: int = 0) -> DeviceSpec:
    """Read the device's attributes through the CUDA runtime (needs a GPU); once per process."""
    if index not in _specs:
        _specs[index] = _query(index)
    return _specs[index]


def _query(index: int) -> DeviceSpec:
    import cupy

    rt = cupy.cuda.runtime
    vals, sources = {}, {}
    for key, attr in ATTR.items():
        try:
            vals[key] = rt.deviceGetAttribute(attr, index)
            sources[key] = f"cudaDeviceGetAttribute({attr})"
        except Exception:
            vals[key] = 0
    if not vals["sm_clock_khz"] or not vals["mem_clock_khz"]:  # attribute refused: ask NVML's CLI
        smi = nvidia_smi("clocks.max.sm,clocks.max.memory", index)
        if len(smi) == 2:
            for key, mhz in zip(("sm_clock_khz", "mem_clock_khz"), smi):
                if not vals[key] and mhz.isdigit():
                    vals[key], sources[key] = int(mhz) * 1000, "nvidia-smi clocks.max"
    props = rt.getDeviceProperties(index)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    return DeviceSpec(
        index=index, name=name, cc=(vals.pop("cc_major"), vals.pop("cc_minor")),
        total_mem_bytes=int(props["totalGlobalMem"]), sources=sources, **vals)


def environment(index: int = 0) -> dict:
    """What the numbers depend on: versions, driver, clocks at the time of the run."""
    import numpy

    env = {"python": platform.python_version(), "numpy": numpy.__version__, "host": platform.node()}
    try:
        import cupy

        env["cupy"] = cupy.__version__
        env["cuda_runtime"] = cupy.cuda.runtime.runtimeGetVersion()
        env["cuda_driver"] = cupy.cuda.runtime.driverGetVersion()
    except Exception:
        pass
    for mod in ("torch", "triton", "cuda.core"):
        try:
            m = __import__(mod, fromlist=["__version__"])
            env[mod] = getattr(m, "__version__", "?")
        except Exception:
            env[mod] = None
    try:
        from .build import nvrtc_version

        env["nvrtc"] = nvrtc_version()
    except Exception:
        env["nvrtc"] = None
    smi = nvidia_smi("driver_version,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw", index)
    if smi:
        keys = ("driver", "sm_clock_mhz_now", "mem_clock_mhz_now", "sm_clock_mhz_max", "temperature_c", "power_w")
        env["nvidia_smi"] = dict(zip(keys, smi))
    return env
