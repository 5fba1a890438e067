"""Copies of the package with colsTeam's teams started in more phases, for probe.py:
`python3 variants.py NAME DEST` copies ../../../../src to DEST and patches it (NAME: VARIANTS).
- base: unchanged (team g waits (g % 3) * 3 us before its first copies);
- p6s3: (g % 6) * 3 us, so that the meetings of a round's teams spread over six times instead of three;
- p6s15: (g % 6) * 1.5 us, the same spread over the 7.5 us that three phases took;
- p4s3: (g % 4) * 3 us."""
import pathlib
import shutil
import sys

SRC = pathlib.Path(__file__).resolve().parents[4] / "src"
KERNEL = "bwlab/workloads/softmax/kernels/colscluster.cu"
VARIANTS = {"base": None, "p6s3": (6, 3000), "p6s15": (6, 1500), "p4s3": (4, 3000)}
FORMS = ["constexpr unsigned TEAM_PHASE_NS = 3000;\n", "  if (team % 3 == 0) return;\n",
         "    const unsigned wait = team % 3 * TEAM_PHASE_NS;\n"]


def patched(text, name):
    if VARIANTS[name] is None:
        return text
    phases, ns = VARIANTS[name]
    for f in FORMS:
        assert text.count(f) == 1, f
    text = text.replace(FORMS[0], f"constexpr unsigned TEAM_PHASE_NS = {ns};\n")
    text = text.replace(FORMS[1], f"  if (team % {phases} == 0) return;\n")
    return text.replace(FORMS[2], f"    const unsigned wait = team % {phases} * TEAM_PHASE_NS;\n")


def main(name, dest):
    dest = pathlib.Path(dest)
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(SRC, dest, ignore=shutil.ignore_patterns("__pycache__"))
    k = dest / KERNEL
    k.write_text(patched(k.read_text(), name))


if __name__ == "__main__":
    main(*sys.argv[1:])
