"""Hash each softmax kernel's machine code (.text) for every instantiation the API and the ladder
may launch: python sass_all.py OUT.json"""
import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path

from bwlab.core import build
from bwlab.workloads.softmax import catalog, plans

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "known-term"))
from sass_cmp import text_of  # noqa: E402


def main():
    todo = defaultdict(set)
    for s, e in plans.expressions().items():
        todo[Path(s)].update(e)
    for k in catalog.KERNELS:
        todo[Path(k.source)].update(k.expressions())
    out = {}
    for src, exprs in todo.items():
        b = build.compile_each(src, sorted(exprs), "sm_90", jobs=2)
        for e, bd in b.by_expression.items():
            data = text_of(bd.cubin_path, f".text.{bd.symbols[e]}")
            out[f"{src.stem}:{e}"] = (hashlib.sha1(data).hexdigest(), len(data), bd.resources[e].registers,
                                       bd.resources[e].spills)
    json.dump(out, open(sys.argv[1], "w"), indent=0, sort_keys=True)
    print(len(out), "kernels")


if __name__ == "__main__":
    main()
