"""L2 prefetch-size hints on the loads of the kernels that read short row segments: softmax's
asynchronous copies into shared memory (colsCluster, colsTeam, rowStream, rowTeam) and the
misaligned byte transpose's word loads (tileWholeWords). `make` writes three trees under
/tmp/l2p (none: the repository's kernels; 128 and 256: the same with `.L2::128B` or `.L2::256B`
on those loads); `run LABEL` (PYTHONPATH=/tmp/l2p/<tree>/src) checks then times each case beside
a copy of the same bytes (softmax: ../softmax/meet-tree/probe.py's measure, 3 rounds of 9 batches
of 8 calls; transpose: bit-exact on poisoned output, then the same timing).
From the repository root: python3 benchmarks/h200/l2-prefetch/probe.py make, then for each tree
PYTHONPATH=/tmp/l2p/<tree>/src python3 benchmarks/h200/l2-prefetch/probe.py run <tree>.
`run LABEL ab`: the A/B of the tree before and the one with the hints kept (run-ab.sh)."""
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
EDITS = {  # file -> [(old, new with {h} for the hint)]
    "src/bwlab/workloads/softmax/kernels/softmax.cuh": [
        ('"cp.async.cg.shared.global [%0], [%1], 16;"', '"cp.async.cg.shared.global{h} [%0], [%1], 16;"'),
        ('"cp.async.cg.shared.global [%0], [%1], 16, %2;"', '"cp.async.cg.shared.global{h} [%0], [%1], 16, %2;"')],
    "src/bwlab/workloads/transpose/kernels/whole.cu": [
        ("            v[p][g] = *reinterpret_cast<const unsigned*>(\n"
         "                x + (p * RSP + g) * ldb - ((ph0 + (unsigned)(wrow + p * RSP + g) * m4) & 3u));",
         "            asm(\"ld.global.nc{h}.u32 %0, [%1];\" : \"=r\"(v[p][g]) : \"l\"(\n"
         "                x + (p * RSP + g) * ldb - ((ph0 + (unsigned)(wrow + p * RSP + g) * m4) & 3u)));")],
}
TREES = {"none": None, "128": ".L2::128B", "256": ".L2::256B"}


def make():
    for name, hint in TREES.items():
        dst = Path("/tmp/l2p") / name / "src"
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(ROOT / "src", dst)
        if hint is None:
            continue
        for f, edits in EDITS.items():
            p = dst.parent / f
            text = p.read_text()
            for old, new in edits:
                assert text.count(old) == 1, (f, old)
                text = text.replace(old, new.format(h=hint))
            p.write_text(text)
    print("trees:", ", ".join(TREES))


SOFTMAX = [((16, 8192, 1024), 1), ((8192, 8192), 0), ((4, 32768, 1024), 1), ((1024, 131072), -1)]
if "ab" in sys.argv:  # the A/B of the kept hints: colsCluster's cases (and a colsTeam one, unchanged)
    SOFTMAX = [((16, 8192, 1024), 1), ((8192, 8192), 0), ((32, 2048, 1024), 1), ((4, 32768, 1024), 1)]
TRANSPOSE = [((16383, 16389), "uint8"), ((4, 8191, 16389), "uint8"), ((20011, 13417), "uint8"),
             ((11587, 11593), "int16"), ((4, 5793, 11593), "int16")]


def run(label):
    import torch
    import bwlab
    sys.path.insert(0, str(ROOT / "benchmarks/h200/softmax/meet-tree"))
    from probe import DT, columns, measure, against_copy  # noqa: E402
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for shape, dim in SOFTMAX:
        for d in DT:
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            out = torch.empty_like(x)
            fn = lambda: bwlab.softmax(x, dim, out=out)  # noqa: E731
            kern = bwlab.explain_softmax(x, dim).split(" ")[0]
            moved = 2 * x.numel() * x.element_size()
            bad, ms, copy = measure(fn, out, x, None, dim, "fwd", moved, True)
            print(f"{label:5} softmax   {str(list(shape)) + ' d' + str(dim):22} {d:9} {kern:12} "
                  + columns(bad, ms, copy, moved), flush=True)
            x = out = fn = None
            torch.cuda.empty_cache()
    for shape, name in TRANSPOSE:
        dt = getattr(torch, name)
        lo, hi = (0, 256) if name == "uint8" else (-30000, 30000)
        x = torch.randint(lo, hi, shape, device="cuda", generator=g0, dtype=dt)
        out = torch.full((*shape[:-2], shape[-1], shape[-2]), 0x5A, dtype=dt, device="cuda")
        bwlab.transpose(x, out=out)
        torch.cuda.synchronize()
        bad = int((out != x.transpose(-1, -2)).sum())
        moved = 2 * x.numel() * x.element_size()
        ms, copy = against_copy(lambda: bwlab.transpose(x, out=out), moved)
        print(f"{label:5} transpose {'x'.join(map(str, shape)):22} {name:9} {'dispatch':12} "
              + columns(bad, ms, copy, moved), flush=True)
        x = out = None
        torch.cuda.empty_cache()


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make()
    else:
        run(sys.argv[2])
