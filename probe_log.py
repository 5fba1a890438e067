import io, subprocess, sys
from pathlib import Path
SRC = Path("src/bwlab/workloads/transpose/kernels/skinnyperm.cu").resolve()
CHILD = r'''
import io, sys
from pathlib import Path
from cuda.core import Program, ProgramOptions
from bwlab.core import build
src = Path(sys.argv[1]); nocache = sys.argv[2] == "1"; expr = sys.argv[3]
kw = dict(no_cache=True) if nocache else {}
opts = ProgramOptions(name=src.name, no_source_include=True, arch="sm_90", std=build.STD,
                      include_path=[str(d) for d in build._include_dirs(src)], ptxas_options=["-v"], lineinfo=True, **kw)
log = io.StringIO()
Program(src.read_text(), "c++", options=opts).compile("cubin", name_expressions=(expr,), logs=log)
print(len(log.getvalue()))
'''
def main():
    import cuda.core
    print("cuda.core", cuda.core.__version__)
    for nocache in ("0", "1"):
        for expr in ("widePerm<2,58,2>", "widePerm<2,58,2>", "widePerm<1,30,2>"):
            r = subprocess.run([sys.executable, "-c", CHILD, str(SRC), nocache, expr], capture_output=True, text=True)
            print("no_cache" if nocache == "1" else "default ", expr, r.stdout.strip(), r.stderr[-300:])
if __name__ == "__main__":
    main()
