"""Copies of the package with colsTeam's lean write changed, for probe.py:
`python3 variants.py NAME DEST` copies ../../../../src to DEST and patches it (NAME: VARIANTS).
- uN: N rows of y loaded at once a thread at the write (Share::LEAN_U; the package's is 4);
- early: each strip's y prefetched into the L2 before its fold, not at the meeting (then uN as above)."""
import pathlib
import re
import shutil
import sys

SRC = pathlib.Path(__file__).resolve().parents[4] / "src"
KERNEL = "bwlab/workloads/softmax/kernels/colscluster.cu"
VARIANTS = ["u4", "u8", "u16", "early-u4", "early-u8"]
AT_MEET = "                                 if (LEAN) Sh::prefetch_rows(a, b, base, col0, M, rows);  // this strip's y\n"
LOOP = "  for (unsigned j = 0; t < strips; t += G, ++j) {\n"  # colsTeam's loop over its strips


def patched(text, name):
    early = name.startswith("early-")
    u = int(re.fullmatch(r"u(\d+)", name.removeprefix("early-")).group(1))
    old = "static constexpr int LEAN_U = 4;"
    assert text.count(old) == 1 and text.count(AT_MEET) == 1 and text.count(LOOP) == 1
    text = text.replace(old, f"static constexpr int LEAN_U = {u};")
    if early:
        text = text.replace(AT_MEET, "").replace(
            LOOP, LOOP + "    if (LEAN) Sh::prefetch_rows(a, b, base, col0, M, rows);  // this strip's y, before the fold\n")
    return text


def main(name, dest):
    dest = pathlib.Path(dest)
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(SRC, dest, ignore=shutil.ignore_patterns("__pycache__"))
    k = dest / KERNEL
    k.write_text(patched(k.read_text(), name))


if __name__ == "__main__":
    main(*sys.argv[1:])
