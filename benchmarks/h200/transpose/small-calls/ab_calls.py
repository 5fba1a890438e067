"""Small calls of the public API timed in one process, for an A/B of two trees run alternately
(ab_calls.sh): `PYTHONPATH=<tree>/src python3 ab_calls.py LABEL ROUND`. Microseconds a call (host
clock: the mean of 20000 back-to-back calls after 2000 of warm-up, the GPU drained before and after,
as parts.py), each call's output checked once against the peer's first."""
import sys

import cupy
import torch

import bwlab

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from parts import per_call  # noqa: E402


def main(label, rnd):
    x = cupy.random.rand(32, 32, dtype=cupy.float32)
    out = cupy.empty((32, 32), cupy.float32)
    t = torch.from_dlpack(x)
    to = torch.empty(32, 32, device="cuda")
    s = torch.randn(64, 1024, device="cuda")
    so = torch.empty_like(s)
    cases = [("cupy 32x32 transpose(x, out)", lambda: bwlab.transpose(x, out)),
             ("cupy 32x32 transpose(x)", lambda: bwlab.transpose(x)),
             ("torch 32x32 transpose(t, out)", lambda: bwlab.transpose(t, to)),
             ("torch 32x32 transpose(t)", lambda: bwlab.transpose(t)),
             ("torch 64x1024 softmax(s, out=)", lambda: bwlab.softmax(s, -1, out=so))]
    bwlab.transpose(x, out)
    bwlab.transpose(t, to)
    bwlab.softmax(s, -1, out=so)
    ok = bool((out == x.T).all()) and bool((to == t.T).all()) and bool(torch.allclose(so, torch.softmax(s, -1)))
    for name, fn in cases:
        print(f"r{rnd} {label:5} {name:32} {per_call(fn):6.2f} us {'ok' if ok else 'WRONG'}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
