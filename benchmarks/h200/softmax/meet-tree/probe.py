"""The public softmax, log-softmax and softmax gradient on strided axes that run colsCluster or
colsSpread, checked then timed beside a device-to-device copy of the same bytes, for an A/B of
two trees in one run: `PYTHONPATH=<tree>/src python3 probe.py LABEL [nocheck] [small]` (small: the
clusters of 2 and 4, and [16, 8192, 1024]).
Timing: events around batches of 8 calls, 9 batches, the median; the call and the copy
alternate for 3 rounds and the medians of the rounds are printed.
Check: float32 within the stated tolerance of a float64 reference (gradients: 1e-5 of the
scale of their terms), 16-bit within one unit in the last place of the correctly rounded
result (gradients: 2^-7 of that scale), on fresh random data with the output poisoned."""
import statistics
from pathlib import Path
import sys

import torch

import bwlab

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sweeps"))
from sweep import timed  # noqa: E402

CASES = [((16, 8192, 1024), 1), ((8192, 8192), 0), ((8, 16384, 1024), 1), ((64, 1024, 2048), 1),
         ((32, 2048, 1024), 1)]
DT = {"float32": torch.float32, "bfloat16": torch.bfloat16}
OPS = ("fwd", "log", "bwd")


def batch_ms(fn, batch=8, reps=9):
    """The median ms of fn over reps batches of `batch` calls between events (../sweeps' timed)."""
    return timed(fn, reps=reps, batch=batch)


def against_copy(fn, moved, rounds=3):
    """(median ms of fn, median ms of a device copy of moved / 2 bytes), the two alternating."""
    a = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    ks, cs = [], []
    for _ in range(rounds):
        ks.append(batch_ms(fn))
        cs.append(batch_ms(lambda: b.copy_(a)))
    return statistics.median(ks), statistics.median(cs)


def measure(fn, out, x, g, dim, op, moved, check=True):
    """(bad, ms, copy ms): out poisoned, fn run once and its output checked (bad = -1 unchecked),
    then fn timed beside a copy of the same bytes."""
    out.fill_(float("nan"))
    fn()
    torch.cuda.synchronize()
    bad = bad_count(out, x, g, dim, op) if check else -1
    return (bad,) + against_copy(fn, moved)


def columns(bad, ms, copy, moved):
    """The printed tail of a line: bad, ms, GB/s, % of a copy."""
    return f"{bad:4d} {ms:8.4f} {moved / ms / 1e6:6.0f} {100 * copy / ms:6.1f}"


def ulp_bad(out, ref):
    def ordered(t):
        u = t.view(torch.int16).to(torch.int32) & 0xFFFF
        return torch.where(u >= 0x8000, 0x8000 - u, u)
    return (ordered(out) - ordered(ref.to(out.dtype))).abs() > 1


def bad_count(out, x, g, dim, op):
    xd = x.double()
    if op == "bwd":
        ref = xd * (g.double() - (xd * g.double()).sum(dim, keepdim=True))
        scale = ref.abs() + xd.abs() * (xd * g.double()).abs().sum(dim, keepdim=True) + 1e-3
        tol = (1e-5 if out.dtype == torch.float32 else 2 ** -7) * scale + 1e-6
        bad = ~((out.double() - ref).abs() <= tol)
    else:
        ref = (torch.log_softmax if op == "log" else torch.softmax)(xd, dim)
        if out.dtype == torch.float32:
            err = (out.double() - ref).abs()
            tol = 1e-5 * (1 + ref.abs()) if op == "log" else 1e-6 + 1e-5 * ref.abs()
            bad = ~(err <= tol)
        else:
            bad = ulp_bad(out, ref)
    return int((bad & ~(torch.isnan(out) & torch.isnan(ref))).sum())


def main(label, check, small):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'tree':6} {'case':22} {'dtype':9} {'op':4} {'kernel':12} {'bad':>4} {'ms':>8} {'GB/s':>6} {'%copy':>6}")
    for shape, dim in CASES if not small else [CASES[0]] + CASES[3:]:
        for d in DT:
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            for op in OPS:
                if op == "bwd":
                    y = torch.softmax(x.float(), dim).to(DT[d])
                    g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
                    fn = lambda: bwlab.softmax_backward(y, g, dim, out=out)  # noqa: E731
                    src, kern = y, bwlab.explain_softmax(y, dim, backward=True)
                else:
                    y, g = x, None
                    fn = lambda: bwlab.softmax(x, dim, log=op == "log", out=out)  # noqa: E731
                    src, kern = x, bwlab.explain_softmax(x, dim, log=op == "log")
                out = torch.empty_like(src)
                moved = src.numel() * src.element_size() * (3 if op == "bwd" else 2)
                bad, ms, copy = measure(fn, out, y, g, dim, op, moved, check)
                print(f"{label:6} {str(list(shape)) + ' d' + str(dim):22} {d:9} {op:4} {kern.split(' ')[0]:12} "
                      + columns(bad, ms, copy, moved), flush=True)
                out = None
            x = y = g = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1], "nocheck" not in sys.argv, "small" in sys.argv)
