"""The last-axis cases where torch.compile ran level with or ahead of bwlab at the copy roof in the
bench, timed as the bench times them: single calls between events through each one's Python path
(bwlab.core.timing.time_gpu: warm-up, 100 repetitions, the median), bwlab through its public API with
the plan cache holding the dispatch's geometry or another one ("api" + label), torch.compile as the
bench compiles it, a cudaMemcpy-style copy of the same bytes; the forms alternating, three rounds,
the medians of the rounds printed. Every geometry's output poisoned and checked against float64 in
round 1 (bad = 0 wanted): `PYTHONPATH=../../../../src python3 probe.py` (from this folder)."""
import importlib.util
import statistics
import sys

import torch

import bwlab
from bwlab.core.arrays import torch_compiled
from bwlab.core.timing import time_gpu
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner

sys.path.insert(0, "../meet-tree")
from probe import DT, bad_count  # noqa: E402

_spec = importlib.util.spec_from_file_location("width_more_probe", "../width-more/probe.py")
width_more = importlib.util.module_from_spec(_spec)  # its log-softmax gradient check
sys.path.insert(0, "../width-more")
_spec.loader.exec_module(width_more)


def warp(K, R, T):
    return f"rowWarp K{K} R{R} T{T}", lambda p: plans.row_warp(p, K=K, R=R, threads=T)


def block(T):
    return f"rowBlock T{T}", lambda p: plans.row_block(p, threads=T)


# (shape, dtype, op, geometries besides the dispatch's)
CASES = [
    ((131072, 1024), "bfloat16", "fwd", [warp(4, 2, 32), warp(4, 1, 64), warp(8, 1, 32), warp(8, 2, 32),
                                         block(32), block(64)]),
    ((131072, 1024), "bfloat16", "log", [warp(4, 2, 32), warp(4, 1, 64), warp(8, 1, 32), block(64)]),
    ((131072, 1024), "float32", "fwd", [warp(8, 1, 32), warp(8, 1, 64), warp(8, 2, 32), block(64)]),
    ((32768, 4096), "bfloat16", "bwd", [block(256), block(128), block(64)]),
    ((4194304, 32), "float32", "lbwd", [warp(2, 4, 32), warp(1, 2, 32), warp(1, 4, 32), warp(2, 2, 64),
                                        warp(4, 1, 32)]),
]


def torch_fn(op):
    if op == "bwd":
        return lambda y, g: torch.ops.aten._softmax_backward_data(g, y, -1, y.dtype)
    if op == "lbwd":
        return lambda y, g: torch.ops.aten._log_softmax_backward_data(g, y, -1, y.dtype)
    return (lambda x: torch.log_softmax(x, -1)) if op == "log" else (lambda x: torch.softmax(x, -1))


def check(out, x, y, g, op):
    if op == "lbwd":
        return width_more.log_grad_bad(out, y, g, -1)
    return bad_count(out, y if op == "bwd" else x, g, -1, "bwd" if op == "bwd" else op)


def ms(fn):
    return time_gpu(fn, warmup=3, reps=100).median_ms


def main():
    g0 = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'rnd':3} {'case':16} {'dtype':9} {'op':4} {'form':26} {'bad':>4} {'ms':>8} {'GB/s':>6} "
          f"{'%copy':>6} {'x tc':>6}")
    for shape, d, op, geos in CASES:
        x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
        out = torch.empty_like(x)
        y = g = None
        if op in ("bwd", "lbwd"):
            y = (torch.log_softmax if op == "lbwd" else torch.softmax)(x.float(), -1).to(DT[d])
            g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
            api = lambda: bwlab.softmax_backward(y, g, -1, log=op == "lbwd", out=out)  # noqa: E731
            args = (y, g)
        else:
            api = lambda: bwlab.softmax(x, -1, log=op == "log", out=out)  # noqa: E731
            args = (x,)
        moved = x.numel() * x.element_size() * (3 if g is not None else 2)
        api()
        key = next(k for k in calls._plans if len(k) == 2 and (k[0].N, k[0].L, k[0].M, k[0].dtype, k[0].op, k[0].log)
                   == (shape[0], shape[1], 1, d, "backward" if g is not None else "forward", op in ("log", "lbwd")))
        dispatch = calls._plans[key]
        forms = [("api " + dispatch.choice.expression.split("<")[0] + " (dispatch)", dispatch)]
        for label, make in geos:
            c = make(key[0])
            if c is not None:
                forms.append(("api " + label, calls.Plan(c, runner(c, key[0].N, key[0].L, key[0].M, 0))))
        with torch.no_grad():
            tc = torch_compiled(torch_fn(op))
            tc(*args)
        a = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
        b = torch.empty_like(a)
        rows = {}
        for rnd in (1, 2, 3):
            for label, plan in forms:
                calls._plans[key] = plan
                if rnd == 1:
                    out.fill_(float("nan"))
                    api()
                    torch.cuda.synchronize()
                    bad = check(out, x, y, g, op)
                    print(f"#   {plan.choice.expression:60} bad {bad}", flush=True)
                rows.setdefault(label, []).append(ms(api))
            calls._plans[key] = dispatch
            with torch.no_grad():
                rows.setdefault("torch.compile", []).append(ms(lambda: tc(*args)))
            rows.setdefault("copy", []).append(ms(lambda: b.copy_(a)))
        copy = statistics.median(rows["copy"])
        t_tc = statistics.median(rows["torch.compile"])
        for label, v in rows.items():
            m = statistics.median(v)
            spread = " ".join(f"{moved / t / 1e6:.0f}" for t in v)
            print(f"{'med':3} {'x'.join(map(str, shape)):16} {d:9} {op:4} {label:26} {'':>4} {m:8.4f} "
                  f"{moved / m / 1e6:6.0f} {100 * copy / m:6.1f} {t_tc / m:6.3f}  [{spread}]", flush=True)
        x = y = g = out = a = b = None
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
