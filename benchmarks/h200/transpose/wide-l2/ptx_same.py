"""The plain-load widePerm instantiations the dispatch launches (plans.PERM_PLAIN_LOADS) against
the same sides in an older tree, where widePerm had no flag: NVRTC's PTX of each kernel's body,
compared with the kernel's and its shared buffer's mangled names taken out. No GPU needed. From
the repository root, with OLD an unpacked `git archive REV src`:
`PYTHONPATH=src python3 benchmarks/h200/transpose/wide-l2/ptx_same.py OLD/src`."""
import re
import sys
from pathlib import Path

from cuda.bindings import nvrtc

from bwlab.workloads.transpose import plans

FILE = "skinnyperm.cu"


def _ok(r):
    assert r[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS, r
    return r[1] if len(r) == 2 else r[1:]


def ptx(root: Path, expr: str) -> str:
    src = root / "bwlab/workloads/transpose/kernels" / FILE
    prog = _ok(nvrtc.nvrtcCreateProgram(src.read_bytes(), FILE.encode(), 0, [], []))
    assert nvrtc.nvrtcAddNameExpression(prog, expr.encode())[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS
    opts = [b"--gpu-architecture=compute_90", b"-std=c++17", b"--no-source-include",
            b"-I" + str(src.parent).encode(), b"-I" + str(root / "bwlab/core/kernels").encode()]
    assert nvrtc.nvrtcCompileProgram(prog, len(opts), opts)[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS
    buf = b" " * _ok(nvrtc.nvrtcGetPTXSize(prog))
    assert nvrtc.nvrtcGetPTX(prog, buf)[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS
    low = _ok(nvrtc.nvrtcGetLoweredName(prog, expr.encode()))
    low = low.decode() if isinstance(low, bytes) else low
    text = re.sub(r"^//.*$", "", buf.decode(), flags=re.M)
    start = text.index(".entry " + low)  # this kernel alone (the file's explicit specializations aside)
    end = text.find(".entry ", start + 1)
    body = text[start:end if end > 0 else len(text)].replace(low, "KERNEL")
    return re.sub(r"_ZZ9wide_permI\w*?EvPKhPhxxE5stage", "STAGE", body)


if __name__ == "__main__":
    old, new = Path(sys.argv[1]), Path(plans.__file__).parents[3]
    print("NVRTC", ".".join(map(str, nvrtc.nvrtcVersion()[1:])))
    differ = 0
    for e in (1, 2):
        for s in sorted(plans.PERM_PLAIN_LOADS[e]):
            expr = plans.perm_expression(e, s, False)
            before = f"widePerm<{e},{s},{plans.perm_steps(s)}>"
            same = ptx(new, expr) == ptx(old, before)
            differ += not same
            print(f"{expr:26} {'same as' if same else 'DIFFERS from'} {before}")
    print(f"{differ} of {sum(map(len, plans.PERM_PLAIN_LOADS.values()))} differ")
