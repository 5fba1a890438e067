"""Registers and spills of the stored-terms kernels, and whether every other instantiation of
colscluster.cu and rowstream.cu compiles to the registers it had before the change, with the NVRTC
installed here (no GPU needed). From the repository root, with the tree before the change unpacked
at OLD (git archive dc4beb9 src | tar -x -C OLD):
PYTHONPATH=src python3 benchmarks/h200/softmax/stored-terms/registers.py OLD/src"""
import json
import subprocess
import sys

from bwlab.core import build
from bwlab.workloads.softmax import plans

FILES = ("colscluster.cu", "rowstream.cu")


def resources(exprs_by_file=None):
    out = {}
    for src, exprs in plans.expressions().items():
        if src.name in FILES:
            use = exprs_by_file[src.name] if exprs_by_file else exprs
            res = build.compile_each(src, use, "sm_90").resources
            out[src.name] = {e: [r.registers, r.spill_stores, r.spill_loads] for e, r in res.items()}
    return out


def main():
    if len(sys.argv) == 3:  # the child run in the old tree: its expressions' resources as JSON
        print(json.dumps(resources()))
        return
    from cuda.bindings import nvrtc
    print("NVRTC", nvrtc.nvrtcVersion()[1:])
    new = resources()
    for f in FILES:
        spills = {e: r for e, r in new[f].items() if r[1] or r[2]}
        print(f, len(new[f]), "instantiations, spills:", spills or "none")
        for e, r in sorted(new[f].items()):
            if ",true" in e:
                print("  ", e, r[0], "registers")
    env = {"PYTHONPATH": sys.argv[1], "PATH": "/usr/bin:/bin"}
    old = json.loads(subprocess.run([sys.executable, __file__, sys.argv[1], "old"], env=env, check=True,
                                    capture_output=True, text=True).stdout)
    same = {f: {e: r for e, r in new[f].items() if e in old[f]} for f in FILES}
    n = sum(len(v) for v in same.values())
    diff = [(f, e, old[f][e], r) for f in FILES for e, r in same[f].items() if old[f][e] != r]
    print(n, "instantiations in both trees;", len(diff), "with other registers or spills:", diff or "none")


if __name__ == "__main__":
    main()
