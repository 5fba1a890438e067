"""Nsight Compute counters for bwlab's kernels: run `ncu` on a child process, parse its CSV.

ncu always runs with --clock-control none (the clocks stay as the GPU sets them, as for
every other figure bwlab reports) and --profile-from-start off: the child
(bwlab.profile_target) opens the profiler around exactly one launch per kernel, in a known
order, so the n-th profiled launch is the n-th kernel asked for.
"""
from __future__ import annotations

import csv
import io
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Optional

# label -> (ncu metric, what it says)
METRICS: dict[str, tuple[str, str]] = {
    "ld_sectors_per_req": ("l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio",
                           "global load sectors per request (4 = coalesced 32-bit warp access)"),
    "st_sectors_per_req": ("l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio",
                           "global store sectors per request"),
    "ld_efficiency_pct": ("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
                          "useful bytes per loaded sector, %"),
    "st_efficiency_pct": ("smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct",
                          "useful bytes per stored sector, %"),
    "smem_ld_conflicts": ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared load bank conflicts"),
    "smem_st_conflicts": ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "shared store bank conflicts"),
    "dram_pct": ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput, % of peak"),
    "occupancy_pct": ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy, %"),
    "registers": ("launch__registers_per_thread", "registers per thread"),
    "smem_per_block": ("launch__shared_mem_per_block_static", "static shared memory per block, bytes"),
    "duration_ns": ("gpu__time_duration.sum", "kernel time under the profiler, ns"),
    "dram_read_bytes": ("dram__bytes_read.sum", "DRAM bytes read"),
    "dram_write_bytes": ("dram__bytes_write.sum", "DRAM bytes written"),
    "fadd": ("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "FP32 adds (thread instructions)"),
    "fmul": ("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "FP32 multiplies"),
    "ffma": ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "FP32 fused multiply-adds (2 FLOP each)"),
}


class ProfileError(RuntimeError):
    """ncu is missing or cannot read counters here; the message is one line for the user."""


@dataclass
class KernelCounters:
    name: str          # bwlab's kernel name
    kernel: str        # the name ncu reported (demangled)
    values: dict       # label -> float

    @property
    def flops(self) -> float:
        v = self.values
        return v.get("fadd", 0) + v.get("fmul", 0) + 2 * v.get("ffma", 0)

    @property
    def dram_bytes(self) -> float:
        return self.values.get("dram_read_bytes", 0) + self.values.get("dram_write_bytes", 0)


def _number(text: str):
    t = text.replace(",", "").strip()
    try:
        return float(t)
    except ValueError:
        return text


def parse_csv(text: str) -> list[dict]:
    """Rows of `ncu --csv --page raw`: metric name -> number (or text), in launch order.
    The child's own output and ncu's ==PROF== lines share the stream; the table starts at
    the header ("ID", ...), the next row holds units, then one row per profiled launch."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID",')), None)
    if start is None:
        return []
    table = [line for line in lines[start:] if line.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(table))))
    header, data = rows[0], rows[1:]
    if data and not data[0][0].strip():  # the units row
        data = data[1:]
    return [{h: _number(v) for h, v in zip(header, row)} for row in data if len(row) == len(header)]


def counters_from_rows(rows: list[dict], names: list[str]) -> list[KernelCounters]:
    """Pair the n-th profiled launch with the n-th kernel name; pick bwlab's metrics."""
    if len(rows) != len(names):
        raise ProfileError(f"ncu profiled {len(rows)} launches for {len(names)} kernels")
    out = []
    for name, row in zip(names, rows):
        vals = {label: row[metric] for label, (metric, _) in METRICS.items()
                if metric in row and isinstance(row[metric], float)}
        out.append(KernelCounters(name, str(row.get("Kernel Name", "")), vals))
    return out


def ncu_path() -> Optional[str]:
    return shutil.which("ncu") or next(
        (p for p in ("/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/ncu") if shutil.which(p)), None)


def command(names: list[str], shape, dtype: str, ncu: str = "ncu") -> list[str]:
    return [ncu, "--clock-control", "none", "--profile-from-start", "off", "--csv", "--page", "raw",
            "--metrics", ",".join(m for m, _ in METRICS.values()),
            sys.executable, "-m", "bwlab.profile_target", "--kernels", ",".join(names),
            "--shape", f"{shape[0]}x{shape[1]}", "--dtype", dtype]


def _first_error(text: str) -> str:
    for line in text.splitlines():
        if "==ERROR==" in line or "ERR_" in line or "Error" in line:
            return line.replace("==ERROR==", "").strip()
    tail = [line for line in text.splitlines() if line.strip()]
    return tail[-1].strip() if tail else "no output"


def profile(names: list[str], shape=(8192, 8192), dtype: str = "float32",
            timeout: int = 900) -> tuple[list[KernelCounters], str]:
    """(counters per kernel, raw CSV) or ProfileError with one clear line."""
    ncu = ncu_path()
    if ncu is None:
        raise ProfileError("Nsight Compute (ncu) is not on the PATH: install it with the CUDA toolkit")
    try:
        proc = subprocess.run(command(names, shape, dtype, ncu), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ProfileError(f"ncu did not finish within {timeout} s") from None
    rows = parse_csv(proc.stdout)
    if proc.returncode != 0 or not rows:
        why = _first_error(proc.stderr + "\n" + proc.stdout)
        raise ProfileError(f"ncu could not read the GPU's counters here ({why})")
    return counters_from_rows(rows, names), proc.stdout
