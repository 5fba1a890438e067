"""The cubins of colscluster.cu and rowstream.cu (every dispatched instantiation, without line
information), compiled here by NVRTC, as a hash: equal hashes of two trees mean the same machine
code. From the repository root: PYTHONPATH=src python3 benchmarks/h200/softmax/stored-terms/cubins.py"""
import hashlib

from cuda.core import Program, ProgramOptions
from bwlab.core import build
from bwlab.workloads.softmax import plans

def main():
    for name in ("colscluster.cu", "rowstream.cu"):
        src = next(s for s in plans.expressions() if s.name == name)
        exprs = plans.expressions()[src]
        opts = ProgramOptions(name=name, no_source_include=True, no_cache=True, arch="sm_90", std=build.STD,
                              include_path=[str(d) for d in build._include_dirs(src)])
        obj = Program(src.read_text(), "c++", options=opts).compile("cubin", name_expressions=tuple(exprs))
        print(name, len(exprs), hashlib.sha256(bytes(obj.code)).hexdigest()[:16])

if __name__ == "__main__":
    main()
