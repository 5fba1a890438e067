"""The pipeline's stage times of 4 MiB chunks (16 MiB in 4 chunks), call after call in one process:
copy-in, copy-out and the two at once (pinned), and both over the slower alone. From the repository
root: PYTHONPATH=src python3 benchmarks/h100/streams-warm/ratio.py [CALLS] (default 10)."""
import sys

from bwlab.core.device import query
from bwlab.lab import streams as lab

spec = query(0)
for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 10):
    _, d = lab.run_pipeline(spec, total_mib=16, chunks=4, stream_counts=(1, 2), reps=1)
    p = d["pinned"]
    print(f"in {p['t_in_ms']:.4f} out {p['t_out_ms']:.4f} both {p['t_both_ms']:.4f} "
          f"ratio {p['t_both_ms'] / max(p['t_in_ms'], p['t_out_ms']):.3f}", flush=True)
