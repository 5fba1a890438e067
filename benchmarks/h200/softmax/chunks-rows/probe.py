"""`probe.py`: colsChunks with blocks as wide as the row (lx packs covering all M columns, so a block reads whole
rows of memory, as a pointwise kernel would) against the dispatch's geometry (32 packs x 8 rows), on
the strided bfloat16 cases where colsChunks runs or is near: softmax and log-softmax gradients and
forward passes down dim 1. Each geometry launched directly, its output (poisoned first) checked
against float64, then timed beside a copy of the same bytes (../meet-tree/probe.py's measure); the
public API and torch.compile the same way; ROUNDS rounds. From this folder:
PYTHONPATH=../../../../src python3 probe.py [partial]
`confirm`: log-softmax gradients, the partial pass as before (4 packs in flight, 2 blocks an SM)
against the kept 8 and 4, also float32 and [1, 32768, 4096] (3 rounds).
`loads`: the write launch's loads of x (or y and the gradient) evict-first (colsFinish<..., true>)
against plain, the dispatch's plan otherwise (3 rounds).
`split`: the first launch in torch.compile's shape (inductor.txt: 32 splits of 1024 rows, columns
128 bytes wide a program, evict-first loads), its states merged and written by the dispatch's
second and third launches (3 rounds).
`final`: the tree with the split kept for gradients: the API against colsChunks with its first launch
in the write's geometry (plain=True) and with the split forced (forward passes too), 3 rounds.
`partial`: the dispatch's geometry with colsPartial's packs in flight (U) and blocks an SM (B) forced,
through its template arguments."""
import dataclasses
import sys
from pathlib import Path

import torch

import bwlab
from bwlab.core import build
from bwlab.workloads.softmax import plans
from bwlab.workloads.softmax.launch import runner

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "meet-tree"))
from probe import bad_count, columns, measure, against_copy  # noqa: E402

ROUNDS = 2
# (label, rows a chunk, lx packs, by rows, unroll)
GEOMETRIES = [("dispatch", 0, 32, 8, 4), ("64x4", 0, 64, 4, 4), ("128x2", 0, 128, 2, 4), ("128x4", 0, 128, 4, 4),
              ("128x1", 0, 128, 1, 4), ("128x2 R512", 512, 128, 2, 4), ("128x2 U8", 0, 128, 2, 8)]
# (op, log, shape)
CASES = [("backward", False, (4, 32768, 1024)), ("backward", True, (4, 32768, 1024)),
         ("forward", False, (4, 32768, 1024)), ("forward", True, (4, 32768, 1024)),
         ("backward", False, (1, 32768, 4096))]
PARTIALS = [("dispatch", 0, 0), ("U8", 8, 0), ("B4", 4, 4), ("B4 U8", 8, 4), ("B3", 4, 3), ("U6", 6, 0)]
DT = torch.bfloat16
MODE = sys.argv[1] if len(sys.argv) > 1 else "rows"
CONFIRM = [("before U4 B2", 4, 2), ("kept U8 B4", 8, 4)]
LOADS = [("plain loads", False), ("evict-first loads", True)]
if MODE == "loads":
    ROUNDS = 3
    CASES = [("backward", False, (4, 32768, 1024)), ("backward", True, (4, 32768, 1024)),
             ("backward", False, (1, 32768, 4096)), ("forward", False, (4, 32768, 1024))]
# (label, rows a chunk, lx, by, evict-first loads) of the first launch
SPLITS = [("dispatch", 0, 32, 8, False), ("R1024 8x32", 1024, 8, 32, False), ("R512 8x32", 512, 8, 32, False),
          ("R1024 16x16", 1024, 16, 16, False), ("dispatch cs", 0, 32, 8, True), ("R1024 8x32 cs", 1024, 8, 32, True)]
if MODE == "split":
    ROUNDS = 3
    CASES = [("backward", False, (4, 32768, 1024)), ("backward", True, (4, 32768, 1024)),
             ("backward", False, (1, 32768, 4096))]
FINAL = [("plain first", "plain"), ("split", "split")]
if MODE == "final":
    ROUNDS = 3
    CASES = [("backward", False, (4, 32768, 1024)), ("backward", True, (4, 32768, 1024)),
             ("backward", False, (1, 32768, 4096)), ("backward", False, (2, 40000, 1032)),
             ("backward", False, (2, 65536, 1024), torch.float32), ("backward", True, (2, 65536, 1024), torch.float32),
             ("forward", False, (4, 32768, 1024)), ("forward", True, (4, 32768, 1024)),
             ("forward", False, (2, 65536, 1024), torch.float32)]
if MODE == "confirm":
    ROUNDS = 3
    CASES = [("backward", True, (4, 32768, 1024), torch.bfloat16), ("backward", True, (1, 32768, 4096), torch.bfloat16),
             ("backward", True, (2, 65536, 1024), torch.float32)]


def bad_logbwd(out, y, g, dim):
    yd, gd = y.double(), g.double()
    e = yd.exp()
    ref = gd - e * gd.sum(dim, keepdim=True)
    scale = ref.abs() + gd.abs() + e * gd.abs().sum(dim, keepdim=True)
    tol = 1e-5 if out.dtype == torch.float32 else 2 ** -7
    bad = ~((out.double() - ref).abs() <= tol * scale + 1e-6)
    return int(bad.sum())


def with_partial(c, u, blocks):
    """c with colsPartial<..., U, BLOCKS> (0: the default)."""
    if not u:
        return c
    head = ",".join(c.expression.split(",")[:5]).removesuffix(" >")  # colsPartial<T,V,LX,BY,Op<...>
    tail = f",{u}" + (f",{blocks}" if blocks else "")
    return dataclasses.replace(c, expression=head + tail + " >")


def split_runner(first, rest, shape):
    """first's partial pass (its chunks), then rest's merge and write (rest's rows a chunk for the write:
    it reads only the finished states, one per column)."""
    from bwlab.core import launch as cl
    from bwlab.workloads.softmax.launch import _function

    N, L, M = shape
    dims = [("i64", N), ("i64", L), ("i64", M)]
    part = cl.PackedLaunch(_function(first.source, first.expression, 0, 0), first.grid, first.block,
                           [("ptr", 0)] * 3 + dims + [("i64", first.extra[0])])
    mid = cl.PackedLaunch(_function(rest.source, rest.merge, 0, 0), (N * -(-M // 32), 1, 1), (32, plans.MERGE_BY, 1),
                          [("ptr", 0), ("ptr", 0), ("i64", N), ("i64", M), ("i64", first.chunks)], dependent=True)
    last = cl.PackedLaunch(_function(rest.source, rest.finish, 0, 0), rest.grid, rest.block,
                           [("ptr", 0)] * 4 + dims + [("i64", rest.extra[0])], dependent=True)
    fin = 8 * N * M * first.chunks

    def run(a, b, y, ws, s):
        part(s, a, b, ws)
        mid(s, ws, ws + fin)
        last(s, a, b, y, ws + fin)

    return run


def chosen(case):
    op, log, shape, *dt = case
    name = "float32" if dt and dt[0] == torch.float32 else "bfloat16"
    if MODE == "final":
        p = plans.Problem(*shape, name, op, log)
        return [plans.cols_chunks(p, plain=True), plans.cols_chunks(p, split=(1024, 8, 32))]
    if MODE == "split":
        p = plans.Problem(*shape, name, op, log)
        out = []
        for _, rows, lx, by, cs in SPLITS:
            c = plans.cols_chunks(p, rows, by, lx)
            if cs:
                head = ",".join(c.expression.split(",")[:5]).removesuffix(" >")
                c = dataclasses.replace(c, expression=head + (",8,4" if log else ",4,2") + ",true >")
            out.append(c)
        return out
    if MODE == "loads":
        c = plans.cols_chunks(plans.Problem(*shape, name, op, log))
        return [dataclasses.replace(c, finish=c.finish[:-2] + ",true >") if cs else c for _, cs in LOADS]
    if MODE in ("partial", "confirm"):
        c = plans.cols_chunks(plans.Problem(*shape, name, op, log), plain=True)
        return [with_partial(c, u, b) for _, u, b in (PARTIALS if MODE == "partial" else CONFIRM)]
    return [plans.cols_chunks(plans.Problem(*shape, "bfloat16", op, log), r, by, lx, u, plain=True)
            for _, r, lx, by, u in GEOMETRIES]


def main():
    ex = sorted({e for case in CASES for c in chosen(case) for e in (c.expression, c.finish, c.merge)})
    res = build.compile_each(plans.SRC["colschunks"], ex, "sm_90", jobs=16).resources
    s = torch.cuda.current_stream().cuda_stream
    gen = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'op':7} {'shape':14} {'rnd':3} {'geometry':12} {'regs':>7} {'bad':>4} {'ms':>8} {'GB/s':>6} {'%copy':>6}",
          flush=True)
    for rnd in range(1, ROUNDS + 1):
        for case in CASES:
            op, log, shape, *dt = case
            DT = dt[0] if dt else torch.bfloat16
            dtn = "float32" if DT == torch.float32 else "bfloat16"
            name = ("log" if log else "") + ("bwd" if op == "backward" else "fwd")
            sh = "x".join(map(str, shape)) + (" f32" if DT == torch.float32 else "")
            x = (torch.randn(*shape, device="cuda", generator=gen) * 3).to(DT)
            out = torch.empty_like(x)
            if op == "backward":
                a = (torch.log_softmax if log else torch.softmax)(x.float(), 1).to(DT)
                b = torch.randn(*shape, device="cuda", generator=gen).to(DT)
                moved = 3 * x.numel() * x.element_size()
                check = (lambda a=a, b=b, log=log: bad_logbwd(out, a, b, 1) if log else bad_count(out, a, b, 1, "bwd"))
                api = (lambda a=a, b=b, log=log: bwlab.softmax_backward(a, b, 1, log=log, out=out))
                f = torch.ops.aten._log_softmax_backward_data if log else torch.ops.aten._softmax_backward_data
                tc = torch.compile(lambda a, b, f=f, dt=DT: f(b, a, 1, dt), dynamic=False)
                ref_call = (lambda a=a, b=b, tc=tc: tc(a, b))
            else:
                a, b = x, None
                moved = 2 * x.numel() * x.element_size()
                check = (lambda a=a, log=log: bad_count(out, a, None, 1, "log" if log else "fwd"))
                api = (lambda a=a, log=log: bwlab.softmax(a, 1, log=log, out=out))
                tc = torch.compile(lambda a, log=log: (torch.log_softmax if log else torch.softmax)(a, 1), dynamic=False)
                ref_call = (lambda a=a, tc=tc: tc(a))
            lines = [("API", api, None)]
            labels = {"partial": PARTIALS, "confirm": CONFIRM, "loads": LOADS, "split": SPLITS,
                      "final": FINAL}.get(MODE, GEOMETRIES)
            for (label, *_), c in zip(labels, chosen(case)):
                ws = torch.empty(c.workspace_bytes, dtype=torch.uint8, device="cuda")
                run = split_runner(c, plans.cols_chunks(plans.Problem(*shape, dtn, op, log)), shape) \
                    if MODE == "split" else runner(c, *shape, 0)
                bp = 0 if b is None else b.data_ptr()
                lines.append((label, (lambda run=run, ws=ws, a=a, bp=bp: run(a.data_ptr(), bp, out.data_ptr(),
                                                                                ws.data_ptr(), s)),
                              f"{res[c.expression].registers}/{res[c.finish].registers}"))
            for label, fn, regs in lines:
                out.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                bad = check()
                _, ms, copy = measure(fn, out, a, b, 1, "x", moved, check=False)
                print(f"{name:7} {sh:14} r{rnd:<2} {label:12} {regs or '':>7} " + columns(bad, ms, copy, moved),
                      flush=True)
            with torch.no_grad():
                ref_call()
                ms, copy = against_copy(ref_call, moved)
            print(f"{name:7} {sh:14} r{rnd:<2} {'torch.compile':12} {'':>7} " + columns(-1, ms, copy, moved), flush=True)
            x = a = b = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
