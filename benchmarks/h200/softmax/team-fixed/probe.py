"""rowTeam's cost a call against its rows: last-axis softmax on teams, at several row counts N of
one row length, through the public API with the plan cache holding rowTeam's geometry for N (the
dispatch's, as many teams as the GPU holds; forced where N gives each team fewer rows than the
dispatch wants), launched cooperatively (as the dispatch does) and as a plain launch of the same grid
(nothing else runs on the GPU here, so every block is resident either way). Timed as the bench times
(bwlab.core.timing.time_gpu: warm-up, 100 repetitions, the median) beside a copy of the same bytes;
the forms alternating, three rounds, the medians of the rounds printed; then a least-squares line
ms = a + b * N per form: a is what a call costs beside its rows. Every output poisoned and checked
against float64 in round 1 (bad = 0 wanted). From this folder: PYTHONPATH=../../../../src python3 probe.py"""
import dataclasses
import statistics
import sys

import torch

import bwlab
from bwlab.core.timing import time_gpu
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner

sys.path.insert(0, "../meet-tree")
from probe import DT, bad_count  # noqa: E402

# (dtype, row length, row counts)
CASES = [("bfloat16", 131072, (396, 792, 1024, 1584, 2048, 4096)),
         ("float32", 65536, (396, 1024, 2048, 4096)),
         ("float32", 131072, (512, 1024, 2048))]


def ms(fn):
    return time_gpu(fn, warmup=3, reps=100).median_ms


def key_of(N, L, d):
    return next(k for k in calls._plans if len(k) == 2 and (k[0].N, k[0].L, k[0].M, k[0].dtype, k[0].op, k[0].log)
                == (N, L, 1, d, "forward", False))


def main():
    g0 = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'case':18} {'dtype':9} {'form':6} {'G':>4} {'bad':>4} {'ms':>8} {'GB/s':>6} {'%copy':>6}  [rounds %copy]")
    for d, L, rows in CASES:
        fits = {}
        for N in rows:
            x = (torch.randn(N, L, device="cuda", generator=g0) * 3).to(DT[d])
            out = torch.empty_like(x)
            api = lambda: bwlab.softmax(x, -1, out=out)  # noqa: E731
            api()
            key = key_of(N, L, d)
            held = calls.team_blocks(key[0], 0)
            c = plans.row_team(key[0], held)
            forms = {"coop": c, "plain": dataclasses.replace(c, cooperative=False)}
            forms = {k: calls.Plan(v, runner(v, N, L, 1, 0)) for k, v in forms.items()}
            moved = 2 * x.numel() * x.element_size()
            a = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
            b = torch.empty_like(a)
            res = {}
            for rnd in (1, 2, 3):
                for label, plan in forms.items():
                    calls._plans[key] = plan
                    if rnd == 1:
                        out.fill_(float("nan"))
                        api()
                        torch.cuda.synchronize()
                        res.setdefault(label + " bad", bad_count(out, x, None, -1, "fwd"))
                    res.setdefault(label, []).append(ms(api))
                res.setdefault("copy", []).append(ms(lambda: b.copy_(a)))
            copy = statistics.median(res["copy"])
            for label in forms:
                m = statistics.median(res[label])
                spread = " ".join(f"{100 * cp / t:.1f}" for t, cp in zip(res[label], res["copy"]))
                print(f"[{N}, {L}]".ljust(18) + f" {d:9} {label:6} {c.extra[0]:4} {res[label + ' bad']:4} {m:8.4f} "
                      f"{moved / m / 1e6:6.0f} {100 * copy / m:6.1f}  [{spread}]", flush=True)
                fits.setdefault(label, []).append((N, m, copy))
            x = out = a = b = None
            calls._plans.clear()
            torch.cuda.empty_cache()
        for label, pts in fits.items():
            n = [p[0] for p in pts]
            for which, col in (("call", 1), ("copy", 2)):
                t = [p[col] for p in pts]
                nb, tb = statistics.fmean(n), statistics.fmean(t)
                slope = sum((u - nb) * (v - tb) for u, v in zip(n, t)) / sum((u - nb) ** 2 for u in n)
                print(f"# {d} L={L} {label:6} {which}: ms = {tb - slope * nb:.4f} + {slope * 1e3:.5f} us * N",
                      flush=True)


if __name__ == "__main__":
    main()
