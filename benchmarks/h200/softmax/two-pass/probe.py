"""The public softmax on the bench's strided-axis cases (and the long rows'), checked then timed
beside a device-to-device copy of the same bytes, for an A/B of two trees in one run:
`PYTHONPATH=<tree>/src python3 benchmarks/h200/softmax/two-pass/probe.py LABEL [all|strided|rows] [nocheck]`
(the copy and the softmax timed alternately, 50 times each, medians).
Check: float32 within the stated tolerance of a float64 reference, 16-bit within one unit in the
last place of the correctly rounded result, on fresh random data with the output poisoned."""
import sys

import torch

import bwlab

CASES = [((16, 8192, 1024), 1), ((8192, 8192), 0), ((1024, 131072), -1), ((4096, 262144), -1), ((64, 4194304), -1)]
DT = {"float32": torch.float32, "bfloat16": torch.bfloat16}


def paired_ms(fn, ref, reps=50, warm=3):
    """Medians of fn and of ref, timed alternately (so that clock drift hits both alike)."""
    for _ in range(warm):
        fn()
        ref()
    ts = {fn: [], ref: []}
    for _ in range(reps):
        for f in (ref, fn):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            f()
            b.record()
            b.synchronize()
            ts[f].append(a.elapsed_time(b))
    return [sorted(ts[f])[reps // 2] for f in (fn, ref)]


def bad_count(out, x, dim, log):
    ref = (torch.log_softmax if log else torch.softmax)(x.double(), dim)
    if out.dtype == torch.float32:
        err = (out.double() - ref).abs()
        tol = 1e-5 * (1 + ref.abs()) if log else 1e-6 + 1e-5 * ref.abs()
        ok = err <= tol
    else:
        def ordered(t):
            u = t.view(torch.int16).to(torch.int32) & 0xFFFF
            return torch.where(u >= 0x8000, 0x8000 - u, u)
        ok = (ordered(out) - ordered(ref.to(out.dtype))).abs() <= 1
    ok |= torch.isnan(out) & torch.isnan(ref)
    return int((~ok).sum())


def main(label, which, check):
    cases = [c for c in CASES if which == "all" or (which == "strided") == (c[1] != -1)]
    g = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'tree':8} {'case':26} {'dtype':9} {'op':4} {'kernel':12} {'bad':>4} {'GB/s':>6} {'%copy':>6}")
    for shape, dim in cases:
        for d in DT:
            x = (torch.randn(*shape, device="cuda", generator=g) * 3).to(DT[d])
            dst = torch.empty_like(x)
            for log in (False, True):
                out = torch.full_like(x, float("nan"))
                bwlab.softmax(x, dim, log=log, out=out)
                torch.cuda.synchronize()
                bad = bad_count(out, x, dim, log) if check else -1
                ms, copy = paired_ms(lambda: bwlab.softmax(x, dim, log=log, out=out), lambda: dst.copy_(x))
                kern = bwlab.explain_softmax(x, dim, log=log).split(" ")[0]
                gbs = 2 * x.numel() * x.element_size() / ms / 1e6
                print(f"{label:8} {str(list(shape)) + ' d' + str(dim):26} {d:9} {'log' if log else 'fwd':4} {kern:12} "
                      f"{bad:4d} {gbs:6.0f} {100 * copy / ms:6.1f}", flush=True)
            x = dst = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "all", "nocheck" not in sys.argv)
