"""The compiler's report for widePerm at every wide short side 2..64 of 1- and 2-byte elements,
with and without the whole-line loads: registers and spill bytes (no GPU needed; the NVRTC of the
machine it runs on). From the repository root: `PYTHONPATH=src python3 benchmarks/h200/transpose/wide-l2/spills.py`."""
from bwlab.core import build
from bwlab.workloads.transpose import plans

if __name__ == "__main__":
    print("NVRTC", build.nvrtc_version())
    exprs = [f"widePerm<{e},{s},{plans.perm_steps(s)},{f}>" for e in (1, 2) for s in range(2, 65)
             for f in ("false", "true")]
    res = build.compile_each(plans.SKINNYPERM, exprs, "sm_90").resources
    for x in exprs:
        r = res[x]
        flag = "SPILLS" if r.spill_stores or r.spill_loads or r.stack_bytes else ""
        print(f"{x:28} {r.registers:4d} registers  stack {r.stack_bytes:3d}  "
              f"spill {r.spill_stores:3d}/{r.spill_loads:3d} {flag}")
