"""colsTeam's copies into shared memory asking the L2 for 256 bytes a miss (`.L2::256B`, as
colsCluster's do), against its plain copies. `make` writes two trees under /tmp/tp: none (the
repository's src) and 256 (colsTeam's first copies and its refills with the hint). `run LABEL`
(PYTHONPATH=/tmp/tp/<tree>/src) runs each case through the public API: output poisoned, checked
against a float64 reference (bad = 0: every element within tolerance), then timed beside a copy of
the same bytes (../meet-tree/probe.py's measure: 3 alternating rounds of 9 batches of 8 calls).
From the repository root: python3 benchmarks/h200/softmax/team-prefetch/probe.py make, then
run.sh (the two trees alternately, three rounds each)."""
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
CU = "src/bwlab/workloads/softmax/kernels/colscluster.cu"
EDITS = [  # (old, new): colsTeam's copies with the hint on 128-byte strips
    ("  Sh::copy_groups(sa, sb, a, b, base, col0, M, rows, per, S);\n",
     "  Sh::template copy_groups<W == 128>(sa, sb, a, b, base, col0, M, rows, per, S);\n"),
    ("          cp_async16_at(ua + q * 16, a + in, ok);\n          if (Op::IN == 2) cp_async16_at(ub + q * 16, b + in, ok);",
     "          cp_async16_at<W == 128>(ua + q * 16, a + in, ok);\n"
     "          if (Op::IN == 2) cp_async16_at<W == 128>(ub + q * 16, b + in, ok);"),
]
# (shape, dim, op): the cases on colsTeam (gradients down 8192-16384 rows, everything down 32768),
# and two controls on kernels the edit leaves alone (colsChunks, colsCluster)
CASES = [((16, 8192, 1024), 1, "bwd"), ((8192, 8192), 0, "bwd"), ((8, 16384, 1024), 1, "bwd"),
         ((4, 32768, 1024), 1, "bwd"), ((4, 32768, 1024), 1, "fwd"), ((4, 32768, 1024), 1, "log"),
         ((16, 8192, 1024), 1, "fwd")]


def make():
    for name in ("none", "256"):
        dst = Path("/tmp/tp") / name / "src"
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(ROOT / "src", dst)
        if name == "256":
            p = dst.parent / CU
            text = p.read_text()
            for old, new in EDITS:
                assert text.count(old) == 1, old
                text = text.replace(old, new)
            p.write_text(text)
    print("trees: /tmp/tp/none, /tmp/tp/256")


def run(label):
    import torch
    import bwlab
    sys.path.insert(0, str(ROOT / "benchmarks/h200/softmax/meet-tree"))
    from probe import DT, columns, measure  # noqa: E402
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for shape, dim, op in CASES:
        for d in DT:
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            if op == "bwd":
                y = torch.softmax(x.float(), dim).to(DT[d])
                g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
                out = torch.empty_like(y)
                fn = lambda: bwlab.softmax_backward(y, g, dim, out=out)  # noqa: E731
                kern, moved = bwlab.explain_softmax(y, dim, backward=True), 3 * y.numel() * y.element_size()
            else:
                y, g = x, None
                out = torch.empty_like(x)
                fn = lambda: bwlab.softmax(x, dim, log=op == "log", out=out)  # noqa: E731
                kern, moved = bwlab.explain_softmax(x, dim, log=op == "log"), 2 * x.numel() * x.element_size()
            bad, ms, copy = measure(fn, out, y, g, dim, op, moved, True)
            print(f"{label:5} {op:4} {str(list(shape)) + ' d' + str(dim):22} {d:9} {kern.split(' ')[0]:12} "
                  + columns(bad, ms, copy, moved), flush=True)
            x = y = g = out = fn = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    make() if sys.argv[1] == "make" else run(sys.argv[2])
