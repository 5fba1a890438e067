"""What a workspace's zeroing costs a team kernel's call: each case's plan run directly (its workspace
zeroed by cuMemsetD8Async, then the cooperative launch) against the same with a second, redundant zeroing
of another buffer before it; per-call events back to back (as the bench times), 200 calls, the median,
alternating, three rounds: `PYTHONPATH=../../../../src python3 memset.py` (from this folder)."""
import statistics
import sys

import torch

from bwlab.core import launch as core_launch
from bwlab.workloads.softmax import calls

sys.path.insert(0, "../team-pipe")
from cases import problem  # noqa: E402
from pipe import DT  # noqa: E402

CASES = [((1024, 131072), -1, "bfloat16", "fwd"), ((8192, 8192), 0, "float32", "bwd"),
         ((8192, 8192), 0, "bfloat16", "bwd"), ((4, 32768, 1024), 1, "bfloat16", "fwd")]


def per_call(fn, reps=200):
    for _ in range(20):
        fn()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for a, b in ev:
        a.record()
        fn()
        b.record()
    torch.cuda.synchronize()
    return statistics.median(a.elapsed_time(b) for a, b in ev)


def main():
    g0 = torch.Generator(device="cuda").manual_seed(0)
    s = torch.cuda.current_stream().cuda_stream
    for shape, dim, d, op in CASES:
        dim = dim % len(shape)
        p = problem(shape, dim, d, op)
        x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
        g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d]) if op == "bwd" else None
        out = torch.empty_like(x)
        plan = calls.plan_for(p, 0)
        ws = torch.empty(plan.choice.workspace_bytes, dtype=torch.uint8, device="cuda")
        extra = torch.empty(plan.choice.zeroed, dtype=torch.uint8, device="cuda")
        args = (x.data_ptr(), g.data_ptr() if g is not None else 0, out.data_ptr(), ws.data_ptr(), s)
        one = lambda: plan.run(*args)  # noqa: E731

        def two():
            core_launch.memset_async(extra.data_ptr(), plan.choice.zeroed, s)
            plan.run(*args)
        res = {"one": [], "two": []}
        for _ in range(3):
            for k, fn in (("one", one), ("two", two)):
                res[k].append(per_call(fn))
        a, b = statistics.median(res["one"]), statistics.median(res["two"])
        print(f"{str(list(shape)):18} {d:9} {op} {plan.choice.kernel:9} zeroed {plan.choice.zeroed:6} B  "
              f"one {a * 1e3:7.2f} us  two {b * 1e3:7.2f} us  a zeroing {1e3 * (b - a):5.2f} us "
              f"({100 * (b - a) / a:4.1f}%)", flush=True)


if __name__ == "__main__":
    main()
