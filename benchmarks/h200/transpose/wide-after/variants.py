"""Copies of the package for probe.py: `python3 variants.py NAME DEST [SRC]` copies SRC (../../../../src
when not given) to DEST and patches skinnyperm.cu's widePerm:
- base: unchanged;
- nox: lane 31's word after the run (x, one word a row gathered from S rows: S sectors of the L2 for
  4 bytes each) not loaded but made up from registers. The output is wrong where a row's last bytes
  of a run need it: an upper bound on what a correct way to skip the gather could gain, not a kernel;
- m1, m2 (on a tree with after-mode.patch applied to `git archive b1a7035 src`, which also carries
  tallPerm's change of ../tall-words; its WIDE_AFTER_MODE macro became the kernel's SHARE): x gathered
  only for rows that start past a word (m != 0: the others' funnel shift does not read it); m2 also
  takes it from the next warp's first words through shared memory where every warp of the block has
  a whole run (one barrier a run), the block's last warp gathering as m1;
- share (on a tree with the kernel's SHARE): every wide side's SHARE form (plans.PERM_SHARED all of them),
  the block-count specializations repeated for those forms."""
import pathlib
import re
import shutil
import sys

SRC = pathlib.Path(__file__).resolve().parents[4] / "src"
KERNEL = "bwlab/workloads/transpose/kernels/skinnyperm.cu"
LOAD = "    if (s < S) x[h] = wide_load<L2>(in + s * n * E - ((s * nm) & 3) + 128 * (step0 + KK));\n"
PLANS = "bwlab/workloads/transpose/plans.py"
SHARED = re.compile(r"^PERM_SHARED = .*$", re.M)
MODE = "#define WIDE_AFTER_MODE 0\n"
FAKE = "    if (s < S) x[h] = (unsigned)step0 * 2654435761u ^ (unsigned)s;\n"


def main(name, dest, src=SRC):
    assert name in ("base", "nox", "m1", "m2", "share"), name
    dest = pathlib.Path(dest)
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__"))
    k = dest / KERNEL
    text = k.read_text()
    assert name not in ("base", "nox") or text.count(LOAD) == 1
    if name == "nox":
        text = text.replace(LOAD, FAKE)
    if name in ("m1", "m2"):
        assert text.count(MODE) == 1
        text = text.replace(MODE, MODE.replace("0", name[1]))
    if name == "share":
        text += "".join(re.sub(r", false, (\d+)\)$", r", true, \1)", line) + "\n"
                        for line in text.splitlines() if line.startswith("WIDE_PERM_BLOCKS("))
        plans = dest / PLANS
        ptext = plans.read_text()
        assert len(SHARED.findall(ptext)) == 1
        every = "PERM_SHARED = {1: frozenset(range(2, 65)), 2: frozenset(range(2, 65))}"
        plans.write_text(SHARED.sub(every, ptext))
    k.write_text(text)


if __name__ == "__main__":
    main(*sys.argv[1:4])
