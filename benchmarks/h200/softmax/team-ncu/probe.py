"""Softmax down dim 1 of [4, 32768, 1024], where the dispatch runs colsTeam (x read once, strips held
on a team of blocks): bfloat16 ran at 57-59% of a copy against float32's 65-68%. Each dtype's forward
call twice, for Nsight Compute to profile colsTeam's launches (run from this folder as
`PYTHONPATH=../../../../src ncu -k regex:colsTeam ... python3 probe.py`); the output checked once
against float64 (printed)."""
import torch

import bwlab

SHAPE, DIM = (4, 32768, 1024), 1


def main():
    for dt in (torch.bfloat16, torch.float32):
        x = (torch.randn(*SHAPE, device="cuda") * 3).to(dt)
        out = torch.empty_like(x)
        for _ in range(2):
            bwlab.softmax(x, DIM, out=out)
        torch.cuda.synchronize()
        exact = torch.softmax(x.double(), DIM)
        print(dt, bwlab.explain_softmax(x, DIM), "max |bwlab - exact|", (out.double() - exact).abs().max().item(),
              flush=True)


if __name__ == "__main__":
    main()
