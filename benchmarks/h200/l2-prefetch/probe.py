"""L2 prefetch-size hints on the loads of the kernels that read short row segments: softmax's
asynchronous copies into shared memory (colsCluster, colsTeam, rowStream, rowTeam) and the
misaligned byte transpose's word loads (tileWholeWords). `make` writes three trees under
/tmp/l2p (none: the repository's kernels; 128 and 256: the same with `.L2::128B` or `.L2::256B`
on those loads); `run LABEL` (PYTHONPATH=/tmp/l2p/<tree>/src) checks then times each case beside
a copy of the same bytes (softmax: ../softmax/meet-tree/probe.py's measure, 3 rounds of 9 batches
of 8 calls; transpose: bit-exact on poisoned output, then the same timing).
From the repository root: python3 benchmarks/h200/l2-prefetch/probe.py make, then for each tree
PYTHONPATH=/tmp/l2p/<tree>/src python3 benchmarks/h200/l2-prefetch/probe.py run <tree>.
`run LABEL ab`: the A/B of the tree before and the one with the hints kept (run-ab.sh).
`make2` / `run LABEL loads`: the hints on the two-read softmax kernels' plain loads; `make3` / `run
LABEL skinny`: on widePerm's loads and the 4-byte cp.async copies (both through run-trees.sh)."""
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
# `make2`: the same hints on the plain 16-byte loads of the two-read kernels (colsChunks' two passes,
# rowRelay and the row kernels through load_packs), trees none2, 1282, 2562 (`run LABEL loads`)
PACK = """  __device__ __forceinline__ void load_cs(const T* p) { raw = __ldcs(reinterpret_cast<const R*>(p)); }"""
PACK_PF = PACK.replace("{", "{{").replace("}", "}}") + """
  __device__ __forceinline__ void load_pf(const T* p) {{
    if constexpr (sizeof(R) == 16) {{
      uint4 v;
      asm("ld.global{h}.v4.u32 {{%0,%1,%2,%3}}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
      raw = v;
    }} else {{
      load(p);
    }}
  }}
  __device__ __forceinline__ void load_cs_pf(const T* p) {{
    if constexpr (sizeof(R) == 16) {{
      uint4 v;
      asm("ld.global.cs{h}.v4.u32 {{%0,%1,%2,%3}}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
      raw = v;
    }} else {{
      load_cs(p);
    }}
  }}"""
EDITS2 = {
    "src/bwlab/workloads/softmax/kernels/softmax.cuh": [
        (PACK, PACK_PF),
        ("pa[k].load_cs(a + p * V);", "pa[k].load_cs_pf(a + p * V);"),
        ("pb[k].load_cs(b + p * V);", "pb[k].load_cs_pf(b + p * V);"),
        ("pa[k].load(a + p * V);", "pa[k].load_pf(a + p * V);"),
        ("pb[k].load(b + p * V);", "pb[k].load_pf(b + p * V);"),
        ("pa[u].load(a + base + (i + u * BY) * M);", "pa[u].load_pf(a + base + (i + u * BY) * M);"),
        ("pb[u].load(b + base + (i + u * BY) * M);", "pb[u].load_pf(b + base + (i + u * BY) * M);"),
        ("pa.load(a + base + i * M);", "pa.load_pf(a + base + i * M);"),
        ("pb.load(b + base + i * M);", "pb.load_pf(b + base + i * M);")],
    "src/bwlab/workloads/softmax/kernels/colschunks.cu": [
        ("pa[u].load(a + base + (i + u * BY) * M);", "pa[u].load_pf(a + base + (i + u * BY) * M);"),
        ("pb[u].load(b + base + (i + u * BY) * M);", "pb[u].load_pf(b + base + (i + u * BY) * M);"),
        ("pa.load(a + base + i * M);", "pa.load_pf(a + base + i * M);"),
        ("pb.load(b + base + i * M);", "pb.load_pf(b + base + i * M);")],
}


def make(edits=EDITS, suffix=""):
    for name, hint in TREES.items():
        dst = Path("/tmp/l2p") / (name + suffix) / "src"
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(ROOT / "src", dst)
        if hint is None:
            continue  # the repository's kernels as they are
        for f, changes in edits.items():
            p = dst.parent / f
            text = p.read_text()
            for old, new in changes:
                assert text.count(old) == 1, (f, old)
                text = text.replace(old, new.format(h=hint) if "{h}" in new else new)
            p.write_text(text)
    print("trees:", ", ".join(t + suffix for t in TREES))


SOFTMAX = [((16, 8192, 1024), 1), ((8192, 8192), 0), ((4, 32768, 1024), 1), ((1024, 131072), -1)]
# `make3`: `.L2::128B` on widePerm's word loads and on the 4-byte cp.async copies (skinnyWords' tiles
# copied in that way), trees none3 (no edit) and 1283 (`run LABEL skinny`)
EDITS3 = {
    "src/bwlab/workloads/transpose/kernels/skinnyperm.cu": [
        ("if (s < S) x[h] = *reinterpret_cast<const unsigned*>(in + s * n * E - ((s * nm) & 3) + 128 * (step0 + KK));",
         "if (s < S) x[h] = ldw(in + s * n * E - ((s * nm) & 3) + 128 * (step0 + KK));"),
        ("for (int j = 0; j < KK; ++j) w[j][s] = *reinterpret_cast<const unsigned*>(p + 128 * j);",
         "for (int j = 0; j < KK; ++j) w[j][s] = ldw(p + 128 * j);"),
        ("// KK steps of a warp from step0 (see widePerm).",
         "__device__ __forceinline__ unsigned ldw(const byte* p) {{\n  unsigned w;\n"
         "  asm(\"ld.global.nc{h}.u32 %0, [%1];\" : \"=r\"(w) : \"l\"(p));\n  return w;\n}}\n"
         "// KK steps of a warp from step0 (see widePerm).")],
    "src/bwlab/core/kernels/common.cuh": [
        ('"cp.async.ca.shared.global [%0], [%1], 4;"', '"cp.async.ca.shared.global{h} [%0], [%1], 4;"'),
        ('"cp.async.ca.shared.global [%0], [%1], 4, %2;"', '"cp.async.ca.shared.global{h} [%0], [%1], 4, %2;"')],
}
SKINNY = [((41, 6547207), "wide"), ((48, 5592407), "wide"), ((64, 4194305), "wide"), ((6547207, 41), "tall"),
          ((8134401, 33), "tall"), ((4194305, 64), "tall")]
LOADS = [((4, 32768, 1024), 1, "bwd"), ((64, 4194304), -1, "fwd"), ((1024, 131072), -1, "bwd"),
         ((32768, 4096), -1, "fwd")]
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
    if "loads" in sys.argv:
        return run_loads(label, g0)
    if "skinny" in sys.argv:
        return run_skinny(label, g0, against_copy, columns)
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


def run_skinny(label, g0, against_copy, columns):
    """uint8 short sides that miss 90% (make3's trees): bit-exact on poisoned output, then timed."""
    import torch
    import bwlab
    for shape, side in SKINNY:
        x = torch.randint(0, 256, shape, device="cuda", generator=g0, dtype=torch.uint8)
        out = torch.full(shape[::-1], 0x5A, dtype=torch.uint8, device="cuda")
        bwlab.transpose(x, out=out)
        torch.cuda.synchronize()
        bad = int((out != x.T).sum())
        moved = 2 * x.numel()
        ms, copy = against_copy(lambda: bwlab.transpose(x, out=out), moved)
        kern = bwlab.explain_transpose(x).split("<")[0]
        print(f"{label:5} transpose {'x'.join(map(str, shape)):22} {side:9} {kern:12} "
              + columns(bad, ms, copy, moved), flush=True)
        x = out = None
        torch.cuda.empty_cache()


def run_loads(label, g0):
    """The two-read kernels' cases (make2's trees): softmax forward or gradient, checked then timed."""
    import torch
    import bwlab
    from probe import DT, columns, measure  # noqa: E402 (meet-tree's, on the path from run)
    for shape, dim, op in LOADS:
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
                fn = lambda: bwlab.softmax(x, dim, out=out)  # noqa: E731
                kern, moved = bwlab.explain_softmax(x, dim), 2 * x.numel() * x.element_size()
            bad, ms, copy = measure(fn, out, y, g, dim, op, moved, True)
            print(f"{label:5} softmax-{op} {str(list(shape)) + ' d' + str(dim):22} {d:9} {kern.split(' ')[0]:12} "
                  + columns(bad, ms, copy, moved), flush=True)
            x = y = g = out = fn = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make()
    elif sys.argv[1] == "make3":
        make(EDITS3, "3")
    elif sys.argv[1] == "make2":
        TREES["none"] = ""  # the methods, without a hint, so that every tree runs the same code but the hint
        make(EDITS2, "2")
    else:
        run(sys.argv[2])
