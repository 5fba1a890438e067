"""What torch.compile runs on the cases where its kernel leads bwlab's at the copy roof (run from
this folder as `PYTHONPATH=../../../../src python3 inductor.py DIR` to write each case's generated
code into DIR, or under ncu as `... inductor.py - ncu`: each case's torch.compile kernel, the
dispatch's kernel and a one-warp rowBlock, twice each, for the profiler to read)."""
import sys
from pathlib import Path

import torch
from torch._inductor.utils import run_and_get_code

from bwlab.workloads.softmax import plans
from bwlab.workloads.softmax.launch import runner

CASES = [((131072, 1024), torch.bfloat16, "fwd"), ((4194304, 32), torch.float32, "fwd"),
         ((32768, 4096), torch.bfloat16, "bwd")]


def fns(shape, dt, op):
    x = (torch.randn(*shape, device="cuda") * 3).to(dt)
    if op == "bwd":
        y, g = torch.softmax(x.float(), -1).to(dt), torch.randn(*shape, device="cuda").to(dt)
        tc = torch.compile(lambda y, g: torch.ops.aten._softmax_backward_data(g, y, -1, dt), dynamic=False)
        args = (y, g)
    else:
        y, g = x, None
        tc = torch.compile(lambda x: torch.softmax(x, -1), dynamic=False)
        args = (x,)
    d = "bfloat16" if dt == torch.bfloat16 else "float32"
    p = plans.Problem(shape[0], shape[1], 1, d, "backward" if op == "bwd" else "forward", False)
    out = torch.empty_like(y)
    s = torch.cuda.current_stream().cuda_stream
    mine = [plans.choose(p)] + ([plans.row_block(p, 32)] if op != "bwd" and shape[1] >= 1024 else [])
    runs = [lambda r=runner(c, p.N, p.L, p.M, 0): r(y.data_ptr(), g.data_ptr() if g is not None else 0,
                                                    out.data_ptr(), 0, s) for c in mine]
    return tc, args, runs


def main(dest, mode):
    for shape, dt, op in CASES:
        tc, args, runs = fns(shape, dt, op)
        if mode == "ncu":
            for _ in range(2):
                tc(*args)
                for r in runs:
                    r()
            torch.cuda.synchronize()
            continue
        _, codes = run_and_get_code(tc, *args)
        name = f"{shape[0]}x{shape[1]}-{str(dt).split('.')[-1]}-{op}.py"
        Path(dest, name).write_text("\n\n".join(codes))
        print(name, sum(len(c) for c in codes), "chars")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "code")
