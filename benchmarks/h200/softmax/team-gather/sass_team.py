"""Hash the machine code (.text) of every colsTeam instantiation the API may launch, for comparing
trees: `PYTHONPATH=<tree>/src python3 sass_team.py > OUT.json` (../team-pad/sass_all.py's method, for
one kernel)."""
import hashlib
import json
import sys
from pathlib import Path

from bwlab.core import build
from bwlab.workloads.softmax import plans

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "known-term"))
from sass_cmp import text_of  # noqa: E402


def main():
    s = plans.SRC["colscluster"]
    ex = [e for e in plans.expressions()[s] if e.startswith("colsTeam")]
    b = build.compile_each(s, ex, "sm_90", jobs=2)
    print(json.dumps({e: hashlib.sha1(text_of(bd.cubin_path, f".text.{bd.symbols[e]}")).hexdigest()
                      for e, bd in b.by_expression.items()}, indent=0, sort_keys=True))


if __name__ == "__main__":
    main()
