"""Two probes on the long axes (run from the repository root with PYTHONPATH=<tree>/src):

`probe.py relay [quick]`  rowRelay's ticket schedule: the finishing tasks' chunk order (as read, or
                  reversed so that the chunk read last is written first) and their place
                  (after `lag` rows of partial tasks, or interleaved one for one with them),
                  forced into the public API's plan cache, each checked on the first rows
                  against a float64 reference (a screen: the GPU tests hold the real
                  tolerance), then timed in two rounds (events around batches of 4 calls,
                  median of 15) beside a copy of the same bytes; `quick`: the schedule
                  as built and reversed only.
`probe.py chunks LABEL`  [4, 32768, 1024] dim 1 bfloat16 and float32, softmax and log-softmax
                  (colsChunks): the bench's timing (an event pair a call, 20 calls queued
                  back to back) three times, its spread, and each kernel's own time from the
                  profiler, for an A/B of two trees."""
import statistics
import sys
from pathlib import Path

import torch

from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sweeps"))
from sweep import timed  # noqa: E402  (events around batches of calls, the median)

MiB = 1 << 20
DT = {"float32": torch.float32, "bfloat16": torch.bfloat16}
RELAY_CASES = [(64, 4194304, "float32", "forward"), (64, 4194304, "bfloat16", "forward"),
               (4096, 262144, "float32", "forward"), (4096, 262144, "float32", "backward"),
               (4096, 262144, "bfloat16", "backward"), (1024, 131072, "float32", "backward"),
               (1024, 131072, "bfloat16", "backward")]


def relay_variants(p, quick):
    out = [("as built", plans.choose(p))]
    more = (("reversed lag0", 1, 0), ("rev interleaved lag1", 3, 1), ("rev interleaved", 3, None),
            ("interleaved", 2, None))
    for label, sched, lag in (("reversed", 1, None),) + (() if quick else more):
        c = plans.row_relay(p, sched=sched, lag_rows=lag)
        if c is not None:
            out.append((f"{label} ({c.extra[0]})", c))
    return out


def relay(quick):
    print(f"{torch.cuda.get_device_name()}")
    for N, L, d, op in RELAY_CASES:
        g = torch.Generator(device="cuda").manual_seed(1)
        x = (torch.randn(N, L, device="cuda", generator=g) * 3).to(DT[d])
        grad = torch.randn(N, L, device="cuda", generator=g).to(DT[d]) if op == "backward" else None
        if op == "backward":  # y a real softmax, so the gradient's row sums stay small
            x = torch.softmax(x.float(), -1).to(DT[d])
        rows = slice(0, min(N, 256))
        if op == "forward":
            ref = torch.softmax(x[rows].double(), -1)
        else:
            y64, g64 = x[rows].double(), grad[rows].double()
            ref = y64 * (g64 - (y64 * g64).sum(-1, keepdim=True))
        out = torch.empty_like(x)
        moved = x.numel() * x.element_size() * (3 if op == "backward" else 2)
        src = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        p = plans.Problem(N, L, 1, d, op)
        vs = relay_variants(p, quick)
        res = {label: [] for label, _ in vs}
        for rnd in range(2):
            copy = moved / timed(lambda: dst.copy_(src)) / 1e6
            for label, c in vs:
                calls._plans.clear()
                calls._plans[(p, 0)] = calls.Plan(c, runner(c, N, L, 1, 0))
                bad = -1
                if rnd == 0:
                    out.fill_(float("nan"))
                    calls.run(x, -1, False, out, None, grad=grad)
                    torch.cuda.synchronize()
                    err = (out[rows].double() - ref).abs()
                    tol = (2e-5 if d == "float32" else 2 ** -7) * ref.abs() + (1e-6 if d == "float32" else 1e-3)
                    bad = int((~(err <= tol)).sum())
                gb = moved / timed(lambda: calls.run(x, -1, False, out, None, grad=grad)) / 1e6
                res[label].append(100 * gb / copy)
                print(f"{N}x{L} {d[:4]} {op[:3]}  {label:28s} {gb:6.0f} GB/s {100 * gb / copy:5.1f}%"
                      + (f"  bad={bad}" if bad >= 0 else ""), flush=True)
        print("  means: " + " | ".join(f"{k} {statistics.fmean(v):.1f}%" for k, v in res.items()), flush=True)
        calls._plans.clear()
        x = grad = out = src = dst = None
        torch.cuda.empty_cache()


def chunks(label):
    import bwlab
    from torch.profiler import ProfilerActivity, profile
    g = torch.Generator(device="cuda").manual_seed(0)
    for d in DT:
        x = (torch.randn(4, 32768, 1024, device="cuda", generator=g) * 3).to(DT[d])
        out = torch.empty_like(x)
        src, dst = x, torch.empty_like(x)
        for log in (False, True):
            fn = lambda: bwlab.softmax(x, 1, log=log, out=out)  # noqa: E731
            for rnd in range(3):
                for f, name in ((lambda: dst.copy_(src), "copy"), (fn, "bwlab")):
                    for _ in range(3):
                        f()
                    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                          for _ in range(20)]
                    for a, b in ev:
                        a.record()
                        f()
                        b.record()
                    torch.cuda.synchronize()
                    ms = sorted(a.elapsed_time(b) for a, b in ev)
                    cv = statistics.stdev(ms) / statistics.fmean(ms)
                    print(f"{label:4} {d:9} {'log' if log else 'fwd'} round {rnd} {name:5} median {ms[10]:.4f} "
                          f"min {ms[0]:.4f} max {ms[-1]:.4f} ms  cv {100 * cv:4.1f}%", flush=True)
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(20):
                    fn()
                torch.cuda.synchronize()
            for e in prof.key_averages():
                if e.device_type.name == "CUDA" and e.count >= 20:
                    t = getattr(e, "device_time", None) or e.cuda_time
                    print(f"{label:4} {d:9} {'log' if log else 'fwd'} kernel {e.key[:60]:60s} x{e.count} "
                          f"avg {t / 1000:.4f} ms", flush=True)


if __name__ == "__main__":
    relay("quick" in sys.argv) if sys.argv[1] == "relay" else chunks(sys.argv[2])
