"""Copies of the package for probe.py: `python3 variants.py NAME DEST [SRC]` copies SRC (the tree the
runs were made on: 46bd820's src with ordered.patch applied; ../../../../src when not given) to DEST and
patches skinnyperm.cu so that widePerm builds each step's packed units in the order of the last row
word they read (wide_steps' ORDERED):
- base: unchanged (its kernels compile to the same machine code as before ORDERED existed);
- ord: specializations for the uint8 sides of ORD at the block counts given (the dispatch's own, but
  60 rows at three blocks an SM instead of two);
- all: every widePerm ordered (the primary template and the existing block-count specializations),
  uint8 60 rows at three blocks an SM."""
import pathlib
import shutil
import sys

SRC = pathlib.Path(__file__).resolve().parents[4] / "src"
KERNEL = "bwlab/workloads/transpose/kernels/skinnyperm.cu"
# (rows, word loads fetching whole lines, blocks an SM): the dispatch's forms of uint8 wide sides
ORD = [(41, True, 4), (49, False, 4), (58, True, 3), (59, True, 3), (60, True, 3), (61, True, 3)]
SIDES = [s for s, _, _ in ORD]
PRIMARY = ("widePerm(const byte* __restrict__ in, byte* __restrict__ out, i64 n, i64 full) {\n"
           "  wide_perm<E, S, K, L2>(in, out, n, full);\n")
MACRO = "    wide_perm<E_, S_, K_, L2_>(in, out, n, full);                                                     \\\n"


def main(name, dest, src=SRC):
    assert name in ("base", "ord", "all"), name
    dest = pathlib.Path(dest)
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__"))
    k = dest / KERNEL
    text = k.read_text()
    if name == "ord":
        text += "".join(f"WIDE_PERM_ORDERED(1, {s}, 2, {str(l2).lower()}, {b})\n" for s, l2, b in ORD)
    if name == "all":
        assert text.count(PRIMARY) == 1 and text.count(MACRO) == 1
        text = text.replace(PRIMARY, PRIMARY.replace("L2>(", "L2, true>("))
        text = text.replace(MACRO, MACRO.replace("L2_>(", "L2_, true>("))
        text += "WIDE_PERM_ORDERED(1, 60, 2, true, 3)\n"
    k.write_text(text)


if __name__ == "__main__":
    main(*sys.argv[1:4])
