"""Softmax gradients down dim 1 of [4, 32768, 1024], where torch.compile led bwlab's colsChunks in the
bench for bfloat16 (0.95x): each launch of both, for Nsight Compute to time one by one (run from this
folder as `PYTHONPATH=../../../../src ncu ... python3 probe.py`): bwlab.softmax_backward's three
launches and torch.compile's kernels, float32 and bfloat16, twice each, the output checked once
against torch's own gradient in float64 (printed)."""
import torch

import bwlab

SHAPE, DIM = (4, 32768, 1024), 1


def main():
    for dt in (torch.bfloat16, torch.float32):
        x = (torch.randn(*SHAPE, device="cuda") * 3).to(dt)
        y = torch.softmax(x.float(), DIM).to(dt)
        g = torch.randn(*SHAPE, device="cuda").to(dt)
        out = torch.empty_like(y)
        tc = torch.compile(lambda y, g: torch.ops.aten._softmax_backward_data(g, y, DIM, dt), dynamic=False)
        for _ in range(2):
            bwlab.softmax_backward(y, g, DIM, out=out)
            ref = tc(y, g)
        torch.cuda.synchronize()
        yd, gd = y.double(), g.double()
        exact = yd * (gd - (yd * gd).sum(DIM, keepdim=True))
        print(dt, bwlab.explain_softmax(y, DIM, backward=True), "max |bwlab - exact|",
              (out.double() - exact).abs().max().item(), "max |torch.compile - exact|",
              (ref.double() - exact).abs().max().item(), flush=True)


if __name__ == "__main__":
    main()
