"""Where 16-bit log-softmax misses one unit in the last place of the correctly rounded float64
reference, on ../stored-terms/probe.py's inputs (sigma 1, sigma 40, one element of 85 a row): the
kernel the dispatch picks for each shape, and the first few misses with their input, output and
reference. From this folder: PYTHONPATH=../../../../src python3 where.py"""
import sys
from pathlib import Path

import torch

import bwlab

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "stored-terms"))
from probe import DT, inputs, ordered  # noqa: E402

SHAPES = [((64, 1000), -1), ((4096, 4096), -1), ((256, 131072), -1), ((1024, 131072), -1), ((16, 8192, 1024), 1),
          ((64, 1048576), -1)]


def main():
    for dt in ("bfloat16", "float16"):
        for shape, dim in SHAPES:
            for name, x in zip(("sigma1", "sigma40", "one85"), inputs(shape, dim, DT[dt])):
                out = torch.full_like(x, float("nan"))
                bwlab.softmax(x, dim, log=True, out=out)
                ref64 = torch.log_softmax(x.double(), dim)
                ref = ref64.to(out.dtype)
                far = ((ordered(out) - ordered(ref)).abs() > 1) & ~(torch.isnan(out) & torch.isnan(ref))
                n = int(far.sum())
                kern = bwlab.explain_softmax(x, dim=dim, log=True)
                print(f"{dt:8s} {str(list(shape)):18s} {dim:3d} {name:8s} bad {n:7d}  {kern[:60]}", flush=True)
                if n:
                    idx = far.nonzero()[:4]
                    peak = x.amax(dim, keepdim=True)
                    for i in idx:
                        t = tuple(i.tolist())
                        at = tuple(0 if d == dim % x.ndim else v for d, v in enumerate(t))
                        print(f"    at {t}: x {float(x[t]):.6g} out {float(out[t]):.6g} ref {float(ref64[t]):.6g}"
                              f" max of its slice {float(peak[at]):.6g}")
                del out, ref64, ref, far
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
