"""Nsight Compute counters for any workload's kernels: run `ncu` on a child process that
launches each kernel once; report.ncu reads the CSV it prints.

ncu always runs with --clock-control none (the clocks stay as the GPU sets them, as for
every other figure bwlab reports) and --profile-from-start off: the child
(bwlab.lab.ncu_target) opens the profiler around exactly one launch per kernel, in a known
order, so the n-th profiled launch is the n-th kernel asked for.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from typing import Optional

from ..core.errors import UserError
from ..core.workload import Case, Workload

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


def ncu_path() -> Optional[str]:
    return shutil.which("ncu") or next(
        (p for p in ("/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/ncu") if shutil.which(p)), None)


def command(w: Workload, names: list[str], case: Case, ncu: str = "ncu") -> list[str]:
    return [ncu, "--clock-control", "none", "--profile-from-start", "off", "--csv", "--page", "raw",
            "--metrics", ",".join(m for m, _ in METRICS.values()),
            sys.executable, "-m", "bwlab.lab.ncu_target", "--workload", w.name, "--kernels", ",".join(names),
            "--shape", "x".join(map(str, case.shape)), "--dtype", case.dtype]


def first_error(text: str) -> str:
    for line in text.splitlines():
        if "==ERROR==" in line or "ERR_" in line or "Error" in line:
            return line.replace("==ERROR==", "").strip()
    tail = [line for line in text.splitlines() if line.strip()]
    return tail[-1].strip() if tail else "no output"


def run_ncu(w: Workload, names: list[str], case: Case, timeout: int = 900) -> str:
    """ncu's output (CSV after the child's own lines), or UserError with one clear line."""
    ncu = ncu_path()
    if ncu is None:
        raise UserError("Nsight Compute (ncu) is not on the PATH: install it with the CUDA toolkit")
    try:
        proc = subprocess.run(command(w, names, case, ncu), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise UserError(f"ncu did not finish within {timeout} s") from None
    if proc.returncode != 0 or '"ID",' not in proc.stdout:
        raise UserError(f"ncu could not read the GPU's counters here ({first_error(proc.stderr + chr(10) + proc.stdout)})")
    return proc.stdout
