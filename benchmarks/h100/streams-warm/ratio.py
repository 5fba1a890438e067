from bwlab.core.device import query
from bwlab.lab import streams as lab
spec = query(0)
for i in range(10):
    _, d = lab.run_pipeline(spec, total_mib=16, chunks=4, stream_counts=(1, 2), reps=1)
    p = d["pinned"]
    print(f"in {p['t_in_ms']:.4f} out {p['t_out_ms']:.4f} both {p['t_both_ms']:.4f} ratio {p['t_both_ms'] / max(p['t_in_ms'], p['t_out_ms']):.3f}", flush=True)
