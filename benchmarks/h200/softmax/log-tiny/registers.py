"""Registers and spills of every softmax kernel instantiation the package builds, against the tree
before the change (unpacked at OLD: git archive REV src | tar -x -C OLD), with the NVRTC installed
here (no GPU needed). From the repository root:
PYTHONPATH=src python3 benchmarks/h200/softmax/log-tiny/registers.py OLD/src"""
import json
import subprocess
import sys

from bwlab.core import build
from bwlab.workloads.softmax import plans


def resources():
    out = {}
    for src, exprs in plans.expressions().items():
        res = build.compile_each(src, exprs, "sm_90").resources
        out[src.name] = {e: [r.registers, r.spill_stores, r.spill_loads] for e, r in res.items()}
    return out


def main():
    if len(sys.argv) == 3:  # the child run in the old tree: its expressions' resources as JSON
        print(json.dumps(resources()))
        return
    from cuda.bindings import nvrtc
    print("NVRTC", nvrtc.nvrtcVersion()[1:])
    new = resources()
    env = {"PYTHONPATH": sys.argv[1], "PATH": "/usr/bin:/bin"}
    old = json.loads(subprocess.run([sys.executable, __file__, sys.argv[1], "old"], env=env, check=True,
                                    capture_output=True, text=True).stdout)
    for f in sorted(new):
        spills = {e: r for e, r in new[f].items() if r[1] or r[2]}
        both = [e for e in new[f] if e in old.get(f, {})]
        diff = [(e, old[f][e], new[f][e]) for e in both if old[f][e] != new[f][e]]
        print(f"{f}: {len(new[f])} instantiations ({len(both)} in both trees), spills: {spills or 'none'}")
        for e, o, n in diff:
            print(f"   {e}: {o} -> {n}")


if __name__ == "__main__":
    main()
