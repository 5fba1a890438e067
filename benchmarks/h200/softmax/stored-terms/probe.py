"""Stored terms (the fold stores 2^B exp(x - m) over x on chip; an output is one multiply) against
the kernels before, for softmax: the dispatch's kernel forced both ways into the public API's plan
cache. Each form is first checked (output poisoned; 16-bit within one unit in the last place of the
correctly rounded float64 reference, float32 within 1e-6 + 1e-5 |y|) on three inputs: normal, sigma
1; normal, sigma 40 (results down to 2^-133); and normal with one element of 85 a row or column, so
that most groups' maxima lie far below it (results near 2^-118, the kernels' small-factor path). Then both are timed alternately,
ROUNDS rounds (events around batches of 8 calls, the median of 9 batches, sweeps/sweep.py's timed),
beside a copy of the same bytes. From this folder: PYTHONPATH=../../../../src python3 probe.py [bench]
(bench: the bench suite's bfloat16 cases that store terms, timed as `bwlab bench` times them: single
calls between events, on its inputs, normal values of sigma 3)."""
import dataclasses
from pathlib import Path
import statistics
import sys

import torch

import bwlab
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sweeps"))
from sweep import timed  # noqa: E402

DT = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}
CASES = [("bfloat16", (1024, 131072), -1), ("bfloat16", (4096, 262144), -1), ("bfloat16", (2048, 65536), -1),
         ("float16", (1024, 131072), -1),
         ("bfloat16", (16, 8192, 1024), 1), ("bfloat16", (8192, 8192), 0), ("bfloat16", (64, 2048, 1024), 1),
         ("float16", (16, 8192, 1024), 1), ("float32", (16, 8192, 1024), 1), ("float32", (8192, 8192), 0),
         ("float32", (64, 2048, 1024), 1),
         ("bfloat16", (4, 32768, 1024), 1), ("bfloat16", (8, 16384, 1024), 1), ("float32", (4, 32768, 1024), 1)]
ROUNDS = 3


def ordered(t):
    u = t.view(torch.int16).to(torch.int32) & 0xFFFF
    return torch.where(u >= 0x8000, 0x8000 - u, u)


def bad_count(out, x, dim, log=False):
    ref = (torch.log_softmax if log else torch.softmax)(x.double(), dim)
    if out.dtype == torch.float32:
        tol = 1e-5 * (1 + ref.abs()) if log else 1e-6 + 1e-5 * ref.abs()
        return int((~((out.double() - ref).abs() <= tol) & ~(torch.isnan(out) & torch.isnan(ref))).sum())
    ref = ref.to(out.dtype)
    far = (ordered(out) - ordered(ref)).abs() > 1
    return int((far & ~(torch.isnan(out) & torch.isnan(ref))).sum())


def inputs(shape, dim, dt):
    g = torch.Generator(device="cuda").manual_seed(1)
    yield torch.randn(shape, device="cuda", generator=g).to(dt)
    yield (40 * torch.randn(shape, device="cuda", generator=g)).to(dt)
    x = torch.randn(shape, device="cuda", generator=g)
    n = x.shape[dim]
    idx = torch.randint(0, n, [s if i != dim % x.ndim else 1 for i, s in enumerate(x.shape)], device="cuda",
                        generator=g)
    yield x.scatter_(dim, idx, 85.0).to(dt)


BENCH = [("bfloat16", (16, 8192, 1024), 1), ("bfloat16", (8192, 8192), 0), ("bfloat16", (1024, 131072), -1),
         ("bfloat16", (4096, 262144), -1), ("bfloat16", (4, 32768, 1024), 1)]


def main():
    bench = sys.argv[1:] == ["bench"]
    print(f"{'dtype':8s} {'shape':18s} {'dim':>3s} {'kernel':9s} {'bad (3 inputs)':>15s} "
          f"{'before %copy':>12s} {'after %copy':>12s} {'after GB/s':>10s}  rounds before | after")
    for dt, shape, dim in BENCH if bench else CASES:
        nd = len(shape)
        d = dim % nd
        N = 1
        for s in shape[:d]:
            N *= s
        M = 1
        for s in shape[d + 1:]:
            M *= s
        p = plans.Problem(N, shape[d], M, dt)
        base = calls.plan_for(p, 0).choice  # the dispatch's kernel, each form forced
        if base.kernel not in ("rowStream", "rowTeam", "colsCluster", "colsTeam") or (
                base.kernel.startswith("cols") and ",128," not in base.expression):  # 128-byte strips
            print(f"{dt} {shape} {dim}: {base.kernel} does not store terms")
            continue
        bare = base.expression.replace(",true >", " >")
        old = dataclasses.replace(base, expression=bare)
        new = dataclasses.replace(base, expression=bare[:-2] + ",true >")
        forms = {"before": old, "after": new}
        plans_ = {k: calls.Plan(c, runner(c, N, shape[d], M, 0)) for k, c in forms.items()}
        bads = {}
        for k, plan in plans_.items():
            calls._plans[(p, 0)] = plan
            b = []
            for x in inputs(shape, dim, DT[dt]):
                out = torch.full_like(x, float("nan"))
                bwlab.softmax(x, dim, out=out)
                torch.cuda.synchronize()
                b.append(bad_count(out, x, dim))
            bads[k] = b
        x = (3 * torch.randn(shape, device="cuda") if bench else torch.randn(shape, device="cuda")).to(DT[dt])
        reps, batch = (20, 1) if bench else (9, 8)
        out = torch.empty_like(x)
        moved = 2 * x.numel() * x.element_size()
        src = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        ms = {k: [] for k in plans_}
        cms = []
        for _ in range(ROUNDS):
            for k, plan in plans_.items():
                calls._plans[(p, 0)] = plan
                ms[k].append(timed(lambda: bwlab.softmax(x, dim, out=out), reps=reps, batch=batch))
            cms.append(timed(lambda: dst.copy_(src), reps=reps, batch=batch))
        c = statistics.median(cms)
        pct = {k: [100 * c / v for v in ms[k]] for k in ms}
        print(f"{dt:8s} {str(list(shape)):18s} {dim:3d} {new.kernel:11s} {str(bads['before']) + str(bads['after']):>15s} "
              f"{statistics.mean(pct['before']):12.1f} {statistics.mean(pct['after']):12.1f} "
              f"{moved / statistics.median(ms['after']) / 1e6:10.0f}  "
              + " ".join(f"{v:.1f}" for v in pct["before"]) + " | " + " ".join(f"{v:.1f}" for v in pct["after"]),
              flush=True)
        calls._plans.clear()
        del x, out, src, dst
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
