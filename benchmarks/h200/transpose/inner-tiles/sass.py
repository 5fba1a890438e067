"""No GPU: registers and spills of skinnytile.cu's instantiations (NVRTC, sm_90), and in the SASS of
skinnyTile's plain (inner) tall path the order of a thread's nine 16-byte loads and its first shared
stores: on this tree, on a copy without the stores' dependency on every loaded word (after_all), and
the spills of 16-byte elements given the plain path. Needs cuobjdump and nvdisasm on PATH (PyPI:
nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm). `PYTHONPATH=../../../../src python3 sass.py` from here."""
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from bwlab.core import build
from bwlab.workloads.transpose import plans

SRC = plans.SKINNYTILE


def variant(edit) -> Path:
    """A copy of skinnytile.cu (with its headers) with one edit."""
    d = Path(tempfile.mkdtemp())
    for f in SRC.parent.iterdir():
        shutil.copy(f, d / f.name)
    text = SRC.read_text()
    new = edit(text)
    assert new != text, "the edit did not apply"
    (d / SRC.name).write_text(new)
    return d / SRC.name


def plain_path_order(src: Path, expr: str) -> str:
    """'L' a 16-byte global load, 'S' a shared store, in the plain path's first 14 of them."""
    b = build.compile_source(src, [expr], "sm_90")
    sass = subprocess.run(["cuobjdump", "-sass", b.cubin_path], capture_output=True, text=True, check=True).stdout
    ops = re.findall(r"\b(EXIT|LDG\.E\.128|STS(?:\.128)?)\b", sass)
    after = ops[[i for i, o in enumerate(ops) if o == "EXIT"][1] + 1:]  # the plain path follows the second EXIT
    return "".join("L" if o.startswith("LDG") else "S" for o in after if o != "EXIT")[:14]


if __name__ == "__main__":
    print(f"NVRTC {build.nvrtc_version()}, sm_90")
    res = build.compile_each(SRC, plans.expressions()[SRC], "sm_90").resources
    for e, r in sorted(res.items()):
        print(f"  {e:24} {r.registers:3d} registers, {r.spills} spilled")
    print("plain path, skinnyTile<4,true>, first 14 of loads (L) and shared stores (S):")
    print("  this tree:           ", plain_path_order(SRC, "skinnyTile<4,true>"))
    no_dep = variant(lambda t: t.replace("  if (!GUARD) sm += after_all", "  if (false) sm += after_all"))
    print("  without after_all:   ", plain_path_order(no_dep, "skinnyTile<4,true>"))
    plain16 = variant(lambda t: t.replace("if (E < 16 && inner_tile(", "if (inner_tile("))
    r = build.compile_source(plain16, ["skinnyTile<16,true>"], "sm_90").resources["skinnyTile<16,true>"]
    print(f"16-byte elements on the plain path: {r.registers} registers, {r.spills} spilled")
