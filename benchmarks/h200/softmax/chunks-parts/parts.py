"""colsChunks' three launches timed one by one (the partial pass reads the inputs, the merge reads
the chunks' states, the finishing pass reads the inputs again and writes the output), beside the
whole call through the public API, torch.compile's kernel, a device copy and a plain read of the same
bytes. The chain run by hand is first compared with the API's output (the same kernels where the API
runs colsChunks: 0). From this folder:
PYTHONPATH=../../../../src python3 parts.py"""
import sys
from pathlib import Path

import torch

import bwlab
from bwlab.workloads.softmax import plans
from bwlab.workloads.softmax.launch import runner

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sweeps"))
from sweep import timed  # noqa: E402

CASES = [("bfloat16", "backward", (4, 32768, 1024)), ("float32", "backward", (4, 32768, 1024)),
         ("bfloat16", "forward", (4, 32768, 1024))]
DT = {"bfloat16": torch.bfloat16, "float32": torch.float32}


def main():
    print(f"{'dtype':8s} {'op':8s} {'shape':16s} {'part':22s} {'ms':>8s} {'GB moved':>8s} {'GB/s':>6s}")
    for dt, op, shape in CASES:
        N, L, M = shape
        p = plans.Problem(N, L, M, dt, op, False)
        c = plans.cols_chunks(p)
        g = torch.Generator(device="cuda").manual_seed(3)
        x = torch.randn(shape, device="cuda", generator=g).to(DT[dt])
        if op == "backward":
            a = torch.softmax(x.float(), 1).to(DT[dt])
            b = torch.randn(shape, device="cuda", generator=g).to(DT[dt])
            api = lambda out: bwlab.softmax_backward(a, b, 1, out=out)  # noqa: E731
            ref = torch.compile(lambda y, d: torch.ops.aten._softmax_backward_data(d, y, 1, DT[dt]), dynamic=False)
            peer = lambda: ref(a, b)  # noqa: E731
        else:
            a, b = x, None
            api = lambda out: bwlab.softmax(a, 1, out=out)  # noqa: E731
            ref = torch.compile(lambda v: torch.softmax(v, 1), dynamic=False)
            peer = lambda: ref(a)  # noqa: E731
        want = torch.full_like(a, float("nan"))
        api(want)
        run = runner(c, N, L, M, 0)
        ws = torch.zeros(c.workspace_bytes, dtype=torch.uint8, device="cuda")
        out = torch.full_like(a, float("nan"))
        s = torch.cuda.current_stream().cuda_stream
        bp = b.data_ptr() if b is not None else 0
        run(a.data_ptr(), bp, out.data_ptr(), ws.data_ptr(), s)
        torch.cuda.synchronize()
        diff = float((out.float() - want.float()).abs().max())
        kern = bwlab.explain_softmax(a, dim=1, backward=op == "backward").split(" (")[0]
        cells = {name: cell.cell_contents for name, cell in zip(run.__code__.co_freevars, run.__closure__)}
        part, mid, last, off = cells["part"], cells["mid"], cells["last"], cells["fin_offset"]
        w = ws.data_ptr()
        n = a.numel() * a.element_size()
        ins = 2 if b is not None else 1
        rows = [("partial", lambda: part(s, a.data_ptr(), bp, w), ins * n),
                ("merge", lambda: mid(s, w, w + off), 8 * N * M * (c.chunks + 1)),
                ("finish", lambda: last(s, a.data_ptr(), bp, out.data_ptr(), w + off), (ins + 1) * n),
                ("whole (three launches)", lambda: run(a.data_ptr(), bp, out.data_ptr(), w, s), (ins + 1) * n),
                ("API call", lambda: api(out), (ins + 1) * n),
                ("torch.compile", peer, (ins + 1) * n)]
        src = torch.empty(n * ins, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        rows += [("copy of the inputs' bytes", lambda: dst.copy_(src), 2 * ins * n),
                 ("read of the inputs' bytes", lambda: src.view(torch.float32).sum(), ins * n)]
        print(f"# colsChunks: {c.why}; the API runs {kern}; max |hand-run chain - API| = {diff:.3g}")
        for name, fn, moved in rows:
            ms = timed(fn, reps=15, batch=4)
            print(f"{dt:8s} {op:8s} {str(list(shape)):16s} {name:22s} {ms:8.4f} {moved / 1e9:8.3f} "
                  f"{moved / ms / 1e6:6.0f}", flush=True)
        del x, a, b, out, want, ws, src, dst
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
